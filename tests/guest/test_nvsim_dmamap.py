"""nvsim's RM_MAP_MEMORY_DMA and RM_UNMAP_MEMORY_DMA follow RM's rules for a virtual allocation.

Memory mapped into a NV50_MEMORY_VIRTUAL range is a record RM keeps until it is unmapped or one
of the objects it names goes (kmod/nvsim/nvsim_dmamap.c, from 580.142's rs_server.c, mapping.c,
virtual_mem.c and dma.c). /proc/driver/nvsim/gpu0/dma_mappings counts them.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator

import pytest
import rm
from rm import DMA_OFFSET_FIXED, VIRTMEM, Rm, abi_at_least, dma_mappings

MIB = 1 << 20
PAGE = 4096


@pytest.fixture
def proc() -> Iterator[Rm]:
    r = Rm()
    yield r
    r.close()


def setup(proc: Rm, virt_size: int = 64 * MIB) -> tuple[int, int, int, int, int]:
    """A device, subdevice, 2 MiB of video memory and a virtual range with its base address."""
    dev, sub = proc.device()
    status, mem, _ = proc.vidmem(dev, 2 * MIB)
    assert status == rm.OK
    status, virt, _, base = proc.memory(VIRTMEM, dev, virt_size)
    assert status == rm.OK
    return dev, sub, mem, virt, base


def test_a_mapping_is_a_record_until_unmapped(proc: Rm) -> None:
    before = dma_mappings()
    dev, _, mem, virt, base = setup(proc)
    status, va = proc.map_dma(dev, virt, mem, MIB, dma_offset=4 * MIB)
    assert (status, va) == (rm.OK, base + 4 * MIB)  # written back absolute
    status, va2 = proc.map_dma(
        dev, virt, mem, 64 * 1024, dma_offset=base + 8 * MIB, offset=MIB, flags=DMA_OFFSET_FIXED
    )
    assert (status, va2) == (rm.OK, base + 8 * MIB)
    assert dma_mappings() == (before[0] + 2, before[1] + MIB + 64 * 1024)
    # the same memory may be mapped again elsewhere: every mapping is a record of its own
    assert proc.map_dma(dev, virt, mem, MIB, dma_offset=16 * MIB)[0] == rm.OK
    assert dma_mappings()[0] == before[0] + 3
    assert proc.unmap_dma(dev, virt, va, hmemory=mem) == rm.OK
    assert proc.unmap_dma(dev, virt, va, hmemory=mem) == rm.OBJECT_NOT_FOUND
    assert proc.unmap_dma(dev, virt, va2, hmemory=mem) == rm.OK
    assert dma_mappings() == (before[0] + 1, before[1] + MIB)
    assert proc.free(virt) == rm.OK  # the allocation's mappings go with it
    assert dma_mappings() == before


def test_what_rm_refuses(proc: Rm) -> None:
    before = dma_mappings()
    dev, sub, mem, virt, base = setup(proc, virt_size=4 * MIB)
    assert proc.map_dma(dev, virt, mem, 0)[0] == rm.INVALID_LIMIT
    assert proc.map_dma(dev, virt, 0xDEAD, PAGE)[0] == rm.OBJECT_NOT_FOUND
    assert proc.map_dma(dev, 0xDEAD, mem, PAGE)[0] == rm.OBJECT_NOT_FOUND
    assert proc.map_dma(0xDEAD, virt, mem, PAGE)[0] == rm.OBJECT_NOT_FOUND
    assert proc.map_dma(mem, virt, mem, PAGE)[0] == rm.INVALID_OBJECT  # no device
    assert proc.map_dma(dev, virt, virt, PAGE)[0] == rm.INVALID_OBJECT_HANDLE  # maps nothing
    assert proc.map_dma(dev, mem, mem, PAGE)[0] == rm.INVALID_OBJECT_HANDLE  # not a range
    assert proc.map_dma(dev, virt, mem, 2 * MIB + PAGE)[0] == rm.INVALID_LIMIT
    assert proc.map_dma(dev, virt, mem, PAGE, offset=2 * MIB)[0] == rm.INVALID_LIMIT
    assert proc.map_dma(sub, virt, mem, PAGE)[0] == rm.NOT_SUPPORTED  # unicast
    assert proc.map_dma(dev, virt, mem, PAGE, dma_offset=4 * MIB)[0] == rm.INVALID_OFFSET
    fixed = DMA_OFFSET_FIXED
    assert proc.map_dma(dev, virt, mem, PAGE, dma_offset=base - PAGE, flags=fixed)[0] == (
        rm.INVALID_OFFSET
    )
    assert proc.map_dma(dev, virt, mem, 2 * MIB, dma_offset=3 * MIB)[0] == rm.INVALID_ARGUMENT
    assert proc.map_dma(dev, virt, mem, PAGE, dma_offset=512)[0] == rm.INVALID_OFFSET
    # the place in a page must match the memory offset's
    status, va = proc.map_dma(dev, virt, mem, 100, dma_offset=MIB + 512, offset=512)
    assert (status, va) == (rm.OK, base + MIB + 512)
    # a span that starts inside a live mapping, and one that overlaps one
    assert proc.map_dma(dev, virt, mem, PAGE, dma_offset=MIB)[0] == rm.INVALID_ARGUMENT
    assert proc.map_dma(dev, virt, mem, 2 * PAGE, dma_offset=MIB - PAGE)[0] == (
        rm.INSERT_DUPLICATE_NAME
    )
    # a client is bound to its own ctl file; another's handles are not found in one's own
    other = Rm()
    try:
        assert other.map_dma(dev, virt, mem, PAGE, hclient=proc.client)[0] == rm.INVALID_CLIENT
        assert other.map_dma(dev, virt, mem, PAGE)[0] == rm.OBJECT_NOT_FOUND
    finally:
        other.close()
    assert dma_mappings() == (before[0] + 1, before[1] + 100)
    # a GPU file is not the control device
    buf = bytearray(64 if abi_at_least((580,)) else 56)
    with pytest.raises(OSError) as e:
        rm.ioctl(proc.gpu_fd, rm.RM_MAP_MEMORY_DMA, buf)
    assert e.value.errno == errno.EINVAL


@pytest.mark.skipif(not abi_at_least((550,)), reason="NVOS47 has no size before 550")
def test_a_partial_unmap_splits_and_a_span_with_nothing_in_it_is_fine(proc: Rm) -> None:
    before = dma_mappings()
    dev, _, mem, virt, base = setup(proc)
    status, va = proc.map_dma(dev, virt, mem, 2 * MIB)
    assert status == rm.OK
    # a hole in the middle leaves two records
    assert proc.unmap_dma(dev, virt, va + MIB, size=64 * 1024) == rm.OK
    assert dma_mappings() == (before[0] + 2, before[1] + 2 * MIB - 64 * 1024)
    # the right part is a mapping of its own now, at the hole's end
    assert proc.unmap_dma(dev, virt, va + MIB + 64 * 1024) == rm.OK
    assert dma_mappings() == (before[0] + 1, before[1] + MIB)
    # the front of what is left
    assert proc.unmap_dma(dev, virt, va, size=PAGE) == rm.OK
    assert dma_mappings() == (before[0] + 1, before[1] + MIB - PAGE)
    assert proc.unmap_dma(dev, virt, va + PAGE) == rm.OK
    assert dma_mappings() == before
    assert proc.unmap_dma(dev, virt, va, size=MIB) == rm.OK  # nothing there: still NV_OK
    assert proc.unmap_dma(dev, virt, va) == rm.OBJECT_NOT_FOUND
    assert base <= va


@pytest.mark.parametrize("what", ["memory", "device", "client", "process"])
def test_mappings_go_with_what_they_name(what: str) -> None:
    before = dma_mappings()
    proc = Rm()
    try:
        dev, _, mem, virt, _ = setup(proc)
        for i in range(3):
            assert proc.map_dma(dev, virt, mem, MIB, dma_offset=i * 2 * MIB)[0] == rm.OK
        assert dma_mappings()[0] == before[0] + 3
        if what == "memory":
            assert proc.free(mem) == rm.OK
        elif what == "device":
            assert proc.free(dev) == rm.OK
        elif what == "client":
            assert proc.free(proc.client) == rm.OK
    finally:
        proc.close()
    assert dma_mappings() == before
