"""nvsim's /dev/nvidia-uvm: the commands it simulates, checked against the facts in
kmod/nvrm/nvrm_uvm.h (the real uvm.c / uvm_api.h at 535.104.05 and 580.95.05)."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import mmap
import os
import struct
from collections.abc import Iterator

import pytest
import rm
from kernel import insmod, is_loaded, rmmod
from rm import Rm


def uvm_open() -> int:
    return os.open("/dev/nvidia-uvm", os.O_RDWR)


@pytest.fixture
def uvm() -> Iterator[int]:
    fd = uvm_open()
    yield fd
    os.close(fd)


@pytest.fixture
def va(uvm: int) -> int:
    assert rm.uvm_initialize(uvm) == rm.OK
    return uvm


def errno_of(cmd: int, arg: int | bytearray, fd: int) -> int:
    try:
        if isinstance(arg, bytearray):
            fcntl.ioctl(fd, cmd, arg, True)
        else:
            fcntl.ioctl(fd, cmd, arg)
    except OSError as e:
        return e.errno or 0
    return 0


def major() -> int:
    return int(rm.param("abi_version").split(".")[0])


def gpu_fds_open() -> list[str]:
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            links.append(os.readlink(f"/proc/self/fd/{fd}"))
        except FileNotFoundError:
            pass
    return [p for p in links if p.startswith("/dev/nvidia") and p[11:].isdigit()]


def test_dispatch_unknown_deinitialize_and_faults(uvm: int) -> None:
    unknown = errno.ENOSYS if major() >= 570 else errno.EINVAL
    assert errno_of(1234, bytearray(64), uvm) == unknown
    assert errno_of(rm.UVM_DEINITIALIZE, 0, uvm) == 0  # does nothing, whatever the argument
    assert errno_of(rm.UVM_INITIALIZE, 1, uvm) == errno.EFAULT  # the copy in faults
    assert errno_of(rm.UVM_PAGEABLE_MEM_ACCESS, 8, uvm) == errno.EFAULT


def test_everything_but_initialize_is_illegal_before_it(uvm: int) -> None:
    buf = bytearray(8)
    assert rm.uvm_ioctl(uvm, rm.UVM_PAGEABLE_MEM_ACCESS, buf) == rm.ILLEGAL_ACTION
    status, _ = rm.uvm_register_gpu(uvm, rm.gpu_uuid_bytes(rm.param("gpu_uuid")))
    assert status == rm.ILLEGAL_ACTION
    unreg = bytearray(20)
    assert rm.uvm_ioctl(uvm, rm.UVM_UNREGISTER_GPU, unreg) == rm.ILLEGAL_ACTION


def test_initialize_flags(uvm: int) -> None:
    assert rm.uvm_initialize(uvm, 4) == rm.INVALID_ARGUMENT  # outside UVM_INIT_FLAGS_MASK
    assert rm.uvm_initialize(uvm, rm.UVM_FLAGS_DISABLE_HMM) == rm.OK
    assert rm.uvm_initialize(uvm, rm.UVM_FLAGS_DISABLE_HMM) == rm.OK  # same flags again
    assert rm.uvm_initialize(uvm, 0) == rm.INVALID_ARGUMENT  # different flags
    buf = bytearray(struct.pack("<BxxxI", 1, 0xFFFFFFFF))
    assert rm.uvm_ioctl(uvm, rm.UVM_PAGEABLE_MEM_ACCESS, buf) == rm.OK
    assert buf[0] == 0  # no ATS, no HMM in nvsim


def test_mm_initialize(va: int) -> None:
    if major() < 535:
        pytest.skip("UVM_MM_INITIALIZE exists from 535")
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    fresh, mm, other = uvm_open(), uvm_open(), uvm_open()
    try:
        assert rm.uvm_mm_initialize(mm, -1) == rm.INVALID_ARGUMENT  # not a file
        assert rm.uvm_mm_initialize(mm, ctl) == rm.INVALID_ARGUMENT  # not a UVM file
        assert rm.uvm_mm_initialize(mm, fresh) == rm.INVALID_ARGUMENT  # not a VA space
        assert rm.uvm_mm_initialize(va, va) == rm.IN_USE  # the VA space file itself
        assert rm.uvm_mm_initialize(mm, va) == rm.OK
        assert rm.uvm_mm_initialize(mm, va) == rm.IN_USE  # this file is an MM file now
        assert rm.uvm_mm_initialize(other, va) == rm.INVALID_STATE  # the mm is claimed
        # An MM file is not a VA space.
        assert rm.uvm_initialize(mm) == rm.INVALID_ARGUMENT
        assert rm.uvm_ioctl(mm, rm.UVM_PAGEABLE_MEM_ACCESS, bytearray(8)) == rm.ILLEGAL_ACTION
        os.close(mm)
        mm = -1
        # Once the MM file is closed, the mm cannot be claimed again.
        assert rm.uvm_mm_initialize(other, va) == rm.PAGE_TABLE_NOT_AVAIL
        # Multi-process sharing mode has no mm: the MM file is not needed.
        assert rm.uvm_initialize(fresh, rm.UVM_FLAGS_MULTI_PROCESS) == rm.OK
        assert rm.uvm_mm_initialize(other, fresh) == rm.WARN_NOTHING_TO_DO
    finally:
        for fd in (ctl, fresh, mm, other):
            if fd >= 0:
                os.close(fd)


def test_the_va_space_outlives_its_fd_while_an_mm_file_holds_it() -> None:
    if major() < 535:
        pytest.skip("UVM_MM_INITIALIZE exists from 535")
    va, mm = uvm_open(), uvm_open()
    assert rm.uvm_initialize(va) == rm.OK
    assert rm.uvm_mm_initialize(mm, va) == rm.OK
    os.close(va)  # the MM file keeps the VA space's file
    os.close(mm)


def test_register_gpu(va: int) -> None:
    uuid = rm.gpu_uuid_bytes(rm.param("gpu_uuid"))
    assert not gpu_fds_open()
    status, _ = rm.uvm_register_gpu(va, uuid)
    assert status == rm.INSUFFICIENT_PERMISSIONS  # no /dev/nvidia0 open in this process
    r = Rm()
    try:
        status, _ = rm.uvm_register_gpu(va, bytes(16), r.client)
        assert status == rm.GPU_UUID_NOT_FOUND
        status, out = rm.uvm_register_gpu(va, uuid, r.client)
        assert status == rm.OK
        assert bytes(out[:16]) == uuid  # the instance UUID: the GPU's own without MIG
        numa_enabled, numa_node = struct.unpack_from("<B3xi", out, 16)
        assert (numa_enabled, numa_node) == (0, -1)
        assert rm.uvm_register_gpu(va, uuid, r.client)[0] == rm.INVALID_DEVICE  # again
        unreg = bytearray(uuid + bytes(4))
        assert rm.uvm_ioctl(va, rm.UVM_UNREGISTER_GPU, unreg) == rm.OK
        assert rm.uvm_ioctl(va, rm.UVM_UNREGISTER_GPU, unreg) == rm.INVALID_DEVICE
        assert rm.uvm_register_gpu(va, uuid, r.client)[0] == rm.OK  # released with the file
    finally:
        r.close()


@pytest.mark.parametrize("how", ["mm file", "multi-process", "none"])
def test_a_gpu_va_space_needs_the_va_spaces_mm(how: str) -> None:
    """UVM_REGISTER_GPU_VASPACE takes the VA space's mm first (uvm_va_space_mm_or_current_retain()):
    from 535 an MM file must have claimed it, unless the VA space shares no mm. An H200 with
    580.159.04 answered NV_ERR_PAGE_TABLE_NOT_AVAIL without it (session 34)."""
    uuid = rm.gpu_uuid_bytes(rm.param("gpu_uuid"))
    r = Rm()
    va, mm = uvm_open(), -1
    try:
        dev, _ = r.device()
        if how == "mm file":
            mm = rm.mm_file(va)
        else:
            flags = rm.UVM_FLAGS_MULTI_PROCESS if how == "multi-process" else 0
            assert rm.uvm_initialize(va, flags) == rm.OK
        assert rm.uvm_register_gpu(va, uuid, r.client)[0] == rm.OK
        status, vaspace = r.alloc(
            r.client, dev, rm.VASPACE, rm.vaspace_params(rm.VASPACE_EXTERNALLY_OWNED)
        )
        assert status == rm.OK, hex(status)
        want = rm.PAGE_TABLE_NOT_AVAIL if how == "none" else rm.OK
        assert rm.uvm_register_gpu_vaspace(va, uuid, r.client, vaspace) == want
    finally:
        os.close(va)
        if mm >= 0:
            os.close(mm)
        r.close()


def libc_mmap(fd: int, addr: int, length: int, flags: int, offset: int | None = None) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [
        ctypes.c_void_p,
        ctypes.c_size_t,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_int,
        ctypes.c_long,
    ]
    prot = mmap.PROT_READ | mmap.PROT_WRITE
    p = libc.mmap(addr, length, prot, flags, fd, addr if offset is None else offset)
    if p in (None, ctypes.c_void_p(-1).value):
        return ctypes.get_errno()
    libc.munmap(ctypes.c_void_p(p), ctypes.c_size_t(length))
    return 0


MAP_FIXED_NOREPLACE = 0x100000
ADDR = 0x7E0000000000  # a free address that is also the offset, as UVM requires


def test_mmap_refuses_managed_memory(uvm: int) -> None:
    flags = mmap.MAP_SHARED | MAP_FIXED_NOREPLACE
    assert libc_mmap(uvm, ADDR, 1 << 21, flags) == errno.EBADFD  # not a VA space
    assert rm.uvm_initialize(uvm) == rm.OK
    assert libc_mmap(uvm, ADDR, 1 << 21, mmap.MAP_PRIVATE | MAP_FIXED_NOREPLACE) == errno.EINVAL
    assert libc_mmap(uvm, ADDR, 1 << 21, flags, offset=ADDR + (1 << 21)) == errno.EINVAL
    # Where the real driver would create a managed range: not simulated.
    assert libc_mmap(uvm, ADDR, 1 << 21, flags) == errno.EBADFD


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize(
    ("version", "unknown", "has_mm"),
    [("525.60.13", errno.EINVAL, False), ("565.57.01", errno.EINVAL, True)],
)
def test_older_drivers(version: str, unknown: int, has_mm: bool) -> None:
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            assert rmmod(name).returncode == 0
    r = insmod("nvsim", f"abi_version={version}")
    assert r.returncode == 0, r.stderr
    va, mm = uvm_open(), uvm_open()
    try:
        assert errno_of(1234, bytearray(64), va) == unknown
        assert rm.uvm_initialize(va) == rm.OK
        buf = bytearray(struct.pack("<iI", va, 0))
        if has_mm:
            assert rm.uvm_ioctl(mm, rm.UVM_MM_INITIALIZE, buf) == rm.OK
        else:
            assert errno_of(rm.UVM_MM_INITIALIZE, buf, mm) == errno.EINVAL  # unknown before 535
    finally:
        os.close(va)
        os.close(mm)
