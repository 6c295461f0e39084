"""RM_MAP_MEMORY, RM_UNMAP_MEMORY, mmap and the usermode doorbell, as the real driver does them.

One mapping context per file, created by RM_MAP_MEMORY on an fd that must be the right real
nvidia file (nvidiactl for system memory, nvidiaN of the GPU for video memory and the usermode
region), then mmap of that file at offset 0 with exactly the mapped length.
"""

from __future__ import annotations

import errno
import mmap
import os
import struct
import time
from collections.abc import Iterator

import pytest
import rm
from rm import Rm, mapped

MIB = 1 << 20


@pytest.fixture(params=[False, True], ids=["direct", "xfer"])
def proc(request: pytest.FixtureRequest) -> Iterator[Rm]:
    r = Rm(xfer=request.param)
    yield r
    r.close()


def test_vidmem_maps_through_a_gpu_file_and_two_mappings_share_the_pages(proc: Rm) -> None:
    dev, sub = proc.device()
    status, mem, size, offset = proc.memory(rm.VIDMEM, dev, 2 * MIB)
    assert status == rm.OK and size == 2 * MIB and offset >= 1 << 32
    fd_a, fd_b = proc.open_gpu(), proc.open_gpu()
    try:
        status, addr_a = proc.map_memory(dev, mem, 0, 2 * MIB, fd_a)
        assert status == rm.OK and addr_a
        status, addr_b = proc.map_memory(sub, mem, MIB, 4096, fd_b)
        assert status == rm.OK and addr_b != addr_a
        a = mapped(fd_a, 2 * MIB)
        b = mapped(fd_b, 4096)
        a[MIB : MIB + 5] = b"hello"
        assert b[:5] == b"hello"
        b[4095:4096] = b"!"
        assert a[MIB + 4095 : MIB + 4096] == b"!"
        assert a[:16] == bytes(16)  # untouched memory reads as zero
        a.close()
        b.close()
        assert proc.unmap_memory(dev, mem, addr_a) == rm.OK
        assert proc.unmap_memory(sub, mem, addr_b) == rm.OK
    finally:
        os.close(fd_a)
        os.close(fd_b)


def test_sysmem_maps_through_nvidiactl_only(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.SYSMEM, dev, 64 * 1024, rm.ATTR_LOCATION_PCI)
    assert status == rm.OK
    gpu = proc.open_gpu()
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        assert proc.map_memory(dev, mem, 0, 4096, gpu)[0] == rm.INVALID_ARGUMENT
        status, _ = proc.map_memory(dev, mem, 0, 4096, ctl)
        assert status == rm.OK
        m = mapped(ctl, 4096)
        m[:4] = b"sysm"
        assert m[:4] == b"sysm"
        m.close()
    finally:
        os.close(gpu)
        os.close(ctl)


def test_map_refuses_wrong_files_and_a_second_context(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, MIB)
    assert status == rm.OK
    null = os.open("/dev/null", os.O_RDWR)
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    gpu = proc.open_gpu()
    try:
        for fd in (null, ctl, -1, 9999):
            assert proc.map_memory(dev, mem, 0, 4096, fd)[0] == rm.INVALID_ARGUMENT
        assert proc.map_memory(dev, mem, 0, 4096, gpu)[0] == rm.OK
        assert proc.map_memory(dev, mem, 0, 4096, gpu)[0] == rm.STATE_IN_USE
    finally:
        for fd in (null, ctl, gpu):
            os.close(fd)


def test_map_validates_handles_and_range(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, MIB)
    assert status == rm.OK
    status, virt, _, _ = proc.memory(0x50A0, dev, MIB)
    assert status == rm.OK
    gpu = proc.open_gpu()
    try:
        assert proc.map_memory(dev, mem, 0, MIB + 1, gpu)[0] == rm.INVALID_LIMIT
        assert proc.map_memory(dev, mem, MIB, 1, gpu)[0] == rm.INVALID_LIMIT
        assert proc.map_memory(dev, mem, 0, 0, gpu)[0] == rm.INVALID_LIMIT
        assert proc.map_memory(dev, 0xDEAD, 0, 4096, gpu)[0] == rm.INVALID_OBJECT_HANDLE
        assert proc.map_memory(dev, virt, 0, 4096, gpu)[0] == rm.INVALID_OBJECT_HANDLE
        assert proc.map_memory(mem, mem, 0, 4096, gpu)[0] == rm.INVALID_OBJECT_PARENT
        other = Rm()
        try:
            # A client is bound to its own ctl file.
            buf = bytearray(rm.NVOS33_FD.pack(proc.client, dev, mem, 0, 0, 4096, 0, 0, 0, gpu))
            rm.ioctl(other.ctl, rm.RM_MAP_MEMORY, buf)
            assert rm.NVOS33_FD.unpack(buf)[7] == rm.INVALID_CLIENT
        finally:
            other.close()
        # RM_MAP_MEMORY is a ctl-only escape.
        buf = bytearray(rm.NVOS33_FD.pack(proc.client, dev, mem, 0, 0, 4096, 0, 0, 0, gpu))
        with pytest.raises(OSError) as exc:
            rm.ioctl(gpu, rm.RM_MAP_MEMORY, buf)
        assert exc.value.errno == errno.EINVAL
        with pytest.raises(OSError) as exc:
            rm.ioctl(proc.ctl, rm.RM_MAP_MEMORY, bytearray(48))
        assert exc.value.errno == errno.EINVAL
    finally:
        os.close(gpu)


def test_mmap_needs_a_context_offset_zero_and_the_exact_length(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, MIB)
    assert status == rm.OK
    bare, gpu = proc.open_gpu(), proc.open_gpu()
    try:
        with pytest.raises(OSError) as exc:
            mapped(bare, 4096)
        assert exc.value.errno == errno.EINVAL
        assert proc.map_memory(dev, mem, 0, 8192, gpu)[0] == rm.OK
        for length, offset in ((4096, 0), (3 * 4096, 0), (8192, 4096)):
            with pytest.raises(OSError) as exc:
                mapped(gpu, length, offset)
            assert exc.value.errno == errno.EINVAL
        mapped(gpu, 8192).close()
    finally:
        os.close(bare)
        os.close(gpu)


def test_an_unaligned_offset_maps_the_pages_that_hold_it(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, MIB)
    assert status == rm.OK
    whole, part = proc.open_gpu(), proc.open_gpu()
    try:
        assert proc.map_memory(dev, mem, 0, MIB, whole)[0] == rm.OK
        assert proc.map_memory(dev, mem, 4096 + 100, 4096, part)[0] == rm.OK
        with pytest.raises(OSError):
            mapped(part, 4096)
        w, p = mapped(whole, MIB), mapped(part, 8192)
        w[4096 + 100 : 4096 + 104] = b"abcd"
        assert p[100:104] == b"abcd"
        w.close()
        p.close()
    finally:
        os.close(whole)
        os.close(part)


def test_only_the_process_that_made_the_client_maps_through_it(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, MIB)
    assert status == rm.OK
    gpu = proc.open_gpu()
    try:
        pid = os.fork()
        if pid == 0:  # the child inherits the ctl fd, so the client binding holds; ProcID not
            status, _ = proc.map_memory(dev, mem, 0, 4096, gpu)
            os._exit(0 if status == rm.INVALID_CLIENT else 1)
        _, wait_status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(wait_status) == 0
        assert proc.map_memory(dev, mem, 0, 4096, gpu)[0] == rm.OK
    finally:
        os.close(gpu)


def test_unmap_memory_drops_the_record_once(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, MIB)
    assert status == rm.OK
    gpu = proc.open_gpu()
    try:
        status, addr = proc.map_memory(dev, mem, 0, 4096, gpu)
        assert status == rm.OK
        assert proc.unmap_memory(dev, mem, addr + 4096) == rm.INVALID_ARGUMENT
        assert proc.unmap_memory(dev, 0xDEAD, addr) == rm.INVALID_OBJECT_HANDLE
        assert proc.unmap_memory(dev, mem, addr) == rm.OK
        assert proc.unmap_memory(dev, mem, addr) == rm.INVALID_ARGUMENT
    finally:
        os.close(gpu)


def test_a_mapping_outlives_the_handle_but_not_the_framebuffer_charge(proc: Rm) -> None:
    dev, sub = proc.device()
    free = proc.fb_free_bytes(sub)
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, 2 * MIB)
    assert status == rm.OK
    gpu = proc.open_gpu()
    try:
        assert proc.map_memory(dev, mem, 0, 2 * MIB, gpu)[0] == rm.OK
        m = mapped(gpu, 2 * MIB)
        m[:4] = b"keep"
        assert proc.free(mem) == rm.OK
        assert proc.fb_free_bytes(sub) == free
        assert m[:4] == b"keep"
        m.close()
    finally:
        os.close(gpu)


def wait_cleared(m: mmap.mmap) -> bool:
    """The doorbell worker reads and clears the token after each ring."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if struct.unpack_from("<I", m, rm.DOORBELL)[0] == 0:
            return True
        time.sleep(0.01)
    return False


def test_usermode_doorbell_sees_every_ring(proc: Rm) -> None:
    dev, sub = proc.device()
    status, usermode = proc.alloc(proc.client, sub, rm.USERMODE)
    assert status == rm.OK
    gpu = proc.open_gpu()
    try:
        assert proc.map_memory(dev, usermode, 4096, 4096, gpu)[0] == rm.INVALID_OFFSET
        status, _ = proc.map_memory(sub, usermode, 0, rm.USERMODE_SIZE, gpu)
        assert status == rm.OK
        with pytest.raises(OSError):
            mapped(gpu, rm.USERMODE_SIZE, flags=mmap.MAP_PRIVATE)
        m = mapped(gpu, rm.USERMODE_SIZE)
        assert struct.unpack_from("<I", m, rm.DOORBELL)[0] == 0
        for token in (7, 8, 9):
            rm.store(m, rm.DOORBELL, token)
            assert wait_cleared(m), f"ring {token} not seen"
        m[0x1000:0x1004] = b"rest"  # the rest of the region is plain memory
        m.close()
    finally:
        os.close(gpu)


def test_usermode_needs_a_subdevice_parent(proc: Rm) -> None:
    dev, _ = proc.device()
    assert proc.alloc(proc.client, dev, rm.USERMODE)[0] == rm.INVALID_OBJECT_PARENT


def test_update_device_mapping_info_moves_the_address_rm_knows(proc: Rm) -> None:
    """CUDA tells RM where it mmapped a mapping (RmUpdateDeviceMappingInfo): RM_UNMAP_MEMORY
    then names that address, not RM_MAP_MEMORY's. RM looks the client up by handle alone, but
    finds only mappings the calling process made."""
    dev, sub = proc.device()
    status, mem, _, _ = proc.memory(rm.VIDMEM, dev, 2 * MIB)
    assert status == rm.OK
    fd = proc.open_gpu()
    try:
        status, cookie = proc.map_memory(dev, mem, 0, 2 * MIB, fd)
        assert status == rm.OK
        m = mapped(fd, 2 * MIB)
        m[:5] = b"moved"
        va = 0x7E0000000000  # where user space says the mapping is
        assert proc.update_mapping(sub, mem, cookie, va) == rm.OK
        assert proc.update_mapping(dev, mem, cookie, va + 4096) == rm.OBJECT_NOT_FOUND
        assert proc.update_mapping(0xBAD, mem, va, va) == rm.OBJECT_NOT_FOUND
        assert proc.update_mapping(mem, mem, va, va) == rm.INVALID_OBJECT_HANDLE  # not a device
        assert proc.update_mapping(dev, 0xBAD, va, va) == rm.OBJECT_NOT_FOUND
        assert proc.update_mapping(dev, sub, va, va) == rm.INVALID_OBJECT_HANDLE  # not memory
        assert proc.update_mapping(dev, mem, va, va, hclient=0xBAD) == rm.INVALID_CLIENT
        # another process finds the client, but not a mapping of its own
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the other process
            try:
                other = Rm()
                status = other.update_mapping(dev, mem, va, va, hclient=proc.client)
                os._exit(0 if status == rm.OBJECT_NOT_FOUND else 1)
            finally:
                os._exit(2)
        assert os.waitpid(pid, 0)[1] == 0
        assert proc.unmap_memory(dev, mem, cookie) == rm.INVALID_ARGUMENT
        # nor may another process unmap it, even through the same file (a fork)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the forked process
            try:
                os._exit(0 if proc.unmap_memory(dev, mem, va) == rm.INVALID_ARGUMENT else 1)
            finally:
                os._exit(2)
        assert os.waitpid(pid, 0)[1] == 0
        assert proc.unmap_memory(dev, mem, va) == rm.OK
        m.close()
    finally:
        os.close(fd)
    buf = bytearray(rm.NVOS56.size)
    with pytest.raises(OSError) as exc:  # nvidiactl only
        rm.ioctl(proc.gpu_fd, rm.RM_UPDATE_DEVICE_MAPPING_INFO, buf)
    assert exc.value.errno == errno.EINVAL
