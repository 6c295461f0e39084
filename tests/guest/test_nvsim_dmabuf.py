"""nvsim's EXPORT_TO_DMABUF_FD (kmod/nvsim/nvsim_dmabuf.c): video memory exported as a dma-buf
lives until the dma-buf is released, whatever its handles do; the range checks and statuses are
the driver's; and, as in the driver, the client named is never checked against the caller."""

from __future__ import annotations

import errno
import fcntl
import mmap
import os

import pytest
import rm
from rm import Rm

MIB = 1 << 20


def test_exported_memory_lives_until_the_dmabuf_goes() -> None:
    a = Rm()
    try:
        dev, sub = a.device()
        free0 = a.fb_free_bytes(sub)
        status, h, _ = a.vidmem(dev, 64 * MIB)
        assert status == rm.OK
        status, fd = a.export_dmabuf([(h, 0, 64 * MIB)])
        assert status == rm.OK, hex(status)
        assert fd >= 0
        assert fcntl.fcntl(fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        assert "dmabuf" in os.readlink(f"/proc/self/fd/{fd}")
        assert a.free(h) == rm.OK
        assert a.fb_free_bytes(sub) == free0 - 64 * MIB  # the dma-buf holds it
        dup = os.dup(fd)
        os.close(fd)
        assert a.fb_free_bytes(sub) == free0 - 64 * MIB  # so does every fd of it
        os.close(dup)
        assert a.fb_free_bytes(sub) == free0
    finally:
        a.close()


def test_a_part_of_an_allocation_holds_all_of_it() -> None:
    a = Rm()
    try:
        dev, sub = a.device()
        free0 = a.fb_free_bytes(sub)
        _, h, _ = a.vidmem(dev, 32 * MIB)
        status, fd = a.export_dmabuf([(h, 4096, 4096)])
        assert status == rm.OK, hex(status)
        assert a.free(h) == rm.OK
        assert a.fb_free_bytes(sub) == free0 - 32 * MIB
        os.close(fd)
        assert a.fb_free_bytes(sub) == free0
    finally:
        a.close()


def test_any_client_of_the_gpu_can_be_exported() -> None:
    """The driver duplicates with kernel privilege and never asks whose client it is."""
    a, b = Rm(), Rm()
    try:
        dev, _ = a.device()
        _, subb = b.device()
        free0 = b.fb_free_bytes(subb)
        _, h, _ = a.vidmem(dev, 8 * MIB)
        status, fd = b.export_dmabuf([(h, 0, 8 * MIB)], hclient=a.client)
        assert status == rm.OK, hex(status)
    finally:
        a.close()  # a's client and every handle of it go
    try:
        assert b.fb_free_bytes(subb) == free0 - 8 * MIB
        os.close(fd)
        assert b.fb_free_bytes(subb) == free0
    finally:
        b.close()


def test_ranges_are_added_to_an_existing_dmabuf() -> None:
    a = Rm()
    try:
        dev, sub = a.device()
        free0 = a.fb_free_bytes(sub)
        _, h1, _ = a.vidmem(dev, 2 * MIB)
        _, h2, _ = a.vidmem(dev, 4 * MIB)
        status, fd = a.export_dmabuf([(h1, 0, 2 * MIB)], total_objects=2, total_size=6 * MIB)
        assert status == rm.OK, hex(status)
        # the first slot is taken; the second, of the wrong size, would leave the total short
        assert a.export_dmabuf([(h2, 0, 2 * MIB)], fd=fd, index=0)[0] == rm.IN_USE
        assert a.export_dmabuf([(h2, 0, 2 * MIB)], fd=fd, index=1)[0] == rm.INVALID_ARGUMENT
        assert a.export_dmabuf([(h2, 0, 4 * MIB)], fd=fd, index=1) == (rm.OK, fd)
        assert a.free(h1) == rm.OK and a.free(h2) == rm.OK
        assert a.fb_free_bytes(sub) == free0 - 6 * MIB
        os.close(fd)
        assert a.fb_free_bytes(sub) == free0
    finally:
        a.close()


def test_export_statuses_are_the_drivers() -> None:
    a = Rm()
    try:
        dev, sub = a.device()
        free0 = a.fb_free_bytes(sub)
        _, h, _ = a.vidmem(dev, 2 * MIB)
        _, hsys, _, _ = a.memory(rm.SYSMEM, dev, 2 * MIB, attr=rm.ATTR_LOCATION_PCI)
        whole = [(h, 0, 2 * MIB)]
        # the call itself: nvidiactl, or not the version's size
        buf = rm.dmabuf_params(whole, -1, 1, 2 * MIB, 0, a.client)
        assert rm.refused(a.ctl, rm.EXPORT_TO_DMABUF_FD, buf) == errno.EINVAL
        assert rm.refused(a.gpu_fd, rm.EXPORT_TO_DMABUF_FD, buf + bytes(8)) == errno.EINVAL
        # the arguments
        assert a.export_dmabuf(whole, total_size=4 * MIB, total_objects=1)[0] == (
            rm.INVALID_ARGUMENT
        )
        assert a.export_dmabuf(whole, fd=-2)[0] == rm.INVALID_ARGUMENT
        assert a.export_dmabuf(whole, index=1)[0] == rm.INVALID_ARGUMENT
        assert a.export_dmabuf([(h, 0, 2 * MIB)] * 2, total_objects=1)[0] == (rm.INVALID_ARGUMENT)
        # what the ranges name
        assert a.export_dmabuf(whole, hclient=0xC1D0FFFF)[0] == rm.INVALID_OBJECT_HANDLE
        assert a.export_dmabuf([(0xCAFEBABE, 0, 2 * MIB)])[0] == rm.OBJECT_NOT_FOUND
        assert a.export_dmabuf([(dev, 0, 2 * MIB)])[0] == rm.INVALID_OBJECT
        assert a.export_dmabuf([(hsys, 0, 2 * MIB)])[0] == rm.INVALID_ARGUMENT
        assert a.export_dmabuf([(h, 512, 4096)])[0] == rm.INVALID_ARGUMENT
        assert a.export_dmabuf([(h, 0, 4 * MIB)])[0] == rm.INVALID_ARGUMENT
        assert a.export_dmabuf([(h, 2 * MIB - 4096, 8192)])[0] == rm.INVALID_ARGUMENT
        # an fd that is not a dma-buf
        assert a.export_dmabuf(whole, fd=a.ctl)[0] == rm.OPERATING_SYSTEM
        if rm.abi_at_least((570,)):
            assert a.export_dmabuf(whole, mapping_type=2)[0] == rm.INVALID_ARGUMENT
            assert a.export_dmabuf(whole, mapping_type=1)[0] == rm.NOT_SUPPORTED  # not coherent
        if rm.abi_at_least((580,)):
            assert a.export_dmabuf(whole, allow_mmap=True)[0] == rm.NOT_SUPPORTED
        with rm.nvsim_switch("dmabuf", False):
            assert a.export_dmabuf(whole)[0] == rm.NOT_SUPPORTED
        # none of that holds anything, and a good call still works
        assert a.free(h) == rm.OK
        assert a.free(hsys) == rm.OK
        assert a.fb_free_bytes(sub) == free0
    finally:
        a.close()


def test_a_dmabuf_cannot_be_mapped() -> None:
    a = Rm()
    try:
        dev, _ = a.device()
        _, h, _ = a.vidmem(dev, MIB)
        status, fd = a.export_dmabuf([(h, 0, MIB)])
        assert status == rm.OK
        with pytest.raises(OSError):
            mmap.mmap(fd, MIB, mmap.MAP_SHARED)
        os.close(fd)
    finally:
        a.close()


def test_gpu_info_reports_the_dmabuf_capability() -> None:
    """DMABUF_CAPABILITY of GPU_GET_INFO_V2 and GPU_GET_CACHED_INFO is what the driver read at
    start (osinit.c) and what CUDA's CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED says: it follows
    nvsim's ``dmabuf`` parameter, as the export does."""
    a = Rm()
    try:
        _, sub = a.device()
        for cmd in (rm.GPU_GET_INFO_V2, rm.GPU_GET_CACHED_INFO):
            indices = (rm.GPU_INFO_MOBILE_CONFIG_ENABLED, rm.GPU_INFO_DMABUF_CAPABILITY)
            assert a.gpu_info(sub, *indices, cmd=cmd) == (rm.OK, [0, 1])
            with rm.nvsim_switch("dmabuf", False):
                assert a.gpu_info(sub, *indices, cmd=cmd) == (rm.OK, [0, 0])
    finally:
        a.close()


def test_gpu_info_checks_as_rm() -> None:
    """getGpuInfos(): the version's params size, a list of 1..MAX entries, every index below
    MAX; on a subdevice only."""
    a = Rm()
    try:
        dev, sub = a.device()
        top = rm.gpu_info_max()
        dma = rm.GPU_INFO_DMABUF_CAPABILITY
        for cmd in (rm.GPU_GET_INFO_V2, rm.GPU_GET_CACHED_INFO):
            assert a.gpu_info(sub, dma, cmd=cmd, count=0)[0] == rm.INVALID_ARGUMENT
            assert a.gpu_info(sub, dma, cmd=cmd, count=top + 1)[0] == rm.INVALID_ARGUMENT
            assert a.gpu_info(sub, dma, top, cmd=cmd)[0] == rm.INVALID_ARGUMENT
            assert a.gpu_info(sub, top - 1, dma, cmd=cmd) == (rm.OK, [0, 1])
            # the rest of a full list is index 0, which is valid
            assert a.gpu_info(sub, dma, cmd=cmd, count=top)[0] == rm.OK
            size = rm.gpu_info_v2_size()
            assert a.control(sub, cmd, bytearray(size - 8)) == rm.INVALID_PARAM_STRUCT
            assert a.control(sub, cmd, bytearray(size + 8)) == rm.INVALID_PARAM_STRUCT
            assert a.control(dev, cmd, bytearray(size)) == rm.NOT_SUPPORTED
    finally:
        a.close()
