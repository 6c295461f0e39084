"""Reproducer of the handle-and-status race on allocations (docs/design/memory-limits.md,
"Allocations qgpu makes itself"); not a test, so pytest does not collect it.

A sibling process keeps writing hObjectNew = 0 and an error status into an RM_ALLOC request
while the tenant allocates video memory through an instance of 8 MiB. Where RM reads the request
itself, it generates handles qgpu never sees and qgpu reads a failure, so nothing is charged
while RM holds the memory. Three cases:
- status: the status alone is rewritten (the handle check catches it);
- handle: the status and the handle, of an RM_ALLOC(0x40) (closed in session 12: qgpu makes
  that allocation itself; test_qgpu_memlimit.py has it as a test);
- class: the same, of an RM_ALLOC that names system memory (0x3E), which qgpu forwards, with the
  class also rewritten to 0x40 (closed in session 13 where forwards are sealed, "seal:" in
  /proc/qgpu/status: RM reads qgpu's copy; test_qgpu_seal.py has it as a test).

    scripts/vm.sh -- .venv/bin/python tests/guest/probe_handle_status_race.py

Prints what qgpu charged and what RM holds in each case. Exit 0 when the charge equals what RM
holds in all, 1 when the limit was bypassed.
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
STATUS_OFF, HNEW_OFF, CLASS_OFF = 40, 8, 12  # NVOS64 (nvidia-rm-abi.md)


def raw_ioctl(fd: int, nr: int, req: ctypes.Array[ctypes.c_char]) -> None:
    """By address, so the driver reads the very buffer the sibling writes."""
    libc = ctypes.CDLL(None, use_errno=True)
    cmd = ctypes.c_ulong(rm.iowr(nr, len(req)))
    assert libc.ioctl(fd, cmd, ctypes.c_void_p(ctypes.addressof(req))) == 0


def has(r: Rm, handle: int) -> bool:
    """Does RM still have this handle of the client (NV0000 CLIENT_GET_HANDLE_INFO)?"""
    info = bytearray(struct.pack("<IIQ", handle, 1, 0))
    return r.control(r.client, rm.GET_HANDLE_INFO, info) == rm.OK


def race(case: str) -> tuple[int, int]:
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
                klass = ctypes.c_uint32.from_buffer(shared, CLASS_OFF)
                while True:
                    status.value = 0x1F
                    if case != "status":
                        hnew.value = 0
                    if case == "class":  # back and forth: qgpu must copy one, RM the other
                        klass.value = rm.VIDMEM
                        klass.value = rm.SYSMEM
            clients: list[Rm] = []
            try:
                for i in range(ROUNDS):
                    if not clients or not has(clients[-1], clients[-1].client):
                        # qgpu saw the race this time and freed the client, with its memory
                        clients.append(Rm(dev=d))
                        dev, _ = clients[-1].device()
                        ptr = clients[-1].buffer(struct.pack("<I60xQ56x", clients[-1].client, MIB))
                    hclass = rm.SYSMEM if case == "class" else rm.VIDMEM
                    fields = (clients[-1].client, dev, 0xB0000000 + i, hclass, ptr, 0, 0, 0)
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
    for case in ("status", "handle", "class"):
        charged, held = race(case)
        print(f"{case}: qgpu charged {charged >> 20} MiB, RM holds {held >> 20} MiB")
        bypassed |= held != charged
    return 1 if bypassed else 0


if __name__ == "__main__":
    sys.exit(main())
