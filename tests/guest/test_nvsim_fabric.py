"""nvsim's NV_MEMORY_FABRIC (kmod/nvsim/nvsim_fabric.c): on a GPU without a fabric it is refused;
with one, a sticky object is checked in RM's order and holds the video memory it names until its
last copy goes, whatever the memory's own handles do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import rm
from rm import Rm

MIB = 1 << 20


@pytest.fixture
def fabric() -> Iterator[None]:
    with rm.nvsim_fabric():
        yield


def fabric_alloc(r: Rm, sub: int, params: bytes, parent: int = 0) -> tuple[int, int]:
    return r.alloc(r.client, parent or sub, rm.MEMORY_FABRIC, params)


def test_a_gpu_without_a_fabric_refuses_it() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        status, h, _ = r.vidmem(dev, 2 * MIB, attr=rm.ATTR_PAGE_HUGE)
        assert status == rm.OK
        with rm.nvsim_fabric(False):
            status, _ = fabric_alloc(r, sub, rm.fabric_params(2 * MIB, h))
        assert status == rm.NOT_SUPPORTED
    finally:
        r.close()


@pytest.mark.usefixtures("fabric")
def test_fabric_memory_holds_what_it_maps_until_its_last_copy_goes() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        free0 = r.fb_free_bytes(sub)
        status, h, _ = r.vidmem(dev, 8 * MIB, attr=rm.ATTR_PAGE_HUGE)
        assert status == rm.OK
        status, f = fabric_alloc(r, sub, rm.fabric_params(4 * MIB, h, offset=2 * MIB))
        assert status == rm.OK, hex(status)
        status, copy = r.dup(sub, r.client, f)
        assert status == rm.OK, hex(status)
        assert r.free(h) == rm.OK
        assert r.fb_free_bytes(sub) == free0 - 8 * MIB  # all of it, not the part mapped
        assert r.free(f) == rm.OK
        assert r.fb_free_bytes(sub) == free0 - 8 * MIB  # the copy
        assert r.free(copy) == rm.OK
        assert r.fb_free_bytes(sub) == free0
    finally:
        r.close()


@pytest.mark.usefixtures("fabric")
def test_freeing_the_subdevice_lets_the_memory_go() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        free0 = r.fb_free_bytes(sub)
        _, h, _ = r.vidmem(dev, 2 * MIB, attr=rm.ATTR_PAGE_HUGE)
        _, sub2 = r.alloc(r.client, dev, rm.SUBDEVICE, bytes(4))
        status, _ = fabric_alloc(r, sub2, rm.fabric_params(2 * MIB, h))
        assert status == rm.OK
        assert r.free(h) == rm.OK
        assert r.fb_free_bytes(sub) == free0 - 2 * MIB
        assert r.free(sub2) == rm.OK
        assert r.fb_free_bytes(sub) == free0
    finally:
        r.close()


@pytest.mark.usefixtures("fabric")
def test_the_checks_come_in_rms_order() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        _, h, _ = r.vidmem(dev, 4 * MIB, attr=rm.ATTR_PAGE_HUGE)
        _, h64k, _ = r.vidmem(dev, 4 * MIB, rm.ATTR_PAGE_BIG)  # 64 KiB pages
        _, hsys, _, _ = r.memory(rm.SYSMEM, dev, 4 * MIB, rm.ATTR_LOCATION_PCI)
        p = rm.fabric_params
        cases = [
            (p(2 * MIB, h), dev, rm.INVALID_OBJECT_PARENT),
            (p(2 * MIB, h, page=MIB), sub, rm.INVALID_ARGUMENT),
            (p(3 * MIB, h), sub, rm.INVALID_ARGUMENT),  # not in whole pages
            (p(2 * MIB, h, alignment=MIB), sub, rm.INVALID_ARGUMENT),
            (p(2 * MIB, h, flags=rm.FABRIC_READ_ONLY), sub, rm.NOT_SUPPORTED),
            (p(2 * MIB, h, flags=rm.FABRIC_FLEXIBLE), sub, rm.NOT_SUPPORTED),  # names memory
            (p(2 * MIB, 0xBAD), sub, rm.OBJECT_NOT_FOUND),
            (p(2 * MIB, sub), sub, rm.INVALID_OBJECT_HANDLE),  # not memory
            (p(2 * MIB, hsys), sub, rm.INVALID_ARGUMENT),  # not video memory
            (p(2 * MIB, h64k), sub, rm.INVALID_ARGUMENT),  # not in 2 MiB pages
            (p(0, h), sub, rm.INVALID_ARGUMENT),  # no fabric address space to give
            (p(2 * MIB, h, offset=4 * MIB), sub, rm.INVALID_OFFSET),
            (p(2 * MIB, h, offset=MIB), sub, rm.INVALID_OFFSET),
            (p(4 * MIB, h, offset=2 * MIB), sub, rm.INVALID_ARGUMENT),  # past its end
        ]
        for params, parent, want in cases:
            status, _ = fabric_alloc(r, sub, params, parent)
            assert status == want, (params.hex(), hex(status))
        status, _ = fabric_alloc(r, sub, p(2 * MIB, h, offset=2 * MIB))
        assert status == rm.OK
    finally:
        r.close()


@pytest.mark.usefixtures("fabric")
def test_a_flexible_object_holds_nothing() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        free0 = r.fb_free_bytes(sub)
        status, f = fabric_alloc(r, sub, rm.fabric_params(2 * MIB, 0, flags=rm.FABRIC_FLEXIBLE))
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == free0
        assert r.free(f) == rm.OK
    finally:
        r.close()


@pytest.mark.usefixtures("fabric")
def test_another_clients_memory_is_not_found() -> None:
    """RM looks the memory up in the caller's client only."""
    a, b = Rm(), Rm()
    try:
        adev, _ = a.device()
        _, bsub = b.device()
        _, h, _ = a.vidmem(adev, 2 * MIB, attr=rm.ATTR_PAGE_HUGE)
        status, _ = fabric_alloc(b, bsub, rm.fabric_params(2 * MIB, h))
        assert status == rm.OBJECT_NOT_FOUND
    finally:
        a.close()
        b.close()
