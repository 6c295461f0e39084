"""nvsim's remaining escapes: DUP_OBJECT, VID_HEAP_CONTROL, ALLOC_MEMORY, OS events and poll(),
per-process usage (GET_PIDS / GET_PID_INFO), the kernel-client interface, and cleanup on kill -9.

The harness loads nvsim with its defaults (one GPU, 16 GiB, driver ABI 580.95.05).
"""

from __future__ import annotations

import errno
import mmap
import os
import select
import signal
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from kernel import insmod, is_loaded, rmmod
from rm import Rm

MIB = 1 << 20


@pytest.fixture
def proc() -> Iterator[Rm]:
    r = Rm()
    yield r
    r.close()


def refused(fd: int, nr: int, buf: bytearray) -> int:
    with pytest.raises(OSError) as exc:
        rm.ioctl(fd, nr, buf)
    return exc.value.errno or 0


# RM_DUP_OBJECT


def test_dup_shares_memory_and_its_framebuffer(any_path: Rm) -> None:
    r = any_path
    dev, sub = r.device()
    full = r.fb_free_bytes(sub)
    status, mem, size = r.vidmem(dev, 64 * MIB)
    assert status == rm.OK
    status, dup = r.dup(dev, r.client, mem)
    assert status == rm.OK and dup not in (0, mem)
    assert r.fb_free_bytes(sub) == full - size  # a dup adds no charge
    assert r.free(mem) == rm.OK
    assert r.fb_free_bytes(sub) == full - size  # the dup keeps it
    assert r.free(dup) == rm.OK
    assert r.fb_free_bytes(sub) == full
    assert r.free(dup) == rm.OK  # no such handle any more: NV_OK, nothing changes
    assert r.fb_free_bytes(sub) == full


def test_dup_failures(proc: Rm) -> None:
    dev, sub = proc.device()
    status, mem, _ = proc.vidmem(dev, 2 * MIB)
    assert status == rm.OK
    assert proc.dup(dev, proc.client, dev)[0] == rm.INVALID_ARGUMENT  # devices cannot be copied
    assert proc.dup(dev, proc.client, sub)[0] == rm.INVALID_ARGUMENT
    assert proc.dup(dev, proc.client, 0xBAD)[0] == rm.OBJECT_NOT_FOUND
    assert proc.dup(0xBAD, proc.client, mem)[0] == rm.OBJECT_NOT_FOUND
    assert proc.dup(dev, 0xC1DFFFFF, mem)[0] == rm.INVALID_OBJECT_HANDLE
    assert proc.dup(dev, proc.client, mem, hobject=sub)[0] == rm.INSERT_DUPLICATE_NAME
    assert proc.dup(proc.client, proc.client, mem)[0] == rm.INVALID_OBJECT_PARENT
    status, dup = proc.dup(sub, proc.client, mem, hobject=0x5000)
    assert (status, dup) == (rm.OK, 0x5000)
    # Into a client of another ctl file: not the caller's.
    other = Rm()
    try:
        buf = bytearray(rm.NVOS55.pack(other.client, other.client, 0, proc.client, mem, 0, 0))
        rm.ioctl(proc.ctl, rm.RM_DUP_OBJECT, buf)
        assert rm.NVOS55.unpack(buf)[6] == rm.INVALID_CLIENT
        # Same process, another client: the default share policy allows it.
        odev, _ = other.device()
        assert other.dup(odev, proc.client, mem)[0] == rm.OK
    finally:
        other.close()
    assert refused(proc.ctl, rm.RM_DUP_OBJECT, bytearray(32)) == errno.EINVAL
    assert refused(proc.gpu_fd, rm.RM_DUP_OBJECT, bytearray(28)) == errno.EINVAL


def child_holding(setup: str) -> tuple[int, int, list[int]]:
    """Fork a process that sets up RM objects ('mem', 'shared' or 'all') and waits; returns (pid,
    fd, handles) where fd is a pipe that kills the child's wait when closed. 'shared' shares the
    memory as CUDA's IPC export does (SHARE_TYPE_ALL, DUP_OBJECT, action 0)."""
    rd, wr = os.pipe()
    go_rd, go_wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(rd)
            os.close(go_wr)
            r = Rm()
            dev, sub = r.device()
            status, mem, _ = r.vidmem(dev, 32 * MIB)
            assert status == rm.OK
            handles = [r.client, dev, sub, mem]
            if setup == "shared":
                status = r.share(r.client, mem, rm.SHARE_TYPE_ALL, mask=rm.ACCESS_DUP_OBJECT)
                assert status == rm.OK
            if setup == "all":
                assert r.os_event(rm.ALLOC_OS_EVENT, 77) == rm.OK
                ev = struct.pack("<IIIIQ", r.client, sub, rm.OS_EVENT, 12, 77)
                assert r.alloc(r.client, sub, rm.OS_EVENT, ev)[0] == rm.OK
                assert r.dup(dev, r.client, mem)[0] == rm.OK
                heap = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=16 * MIB)
                assert struct.unpack_from("<I", heap, 20)[0] == rm.OK
            os.write(wr, struct.pack("<4I", *handles))
            os.read(go_rd, 1)
            code = 0
        finally:
            os._exit(code)
    os.close(wr)
    os.close(go_rd)
    handles = list(struct.unpack("<4I", os.read(rd, 16)))
    os.close(rd)
    return pid, go_wr, handles


def test_dup_from_another_process_needs_kernel_privilege(proc: Rm) -> None:
    dev, _ = proc.device()
    pid, go, (client, _, _, mem) = child_holding("mem")
    try:
        assert proc.dup(dev, client, mem)[0] == rm.INSUFFICIENT_PERMISSIONS
    finally:
        os.close(go)
        os.waitpid(pid, 0)


def test_dup_from_another_process_after_an_ipc_style_share(proc: Rm) -> None:
    """CUDA's IPC: the exporter shares its memory with everyone (SHARE_TYPE_ALL, DUP_OBJECT,
    action 0, as traced on an H200 with driver 580), and another process duplicates it from the
    exporter's client. The share replaces the object's default (same-process) policy; a REVOKE
    takes it back, and a CLIENT share names one destination client only."""
    dev, _ = proc.device()
    pid, go, (client, _, _, mem) = child_holding("shared")
    try:
        status, dup = proc.dup(dev, client, mem)
        assert status == rm.OK and dup
        assert proc.free(dup) == rm.OK
    finally:
        os.close(go)
        os.waitpid(pid, 0)


def test_share_policy_list_follows_rm(proc: Rm) -> None:
    """The list an RM_SHARE leaves, seen from a duplicating client of another process: without
    COMPOSE a share replaces the list, REVOKE removes a policy, REQUIRE denies whoever it does not
    match, and a share of rights other than DUP_OBJECT is not simulated."""
    dev, _ = proc.device()
    status, mem, _ = proc.vidmem(dev, 2 * MIB)
    assert status == rm.OK
    dup_ok = rm.ACCESS_DUP_OBJECT
    rd, wr = os.pipe()
    go_rd, go_wr = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(rd)
            os.close(go_wr)
            r = Rm()
            odev, _ = r.device()
            while os.read(go_rd, 1) == b"d":
                status, h = r.dup(odev, proc.client, mem)
                if status == rm.OK:
                    r.free(h)
                os.write(wr, struct.pack("<II", status, r.client))
            code = 0
        finally:
            os._exit(code)
    os.close(wr)
    os.close(go_rd)

    def other_dup() -> tuple[int, int]:
        os.write(go_wr, b"d")
        return struct.unpack("<II", os.read(rd, 8))

    try:
        status, other = other_dup()
        assert status == rm.INSUFFICIENT_PERMISSIONS  # the default: same process only
        assert proc.share(proc.client, mem, rm.SHARE_TYPE_ALL, mask=dup_ok) == rm.OK
        assert other_dup()[0] == rm.OK
        revoke = rm.SHARE_ACTION_REVOKE | rm.SHARE_ACTION_COMPOSE
        assert proc.share(proc.client, mem, rm.SHARE_TYPE_ALL, mask=dup_ok, action=revoke) == 0
        assert other_dup()[0] == rm.INSUFFICIENT_PERMISSIONS
        # a CLIENT share with the other process's client, composed with what is there
        compose = rm.SHARE_ACTION_COMPOSE
        assert proc.share(proc.client, mem, rm.SHARE_TYPE_CLIENT, other, dup_ok, compose) == 0
        assert other_dup()[0] == rm.OK
        # a REQUIRE policy that the other does not match denies it
        require = rm.SHARE_ACTION_REQUIRE | rm.SHARE_ACTION_COMPOSE
        share = proc.share(proc.client, mem, rm.SHARE_TYPE_CLIENT, 0x1234, dup_ok, require)
        assert share == rm.INVALID_CLIENT  # a CLIENT policy's target must exist
        assert proc.share(proc.client, mem, rm.SHARE_TYPE_PID, mask=dup_ok, action=require) == 0
        assert other_dup()[0] == rm.INSUFFICIENT_PERMISSIONS
        # the same process still duplicates its own memory, from its own client
        assert proc.dup(dev, proc.client, mem)[0] == rm.OK
        assert proc.share(proc.client, mem, rm.SHARE_TYPE_ALL, mask=0x2) == rm.NOT_SUPPORTED
    finally:
        os.close(go_wr)
        os.waitpid(pid, 0)
        os.close(rd)


# RM_VID_HEAP_CONTROL


def test_vid_heap_alloc_info_free_and_exhaustion(any_path: Rm) -> None:
    r = any_path
    dev, sub = r.device()
    info = r.vid_heap(rm.NVOS32_INFO, dev)
    assert struct.unpack_from("<I", info, 20)[0] == rm.OK
    total, free = struct.unpack_from("<QQ", info, 24)
    assert total == rm.fb_bytes() and free == r.fb_free_bytes(sub)

    buf = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=3 * MIB + 1)
    assert struct.unpack_from("<I", buf, 20)[0] == rm.OK
    hmem = struct.unpack_from("<I", buf, 44)[0]
    size = struct.unpack_from("<Q", buf, 88)[0]
    assert hmem and size >= 3 * MIB + 1 and size % 65536 == 0
    assert struct.unpack_from("<I", buf, 72)[0] == 256  # partitionStride
    assert r.fb_free_bytes(sub) == free - size
    info = r.vid_heap(rm.NVOS32_INFO, sub)
    assert struct.unpack_from("<Q", info, 32)[0] == free - size

    big = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=free)
    assert struct.unpack_from("<I", big, 20)[0] == rm.NO_MEMORY
    sysmem = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=free, attr=rm.ATTR_LOCATION_PCI)
    assert struct.unpack_from("<I", sysmem, 20)[0] == rm.OK  # system memory: no FB charge
    assert r.fb_free_bytes(sub) == free - size

    bad = r.vid_heap(rm.NVOS32_FREE, dev, hmemory=hmem, flags=0)
    assert struct.unpack_from("<I", bad, 20)[0] == rm.INVALID_ARGUMENT
    done = r.vid_heap(rm.NVOS32_FREE, dev, hmemory=hmem)
    assert struct.unpack_from("<I", done, 20)[0] == rm.OK
    assert r.fb_free_bytes(sub) == free
    again = r.vid_heap(rm.NVOS32_FREE, dev, hmemory=hmem)
    assert struct.unpack_from("<I", again, 20)[0] == rm.OK  # RM_FREE's answer for no such handle
    assert struct.unpack_from("<I", r.vid_heap(99, dev), 20)[0] == rm.INVALID_ARGUMENT


def test_vid_heap_refuses_bad_size_device_and_client(proc: Rm) -> None:
    dev, _ = proc.device()
    assert refused(proc.ctl, rm.RM_VID_HEAP_CONTROL, bytearray(180)) == errno.EINVAL
    assert refused(proc.gpu_fd, rm.RM_VID_HEAP_CONTROL, bytearray(184)) == errno.EINVAL
    buf = bytearray(184)
    struct.pack_into("<III", buf, 0, 0xC1DFFFFF, dev, rm.NVOS32_INFO)
    rm.ioctl(proc.ctl, rm.RM_VID_HEAP_CONTROL, buf)
    assert struct.unpack_from("<I", buf, 20)[0] == rm.INVALID_CLIENT


# RM_ALLOC_MEMORY


def test_alloc_memory_on_the_gpu_fd(proc: Rm) -> None:
    dev, sub = proc.device()
    full = proc.fb_free_bytes(sub)
    buf = rm.alloc_memory(proc, dev, rm.VIDMEM, 0x7000, 0, 0, proc.gpu_fd)
    assert struct.unpack_from("<I", buf, 40)[0] == rm.OK
    # The limit is the heap; nothing was taken.
    assert struct.unpack_from("<Q", buf, 32)[0] == rm.fb_bytes() - 1
    assert proc.fb_free_bytes(sub) == full
    assert proc.free(0x7000) == rm.OK  # the dummy handle exists
    no_map = 1 << 30
    buf = rm.alloc_memory(proc, dev, rm.SYSMEM, 0x7001, no_map, 4095, proc.gpu_fd)
    assert struct.unpack_from("<I", buf, 40)[0] == rm.OK
    assert proc.free(0x7001) == rm.OK
    buf = rm.alloc_memory(proc, dev, rm.SYSMEM, 0x7002, no_map | (1 << 16), 4095, proc.gpu_fd)
    assert struct.unpack_from("<I", buf, 40)[0] == rm.INVALID_FLAGS  # ALLOC_NONE
    # MAPPING=DEFAULT maps at once: the mapping context goes to the fd named (a ctl fd here).
    map_fd = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        buf = rm.alloc_memory(proc, dev, rm.SYSMEM, 0x7004, 0, 8191, proc.gpu_fd, fd=map_fd)
        assert struct.unpack_from("<I", buf, 40)[0] == rm.OK
        assert struct.unpack_from("<Q", buf, 24)[0] != 0  # pMemory
        with mmap.mmap(map_fd, 8192, offset=0) as m:
            m[0:4] = b"nvsm"
            assert m[0:4] == b"nvsm"
    finally:
        os.close(map_fd)
    assert proc.free(0x7004) == rm.OK
    # A bad fd: the ioctl fails, and the memory stays allocated (as in the real driver).
    buf = bytearray(
        rm.NVOS02_FD.pack(proc.client, dev, 0x7005, rm.SYSMEM, 0, 0, 0, 4095, 0, 0, 9999, 0)
    )
    assert refused(proc.gpu_fd, rm.RM_ALLOC_MEMORY, buf) == errno.EINVAL
    assert proc.free(0x7005) == rm.OK
    buf = rm.alloc_memory(proc, dev, 0xBEEF, 0x7003, 0, 4095, proc.gpu_fd)
    assert struct.unpack_from("<I", buf, 40)[0] == rm.INVALID_CLASS
    assert refused(proc.ctl, rm.RM_ALLOC_MEMORY, bytearray(56)) == errno.EINVAL  # GPU fd only
    assert refused(proc.gpu_fd, rm.RM_ALLOC_MEMORY, bytearray(48)) == errno.EINVAL


# OS events, NV01_EVENT_OS_EVENT and poll()


def test_os_events_keys_objects_and_poll(any_path: Rm) -> None:
    r = any_path
    _, sub = r.device()
    assert r.os_event(rm.ALLOC_OS_EVENT, 5) == rm.OK
    assert r.os_event(rm.ALLOC_OS_EVENT, 5) == rm.INSUFFICIENT_RESOURCES  # key in use
    assert r.os_event(rm.ALLOC_OS_EVENT, 6, on=r.gpu_fd) == rm.OK  # either device
    assert r.os_event(rm.ALLOC_OS_EVENT, 7, hclient=0x1234) == rm.OK  # not validated

    params = struct.pack("<IIIIQ", r.client, sub, rm.OS_EVENT, 12, 5)
    status, ev = r.alloc(r.client, sub, rm.OS_EVENT, params)
    assert status == rm.OK
    missing = struct.pack("<IIIIQ", r.client, sub, rm.OS_EVENT, 12, 99)
    assert r.alloc(r.client, sub, rm.OS_EVENT, missing)[0] == rm.OBJECT_NOT_FOUND
    bad_src = struct.pack("<IIIIQ", r.client, 0xBAD, rm.OS_EVENT, 12, 5)
    assert r.alloc(r.client, sub, rm.OS_EVENT, bad_src)[0] == rm.INVALID_OBJECT_HANDLE

    # Events may be allocated through a GPU fd (the only RM_ALLOC that may).
    ptr = r.buffer(struct.pack("<IIIIQ", r.client, sub, rm.OS_EVENT, 12, 6))
    buf = bytearray(rm.NVOS64.pack(r.client, sub, 0, rm.OS_EVENT, ptr, 0, 0, 0, 0xFFFFFFFF))
    r.call(r.gpu_fd, rm.RM_ALLOC, buf)
    assert rm.NVOS64.unpack(buf)[8] == rm.OK

    # Nothing has fired: poll reports nothing, GET_EVENT_DATA has nothing.
    for fd in (r.ctl, r.gpu_fd):
        assert select.select([fd], [], [fd], 0) == ([], [], [])
    event = r.buffer(bytes(16))
    data = bytearray(struct.pack("<QII", event, 0, 0xFFFFFFFF))
    r.call(r.ctl, rm.RM_GET_EVENT_DATA, data)
    assert struct.unpack_from("<I", data, 12)[0] == rm.OPERATING_SYSTEM
    assert refused(r.ctl, rm.RM_GET_EVENT_DATA, bytearray(24)) == errno.EINVAL

    assert r.free(ev) == rm.OK
    assert r.os_event(rm.FREE_OS_EVENT, 5) == rm.OK
    assert r.os_event(rm.FREE_OS_EVENT, 5) == rm.INVALID_EVENT
    assert r.os_event(rm.FREE_OS_EVENT, 7, hclient=0x1234) == rm.OK
    assert refused(r.ctl, rm.ALLOC_OS_EVENT, bytearray(12)) == errno.EINVAL
    assert refused(r.ctl, rm.FREE_OS_EVENT, bytearray(20)) == errno.EINVAL


def test_registry_dwords_by_any_client_global_and_per_gpu(proc: Rm) -> None:
    """As RmAccessRegistry(): a device's registry falls back to the global one for reads, keys
    match without regard to case, and any process may name any client, writes included."""
    key = f"NvsimTestKey{os.getpid()}"  # keys live until nvsim is unloaded
    dev, sub = proc.device()
    assert proc.registry(rm.REG_READ_DWORD, key) == (rm.GENERIC, 0)
    assert proc.registry(rm.REG_WRITE_DWORD, key, 7)[0] == rm.OK
    assert proc.registry(rm.REG_READ_DWORD, key.lower()) == (rm.OK, 7)
    assert proc.registry(rm.REG_READ_DWORD, key, hobject=sub) == (rm.OK, 7)
    assert proc.registry(rm.REG_WRITE_DWORD, key, 9, hobject=dev)[0] == rm.OK
    assert proc.registry(rm.REG_READ_DWORD, key, hobject=sub) == (rm.OK, 9)
    assert proc.registry(rm.REG_READ_DWORD, key) == (rm.OK, 7)
    other = Rm(gpu=None)
    try:
        assert other.registry(rm.REG_WRITE_DWORD, key, 11, hclient=proc.client)[0] == rm.OK
    finally:
        other.close()
    assert proc.registry(rm.REG_READ_DWORD, key) == (rm.OK, 11)
    assert proc.registry(rm.REG_READ_DWORD, key, hclient=0xBAD)[0] == rm.INVALID_CLIENT
    assert proc.registry(rm.REG_READ_DWORD, key, hobject=0xBAD)[0] == rm.OBJECT_NOT_FOUND
    assert proc.registry(rm.REG_READ_DWORD, "x" * 256)[0] == rm.INVALID_STRING_LENGTH
    assert proc.registry(rm.REG_READ_BINARY, key)[0] == rm.NOT_SUPPORTED
    assert proc.registry(3, key)[0] == rm.INVALID_ACCESS_TYPE
    assert refused(proc.ctl, rm.RM_ACCESS_REGISTRY, bytearray(71)) == errno.EINVAL
    assert refused(proc.gpu_fd, rm.RM_ACCESS_REGISTRY, bytearray(72)) == errno.EINVAL


def test_share_checks_the_client_except_for_a_client_share(proc: Rm) -> None:
    """RM checks the client a share is issued on, except for a CLIENT share, whose owner it only
    looks up; nvsim then answers NOT_SUPPORTED for what it does not simulate (rights other than
    DUP_OBJECT, a CLIENT share with the owner itself)."""
    dev, _ = proc.device()
    other = Rm(gpu=None)
    try:
        assert other.share(proc.client, dev, rm.SHARE_TYPE_ALL) == rm.INVALID_CLIENT
        assert other.share(proc.client, dev, rm.SHARE_TYPE_CLIENT, proc.client) == rm.NOT_SUPPORTED
        assert other.share(proc.client, dev, rm.SHARE_TYPE_CLIENT, 0xBAD) == rm.INVALID_CLIENT
    finally:
        other.close()
    assert proc.share(proc.client, dev, rm.SHARE_TYPE_ALL) == rm.NOT_SUPPORTED
    assert proc.share(proc.client, 0xBAD, rm.SHARE_TYPE_ALL) == rm.OBJECT_NOT_FOUND
    assert proc.share(proc.client, dev, 8) == rm.INVALID_ARGUMENT
    assert refused(proc.ctl, rm.RM_SHARE, bytearray(20)) == errno.EINVAL


def test_freeing_the_client_frees_its_os_events(proc: Rm) -> None:
    assert proc.os_event(rm.ALLOC_OS_EVENT, 3) == rm.OK
    assert proc.free(proc.client) == rm.OK
    assert proc.os_event(rm.FREE_OS_EVENT, 3) == rm.INVALID_EVENT


# Per-process usage


def test_get_pids_and_pid_info_report_the_process(proc: Rm) -> None:
    dev, sub = proc.device()
    status, pids = proc.pids(sub)
    assert status == rm.OK and os.getpid() in pids
    assert proc.pid_info(sub, os.getpid())[:5] == (rm.OK, rm.OK, 0, 0, 0)
    status, mem, size = proc.vidmem(dev, 8 * MIB)
    assert status == rm.OK
    buf = proc.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=4 * MIB)
    size2 = struct.unpack_from("<Q", buf, 88)[0]
    assert proc.pid_info(sub, os.getpid()) == (rm.OK, rm.OK, size + size2, 0, 0)
    # A dup in another client of the process: the original is shared-owned, the dup shared-duped.
    other = Rm()
    try:
        odev, _ = other.device()
        assert other.dup(odev, proc.client, mem)[0] == rm.OK
        assert proc.pid_info(sub, os.getpid()) == (rm.OK, rm.OK, size2, size, size)
    finally:
        other.close()
    assert proc.pid_info(sub, os.getpid()) == (rm.OK, rm.OK, size + size2, 0, 0)
    params = bytearray(14408)  # count 0
    assert proc.control(sub, rm.GPU_GET_PID_INFO, params) == rm.INVALID_ARGUMENT
    params = bytearray(3812)
    struct.pack_into("<I", params, 0, 7)
    assert proc.control(sub, rm.GPU_GET_PIDS, params) == rm.INVALID_ARGUMENT
    assert proc.control(sub, rm.GPU_GET_PIDS, bytearray(3808)) == rm.INVALID_PARAM_STRUCT


def test_kill_9_returns_everything(proc: Rm) -> None:
    _, sub = proc.device()
    full = proc.fb_free_bytes(sub)
    pid, go, _ = child_holding("all")
    try:
        assert pid in proc.pids(sub)[1]
        assert proc.pid_info(sub, pid)[2] == 16 * MIB  # the ALLOC_SIZE memory is private
        assert proc.pid_info(sub, pid)[3:] == (32 * MIB, 32 * MIB)  # original and dup
        assert proc.fb_free_bytes(sub) == full - 48 * MIB
        os.kill(pid, signal.SIGKILL)
    finally:
        os.waitpid(pid, 0)
        os.close(go)
    assert proc.fb_free_bytes(sub) == full
    assert pid not in proc.pids(sub)[1]
    assert proc.pid_info(sub, pid)[2:] == (0, 0, 0)


# The kernel-client interface


def kclient_result() -> dict[str, int]:
    text = Path("/sys/module/qgpu_kclient_test/parameters/result").read_text().split()
    return {k: int(v, 16) for k, v in (item.split("=") for item in text)}


def test_kernel_client_handshake_dup_and_control(proc: Rm) -> None:
    dev, sub = proc.device()
    status, mem, size = proc.vidmem(dev, 16 * MIB)
    assert status == rm.OK
    free = proc.fb_free_bytes(sub)
    r = insmod("qgpu_kclient_test", f"hclient={proc.client}", f"hobject={mem}", f"hdevice={dev}")
    assert r.returncode == 0, r.stderr
    try:
        res = kclient_result()
        assert res["bad_version"] == 0xFFFF and res["version_returned"] == 1
        for step in ("handshake", "client", "device", "subdevice", "dup", "fb_info", "free"):
            assert res[step] == rm.OK, (step, res)
        assert res["dup_handle"] != 0
        assert res["dup_rejected"] == rm.INSUFFICIENT_PERMISSIONS
        assert res["dup_device"] == rm.INVALID_ARGUMENT
        assert res["heap_free_kb"] * 1024 == free
    finally:
        assert rmmod("qgpu_kclient_test").returncode == 0
    assert proc.fb_free_bytes(sub) == free
    assert proc.free(mem) == rm.OK
    assert proc.fb_free_bytes(sub) == free + size


def test_kernel_dup_keeps_memory_until_the_kernel_client_goes(proc: Rm) -> None:
    dev, sub = proc.device()
    full = proc.fb_free_bytes(sub)
    status, mem, size = proc.vidmem(dev, 16 * MIB)
    assert status == rm.OK
    r = insmod("qgpu_kclient_test", f"hclient={proc.client}", f"hobject={mem}", "keep=1")
    assert r.returncode == 0, r.stderr
    try:
        assert kclient_result()["dup"] == rm.OK
        assert proc.free(mem) == rm.OK
        assert proc.fb_free_bytes(sub) == full - size  # the kernel's dup holds it
    finally:
        assert rmmod("qgpu_kclient_test").returncode == 0
    assert not is_loaded("qgpu_kclient_test")
    assert proc.fb_free_bytes(sub) == full


@pytest.mark.usefixtures("default_modules")
def test_nvsim_unloads_after_all_this() -> None:
    assert not is_loaded("qgpu_kclient_test")
    if is_loaded("qgpu"):
        assert rmmod("qgpu").returncode == 0
    assert rmmod("nvsim").returncode == 0
