"""System memory RM allocates for an instance's processes, charged and limited (kmod/qgpu_mem.c,
DOC: system memory): the driver allocates NV01_MEMORY_SYSTEM (0x3E) from the host's pages without
charging any memory cgroup, so qgpu charges it to the instance, under ``sysmem_max``. RM_ALLOC of
0x3E (direct and XFER-wrapped), VID_HEAP_CONTROL ALLOC_* outside video memory and RM_ALLOC_MEMORY
of 0x3E are charged at the size RM allocated; past the limit the call fails with NV_ERR_NO_MEMORY
and nothing is allocated; duplicates share the charge; every free and the process's end return
it; video memory and other instances are not affected."""

from __future__ import annotations

import errno
import os
import struct

import rm
from holder import killed_after
from qgpu_sysfs import (
    count,
    errno_of_write,
    gpu_dir,
    inst_dir,
    instance,
    mem_current,
    read,
    wait_count,
    write,
)
from rm import Rm

KIB, MIB = 1 << 10, 1 << 20
PCI = rm.ATTR_LOCATION_PCI
PAGE_4K = 1 << 23  # NVOS32 ATTR PAGE_SIZE=4KB
DEVICELESS = 0x90CE  # NV01_MEMORY_DEVICELESS: system memory under the client itself
EXTENDED_USER = 0x42  # NV_MEMORY_EXTENDED_USER: extended GPU memory (EGM), 535-590
EGM_ATTR2_USE_EGM = 1 << 24  # NVOS32_ATTR2_USE_EGM_TRUE
NO_MAP = 1 << 30  # NVOS02 FLAGS MAPPING=NO_MAP


def rm_has(r: Rm, handle: int) -> bool:
    """Whether RM has `handle` in the process's client (NV0000 CLIENT_GET_HANDLE_INFO)."""
    params = bytearray(struct.pack("<IIQ", handle, 2, 0))  # INDEX_CLASSID
    return r.control(r.client, rm.GET_HANDLE_INFO, params) == rm.OK


def sysmem(r: Rm, dev: int, size: int, hnew: int = 0) -> tuple[int, int, int]:
    """RM_ALLOC of 0x3E, PCI aperture, 4 KiB pages: (status, handle, size written back)."""
    params = bytearray(rm.MEM_PARAMS_SIZE)
    struct.pack_into("<I", params, 0, r.client)
    struct.pack_into("<I", params, 24, PCI | PAGE_4K)
    struct.pack_into("<Q", params, 64, size)
    ptr = r.buffer(bytes(params))
    buf = bytearray(rm.NVOS64.pack(r.client, dev, hnew, rm.SYSMEM, ptr, 0, 0, 0, 0xFFFFFFFF))
    r.call(r.ctl, rm.RM_ALLOC, buf)
    fields = rm.NVOS64.unpack(buf)
    return fields[8], fields[2], struct.unpack_from("<Q", r.keep[-1].raw, 64)[0]


def heap_sysmem(r: Rm, dev: int, size: int) -> tuple[int, int]:
    """VID_HEAP_CONTROL ALLOC_SIZE outside video memory: (status, handle)."""
    buf = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=size, attr=PCI | PAGE_4K)
    return struct.unpack_from("<I", buf, 20)[0], struct.unpack_from("<I", buf, 44)[0]


def alloc_memory_sysmem(r: Rm, dev: int, hnew: int, size: int) -> int:
    """RM_ALLOC_MEMORY of 0x3E, not mapped, through the GPU node: the status."""
    buf = rm.alloc_memory(r, dev, rm.SYSMEM, hnew, NO_MAP, size - 1, r.gpu_fd)
    return int(struct.unpack_from("<I", buf, 40)[0])


def test_the_knob_and_create_key() -> None:
    assert "sysmem" in read(gpu_dir(0) / "create_keys").split()
    with instance("smk", opts="sysmem=4M") as d:
        k = inst_dir("smk")
        assert (
            read(k / "sysmem_max"),
            count("smk", "sysmem_current"),
            read(k / "sysmem_peak"),
        ) == (
            str(4 * MIB),
            0,
            "0",
        )
        assert os.stat(k / "sysmem_max").st_mode & 0o777 == 0o644
        for ro in ("sysmem_current", "sysmem_peak"):
            assert os.stat(k / ro).st_mode & 0o777 == 0o444
        for value in ("0", "-1", "4X", "MAX", "\n", "1 2", "0x10", "99999999999999999999"):
            assert errno_of_write(k / "sysmem_max", value) == errno.EINVAL, value
            assert read(k / "sysmem_max") == str(4 * MIB)
        a = Rm(dev=d)
        try:
            dev, _ = a.device()
            assert sysmem(a, dev, 256 * KIB)[0] == rm.OK
            assert count("smk", "sysmem_current") == 256 * KIB
            # below what the instance holds: refused, nothing changes; at it: taken; live
            assert errno_of_write(k / "sysmem_max", "128K") == errno.EBUSY
            assert read(k / "sysmem_max") == str(4 * MIB)
            write(k / "sysmem_max", "256K")
            assert sysmem(a, dev, 4 * KIB)[0] == rm.NO_MEMORY
            write(k / "sysmem_max", "max")
            assert read(k / "sysmem_max") == "max"
            assert sysmem(a, dev, 4 * KIB)[0] == rm.OK
        finally:
            a.close()
        wait_count("smk", "sysmem_current", 0)
        assert read(k / "sysmem_peak") == str(260 * KIB)
    with instance("smk2") as d:
        assert read(inst_dir("smk2") / "sysmem_max") == "max"


def test_the_limit_holds_to_the_page_and_leaves_video_memory_alone() -> None:
    with instance("sml", opts="mem=8M sysmem=1M") as d:
        r = Rm(dev=d)
        x = Rm(dev=d, xfer=True)
        try:
            dev, _ = r.device()
            xdev, _ = x.device()
            status, h, size = sysmem(r, dev, 512 * KIB - 1)
            assert (status, size) == (rm.OK, 512 * KIB)
            assert count("sml", "sysmem_current") == 512 * KIB
            assert mem_current("sml") == 0
            # the XFER-wrapped path up to exactly the limit; one page over fails cleanly
            assert sysmem(x, xdev, 508 * KIB)[0] == rm.OK
            assert count("sml", "sysmem_current") == 1020 * KIB
            before = count("sml", "events")
            status, hover, _ = sysmem(x, xdev, 8 * KIB, hnew=0xCAFE0001)
            assert (status, hover) == (rm.NO_MEMORY, 0xCAFE0001)
            assert not rm_has(x, 0xCAFE0001)  # nothing was allocated
            assert count("sml", "events") == before + 1
            assert sysmem(x, xdev, 4 * KIB)[0] == rm.OK
            assert count("sml", "sysmem_current") == MIB
            # video memory has its own limit, untouched by system memory
            assert r.vidmem(dev, 8 * MIB)[0] == rm.OK
            assert (mem_current("sml"), count("sml", "sysmem_current")) == (8 * MIB, MIB)
            assert r.free(h) == rm.OK
            assert count("sml", "sysmem_current") == 512 * KIB
        finally:
            r.close()
            x.close()
        wait_count("sml", "sysmem_current", 0)


def test_vid_heap_and_alloc_memory_system_memory_are_charged() -> None:
    with instance("smv", opts="sysmem=1M") as d:
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            status, hheap = heap_sysmem(r, dev, 256 * KIB)
            assert status == rm.OK
            assert count("smv", "sysmem_current") == 256 * KIB
            assert heap_sysmem(r, dev, 1024 * KIB)[0] == rm.NO_MEMORY
            # RM_ALLOC_MEMORY (limit + 1 bytes) through the GPU node
            assert alloc_memory_sysmem(r, dev, 0x5E000001, 512 * KIB) == rm.OK
            assert count("smv", "sysmem_current") == 768 * KIB
            assert alloc_memory_sysmem(r, dev, 0x5E000002, 512 * KIB) == rm.NO_MEMORY
            assert not rm_has(r, 0x5E000002)
            # without a handle RM would make one nobody could name, and free or charge
            assert alloc_memory_sysmem(r, dev, 0, 4 * KIB) == rm.INVALID_OBJECT_HANDLE
            assert count("smv", "sysmem_current") == 768 * KIB
            assert r.free(0x5E000001) == rm.OK
            heap = r.vid_heap(rm.NVOS32_FREE, dev, hmemory=hheap)
            assert struct.unpack_from("<I", heap, 20)[0] == rm.OK
            assert count("smv", "sysmem_current") == 0
        finally:
            r.close()


def test_duplicates_share_the_charge_and_a_freed_device_returns_it() -> None:
    with instance("smd", opts="sysmem=1M") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        try:
            dev, _ = a.device()
            bdev, _ = b.device()
            status, h, _ = sysmem(a, dev, 768 * KIB)
            assert status == rm.OK
            status, hdup = b.dup(bdev, a.client, h)
            assert status == rm.OK
            assert count("smd", "sysmem_current") == 768 * KIB  # one allocation, one charge
            assert a.free(h) == rm.OK
            assert count("smd", "sysmem_current") == 768 * KIB  # the duplicate still holds it
            assert b.free(bdev) == rm.OK  # the device, and the duplicate under it
            assert count("smd", "sysmem_current") == 0
        finally:
            a.close()
            b.close()


def test_a_killed_process_leaves_no_charge_and_other_instances_are_not_bound() -> None:
    with (
        instance("smx", opts="mem=8M sysmem=1M") as d,
        instance("smy", opts="mem=8M sysmem=64K") as e,
    ):

        def hold() -> None:
            r = Rm(dev=d)
            dev, _ = r.device()
            assert sysmem(r, dev, MIB)[0] == rm.OK
            assert alloc_memory_sysmem(r, dev, 0x5E000003, 4 * KIB) == rm.NO_MEMORY  # full

        with killed_after(hold):
            assert count("smx", "sysmem_current") == MIB
            other = Rm(dev=e)
            try:
                odev, _ = other.device()
                assert sysmem(other, odev, 64 * KIB)[0] == rm.OK
                assert sysmem(other, odev, 4 * KIB)[0] == rm.NO_MEMORY
            finally:
                other.close()
        wait_count("smx", "sysmem_current", 0)
        assert count("smy", "sysmem_current") == 0


def test_oom_netlink_event_names_system_memory() -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("smn", opts="sysmem=64K") as d:
        sock = QgpuEventSocket()
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            assert sysmem(r, dev, 128 * KIB)[0] == rm.NO_MEMORY
            ev = next_event(sock, "oom")
            assert (ev.instance, ev.pid, ev.size, ev.detail) == (
                "smn",
                os.getpid(),
                128 * KIB,
                "system memory",
            )
        finally:
            r.close()
            sock.close()


def test_deviceless_memory_is_refused_where_system_memory_is_limited() -> None:
    """NV01_MEMORY_DEVICELESS is system memory RM allocates for any client, of a size qgpu cannot
    learn from RM: a limited instance refuses it before RM sees it (NV_ERR_NOT_SUPPORTED, and a
    netlink ``refused``); an unlimited one forwards it (nvsim does not model the class: RM's
    answer is NV_ERR_INVALID_CLASS)."""
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    params = bytearray(rm.MEM_PARAMS_SIZE)
    struct.pack_into("<Q", params, 64, 64 * KIB)
    with instance("smdl", opts="mem=8M sysmem=1G") as d, instance("smdu", opts="mem=8M") as e:
        sock = QgpuEventSocket()
        r, u = Rm(dev=d), Rm(dev=e)
        try:
            struct.pack_into("<I", params, 0, r.client)
            status, _ = r.alloc(r.client, r.client, DEVICELESS, bytes(params), hnew=0xDE000001)
            assert status == rm.NOT_SUPPORTED
            assert not rm_has(r, 0xDE000001)
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.pid) == ("smdl", os.getpid())
            assert "NV01_MEMORY_DEVICELESS" in (ev.detail or "")
            struct.pack_into("<I", params, 0, u.client)
            status, _ = u.alloc(u.client, u.client, DEVICELESS, bytes(params), hnew=0xDE000002)
            assert status == rm.INVALID_CLASS
        finally:
            r.close()
            u.close()
            sock.close()


def test_egm_memory_is_refused_where_system_memory_is_limited() -> None:
    """NV_MEMORY_EXTENDED_USER (EGM, 535-590) is memory any client may allocate at its own size,
    which on a self-hosted GPU with EGM enabled RM takes from the host's memory: a limited
    instance refuses it before RM sees it (NV_ERR_NOT_SUPPORTED, and a netlink ``refused``); an
    unlimited one forwards it (nvsim does not model the class: NV_ERR_INVALID_CLASS)."""
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    params = bytearray(rm.MEM_PARAMS_SIZE)
    struct.pack_into("<I", params, 24, rm.ATTR_LOCATION_PCI)
    struct.pack_into("<I", params, 28, EGM_ATTR2_USE_EGM)
    struct.pack_into("<Q", params, 64, 2 * MIB)
    with instance("smeg", opts="mem=8M sysmem=1G") as d, instance("smeu", opts="mem=8M") as e:
        sock = QgpuEventSocket()
        r, u = Rm(dev=d), Rm(dev=e)
        try:
            dev, _ = r.device()
            struct.pack_into("<I", params, 0, r.client)
            status, _ = r.alloc(r.client, dev, EXTENDED_USER, bytes(params), hnew=0xE6000001)
            assert status == rm.NOT_SUPPORTED
            assert not rm_has(r, 0xE6000001)
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.pid) == ("smeg", os.getpid())
            assert "NV_MEMORY_EXTENDED_USER" in (ev.detail or "")
            udev, _ = u.device()
            struct.pack_into("<I", params, 0, u.client)
            status, _ = u.alloc(u.client, udev, EXTENDED_USER, bytes(params), hnew=0xE6000002)
            assert status == rm.INVALID_CLASS
        finally:
            r.close()
            u.close()
            sock.close()
