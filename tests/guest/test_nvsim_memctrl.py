"""The controls that describe an existing object answer from nvsim's records, as RM's do.

NV0000 CLIENT_GET_HANDLE_INFO / CLIENT_GET_ADDR_SPACE_TYPE on the client, NV0041
GET_SURFACE_INFO on a memory object: what a limiter asks to learn what was really created.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest
import rm
from kernel import insmod, is_loaded, rmmod
from rm import GET_HANDLE_INFO, Rm

GET_ADDR_SPACE_TYPE, GET_SURFACE_INFO = 0x0D01, 0x00410110
PARENT, CLASSID = 1, 2
ATTRS, SIZE_LO, SIZE_HI, PHYS_SIZE, ADDR_SPACE = 1, 2, 3, 7, 9
SYSMEM_TYPE, VIDMEM_TYPE, REGMEM_TYPE = 1, 2, 3
OBJECT_NOT_FOUND, INVALID_OBJECT = 0x57, 0x31
MIB = 1 << 20


@pytest.fixture
def proc() -> Iterator[Rm]:
    r = Rm()
    yield r
    r.close()


def handle_info(proc: Rm, hobject: int, index: int) -> tuple[int, int]:
    params = bytearray(struct.pack("<IIQ", hobject, index, 0))
    status = proc.control(proc.client, GET_HANDLE_INFO, params)
    return status, struct.unpack_from("<Q", params, 8)[0]


def addr_space(proc: Rm, hobject: int) -> tuple[int, int]:
    params = bytearray(struct.pack("<III", hobject, 0, 0))
    status = proc.control(proc.client, GET_ADDR_SPACE_TYPE, params)
    return status, struct.unpack_from("<I", params, 8)[0]


def surface_info(proc: Rm, hmemory: int, *indices: int) -> tuple[int, list[int]]:
    items = b"".join(struct.pack("<II", i, 0xFFFFFFFF) for i in indices)
    ptr = proc.buffer(items)
    keep = proc.keep[-1]
    status = proc.control(
        hmemory, GET_SURFACE_INFO, bytearray(struct.pack("<I4xQ", len(indices), ptr))
    )
    return status, [struct.unpack_from("<I", keep.raw, 8 * n + 4)[0] for n in range(len(indices))]


def test_handle_info_reports_parent_and_class(proc: Rm) -> None:
    dev, sub = proc.device()
    status, mem, _ = proc.vidmem(sub, MIB)
    assert status == rm.OK
    assert handle_info(proc, mem, PARENT) == (rm.OK, sub)
    assert handle_info(proc, mem, CLASSID) == (rm.OK, rm.VIDMEM)
    assert handle_info(proc, dev, PARENT) == (rm.OK, proc.client)
    assert handle_info(proc, dev, CLASSID) == (rm.OK, rm.DEVICE)
    assert handle_info(proc, 0xDEAD, CLASSID)[0] == OBJECT_NOT_FOUND
    assert handle_info(proc, mem, 3)[0] == rm.INVALID_ARGUMENT
    other = Rm()
    try:  # another client's handle is not this client's object
        assert handle_info(other, mem, CLASSID)[0] == OBJECT_NOT_FOUND
    finally:
        other.close()


def test_addr_space_type_tells_vidmem_from_sysmem(proc: Rm) -> None:
    dev, sub = proc.device()
    vid = proc.memory(rm.VIDMEM, dev, MIB)[1]
    sys = proc.memory(rm.SYSMEM, dev, MIB, rm.ATTR_LOCATION_PCI)[1]
    virt = proc.memory(0x50A0, dev, MIB)[1]
    assert addr_space(proc, vid) == (rm.OK, VIDMEM_TYPE)
    assert addr_space(proc, sys) == (rm.OK, SYSMEM_TYPE)
    assert addr_space(proc, sub) == (rm.OK, REGMEM_TYPE)
    assert addr_space(proc, virt)[0] == rm.INVALID_ARGUMENT
    assert addr_space(proc, proc.client)[0] == INVALID_OBJECT
    assert addr_space(proc, 0xDEAD)[0] == OBJECT_NOT_FOUND


def test_surface_info_reports_the_allocated_size(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, size = proc.vidmem(dev, 3 * MIB + 1)  # the default: 2 MiB pages from 2 MiB on
    assert status == rm.OK and size == 4 * MIB
    status, data = surface_info(proc, mem, PHYS_SIZE, SIZE_LO, SIZE_HI, ADDR_SPACE, ATTRS)
    assert status == rm.OK
    assert data == [size // 4096, size, 0, VIDMEM_TYPE, 0]
    assert surface_info(proc, mem)[0] == rm.OK  # an empty list is fine
    assert surface_info(proc, mem, PHYS_SIZE, 42)[0] == rm.INVALID_ARGUMENT
    assert surface_info(proc, dev, PHYS_SIZE)[0] == rm.NOT_SUPPORTED
    params = bytearray(12)
    assert proc.control(mem, GET_SURFACE_INFO, params) == rm.INVALID_PARAM_STRUCT


@pytest.mark.usefixtures("default_modules")
def test_the_64_bit_size_indices_exist_from_580_only() -> None:
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            assert rmmod(name).returncode == 0
    assert insmod("nvsim", "abi_version=535.104.05").returncode == 0
    proc = Rm()
    try:
        dev, _ = proc.device()
        mem = proc.vidmem(dev, MIB)[1]
        assert surface_info(proc, mem, PHYS_SIZE) == (rm.OK, [MIB // 4096])
        assert surface_info(proc, mem, SIZE_LO)[0] == rm.INVALID_ARGUMENT
    finally:
        proc.close()
