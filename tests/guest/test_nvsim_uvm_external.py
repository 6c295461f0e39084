"""nvsim's UVM external ranges and mappings (kmod/nvsim/nvsim_uvm_ext.c), checked against the facts
in kmod/nvrm/nvrm_uvm.h: the statuses in the real driver's order, and that a mapping holds the RM
memory it maps until no part of it is left, whatever happens to the tenant's own handle."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import rm
from kernel import reload_modules
from rm import Rm, UvmSpace

MIB = 1 << 20
BASE = 0x7F0000000000  # any 4 KiB-aligned VA: external ranges need no CPU mapping


@pytest.fixture
def space() -> Iterator[tuple[Rm, int, UvmSpace]]:
    r = Rm()
    dev, sub = r.device()
    s = UvmSpace(r, dev)
    yield r, sub, s
    s.close()
    r.close()


def test_external_ranges(space: tuple[Rm, int, UvmSpace]) -> None:
    _, _, s = space
    assert rm.uvm_create_range(s.fd, BASE + 1, MIB) == rm.INVALID_ADDRESS
    assert rm.uvm_create_range(s.fd, BASE, 0) == rm.INVALID_ADDRESS
    assert rm.uvm_create_range(s.fd, BASE, MIB) == rm.OK
    assert rm.uvm_create_range(s.fd, BASE + MIB - 4096, MIB) == rm.UVM_ADDRESS_IN_USE
    assert rm.uvm_create_range(s.fd, BASE + MIB, MIB) == rm.OK  # adjacent is fine
    assert rm.uvm_free(s.fd, BASE + 4096, MIB) == rm.INVALID_ADDRESS  # not a range's start
    assert rm.uvm_free(s.fd, BASE, MIB) == rm.OK
    assert rm.uvm_free(s.fd, BASE, MIB) == rm.INVALID_ADDRESS
    assert rm.uvm_free(s.fd, BASE + MIB, MIB) == rm.OK


def test_map_checks_in_the_real_order(space: tuple[Rm, int, UvmSpace]) -> None:
    r, sub, s = space
    status, mem, _ = r.vidmem(sub, 2 * MIB)
    assert status == rm.OK
    assert s.map(BASE, 2 * MIB, r.client, mem) == rm.INVALID_ADDRESS  # no range yet
    assert rm.uvm_create_range(s.fd, BASE, 4 * MIB) == rm.OK
    none = rm.uvm_map_external(s.fd, BASE, 2 * MIB, 0, [], r.client, mem)
    assert none == rm.INVALID_ARGUMENT
    assert s.map(BASE + 3 * MIB, 2 * MIB, r.client, mem) == rm.INVALID_ADDRESS  # past the range
    other = rm.uvm_map_external(s.fd, BASE, 2 * MIB, 0, [bytes(16)], r.client, mem)
    assert other == rm.INVALID_DEVICE
    assert s.map(BASE, 2 * MIB, r.client, 0xBAD) == rm.OBJECT_NOT_FOUND
    assert s.map(BASE, 2 * MIB, 0xC1D0BAD0, mem) == rm.INVALID_CLIENT
    assert s.map(BASE, 2 * MIB, r.client, mem, offset=MIB) == rm.INVALID_OFFSET
    assert s.map(BASE, 2 * MIB, r.client, sub) == rm.INVALID_OBJECT_HANDLE  # not memory
    assert s.map(BASE, 2 * MIB, r.client, mem) == rm.OK
    assert s.unmap(BASE, 8 * MIB) == rm.INVALID_ADDRESS
    assert rm.uvm_unmap_external(s.fd, BASE, 2 * MIB, bytes(16)) == rm.INVALID_DEVICE
    assert s.unmap(BASE, 2 * MIB) == rm.OK
    assert s.unmap(BASE, 2 * MIB) == rm.OK  # nothing mapped there: nothing to do


def test_a_mapping_holds_the_memory_until_nothing_of_it_is_left(
    space: tuple[Rm, int, UvmSpace],
) -> None:
    r, sub, s = space
    free0 = r.fb_free_bytes(sub)
    status, mem, size = r.vidmem(sub, 4 * MIB)
    assert status == rm.OK
    assert rm.uvm_create_range(s.fd, BASE, 4 * MIB) == rm.OK
    assert s.map(BASE, 4 * MIB, r.client, mem) == rm.OK
    assert r.free(mem) == rm.OK
    assert r.fb_free_bytes(sub) == free0 - size  # UVM's duplicate keeps it
    assert s.unmap(BASE + MIB, MIB) == rm.OK  # a hole: two parts left, sharing the duplicate
    assert s.unmap(BASE, MIB) == rm.OK
    assert r.fb_free_bytes(sub) == free0 - size
    assert s.unmap(BASE + 2 * MIB, 2 * MIB) == rm.OK  # the last part
    assert r.fb_free_bytes(sub) == free0


@pytest.mark.parametrize(
    "how", ["free range", "map over", "unregister vaspace", "unregister gpu", "close"]
)
def test_what_else_lets_the_memory_go(how: str) -> None:
    r = Rm()
    dev, sub = r.device()
    s = UvmSpace(r, dev)
    try:
        free0 = r.fb_free_bytes(sub)
        status, mem, _ = r.vidmem(sub, 2 * MIB)
        assert status == rm.OK
        status, mem2, size2 = r.vidmem(sub, 2 * MIB)
        assert status == rm.OK
        assert rm.uvm_create_range(s.fd, BASE, 2 * MIB) == rm.OK
        assert s.map(BASE, 2 * MIB, r.client, mem) == rm.OK
        assert r.free(mem) == rm.OK
        assert r.fb_free_bytes(sub) < free0 - size2
        if how == "free range":
            assert rm.uvm_free(s.fd, BASE, 2 * MIB) == rm.OK
        elif how == "map over":
            assert s.map(BASE, 2 * MIB, r.client, mem2) == rm.OK
        elif how == "unregister vaspace":
            buf = bytearray(s.uuid + bytes(4))
            assert rm.uvm_ioctl(s.fd, rm.UVM_UNREGISTER_GPU_VASPACE, buf) == rm.OK
            assert rm.uvm_ioctl(s.fd, rm.UVM_UNREGISTER_GPU_VASPACE, buf) == rm.INVALID_DEVICE
        elif how == "unregister gpu":
            assert rm.uvm_ioctl(s.fd, rm.UVM_UNREGISTER_GPU, bytearray(s.uuid + bytes(4))) == rm.OK
        else:
            s.close()
        assert r.fb_free_bytes(sub) == free0 - size2
    finally:
        if how != "close":
            s.close()
        r.close()


def test_another_process_memory_is_refused() -> None:
    """RM's default share policy: UVM's duplicate passes only for the client's own process."""
    r = Rm()
    dev, sub = r.device()
    s = UvmSpace(r, dev)
    rd, wr = os.pipe()
    go_rd, go_wr = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            c = Rm()
            _, csub = c.device()
            status, cmem, _ = c.vidmem(csub, MIB)
            os.write(
                wr,
                status.to_bytes(4, "little")
                + c.client.to_bytes(4, "little")
                + cmem.to_bytes(4, "little"),
            )
            os.read(go_rd, 1)
        finally:
            os._exit(0)
    try:
        got = os.read(rd, 12)
        status, hclient, hmem = (int.from_bytes(got[i : i + 4], "little") for i in (0, 4, 8))
        assert status == rm.OK
        assert rm.uvm_create_range(s.fd, BASE, MIB) == rm.OK
        assert s.map(BASE, MIB, hclient, hmem) == rm.INSUFFICIENT_PERMISSIONS
    finally:
        os.write(go_wr, b"x")
        os.waitpid(pid, 0)
        for fd in (rd, wr, go_rd, go_wr):
            os.close(fd)
        s.close()
        r.close()


def test_device_p2p_ranges_hold_their_memory(space: tuple[Rm, int, UvmSpace]) -> None:
    r, sub, s = space
    free0 = r.fb_free_bytes(sub)
    status, mem, size = r.vidmem(sub, 2 * MIB)
    assert status == rm.OK

    def p2p(base: int = BASE, length: int = 2 * MIB, offset: int = 0, uuid: bytes = s.uuid) -> int:
        return rm.uvm_alloc_device_p2p(s.fd, base, length, offset, uuid, r.client, mem)

    with rm.nvsim_p2pdma(False):
        assert p2p() == rm.NOT_SUPPORTED  # what most hosts answer
    with rm.nvsim_p2pdma(True):
        assert p2p(base=BASE + 1) == rm.INVALID_ARGUMENT
        assert p2p(uuid=bytes(16)) == rm.INVALID_DEVICE
        assert p2p(offset=MIB) == rm.INVALID_ARGUMENT  # past the memory
        assert p2p() == rm.OK
        assert p2p() == rm.UVM_ADDRESS_IN_USE
    assert s.map(BASE, 2 * MIB, r.client, mem) == rm.INVALID_ADDRESS  # not an external range
    assert r.free(mem) == rm.OK
    assert r.fb_free_bytes(sub) == free0 - size  # the range holds it
    assert rm.uvm_free(s.fd, BASE, 2 * MIB) == rm.OK
    assert r.fb_free_bytes(sub) == free0


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize("version", ["580.95.05", "595.45.04"])
def test_uvm_free_names_the_whole_range_until_590(version: str) -> None:
    """UVM_FREE_PARAMS carries the range's length through 580 (24 B), and uvm_free() frees only a
    whole range; from 590.44.01 it is the base alone (16 B). rm.uvm_free() speaks the layout of
    the version loaded."""
    reload_modules(f"abi_version={version}")
    r = Rm()
    dev, _ = r.device()
    s = UvmSpace(r, dev)
    try:
        assert rm.uvm_create_range(s.fd, BASE, 2 * MIB) == rm.OK
        if not rm.abi_at_least((590,)):
            assert rm.uvm_free(s.fd, BASE, MIB) == rm.INVALID_ADDRESS  # part of it
            assert rm.uvm_free(s.fd, BASE, 4 * MIB) == rm.INVALID_ADDRESS
            assert rm.uvm_free(s.fd, BASE, 2 * MIB + 1) == rm.INVALID_ADDRESS
            assert rm.uvm_free(s.fd, BASE, 0) == rm.INVALID_ADDRESS
        assert rm.uvm_free(s.fd, BASE + 4096, 2 * MIB) == rm.INVALID_ADDRESS
        assert rm.uvm_free(s.fd, BASE, 2 * MIB) == rm.OK
        assert rm.uvm_free(s.fd, BASE, 2 * MIB) == rm.INVALID_ADDRESS  # gone
    finally:
        s.close()
        r.close()


def test_sparse_mappings(space: tuple[Rm, int, UvmSpace]) -> None:
    """UVM_MAP_EXTERNAL_SPARSE maps a span of an external range with 64 KiB pages and no memory,
    with uvm_map_external_sparse()'s checks in its order; it is a mapping like the others."""
    r, sub, s = space
    big = 64 * 1024

    def sparse(base: int = BASE, length: int = 2 * MIB, uuid: bytes = s.uuid) -> int:
        return rm.uvm_map_sparse(s.fd, base, length, uuid)

    assert sparse() == rm.INVALID_ADDRESS  # no range yet
    assert rm.uvm_create_range(s.fd, BASE, 4 * MIB) == rm.OK
    assert sparse(base=BASE + 4096) == rm.INVALID_ADDRESS  # 64 KiB-aligned only
    assert sparse(length=big + 4096) == rm.INVALID_ADDRESS
    assert sparse(length=0) == rm.INVALID_ADDRESS
    assert sparse(base=BASE + 3 * MIB) == rm.INVALID_ADDRESS  # past the range
    assert sparse(uuid=bytes(16)) == rm.INVALID_DEVICE
    assert sparse() == rm.OK
    assert sparse(base=BASE + MIB) == rm.OK  # over part of the first: UVM unmaps that first
    # memory mapped over a sparse span holds as before; the sparse parts hold nothing
    free0 = r.fb_free_bytes(sub)
    status, mem, size = r.vidmem(sub, MIB)
    assert status == rm.OK
    assert s.map(BASE + MIB, MIB, r.client, mem) == rm.OK
    assert r.free(mem) == rm.OK
    assert r.fb_free_bytes(sub) == free0 - size
    assert s.unmap(BASE, 4 * MIB) == rm.OK
    assert r.fb_free_bytes(sub) == free0
    assert sparse() == rm.OK
    assert rm.uvm_free(s.fd, BASE, 4 * MIB) == rm.OK


def test_dynamic_parallelism_regions(space: tuple[Rm, int, UvmSpace]) -> None:
    """UVM_MAP_DYNAMIC_PARALLELISM_REGION makes a range of its own, one GPU page, with
    uvm_map_sked_reflected_range()'s checks in its order; UVM_FREE frees it."""
    r, sub, s = space

    def dp(base: int = BASE, length: int = 2 * MIB, uuid: bytes = s.uuid) -> int:
        return rm.uvm_map_dp_region(s.fd, base, length, uuid)

    assert dp(base=BASE + 1) == rm.INVALID_ADDRESS
    assert dp(uuid=bytes(16)) == rm.INVALID_DEVICE
    assert dp(length=3 * 64 * 1024) == rm.INVALID_ADDRESS  # not a page size
    assert dp(length=4 * MIB) == rm.INVALID_ADDRESS
    assert dp(base=BASE + 64 * 1024) == rm.INVALID_ADDRESS  # not aligned to its page
    assert dp() == rm.OK
    assert dp() == rm.UVM_ADDRESS_IN_USE
    assert rm.uvm_create_range(s.fd, BASE, 4 * MIB) == rm.UVM_ADDRESS_IN_USE
    assert dp(base=BASE + 2 * MIB, length=64 * 1024) == rm.OK
    status, mem, _ = r.vidmem(sub, MIB)
    assert status == rm.OK
    assert s.map(BASE, MIB, r.client, mem) == rm.INVALID_ADDRESS  # not an external range
    assert rm.uvm_map_sparse(s.fd, BASE, MIB, s.uuid) == rm.INVALID_ADDRESS
    # the GPU VA space's going leaves the range
    buf = bytearray(s.uuid + bytes(4))
    assert rm.uvm_ioctl(s.fd, rm.UVM_UNREGISTER_GPU_VASPACE, buf) == rm.OK
    assert rm.uvm_create_range(s.fd, BASE, 4 * MIB) == rm.UVM_ADDRESS_IN_USE
    assert rm.uvm_free(s.fd, BASE, 2 * MIB) == rm.OK
    assert rm.uvm_free(s.fd, BASE + 2 * MIB, 64 * 1024) == rm.OK
    assert rm.uvm_create_range(s.fd, BASE, 4 * MIB) == rm.OK
