"""The GPU address space an instance's RM mappings span, counted and bounded (kmod/qgpu_mapped.c,
DOC: GPU mappings): RM_MAP_MEMORY_DMA makes no RM object but a record of RM's and page tables
from a pool the GPU's tenants share, so ``mapped_max`` bounds the 2 MiB regions the instance's
live mappings touch. Past it a map answers NV_ERR_NO_MEMORY and is not forwarded; the count follows
unmaps (whole or partial), frees of what a mapping names, and the process's end."""

from __future__ import annotations

import errno
import os
import struct

import pytest
import rm
from holder import killed_after
from qgpu_sysfs import errno_of_write, gpu_dir, inst_dir, instance, read, wait_count, write
from rm import (
    ALLOC_FLAGS_LAZY,
    ALLOC_FLAGS_VIRTUAL,
    DMA_OFFSET_FIXED,
    VIRTMEM,
    Rm,
    abi_at_least,
    dma_mappings,
)

MIB = 1 << 20
REGION = 2 * MIB
PAGE = 4096


def mapped(name: str) -> int:
    return int(read(inst_dir(name) / "mapped_current"))


def gone(name: str, before: tuple[int, int]) -> None:
    """Wait until the instance counts nothing mapped (the files' trackers are released after the
    processes' last references) and nvsim has the records it had before."""
    wait_count(name, "mapped_current", 0)
    assert dma_mappings() == before


def setup(r: Rm, virt_size: int = 64 * MIB) -> tuple[int, int, int, int, int]:
    """A device, 2 MiB of video memory, a virtual range, its base and its first 2 MiB-aligned
    address."""
    dev, _ = r.device()
    status, mem, _ = r.vidmem(dev, REGION)
    assert status == rm.OK
    # lazy: RM maps none of it up front, so only the mappings count
    status, virt, _, base = r.memory(VIRTMEM, dev, virt_size, flags=ALLOC_FLAGS_LAZY)
    assert status == rm.OK
    return dev, mem, virt, base, (base + REGION - 1) & ~(REGION - 1)


def map_at(r: Rm, dev: int, virt: int, mem: int, va: int, length: int = PAGE) -> int:
    return r.map_dma(dev, virt, mem, length, dma_offset=va, flags=DMA_OFFSET_FIXED)[0]


def test_the_knob_and_create_key() -> None:
    assert "mapped" in read(gpu_dir(0) / "create_keys").split()
    with instance("mpk", opts="mem=64M") as d:
        k = inst_dir("mpk")
        assert (read(k / "mapped_max"), mapped("mpk")) == ("max", 0)
        assert os.stat(k / "mapped_max").st_mode & 0o777 == 0o644
        assert os.stat(k / "mapped_current").st_mode & 0o777 == 0o444
        write(k / "mapped_max", "64M\n")
        assert read(k / "mapped_max") == str(64 * MIB)
        for value in ("0", "1M", "3M", "4097K", "1025T", "-2M", "lots", "MAX", "\n", "2M 2M"):
            assert errno_of_write(k / "mapped_max", value) == errno.EINVAL, value
            assert read(k / "mapped_max") == str(64 * MIB)
        write(k / "mapped_max", "512T")
        write(k / "mapped_max", "max")
        a = Rm(dev=d)
        try:
            dev, mem, virt, _, va = setup(a)
            assert map_at(a, dev, virt, mem, va) == rm.OK
            assert map_at(a, dev, virt, mem, va + 4 * REGION) == rm.OK
            assert mapped("mpk") == 2 * REGION
            # below what the instance's mappings span: refused, nothing changes; at it: taken
            assert errno_of_write(k / "mapped_max", "2M") == errno.EBUSY
            assert read(k / "mapped_max") == "max"
            write(k / "mapped_max", "4M")
            assert read(k / "mapped_max") == str(2 * REGION)
        finally:
            a.close()
        wait_count("mpk", "mapped_current", 0)
    with instance("mpk2", opts="mem=8M mapped=16M"):
        assert read(inst_dir("mpk2") / "mapped_max") == str(16 * MIB)
    for bad_key in ("mapped=0", "mapped=1M", "mapped=max mapped=2M", "mapped=many"):
        assert errno_of_write(gpu_dir(0) / "create", f"mpk3 mem=8M {bad_key}") == errno.EINVAL
        assert not inst_dir("mpk3").exists()


def test_a_memory_mapper_is_refused_where_mappings_are_bounded() -> None:
    """NV_MEMORY_MAPPER maps for its client from RM's work queue after the control that queued the
    operations returned, where qgpu sees neither: under ``mapped_max`` the class and its
    submissions answer NV_ERR_NOT_SUPPORTED (what drivers before 560 answer for the class) with a
    netlink ``refused``; unbounded, both reach the driver (nvsim does not model the class: it
    answers NV_ERR_INVALID_CLASS, and NV_ERR_NOT_SUPPORTED for the control)."""
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    mapper, submit = 0xFE, 0x00FE0101  # NV_MEMORY_MAPPER, NV00FE_CTRL_CMD_SUBMIT_OPERATIONS
    params = struct.pack("<III4xQ", 0, 16, 0, 0)  # NV_MEMORY_MAPPER_ALLOCATION_PARAMS, 24 B
    with instance("mmb", opts="mem=64M mapped=8M") as d, instance("mmu", opts="mem=64M") as e:
        sock = QgpuEventSocket()
        b, u = Rm(dev=d), Rm(dev=e)
        try:
            _, bsub = b.device()
            _, usub = u.device()
            assert u.alloc(u.client, usub, mapper, params)[0] == rm.INVALID_CLASS
            assert u.control(usub, submit, bytearray(16)) == rm.NOT_SUPPORTED
            assert b.alloc(b.client, bsub, mapper, params)[0] == rm.NOT_SUPPORTED
            ev = next_event(sock, "refused")  # the first: the unbounded calls sent none
            assert (ev.instance, ev.pid) == ("mmb", os.getpid())
            assert "NV_MEMORY_MAPPER" in (ev.detail or "")
            assert b.control(bsub, submit, bytearray(16)) == rm.NOT_SUPPORTED
            ev = next_event(sock, "refused")
            assert ev.instance == "mmb"
            assert "NV_MEMORY_MAPPER operations" in (ev.detail or "")
            # live: a mapper made while unbounded gets no operation through once bounded
            write(inst_dir("mmu") / "mapped_max", "8M")
            assert u.control(usub, submit, bytearray(16)) == rm.NOT_SUPPORTED
            assert next_event(sock, "refused").instance == "mmu"
        finally:
            b.close()
            u.close()
            sock.close()


@pytest.mark.parametrize("xfer", [False, True], ids=["direct", "xfer"])
def test_the_bound_refuses_a_mapping_past_it(seal_mode: str, xfer: bool) -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("mpb", opts="mem=64M mapped=8M") as d, instance("mpo", opts="mem=64M") as o:
        sock = QgpuEventSocket()
        a, b = Rm(dev=d, xfer=xfer), Rm(dev=o, xfer=xfer)
        try:
            dev, mem, virt, base, va = setup(a)
            before = dma_mappings()
            # one page in each of four regions fills 8M, however little it maps
            for i in range(4):
                assert map_at(a, dev, virt, mem, va + i * 4 * REGION) == rm.OK
            assert mapped("mpb") == 4 * REGION
            assert map_at(a, dev, virt, mem, va + 16 * REGION) == rm.NO_MEMORY
            assert dma_mappings()[0] == before[0] + 4  # never reached RM
            assert mapped("mpb") == 4 * REGION
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.gpu, ev.pid) == ("mpb", 0, os.getpid())
            assert "mapped_max" in ev.detail
            # the other instance is not bound by it
            devb, memb, virtb, _, vab = setup(b)
            for i in range(6):
                assert map_at(b, devb, virtb, memb, vab + i * 2 * REGION) == rm.OK
            assert mapped("mpo") == 6 * REGION

            # an unmap makes room again
            assert a.unmap_dma(dev, virt, va, hmemory=mem) == rm.OK
            assert mapped("mpb") == 3 * REGION
            # where RM places it is unknown before the call: the most a page may touch, 2
            # regions, must fit, and the address RM wrote back settles it on one
            assert a.map_dma(dev, virt, mem, PAGE, dma_offset=va - base)[0] == rm.NO_MEMORY
            assert map_at(a, dev, virt, mem, va) == rm.OK
            assert mapped("mpb") == 4 * REGION
            write(inst_dir("mpb") / "mapped_max", "12M")
            status, got = a.map_dma(dev, virt, mem, PAGE, dma_offset=REGION)
            assert status == rm.OK
            assert mapped("mpb") == 5 * REGION
            assert a.unmap_dma(dev, virt, got, hmemory=mem) == rm.OK
            assert mapped("mpb") == 4 * REGION
            # RM's own refusals change nothing
            assert map_at(a, dev, virt, mem, va) == rm.INVALID_ARGUMENT  # taken
            assert a.map_dma(dev, virt, mem, 0)[0] == rm.INVALID_LIMIT
            assert mapped("mpb") == 4 * REGION
        finally:
            a.close()
            b.close()
            sock.close()
        gone("mpb", before)
        gone("mpo", before)


@pytest.mark.parametrize("what", ["memory", "virtual", "device", "client", "kill"])
def test_the_count_follows_what_rm_unmaps(what: str) -> None:
    with instance("mpf", opts="mem=64M mapped=64M") as d:
        before = dma_mappings()

        def hold() -> None:
            r = Rm(dev=d)
            dev, mem, virt, _, va = setup(r)
            for i in range(3):
                assert map_at(r, dev, virt, mem, va + i * REGION, REGION) == rm.OK
            assert mapped("mpf") == 3 * REGION
            if what == "memory":
                assert r.free(mem) == rm.OK
            elif what == "virtual":
                assert r.free(virt) == rm.OK
            elif what == "device":
                assert r.free(dev) == rm.OK
            elif what == "client":
                assert r.free(r.client) == rm.OK
            if what != "kill":
                assert mapped("mpf") == 0
                assert dma_mappings() == before
                r.close()

        if what == "kill":
            with killed_after(hold):
                assert mapped("mpf") == 3 * REGION
        else:
            hold()
        gone("mpf", before)


@pytest.mark.skipif(not abi_at_least((550,)), reason="NVOS47 has no size before 550")
def test_a_partial_unmap_that_splits_a_mapping_counts_both_pieces() -> None:
    with instance("mps", opts="mem=64M mapped=8M") as d:
        a = Rm(dev=d)
        try:
            dev, mem, virt, _, va = setup(a)
            status, big, _ = a.vidmem(dev, 8 * MIB)
            assert status == rm.OK
            assert map_at(a, dev, virt, big, va, 8 * MIB) == rm.OK
            assert mapped("mps") == 4 * REGION
            before = dma_mappings()
            # a hole in the second region leaves [va, va+3M) and [va+3M+4K, va+8M): 2 + 3
            hole = va + 3 * MIB
            assert a.unmap_dma(dev, virt, hole, size=PAGE) == rm.NO_MEMORY
            assert dma_mappings() == before
            write(inst_dir("mps") / "mapped_max", "10M")
            assert a.unmap_dma(dev, virt, hole, size=PAGE) == rm.OK
            assert dma_mappings()[0] == before[0] + 1
            assert mapped("mps") == 5 * REGION
            # the right piece is a mapping of its own: unmapped by its address
            assert a.unmap_dma(dev, virt, hole + PAGE) == rm.OK
            assert mapped("mps") == 2 * REGION
            # a cut off the front shrinks what is left
            assert a.unmap_dma(dev, virt, va, size=REGION) == rm.OK
            assert mapped("mps") == REGION
            assert a.unmap_dma(dev, virt, va + REGION) == rm.OK
            assert mapped("mps") == 0
        finally:
            a.close()


@pytest.mark.parametrize("how", ["alloc", "vid_heap"])
def test_a_virtual_range_rm_maps_up_front_counts_its_span(how: str) -> None:
    """Reserved without LAZY, RM allocates the page tables of a virtual range's whole span at
    once (gvaspaceAlloc_IMPL(), 580.142): it counts as if mapped, the most its size may touch."""

    def reserve(r: Rm, dev: int, size: int, flags: int = 0) -> tuple[int, int]:
        if how == "alloc":
            status, h, _, _ = r.memory(VIRTMEM, dev, size, flags=flags)
            return status, h
        buf = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=size, flags=flags | ALLOC_FLAGS_VIRTUAL)
        return struct.unpack_from("<I", buf, 20)[0], struct.unpack_from("<I", buf, 44)[0]

    with instance("mpv", opts="mem=64M mapped=16M") as d:
        a = Rm(dev=d)
        try:
            dev, _ = a.device()
            status, lazy = reserve(a, dev, 1 << 30, ALLOC_FLAGS_LAZY)
            assert status == rm.OK and mapped("mpv") == 0
            status, virt = reserve(a, dev, 4 * MIB)
            assert status == rm.OK
            assert mapped("mpv") == 3 * REGION  # 4M may touch 3 regions
            assert reserve(a, dev, 10 * MIB)[0] == rm.NO_MEMORY  # 6 more do not fit in 5
            assert mapped("mpv") == 3 * REGION
            status, small = reserve(a, dev, 8 * MIB)
            assert status == rm.OK and mapped("mpv") == 8 * REGION
            free = a.free if how == "alloc" else lambda h: vid_heap_free(a, dev, h)
            assert free(virt) == rm.OK
            assert mapped("mpv") == 5 * REGION
            assert a.free(dev) == rm.OK  # the rest goes with the device
            assert mapped("mpv") == 0
            assert lazy and small
        finally:
            a.close()

        def hold() -> None:
            r = Rm(dev=d)
            assert reserve(r, r.device()[0], 4 * MIB)[0] == rm.OK

        with killed_after(hold):
            assert mapped("mpv") == 3 * REGION
        wait_count("mpv", "mapped_current", 0)


def vid_heap_free(r: Rm, dev: int, hmemory: int) -> int:
    buf = r.vid_heap(rm.NVOS32_FREE, dev, hmemory=hmemory)
    return int(struct.unpack_from("<I", buf, 20)[0])


UVM_BASE = 0x7F0000000000
BIG = 64 * 1024  # a big page: what UVM maps 64 KiB-aligned video memory with


def test_uvm_mappings_count_against_the_bound(seal_mode: str) -> None:
    """UVM_MAP_EXTERNAL_ALLOCATION makes UVM keep records and allocate page tables for the span as
    RM_MAP_MEMORY_DMA does: each mapping counts the regions it touches, a mapping over a span
    replaces what was there, a hole cut in one region counts both pieces, and past the bound the
    call answers NV_ERR_NO_MEMORY without reaching UVM."""
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("mpu", opts="mem=64M mapped=8M") as d, instance("mpv", opts="mem=64M") as o:
        sock = QgpuEventSocket()
        a, b = Rm(dev=d), Rm(dev=o)
        sa = sb = None
        try:
            dev, _ = a.device()
            sa = rm.UvmSpace(a, dev, f"{d}/nvidia-uvm")
            status, mem, _ = a.vidmem(dev, 2 * MIB)
            assert status == rm.OK
            assert rm.uvm_create_range(sa.fd, UVM_BASE, 64 * MIB) == rm.OK
            assert mapped("mpu") == 0  # a range alone maps nothing
            # 256 KiB in each of four regions fills 8M, however little it maps
            for i in range(4):
                assert sa.map(UVM_BASE + i * 2 * REGION, 4 * BIG, a.client, mem) == rm.OK
            assert mapped("mpu") == 4 * REGION
            # past the bound: refused before UVM, which would have held the memory
            status, other, _ = a.vidmem(dev, MIB)
            assert status == rm.OK
            held = int(read(inst_dir("mpu") / "mem_current"))
            assert sa.map(UVM_BASE + 8 * REGION, PAGE, a.client, other) == rm.NO_MEMORY
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.gpu, ev.pid) == ("mpu", 0, os.getpid())
            assert "mapped_max" in ev.detail
            assert a.free(other) == rm.OK
            assert int(read(inst_dir("mpu") / "mem_current")) == held - MIB  # UVM held none
            assert mapped("mpu") == 4 * REGION
            # a mapping over a span replaces what UVM had there: it fits at the bound
            assert sa.map(UVM_BASE, 4 * BIG, a.client, mem) == rm.OK
            assert mapped("mpu") == 4 * REGION
            # a hole in one region leaves UVM two records there: the second must fit (UVM
            # splits a mapping only at its page size, 64 KiB here)
            hole = UVM_BASE + BIG
            assert sa.unmap(hole, BIG) == rm.NO_MEMORY
            write(inst_dir("mpu") / "mapped_max", "10M")
            assert sa.unmap(hole, BIG) == rm.OK
            assert mapped("mpu") == 5 * REGION
            assert sa.unmap(UVM_BASE, 4 * BIG) == rm.OK  # both pieces
            assert mapped("mpu") == 3 * REGION
            # the other instance is not bound by it
            devb, _ = b.device()
            sb = rm.UvmSpace(b, devb, f"{o}/nvidia-uvm")
            status, memb, _ = b.vidmem(devb, MIB)
            assert status == rm.OK
            assert rm.uvm_create_range(sb.fd, UVM_BASE, 64 * MIB) == rm.OK
            for i in range(6):
                assert sb.map(UVM_BASE + i * REGION, PAGE, b.client, memb) == rm.OK
            assert mapped("mpv") == 6 * REGION
            # UVM_FREE of the range takes every mapping in it
            assert rm.uvm_free(sa.fd, UVM_BASE, 64 * MIB) == rm.OK
            assert mapped("mpu") == 0
        finally:
            for s in (sa, sb):
                if s:
                    s.close()
            a.close()
            b.close()
            sock.close()
        wait_count("mpu", "mapped_current", 0)
        wait_count("mpv", "mapped_current", 0)


def test_uvm_sparse_mappings_and_dynamic_parallelism_regions_count(seal_mode: str) -> None:
    """UVM_MAP_EXTERNAL_SPARSE has UVM allocate page tables for its whole span, and each
    UVM_MAP_DYNAMIC_PARALLELISM_REGION for one page of a range of its own: both count against
    mapped_max, past it answer NV_ERR_NO_MEMORY without reaching UVM, and go when UVM lets them
    go."""
    with instance("mpd", opts="mem=64M mapped=8M") as d:
        a = Rm(dev=d)
        s = None
        try:
            dev, _ = a.device()
            s = rm.UvmSpace(a, dev, f"{d}/nvidia-uvm")
            assert rm.uvm_create_range(s.fd, UVM_BASE, 64 * MIB) == rm.OK
            assert rm.uvm_map_sparse(s.fd, UVM_BASE, 2 * REGION, s.uuid) == rm.OK
            assert mapped("mpd") == 2 * REGION
            assert rm.uvm_map_sparse(s.fd, UVM_BASE + 8 * MIB, 6 * MIB, s.uuid) == rm.NO_MEMORY
            assert mapped("mpd") == 2 * REGION
            if seal_mode == "sealed":  # unsealed, a failure qgpu cannot believe stays counted
                assert rm.uvm_map_sparse(s.fd, UVM_BASE + PAGE, BIG, s.uuid) == rm.INVALID_ADDRESS
                assert mapped("mpd") == 2 * REGION
            # each region a range of its own, one page, counted until UVM_FREE
            dp = UVM_BASE + 128 * MIB
            assert rm.uvm_map_dp_region(s.fd, dp, REGION, s.uuid) == rm.OK
            assert rm.uvm_map_dp_region(s.fd, dp + 2 * REGION, BIG, s.uuid) == rm.OK
            assert mapped("mpd") == 4 * REGION
            assert rm.uvm_map_dp_region(s.fd, dp + 4 * REGION, BIG, s.uuid) == rm.NO_MEMORY
            assert rm.uvm_free(s.fd, dp, REGION) == rm.OK
            assert mapped("mpd") == 3 * REGION
            # unmapping part of the sparse mapping lets its region go; freeing the range the rest
            assert s.unmap(UVM_BASE + REGION, REGION) == rm.OK
            assert mapped("mpd") == 2 * REGION
            assert rm.uvm_free(s.fd, UVM_BASE, 64 * MIB) == rm.OK
            assert mapped("mpd") == REGION  # the region left
        finally:
            if s:
                s.close()
            a.close()
        wait_count("mpd", "mapped_current", 0)  # the VA space's end takes the region
