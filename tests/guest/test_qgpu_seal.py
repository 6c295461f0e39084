"""Sealed forwarding (kmod/qgpu_seal.c, DOC: sealed forwarding): RM runs a forwarded escape on
qgpu's copy of its parameters, so what a sibling of the tenant writes into the request after
qgpu read it never reaches RM.

Each test races a forked sibling (its own CPU, no GIL) against the tenant's calls through an
instance. Before the seal the sibling won some rounds: an RM_ALLOC qgpu read as system memory
reached RM as video memory, 16 MiB held through an 8 MiB instance with 8 MiB uncharged
(tests/guest/probe_handle_status_race.py, "class").
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import mmap
import os
import re
import signal
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from kernel import dmesg, reload_modules
from qgpu_sysfs import gpu_dir, instance, write
from qgpu_sysfs import mem_current as current
from rm import Rm

MIB = 1 << 20
ENGINE = Path("/proc/driver/nvsim/gpu0/engine")
ROUNDS = 64
# NVOS64 (nvidia-rm-abi.md): hObjectNew @8, hClass @12, status @40
NVOS64_HNEW, NVOS64_CLASS, NVOS64_STATUS = 8, 12, 40
# NVOS32: status @20, AllocSize hMemory @44, flags @52, attr @56, size @88
NVOS32_STATUS, NVOS32_HMEMORY, NVOS32_FLAGS, NVOS32_ATTR, NVOS32_SIZE_OFF = 20, 44, 52, 56, 88
NVOS32_ALLOC_SIZE = 2
ATTR_PCI = rm.ATTR_LOCATION_PCI
PAGE_4K = 1 << 23  # NVOS32 ATTR PAGE_SIZE=4KB
NVOS54_CMD, NVOS54_STATUS = 8, 28
NO_SUCH_CONTROL = 0x208013FE  # an NV2080 FB control no driver has: RM answers NOT_SUPPORTED


def raw_ioctl(fd: int, nr: int, req: ctypes.Array[ctypes.c_char]) -> int:
    """The ioctl through libc, by address: the driver reads the very buffer the sibling writes."""
    libc = ctypes.CDLL(None, use_errno=True)
    cmd = ctypes.c_ulong(rm.iowr(nr, len(req)))
    return int(libc.ioctl(fd, cmd, ctypes.c_void_p(ctypes.addressof(req))))


@contextlib.contextmanager
def sibling(
    size: int, writes: list[tuple[int, tuple[int, ...]]]
) -> Iterator[ctypes.Array[ctypes.c_char]]:
    """A request buffer in shared memory and a child that keeps writing each u32 at its offset
    through its values in turn."""
    shared = mmap.mmap(-1, -(-size // mmap.PAGESIZE) * mmap.PAGESIZE)
    req = (ctypes.c_char * size).from_buffer(shared)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the hostile sibling
        words = [(ctypes.c_uint32.from_buffer(shared, off), values) for off, values in writes]
        while True:
            for word, values in words:
                for v in values:
                    word.value = v
    try:
        yield req
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


@contextlib.contextmanager
def rm_view() -> Iterator[tuple[Rm, int, int]]:
    """nvsim's own view, to hold qgpu's charges against: a client, its subdevice, and the free
    video memory before the test."""
    real = Rm()
    try:
        _, rsub = real.device()
        yield real, rsub, real.fb_free_bytes(rsub)
    finally:
        real.close()


def assert_charged_as_held(r: Rm, real: Rm, rsub: int, before: int, name: str, i: int) -> None:
    """After every call: what RM holds is what qgpu charged, within the 8 MiB limit, and the
    tenant's client is alive (qgpu frees it where it catches a tampered unsealed call, which
    would also drop what RM held)."""
    held = before - real.fb_free_bytes(rsub)
    assert current(name) == held <= 8 * MIB, f"call {i}: RM holds what qgpu did not charge"
    info = bytearray(struct.pack("<IIQ", r.client, 1, 0))
    assert r.control(r.client, rm.GET_HANDLE_INFO, info) == rm.OK, f"call {i}: client freed"


def test_the_status_names_the_probe_and_seal_0_leaves_it_out(seal_mode: str) -> None:
    text = Path("/proc/qgpu/status").read_text()
    if seal_mode == "sealed":
        assert re.search(r"^seal: nvsim:rm_ioctl \(0 missed\)$", text, re.M), text
        assert re.search(r"^seal_uvm: nvsim:uvm_api_\* \(0 missed\)$", text, re.M), text
        assert re.search(r"^seal_params: nvsim:os_memcpy_from_user \(0 missed\)$", text, re.M)
        assert re.search(r"^seal_fd: nvsim:nv_get_file_private \(0 missed, \d+ lent\)$", text, re.M)
        assert re.search(r"^seal_uvm_fd: fget \(0 missed, \d+ lent\)$", text, re.M), text
        assert re.search(
            r"^seal_gpu: nvsim:nv_is_gpu_accessible \(0 missed, \d+ answered\)$", text, re.M
        ), text
        assert re.search(
            r"^seal_attach: nvsim:nvidia_dev_get \(0 missed, \d+ refused\)$", text, re.M
        ), text
    else:
        assert re.search(r"^seal: - \(0 missed\)$", text, re.M), text
        assert re.search(r"^seal_uvm: - \(0 missed\)$", text, re.M), text
        assert re.search(r"^seal_params: - \(0 missed\)$", text, re.M), text
        assert re.search(r"^seal_fd: - \(0 missed, 0 lent\)$", text, re.M), text
        assert re.search(r"^seal_uvm_fd: - \(0 missed, 0 lent\)$", text, re.M), text
        assert re.search(r"^seal_gpu: - \(0 missed, 0 answered\)$", text, re.M), text
        assert re.search(r"^seal_attach: - \(0 missed, 0 refused\)$", text, re.M), text
        assert any("forwards are not sealed: seal=0" in line for line in dmesg()[-20:])


@pytest.mark.usefixtures("default_modules")
def test_an_attach_rewritten_to_another_gpu_takes_only_the_instances() -> None:
    """The tenant attaches its GPU to a fresh ctl fd of its instance; the sibling rewrites the
    id to the host's other GPU and back. qgpu refuses the other GPU where it reads it, and
    where the driver reads it after qgpu's check the call must take nothing: the other GPU
    never gains a reference (with seal=0 it did, in some rounds)."""
    reload_modules("num_gpus=2")
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    ids = [card[0] for card in rm.card_info(ctl)]
    os.close(ctl)
    with instance("sealatt", gpu=0) as d:
        with sibling(4, [(0, (ids[1], ids[0]))]) as req:
            for i in range(ROUNDS * 4):
                fd = os.open(f"{d}/nvidiactl", os.O_RDWR)
                try:
                    raw_ioctl(fd, rm.ATTACH_GPUS, req)
                    assert rm.attached_refs(1) == 0, f"call {i}: the other GPU was attached"
                finally:
                    os.close(fd)
        assert rm.attached_refs(0) == 0
        text = Path("/proc/qgpu/status").read_text()
        assert re.search(r"^seal_attach: \S+ \(0 missed, \d+ refused\)$", text, re.M), text


def test_a_forwarded_allocation_rewritten_to_video_memory_reaches_rm_as_qgpu_read_it() -> None:
    """The tenant allocates system memory (0x3E, which qgpu forwards); the sibling rewrites the
    class to video memory and back, the new handle to 0 and the status to an error. RM must
    allocate what qgpu read: video memory only where qgpu read 0x40 (and made and charged the
    allocation itself), so what RM holds is what qgpu charged, within the limit."""
    with rm_view() as (real, rsub, before):
        with instance("sealc", opts="mem=8M") as d:
            writes = [
                (NVOS64_CLASS, (rm.VIDMEM, rm.SYSMEM)),
                (NVOS64_HNEW, (0,)),
                (NVOS64_STATUS, (0x1F,)),
            ]
            with sibling(rm.NVOS64.size, writes) as req:
                r = Rm(dev=d)
                try:
                    dev, _ = r.device()
                    # system memory, as RM takes 0x3E (not in video memory)
                    params = struct.pack("<I20xI36xQ56x", r.client, rm.ATTR_LOCATION_PCI, MIB)
                    ptr = r.buffer(params)
                    for i in range(ROUNDS):
                        fields = (r.client, dev, 0xB0000000 + i, rm.SYSMEM, ptr, 0, 0, 0)
                        rm.NVOS64.pack_into(req, 0, *fields, 0xFFFFFFFF)
                        assert raw_ioctl(r.ctl, rm.RM_ALLOC, req) == 0
                        assert_charged_as_held(r, real, rsub, before, "sealc", i)
                finally:
                    r.close()


def test_a_forwarded_vid_heap_request_rewritten_to_video_memory_reaches_rm_as_qgpu_read_it() -> (
    None
):
    """VID_HEAP_CONTROL ALLOC_SIZE in system memory (forwarded); the sibling rewrites the
    placement to video memory and back, drops MEMORY_HANDLE_PROVIDED (RM generates a handle),
    zeroes the handle RM writes back and writes an error status."""
    with rm_view() as (real, rsub, before):
        vid, pci = PAGE_4K, PAGE_4K | ATTR_PCI
        with instance("sealv", opts="mem=8M") as d:
            writes = [
                (NVOS32_ATTR, (vid, pci)),
                (NVOS32_FLAGS, (0,)),
                (NVOS32_HMEMORY, (0,)),
                (NVOS32_STATUS, (0x1F,)),
            ]
            with sibling(rm.NVOS32_SIZE, writes) as req:
                r = Rm(dev=d)
                try:
                    dev, _ = r.device()
                    for i in range(ROUNDS):
                        buf = bytearray(rm.NVOS32_SIZE)
                        struct.pack_into("<III", buf, 0, r.client, dev, NVOS32_ALLOC_SIZE)
                        struct.pack_into("<I", buf, NVOS32_STATUS, 0xFFFFFFFF)
                        struct.pack_into("<III", buf, NVOS32_HMEMORY, 0xB0000000 + i, 0, 0x4000)
                        struct.pack_into("<I", buf, NVOS32_ATTR, pci)
                        struct.pack_into("<Q", buf, NVOS32_SIZE_OFF, MIB)
                        req[:] = bytes(buf)
                        assert raw_ioctl(r.ctl, rm.RM_VID_HEAP_CONTROL, req) == 0
                        assert_charged_as_held(r, real, rsub, before, "sealv", i)
                finally:
                    r.close()


def test_a_forwarded_control_rewritten_to_one_qgpu_answers_never_reaches_rm() -> None:
    """qgpu answers FB_GET_INFO_V2 itself, with the instance's limit as the GPU's size. The
    tenant issues a control no driver has (qgpu forwards it) with FB_GET_INFO_V2's parameters;
    the sibling rewrites the command to FB_GET_INFO_V2 and back. Were RM to read the rewritten
    command, it would answer with the real GPU's size."""
    with instance("sealf", opts="mem=8M") as d:
        with sibling(rm.NVOS54.size, [(NVOS54_CMD, (rm.FB_GET_INFO_V2, NO_SUCH_CONTROL))]) as req:
            r = Rm(dev=d)
            try:
                _, sub = r.device()
                params = bytearray(rm.fb_info_v2_size())
                struct.pack_into("<III", params, 0, 1, rm.FB_TOTAL_RAM_SIZE, 0)
                buf = ctypes.create_string_buffer(bytes(params), len(params))
                seen = set()
                for _ in range(ROUNDS * 2):
                    ctypes.memmove(buf, bytes(params), len(params))
                    fields = (r.client, sub, NO_SUCH_CONTROL, 0, ctypes.addressof(buf))
                    rm.NVOS54.pack_into(req, 0, *fields, len(params), 0xFFFFFFFF)
                    assert raw_ioctl(r.ctl, rm.RM_CONTROL, req) == 0
                    seen.add(struct.unpack_from("<I", buf.raw, 8)[0])
                assert max(seen) <= 8 * 1024, f"RM answered with the real size: {seen} KiB"
                # the call itself still works: qgpu answers the limit
                assert r.fb_info(sub, rm.FB_TOTAL_RAM_SIZE) == [8 * 1024]
            finally:
                r.close()


NVOS02_FD = struct.Struct("<IIIIIIQQIIiI")  # hClass @12, limit @32, status @40, fd @48
NVOS02_NO_MAP = 1 << 30  # NVOS02_FLAGS_MAPPING_NO_MAP


def test_an_alloc_memory_rewritten_to_video_memory_never_shows_the_gpus_size() -> None:
    """RM_ALLOC_MEMORY (its fd translated by qgpu) of system memory; the sibling rewrites the
    class to 0x40, for which RM returns the heap's size as the limit. qgpu makes that the
    instance's, in its own copy, before the tenant sees it: no answer may exceed 8 MiB."""
    with instance("seala", opts="mem=8M") as d:
        with sibling(NVOS02_FD.size, [(12, (rm.VIDMEM, rm.SYSMEM))]) as req:
            r = Rm(dev=d)
            try:
                dev, _ = r.device()
                limits = set()
                for i in range(ROUNDS):
                    fields = (r.client, dev, 0xC000 + i, rm.SYSMEM, NVOS02_NO_MAP, 0, 0, 4095)
                    NVOS02_FD.pack_into(req, 0, *fields, 0xFFFFFFFF, 0, -1, 0)
                    assert raw_ioctl(r.gpu_fd, rm.RM_ALLOC_MEMORY, req) == 0
                    if struct.unpack_from("<I", req, 40)[0] == rm.OK:
                        limits.add(struct.unpack_from("<Q", req, 32)[0])
                assert limits and max(limits) < 8 * MIB, f"RM's limit reached the tenant: {limits}"
            finally:
                r.close()


UVM_BASE = 0x7F0000000000


def test_a_uvm_mapping_rewritten_to_other_memory_keeps_what_uvm_holds_charged() -> None:
    """UVM_MAP_EXTERNAL_ALLOCATION duplicates the memory it maps and holds it until the mapping
    goes; qgpu keeps that memory's charge alive for as long. The sibling flips hMemory between
    two allocations of different sizes (1 and 2 MiB). After the tenant frees both handles, what
    RM still holds (UVM's duplicate) must be what qgpu still charges, and nothing once the range
    is freed. Unsealed, a call whose hMemory changed between qgpu's read and UVM's, and back,
    charged one allocation while UVM held the other (the residual race, memory-limits.md)."""
    with rm_view() as (real, rsub, before):
        libc = ctypes.CDLL(None, use_errno=True)

        def held() -> int:
            return before - real.fb_free_bytes(rsub)

        with instance("sealu", opts="mem=16M") as d:
            r = Rm(dev=d)
            dev, sub = r.device()
            s = rm.UvmSpace(r, dev, f"{d}/nvidia-uvm")
            try:
                template = rm.uvm_map_external_params(UVM_BASE, MIB, 0, [s.uuid], r.client, 0)
                hmem_off = len(template) - 8  # the tail: count, fd, hClient, hMemory, status
                for i in range(ROUNDS // 4):
                    a = r.vidmem(sub, MIB)[1]
                    b = r.vidmem(sub, 2 * MIB)[1]
                    base = UVM_BASE + i * 4 * MIB
                    assert rm.uvm_create_range(s.fd, base, 2 * MIB) == rm.OK
                    with sibling(len(template), [(hmem_off, (a, b))]) as req:
                        buf = rm.uvm_map_external_params(base, MIB, 0, [s.uuid], r.client, a)
                        req[:] = bytes(buf)
                        cmd = ctypes.c_ulong(rm.UVM_MAP_EXTERNAL_ALLOCATION)
                        assert libc.ioctl(s.fd, cmd, ctypes.c_void_p(ctypes.addressof(req))) == 0
                    assert r.free(a) == rm.OK and r.free(b) == rm.OK
                    assert current("sealu") == held(), f"round {i}: UVM holds what is not charged"
                    assert rm.uvm_free(s.fd, base, 2 * MIB) == rm.OK
                    assert current("sealu") == held() == 0, f"round {i}: after the range went"
            finally:
                s.close()
                r.close()


PROT_READ, PROT_RW = 1, 3


@contextlib.contextmanager
def read_only(data: bytes) -> Iterator[ctypes.Array[ctypes.c_char]]:
    """The request in a page the tenant made read-only before the call. The driver's copy-in
    succeeds and its copy-out fails: the ioctl returns EFAULT after RM or UVM acted, as where a
    sibling thread mprotects the page between the two."""
    length = -(-len(data) // mmap.PAGESIZE) * mmap.PAGESIZE
    pages = mmap.mmap(-1, length)
    req = (ctypes.c_char * len(data)).from_buffer(pages)
    req[:] = data
    libc = ctypes.CDLL(None, use_errno=True)
    addr = ctypes.c_void_p(ctypes.addressof(req))
    assert libc.mprotect(addr, length, PROT_READ) == 0
    try:
        yield req
    finally:
        assert libc.mprotect(addr, length, PROT_RW) == 0  # the pages go with req


def faulted(fd: int, nr: int, req: ctypes.Array[ctypes.c_char]) -> bool:
    """The call failed with EFAULT: its results never reached the tenant."""
    return raw_ioctl(fd, nr, req) == -1 and ctypes.get_errno() == errno.EFAULT


def test_a_duplicate_whose_results_cannot_be_copied_back_is_still_charged(seal_mode: str) -> None:
    """RM_DUP_OBJECT whose request the tenant made read-only: RM made the duplicate, the tenant
    got EFAULT. The duplicate holds the memory once its source is freed, and qgpu must still
    charge it: before, a sealed call's results were dropped when the ioctl failed, and 1 MiB was
    held with nothing charged."""
    with rm_view() as (real, rsub, before):
        with instance("sealf", opts="mem=8M") as d:
            r = Rm(dev=d)
            try:
                dev, sub = r.device()
                for i in range(4):
                    status, src, _ = r.vidmem(sub, MIB)
                    assert status == rm.OK
                    dup = 0xD0000000 + i
                    fields = (r.client, dev, dup, r.client, src, 0, 0xFFFFFFFF)
                    with read_only(rm.NVOS55.pack(*fields)) as req:
                        assert faulted(r.ctl, rm.RM_DUP_OBJECT, req)
                    assert r.free(src) == rm.OK
                    assert_charged_as_held(r, real, rsub, before, "sealf", i)
                    assert current("sealf") == MIB, f"round {i}: the duplicate is not held"
                    assert r.free(dup) == rm.OK
                    assert_charged_as_held(r, real, rsub, before, "sealf", i)
                    assert current("sealf") == 0
            finally:
                r.close()


def test_video_memory_whose_handle_cannot_be_copied_back_is_charged_as_held(
    seal_mode: str,
) -> None:
    """RM_ALLOC(0x40), which qgpu makes itself, whose request is read-only: whether qgpu keeps
    the allocation or frees it, what RM holds is what it charges, and the tenant can free what
    it named."""
    with rm_view() as (real, rsub, before):
        with instance("sealv", opts="mem=8M") as d:
            r = Rm(dev=d)
            try:
                dev, _ = r.device()
                params = struct.pack("<I60xQ56x", r.client, MIB)
                ptr = r.buffer(params)
                for i in range(4):
                    hmem = 0xD1000000 + i
                    fields = (r.client, dev, hmem, rm.VIDMEM, ptr, 0, 0, 0, 0xFFFFFFFF)
                    with read_only(rm.NVOS64.pack(*fields)) as req:
                        assert faulted(r.ctl, rm.RM_ALLOC, req)
                    assert_charged_as_held(r, real, rsub, before, "sealv", i)
                    r.free(hmem)
                    assert_charged_as_held(r, real, rsub, before, "sealv", i)
                    assert current("sealv") == 0
            finally:
                r.close()


def test_a_uvm_mapping_whose_results_cannot_be_copied_back_keeps_its_memory_charged() -> None:
    """UVM_MAP_EXTERNAL_ALLOCATION with read-only parameters: UVM mapped (and holds) the memory,
    the tenant got EFAULT. Once the tenant frees its handle, UVM's hold must still be charged,
    and nothing once the range goes."""
    with rm_view() as (real, rsub, before):

        def held() -> int:
            return before - real.fb_free_bytes(rsub)

        with instance("sealm", opts="mem=8M") as d:
            r = Rm(dev=d)
            dev, sub = r.device()
            s = rm.UvmSpace(r, dev, f"{d}/nvidia-uvm")
            libc = ctypes.CDLL(None, use_errno=True)
            try:
                for i in range(4):
                    hmem = r.vidmem(sub, MIB)[1]
                    base = UVM_BASE + i * 2 * MIB
                    assert rm.uvm_create_range(s.fd, base, 2 * MIB) == rm.OK
                    params = rm.uvm_map_external_params(base, MIB, 0, [s.uuid], r.client, hmem)
                    with read_only(bytes(params)) as req:
                        cmd = ctypes.c_ulong(rm.UVM_MAP_EXTERNAL_ALLOCATION)
                        addr = ctypes.c_void_p(ctypes.addressof(req))
                        assert libc.ioctl(s.fd, cmd, addr) == -1
                        assert ctypes.get_errno() == errno.EFAULT
                    assert r.free(hmem) == rm.OK
                    assert current("sealm") == held() == MIB, f"round {i}: UVM's hold"
                    assert rm.uvm_free(s.fd, base, 2 * MIB) == rm.OK
                    assert current("sealm") == held() == 0, f"round {i}: after the range went"
            finally:
                s.close()
                r.close()


def test_a_channel_group_whose_handle_cannot_be_copied_back_is_still_scheduled() -> None:
    """RM_ALLOC of a channel group with a read-only request: RM made the group, the tenant got
    EFAULT. qgpu must still schedule it: the group runs with the GPU's timeslice, which qgpu
    sets on the groups it holds (before, the group ran outside every policy, on RM's own)."""
    knob = gpu_dir() / "timeslice_us"
    write(knob, "1500")
    try:
        with instance("sealg") as d:
            r = Rm(dev=d)
            try:
                dev, _ = r.device()
                ptr = r.buffer(struct.pack("<IIIIB3x", 0, 0, 0, 1, 0))
                tsg = 0xD2000000
                fields = (r.client, dev, tsg, rm.TSG, ptr, 0, 0, 0, 0xFFFFFFFF)
                with read_only(rm.NVOS64.pack(*fields)) as req:
                    assert faulted(r.ctl, rm.RM_ALLOC, req)
                text = ENGINE.read_text()
                line = f"client {r.client:#x} handle {tsg:#x} "
                (group,) = [w for w in text.splitlines() if line in w]
                assert " timeslice_us 1500 " in group, text
                assert r.free(tsg) == rm.OK
            finally:
                r.close()
    finally:
        write(knob, "1024")
