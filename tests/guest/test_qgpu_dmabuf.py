"""EXPORT_TO_DMABUF_FD through an instance (kmod/qgpu_dmabuf.c, DOC: dma-buf export): refused by
default with the driver's own answer for a GPU without dma-buf support, so that a tenant can
neither keep memory past its limit in a dma-buf nor export another instance's memory (the driver
lets any caller name any client); forwarded for the instance's own clients where the ``dmabuf``
knob allows it."""

from __future__ import annotations

import errno
import os

import pytest
import rm
from kernel import reload_modules
from qgpu_sysfs import errno_of_write, gpu_dir, inst_dir, instance, read, write
from qgpu_sysfs import mem_current as current
from rm import Rm

MIB = 1 << 20


def test_the_dmabuf_knob_and_create_key() -> None:
    assert "dmabuf" in read(gpu_dir(0) / "create_keys").split()
    with instance("dk", opts="mem=8M"):
        d = inst_dir("dk")
        assert read(d / "dmabuf") == "refuse"
        assert os.stat(d / "dmabuf").st_mode & 0o777 == 0o644
        write(d / "dmabuf", "allow\n")
        assert read(d / "dmabuf") == "allow"
        for bad in ("yes", "\n", "ALLOW", "allow refuse"):
            assert errno_of_write(d / "dmabuf", bad) == errno.EINVAL, bad
        assert read(d / "dmabuf") == "allow"
        write(d / "dmabuf", "refuse")
        assert read(d / "dmabuf") == "refuse"
    with instance("dk2", opts="mem=8M dmabuf=allow"):
        assert read(inst_dir("dk2") / "dmabuf") == "allow"
    for bad in ("dmabuf=yes", "dmabuf=allow dmabuf=allow"):
        assert errno_of_write(gpu_dir(0) / "create", f"dk3 mem=8M {bad}") == errno.EINVAL
        assert not inst_dir("dk3").exists()


def test_export_is_refused_as_on_a_gpu_without_dmabuf_support() -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("dr", opts="mem=16M") as d:
        sock = QgpuEventSocket()
        a, x = Rm(dev=d), Rm(dev=d, xfer=True)
        direct = Rm()  # nvsim itself: what the GPU really holds
        try:
            dev, _ = a.device()
            _, hsub = direct.device()
            free0 = direct.fb_free_bytes(hsub)
            _, h, _ = a.vidmem(dev, 4 * MIB)
            assert a.export_dmabuf([(h, 0, 4 * MIB)]) == (rm.NOT_SUPPORTED, -1)
            devx, _ = x.device()
            _, hx, _ = x.vidmem(devx, 4 * MIB)
            assert x.export_dmabuf([(hx, 0, 4 * MIB)]) == (rm.NOT_SUPPORTED, -1)
            # arguments the driver refuses get its answer, as on such a GPU
            assert a.export_dmabuf([(h, 0, 4 * MIB)], fd=-2)[0] == rm.INVALID_ARGUMENT
            assert a.export_dmabuf([(h, 0, 4 * MIB)], index=1)[0] == rm.INVALID_ARGUMENT
            # the call itself: on nvidiactl, or of the wrong size, is the driver's -EINVAL
            buf = rm.dmabuf_params([(h, 0, 4 * MIB)], -1, 1, 4 * MIB, 0, a.client)
            assert rm.refused(a.ctl, rm.EXPORT_TO_DMABUF_FD, buf) == errno.EINVAL
            assert rm.refused(a.gpu_fd, rm.EXPORT_TO_DMABUF_FD, buf + bytes(8)) == errno.EINVAL
            # nothing was made: freeing the handles frees the memory
            assert a.free(h) == rm.OK and x.free(hx) == rm.OK
            assert current("dr") == 0
            assert direct.fb_free_bytes(hsub) == free0
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.gpu, ev.pid) == ("dr", 0, os.getpid())
            assert "dmabuf=refuse" in ev.detail
        finally:
            a.close()
            x.close()
            direct.close()
            sock.close()


def test_a_dmabuf_cannot_keep_memory_past_the_limit() -> None:
    """Allocate the limit, export it, free the handle, again: forwarded, the dma-bufs held
    every round's memory while the instance's charge went back to zero each time."""
    with instance("dl", opts="mem=8M") as d:
        a = Rm(dev=d)
        direct = Rm()
        fds: list[int] = []
        try:
            dev, _ = a.device()
            _, hsub = direct.device()
            free0 = direct.fb_free_bytes(hsub)
            for _ in range(4):
                status, h, _ = a.vidmem(dev, 8 * MIB)
                assert status == rm.OK
                status, fd = a.export_dmabuf([(h, 0, 8 * MIB)])
                if fd >= 0:
                    fds.append(fd)
                assert a.free(h) == rm.OK
                held = free0 - direct.fb_free_bytes(hsub)
                assert held <= 8 * MIB, f"the GPU holds {held >> 20} MiB for an 8 MiB instance"
            assert status == rm.NOT_SUPPORTED
        finally:
            for fd in fds:
                os.close(fd)
            a.close()
            direct.close()


def test_another_instances_memory_cannot_be_exported() -> None:
    """The driver lets the caller name any client of the GPU; qgpu does not."""
    with instance("dv", opts="mem=8M") as dv, instance("da", opts="mem=8M") as da:
        victim, a = Rm(dev=dv), Rm(dev=da)
        fds: list[int] = []
        try:
            vdev, _ = victim.device()
            a.device()
            _, h, _ = victim.vidmem(vdev, 4 * MIB)
            status, fd = a.export_dmabuf([(h, 0, 4 * MIB)], hclient=victim.client)
            if fd >= 0:
                fds.append(fd)
            assert status == rm.NOT_SUPPORTED, hex(status)
            write(inst_dir("da") / "dmabuf", "allow")
            status, fd = a.export_dmabuf([(h, 0, 4 * MIB)], hclient=victim.client)
            if fd >= 0:
                fds.append(fd)
            assert status == rm.INVALID_OBJECT_HANDLE, hex(status)  # as if it did not exist
        finally:
            for fd in fds:
                os.close(fd)
            victim.close()
            a.close()
        assert current("dv") == 0


def test_allow_forwards_exports_of_the_instances_own_memory() -> None:
    with instance("dw", opts="mem=16M dmabuf=allow") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        direct = Rm()
        try:
            dev, _ = a.device()
            b.device()
            _, hsub = direct.device()
            free0 = direct.fb_free_bytes(hsub)
            _, h, _ = a.vidmem(dev, 4 * MIB)
            status, fd = a.export_dmabuf([(h, 0, 4 * MIB)])
            assert status == rm.OK, hex(status)
            assert fd >= 0 and "dmabuf" in os.readlink(f"/proc/self/fd/{fd}")
            # another process's client of the same instance is the tenant's own business
            status, fd2 = b.export_dmabuf([(h, 0, 2 * MIB)], hclient=a.client)
            assert status == rm.OK, hex(status)
            assert a.free(h) == rm.OK
            assert direct.fb_free_bytes(hsub) == free0 - 4 * MIB  # the dma-bufs hold it
            os.close(fd)
            os.close(fd2)
            assert direct.fb_free_bytes(hsub) == free0
            # live: refused from the next call on
            write(inst_dir("dw") / "dmabuf", "refuse")
            _, h, _ = a.vidmem(dev, 4 * MIB)
            assert a.export_dmabuf([(h, 0, 4 * MIB)]) == (rm.NOT_SUPPORTED, -1)
        finally:
            a.close()
            b.close()
            direct.close()


def test_a_refusing_instance_reports_no_dmabuf_capability() -> None:
    """CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED comes from DMABUF_CAPABILITY: an instance that
    refuses exports says its GPU has none, so that NCCL and the like never try an export that
    fails; one that allows them reports the GPU's own answer."""
    dma, mobile = rm.GPU_INFO_DMABUF_CAPABILITY, rm.GPU_INFO_MOBILE_CONFIG_ENABLED
    with instance("dc", opts="mem=8M") as d:
        a, x = Rm(dev=d), Rm(dev=d, xfer=True)
        direct = Rm()
        try:
            _, sub = a.device()
            _, subx = x.device()
            _, dsub = direct.device()
            for cmd in (rm.GPU_GET_INFO_V2, rm.GPU_GET_CACHED_INFO):
                assert direct.gpu_info(dsub, dma, cmd=cmd) == (rm.OK, [1])
                assert a.gpu_info(sub, mobile, dma, dma, cmd=cmd) == (rm.OK, [0, 0, 0])
                assert x.gpu_info(subx, dma, cmd=cmd) == (rm.OK, [0])
                # what RM refuses is refused as before
                assert a.gpu_info(sub, dma, cmd=cmd, count=0)[0] == rm.INVALID_ARGUMENT
                size = rm.gpu_info_v2_size()
                assert a.control(sub, cmd, bytearray(size + 8)) == rm.INVALID_PARAM_STRUCT
            write(inst_dir("dc") / "dmabuf", "allow")
            assert a.gpu_info(sub, dma) == (rm.OK, [1])
            with rm.nvsim_switch("dmabuf", False):
                assert a.gpu_info(sub, dma) == (rm.OK, [0])  # the GPU's own answer
            write(inst_dir("dc") / "dmabuf", "refuse")
            assert a.gpu_info(sub, dma) == (rm.OK, [0])
            assert x.gpu_info(subx, dma, cmd=rm.GPU_GET_CACHED_INFO) == (rm.OK, [0])
        finally:
            a.close()
            x.close()
            direct.close()


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize("version", ["535.104.05", "570.86.15"])
def test_older_abis_refuse_and_hide_in_their_layouts(version: str) -> None:
    """535 has the 2600 B export and 0x40 GPU info entries, 570 the 2608 B export without
    bAllowMmap and 0x41 entries: qgpu refuses and hides in the version's layout, and RM's size
    check still answers calls of another version's size."""
    reload_modules(f"abi_version={version}")
    dma = rm.GPU_INFO_DMABUF_CAPABILITY
    with instance("do", opts="mem=8M") as d:
        a, direct = Rm(dev=d), Rm()
        try:
            dev, sub = a.device()
            _, dsub = direct.device()
            assert direct.gpu_info(dsub, dma) == (rm.OK, [1])
            assert a.gpu_info(sub, dma) == (rm.OK, [0])
            assert a.control(sub, rm.GPU_GET_INFO_V2, bytearray(564)) == rm.INVALID_PARAM_STRUCT
            _, h, _ = a.vidmem(dev, 4 * MIB)
            assert a.export_dmabuf([(h, 0, 4 * MIB)]) == (rm.NOT_SUPPORTED, -1)
        finally:
            a.close()
            direct.close()
