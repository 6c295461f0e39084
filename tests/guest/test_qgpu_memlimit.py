"""Per-instance video-memory limits (issue 5): charging, refusal, uncharging, the knobs, the
tenant's view of the GPU, and DUP isolation, against nvsim."""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import mmap
import os
import random
import select
import signal
import struct
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest
import rm
from churn import churning
from kernel import PROJECT, reload_modules
from qgpu_sysfs import (
    errno_of_write,
    gpu_dir,
    inst_dir,
    instance,
    read,
    uvm_mmap_errno,
    wait_count,
    write,
)
from qgpu_sysfs import mem_current as current
from racing import two_files
from rm import Rm

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
PAGE_4K = 1 << 23  # NVOS32 ATTR PAGE_SIZE=4KB
LOAD = PROJECT / "build" / "bin" / "nvsim-load"


def knob(name: str, attr: str) -> str:
    return read(inst_dir(name) / attr)


def mapped_bytes(name: str) -> int:
    """What the instance's GPU mappings count against mapped_max (kmod/qgpu_mapped.c)."""
    return int(knob(name, "mapped_current"))


def wait_current(name: str, n: int, seconds: float = 5) -> int:
    deadline = time.monotonic() + seconds
    while current(name) != n and time.monotonic() < deadline:
        time.sleep(0.05)
    return current(name)


@contextlib.contextmanager
def child_holding(body: Callable[[], object]) -> Iterator[int]:
    """A forked child runs `body` (allocating, mapping, exporting...) and then waits; yields its
    pid once `body` is done, and kills it with SIGKILL on leaving."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            body()
            os.write(wfd, b"x")
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(wfd)
    try:
        assert os.read(rfd, 1) == b"x", "the child failed before it was ready"
        yield pid
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(rfd)


@pytest.fixture(autouse=True)
def overcommit_off() -> Iterator[None]:
    yield
    write(gpu_dir() / "overcommit", "0\n")


def test_knobs_and_their_errors() -> None:
    g = gpu_dir()
    assert read(g / "overcommit") == "0"
    with instance("k1", opts="mem=4G"):
        d = inst_dir("k1")
        assert (knob("k1", "mem_max"), knob("k1", "mem_current")) == (str(4 * GIB), "0")
        assert (knob("k1", "mem_peak"), knob("k1", "events"), knob("k1", "managed")) == (
            "0",
            "0",
            "allow",
        )
        assert os.stat(d / "mem_max").st_mode & 0o777 == 0o644
        assert os.stat(d / "mem_current").st_mode & 0o777 == 0o444
        write(d / "mem_max", "2G\n")
        assert knob("k1", "mem_max") == str(2 * GIB)
        write(d / "mem_max", "512m")
        assert knob("k1", "mem_max") == str(512 * MIB)
        for bad in ("0", "4X", "-1", "1.5G", "\n", "max max"):
            assert errno_of_write(d / "mem_max", bad) == errno.EINVAL, bad
        assert errno_of_write(d / "mem_max", str(rm.fb_bytes() + 4096)) == errno.ENOSPC
        assert errno_of_write(d / "mem_current", "0") in (errno.EACCES, errno.EPERM, errno.EIO)
        # Without overcommit the limits may not add up to more than the GPU.
        with pytest.raises(OSError) as exc:
            write(g / "create", "k2\n")  # max counts as the whole GPU
        assert exc.value.errno == errno.ENOSPC
        write(g / "create", f"k2 mem={rm.fb_bytes() - 512 * MIB}\n")
        try:
            assert errno_of_write(d / "mem_max", "1G") == errno.ENOSPC
            assert errno_of_write(g / "overcommit", "2") == errno.EINVAL
            write(g / "overcommit", "1")
            write(d / "mem_max", "max")
            assert knob("k1", "mem_max") == "max"
            assert errno_of_write(g / "overcommit", "0") == errno.EINVAL  # sum is over now
            write(d / "mem_max", "512M")
            write(g / "overcommit", "0")
        finally:
            write(inst_dir("k2") / "remove", "1")
        write(d / "managed", "refuse")
        assert knob("k1", "managed") == "refuse"
        assert errno_of_write(d / "managed", "maybe") == errno.EINVAL
        write(d / "managed", "allow")


def test_exactly_at_the_limit_succeeds_one_page_over_fails() -> None:
    with instance("edge", opts="mem=1M") as d:
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            status, h, got = r.vidmem(dev, MIB - 4 * KIB, PAGE_4K)
            assert (status, got) == (rm.OK, MIB - 4 * KIB)
            assert current("edge") == MIB - 4 * KIB
            status, h2, got = r.vidmem(dev, 4 * KIB, PAGE_4K)
            assert (status, got) == (rm.OK, 4 * KIB)
            assert current("edge") == MIB
            assert knob("edge", "events") == "0"
            status, _, _ = r.vidmem(dev, 4 * KIB, PAGE_4K)
            assert status == rm.NO_MEMORY
            assert knob("edge", "events") == "1"
            assert current("edge") == MIB
            # Lowering the limit below what is in use is refused; raising it is live.
            assert errno_of_write(inst_dir("edge") / "mem_max", "512K") == errno.EBUSY
            write(inst_dir("edge") / "mem_max", "2M")
            assert r.vidmem(dev, 4 * KIB, PAGE_4K)[0] == rm.OK
            assert r.free(h) == rm.OK
            assert current("edge") == 4 * KIB + 4 * KIB
            assert int(knob("edge", "mem_peak")) == MIB + 4 * KIB
            # the size RM really allocates is charged: 1 byte at the default page size is 64 KiB
            status, _, got = r.vidmem(dev, 1)
            assert (status, got) == (rm.OK, 64 * KIB)
            assert current("edge") == 8 * KIB + 64 * KIB
        finally:
            r.close()
        assert current("edge") == 0


@pytest.mark.parametrize("xfer", [False, True], ids=["direct", "xfer"])
def test_vid_heap_and_rm_alloc_both_charged(xfer: bool) -> None:
    with instance("vh", opts="mem=1M") as d:
        r = Rm(dev=d, xfer=xfer)
        try:
            dev, _ = r.device()
            heap = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=512 * KIB, attr=PAGE_4K)
            assert struct.unpack_from("<I", heap, 20)[0] == rm.OK
            hmem = struct.unpack_from("<I", heap, 44)[0]
            assert current("vh") == 512 * KIB
            assert r.vidmem(dev, 512 * KIB, PAGE_4K)[0] == rm.OK
            assert current("vh") == MIB
            heap = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=4 * KIB, attr=PAGE_4K)
            assert struct.unpack_from("<I", heap, 20)[0] == rm.NO_MEMORY
            assert struct.unpack_from("<I", heap, 44)[0] == 0  # nothing was allocated
            # system memory is not charged
            status, _, _, _ = r.memory(rm.SYSMEM, dev, 64 * KIB, rm.ATTR_LOCATION_PCI)
            assert status == rm.OK
            assert current("vh") == MIB
            heap = r.vid_heap(rm.NVOS32_FREE, dev, hmemory=hmem)
            assert struct.unpack_from("<I", heap, 20)[0] == rm.OK
            assert current("vh") == 512 * KIB
        finally:
            r.close()
        assert current("vh") == 0


def test_freeing_a_device_or_client_uncharges_its_children() -> None:
    with instance("tree", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            for _ in range(4):
                assert r.vidmem(sub, MIB)[0] == rm.OK
                assert r.vidmem(dev, MIB)[0] == rm.OK
            assert current("tree") == 8 * MIB
            assert r.free(dev) == rm.OK
            assert current("tree") == 0
            dev, _ = r.device()
            assert r.vidmem(dev, 2 * MIB)[0] == rm.OK
            assert r.free(r.client) == rm.OK
            assert current("tree") == 0
        finally:
            r.close()


def real_parent(r: Rm, handle: int) -> int:
    """The parent RM itself records for a handle (NV0000 CLIENT_GET_HANDLE_INFO, PARENT)."""
    info = bytearray(struct.pack("<IIQ", handle, 1, 0))
    assert r.control(r.client, rm.GET_HANDLE_INFO, info) == rm.OK
    return int(struct.unpack_from("<I", info, 8)[0])


def test_a_parent_raced_by_a_sibling_thread_cannot_drop_the_charge() -> None:
    """The mirror files an allocation under the parent qgpu read, and RM must use that one.

    A sibling process flips hObjectParent between the subdevice and the device while allocations
    are in flight. qgpu makes the allocation from its own copy of the request, so RM puts the
    memory under the parent qgpu filed it under, whichever the sibling wrote last: freeing the
    subdevice uncharges exactly what RM freed with it. (When RM read the request itself, RM could
    use the other parent; the charge then went with the wrong subtree.)
    """
    size = 64 * KIB
    with instance("race", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            ptr = r.buffer(_vidmem_params(r.client, size))
            shared = mmap.mmap(-1, mmap.PAGESIZE)
            req = (ctypes.c_char * rm.NVOS64.size).from_buffer(shared)
            under_dev = total = 0
            for _ in range(4):
                # a process, not a thread: it flips while qgpu copies, with no GIL to wait for
                pid = os.fork()
                if pid == 0:  # pragma: no cover - the hostile sibling, on its own CPU
                    cur = ctypes.c_uint32.from_buffer(shared, 4)
                    while True:
                        cur.value = dev
                        cur.value = sub
                try:
                    for _ in range(60):
                        rm.NVOS64.pack_into(req, 0, r.client, sub, 0, rm.VIDMEM, ptr, 0, 0, 0, 0)
                        raw_ioctl(r.ctl, rm.RM_ALLOC, req)
                        status, hnew = (
                            struct.unpack_from("<I", req, 40)[0],
                            rm.NVOS64.unpack(req)[2],
                        )
                        assert status == rm.OK, hex(status)
                        under_dev += real_parent(r, hnew) == dev
                        total += 1
                finally:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                # RM freed what it had under the subdevice: the charge is what is left
                assert r.free(sub) == rm.OK
                assert current("race") == under_dev * size, "the charge is not what RM holds"
                status, sub = r.alloc(r.client, dev, rm.SUBDEVICE, struct.pack("<I", 0))
                assert status == rm.OK, hex(status)
            # the sibling reached qgpu's copy both ways: otherwise nothing above was tested
            assert 0 < under_dev < total, (under_dev, total)
            assert r.free(r.client) == rm.OK
            assert current("race") == 0
        finally:
            r.close()


@pytest.mark.usefixtures("seal_mode")
def test_dup_shares_the_charge_and_other_instances_clients_are_refused() -> None:
    with instance("da", opts="mem=8M") as a, instance("db", opts="mem=8M") as b:
        ra, ra2, rb = Rm(dev=a), Rm(dev=a), Rm(dev=b)
        try:
            dev, _ = ra.device()
            status, h, _ = ra.vidmem(dev, 2 * MIB)
            assert status == rm.OK
            dev2, _ = ra2.device()
            status, hd = ra2.dup(dev2, ra.client, h)
            assert status == rm.OK
            assert current("da") == 2 * MIB  # a duplicate adds no charge
            assert ra.free(h) == rm.OK
            assert current("da") == 2 * MIB  # the duplicate keeps the memory
            assert ra2.free(hd) == rm.OK
            assert current("da") == 0
            status, h, _ = ra.vidmem(dev, MIB)
            devb, _ = rb.device()
            assert rb.dup(devb, ra.client, h)[0] == rm.INVALID_CLIENT
            assert current("db") == 0
        finally:
            for r in (rb, ra2, ra):
                r.close()


def test_cuda_ipc_works_within_an_instance_and_stops_at_its_edge() -> None:
    """CUDA's IPC as traced on an H200 (driver 580): the exporting process shares its memory with
    everyone (RM_SHARE, SHARE_TYPE_ALL, DUP_OBJECT, action 0) and the importing process
    duplicates it from the exporter's client. Within the instance that works and adds no charge;
    from another instance qgpu refuses it, although RM would take it (shared with everyone)."""
    with instance("ia", opts="mem=8M") as a, instance("ib", opts="mem=8M") as b:
        rd, wr = os.pipe()

        def export() -> None:
            r = Rm(dev=a)
            dev, _ = r.device()
            status, h, _ = r.vidmem(dev, 2 * MIB)
            assert status == rm.OK
            share = r.share(r.client, h, rm.SHARE_TYPE_ALL, mask=rm.ACCESS_DUP_OBJECT)
            assert share == rm.OK
            os.write(wr, struct.pack("<II", r.client, h))

        importer, other, direct = Rm(dev=a), Rm(dev=b), Rm()
        try:
            with child_holding(export):
                client, h = struct.unpack("<II", os.read(rd, 8))
                assert current("ia") == 2 * MIB
                dev, _ = importer.device()
                status, hd = importer.dup(dev, client, h)
                assert status == rm.OK
                assert current("ia") == 2 * MIB  # the import adds no charge
                devb, _ = other.device()
                assert other.dup(devb, client, h)[0] == rm.INVALID_CLIENT
                assert current("ib") == 0
                ddev, _ = direct.device()
                status, hx = direct.dup(ddev, client, h)
                assert status == rm.OK  # what qgpu stops, RM itself allows
                assert direct.free(hx) == rm.OK
            # the exporter was killed: the import keeps the memory, and its charge
            assert current("ia") == 2 * MIB
            assert importer.free(hd) == rm.OK
            assert wait_current("ia", 0) == 0
        finally:
            for r in (direct, other, importer):
                r.close()
            os.close(rd)
            os.close(wr)


@pytest.mark.usefixtures("seal_mode")
def test_a_dup_of_a_dup_keeps_the_one_charge_when_the_source_file_goes() -> None:
    """The charge is found through the source client's mirror, in the same file or another."""
    with instance("dd", opts="mem=8M") as a:
        r1, r2 = Rm(dev=a), Rm(dev=a)
        try:
            dev1, _ = r1.device()
            dev2, _ = r2.device()
            status, h, _ = r1.vidmem(dev1, 2 * MIB)
            assert status == rm.OK
            status, hd = r1.dup(dev1, r1.client, h)  # same file, same client
            assert status == rm.OK
            status, hdd = r2.dup(dev2, r1.client, hd)  # a duplicate's duplicate, another file
            assert status == rm.OK
            assert current("dd") == 2 * MIB
            r1.close()  # RM frees r1's client: the allocation and the first duplicate
            r1.ctl = r1.gpu_fd = -1
            time.sleep(0.5)  # the tracker waits for the real file: reaped within 20 ms
            assert current("dd") == 2 * MIB  # the last duplicate holds the memory
            assert r2.free(hdd) == rm.OK
            assert current("dd") == 0
        finally:
            r2.close()
            r1.close()


def raw_ioctl(fd: int, nr: int, req: ctypes.Array[ctypes.c_char]) -> None:
    """The ioctl through libc, by address: the driver reads the very buffer another process
    writes (fcntl.ioctl would pass a copy)."""
    libc = ctypes.CDLL(None, use_errno=True)
    cmd = ctypes.c_ulong(rm.iowr(nr, len(req)))
    assert libc.ioctl(fd, cmd, ctypes.c_void_p(ctypes.addressof(req))) == 0


@contextlib.contextmanager
def flipping(
    size: int, offset: int, values: tuple[int, int]
) -> Iterator[ctypes.Array[ctypes.c_char]]:
    """A request buffer in shared memory, whose u32 at `offset` a child process keeps flipping
    between two values: the hostile sibling, on its own CPU and without the GIL."""
    shared = mmap.mmap(-1, mmap.PAGESIZE)
    req = (ctypes.c_char * size).from_buffer(shared)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        word = ctypes.c_uint32.from_buffer(shared, offset)
        while True:
            word.value = values[0]
            word.value = values[1]
    try:
        yield req
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def vidmem_at(r: Rm, parent: int, size: int, handle: int) -> int:
    """Video memory under a handle the caller chooses; returns the status."""
    params = bytearray(rm.MEM_PARAMS_SIZE)
    struct.pack_into("<I", params, 0, r.client)
    struct.pack_into("<Q", params, 64, size)
    return r.alloc(r.client, parent, rm.VIDMEM, bytes(params), hnew=handle)[0]


@pytest.mark.usefixtures("seal_mode")
def test_a_sibling_swapping_the_dup_source_cannot_reach_another_instance() -> None:
    """qgpu checks the source client in its own copy of the request; RM must not read another.

    One process holds clients in two instances (the test runs as root; a container's process
    cannot open another instance's nodes, but it could own a client whose object is shared).
    A sibling flips hClientSrc between the caller's own client, which passes qgpu's check but has
    no such object, and the other instance's client, which has it and belongs to the same process
    (RM's share policy would allow the duplicate). None may succeed.
    """
    with instance("sa", opts="mem=64M") as a, instance("sb", opts="mem=64M") as b:
        ra, rb = Rm(dev=a), Rm(dev=b)
        try:
            deva, _ = ra.device()
            devb, _ = rb.device()
            theirs = 0x5EC0
            assert vidmem_at(rb, devb, MIB, theirs) == rm.OK
            assert ra.dup(deva, ra.client, theirs)[0] == rm.OBJECT_NOT_FOUND
            seen = {rm.INVALID_CLIENT: 0, rm.OBJECT_NOT_FOUND: 0}
            with flipping(rm.NVOS55.size, 12, (rb.client, ra.client)) as req:
                # until qgpu's check has read each side a few times: the race was run
                for _ in range(20000):
                    if min(seen.values()) >= 20:
                        break
                    rm.NVOS55.pack_into(
                        req, 0, ra.client, deva, 0, ra.client, theirs, 0, 0xFFFFFFFF
                    )
                    raw_ioctl(ra.ctl, rm.RM_DUP_OBJECT, req)
                    status = rm.NVOS55.unpack(bytes(req))[6]
                    assert status != rm.OK, "a duplicate of another instance's memory was made"
                    assert status in seen, hex(status)
                    seen[status] += 1
            assert min(seen.values()) >= 20, seen
            assert current("sa") == 0
        finally:
            rb.close()
            ra.close()


@pytest.mark.usefixtures("seal_mode")
def test_a_sibling_rewriting_the_dup_handle_cannot_leave_it_uncharged() -> None:
    """RM writes the duplicate's handle back where a sibling can rewrite it.

    Allocate, duplicate, free the source, over and over, while a sibling writes a handle qgpu
    already charges into hObject. Every duplicate made keeps its memory in RM, so it must keep
    its charge: the instance is never charged less than the memory its duplicates hold.
    """
    size = 64 * KIB
    with instance("sh", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            status, kept, _ = r.vidmem(dev, size)
            assert status == rm.OK
            made = 0
            with flipping(rm.NVOS55.size, 8, (kept, 0)) as req:
                for _ in range(500):
                    status, h, _ = r.vidmem(dev, size)
                    assert status == rm.OK, hex(status)
                    rm.NVOS55.pack_into(req, 0, r.client, dev, 0, r.client, h, 0, 0xFFFFFFFF)
                    raw_ioctl(r.ctl, rm.RM_DUP_OBJECT, req)
                    status = rm.NVOS55.unpack(bytes(req))[6]
                    # RM read the sibling's handle as the one to use: it exists, nothing is made
                    assert status in (rm.OK, rm.INSERT_DUPLICATE_NAME), hex(status)
                    made += status == rm.OK
                    assert r.free(h) == rm.OK
                    assert current("sh") >= (1 + made) * size, (
                        f"a duplicate lost its charge ({made})"
                    )
            assert made, "no duplicate was made"
            assert r.free(r.client) == rm.OK
            assert current("sh") == 0
        finally:
            r.close()


@pytest.mark.usefixtures("seal_mode")
def test_duplicates_racing_another_files_alloc_and_free_stay_charged() -> None:
    """A duplicate made through one file of a source another file allocates and frees meanwhile.

    The source's charge may not be in the mirror yet, or may have gone with a free just after RM
    made the duplicate. Whatever the interleaving, the instance is never charged less than the
    memory RM holds for it (measured on the driver's own nodes).
    """
    size, handle = 64 * KIB, 0x5A5A
    with two_files("sx", "mem=256M") as f:
        free0 = f.direct.fb_free_bytes(f.sub)

        def alloc_free() -> None:
            if vidmem_at(f.r1, f.dev1, size, handle) == rm.OK:
                f.r1.free(handle)

        made = 0
        with churning(alloc_free):
            for _ in range(1500):
                made += f.r2.dup(f.dev2, f.r1.client, handle)[0] == rm.OK
        assert made, "no duplicate was made"
        f.r1.free(handle)
        held = free0 - f.direct.fb_free_bytes(f.sub)
        assert current("sx") >= held, (current("sx"), held, made)
        f.close_files()
        assert wait_current("sx", 0) == 0


def test_one_instance_at_its_limit_does_not_affect_the_other() -> None:
    with instance("full", opts="mem=2M") as a, instance("free", opts="mem=8M") as b:
        ra, rb = Rm(dev=a), Rm(dev=b)
        try:
            deva, _ = ra.device()
            devb, _ = rb.device()
            assert ra.vidmem(deva, 2 * MIB)[0] == rm.OK
            assert ra.vidmem(deva, 64 * KIB)[0] == rm.NO_MEMORY
            for _ in range(8):
                assert rb.vidmem(devb, MIB)[0] == rm.OK
            assert rb.vidmem(devb, 64 * KIB)[0] == rm.NO_MEMORY
            assert (knob("full", "events"), knob("free", "events")) == ("1", "1")
            assert (current("full"), current("free")) == (2 * MIB, 8 * MIB)
        finally:
            ra.close()
            rb.close()


def _worker(dev: str, seed: int, steps: int, wfd: int, rfd: int) -> None:
    """Child: random allocs and frees; after each step reports its live charged bytes."""
    rnd = random.Random(seed)
    r = Rm(dev=dev)
    d, sub = r.device()
    live: dict[int, int] = {}
    for _ in range(steps):
        os.read(rfd, 1)  # the parent's turn signal: one step at a time, in lockstep
        if live and rnd.random() < 0.4:
            h = rnd.choice(list(live))
            assert r.free(h) == rm.OK
            del live[h]
        elif rnd.random() < 0.1 and live:
            # a parent's free takes everything under it
            assert r.free(d) == rm.OK
            live.clear()
            d, sub = r.device()
        else:
            size = rnd.choice([4 * KIB, 60 * KIB, 64 * KIB, 200 * KIB, MIB])
            attr = rnd.choice([0, PAGE_4K])
            parent = rnd.choice([d, sub])
            status, h, got = r.vidmem(parent, size, attr)
            if status == rm.OK:
                live[h] = got
            else:
                assert status == rm.NO_MEMORY, hex(status)
        os.write(wfd, struct.pack("<Q", sum(live.values())))
    time.sleep(600)


def test_property_random_alloc_free_in_two_instances() -> None:
    steps, per_inst = 40, 2
    with instance("pa", opts="mem=6M") as a, instance("pb", opts="mem=3M") as b:
        kids = []
        for n, dev in enumerate([a] * per_inst + [b] * per_inst):
            up_r, up_w = os.pipe()
            down_r, down_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                try:
                    os.close(up_r)
                    os.close(down_w)
                    _worker(dev, 1000 + n, steps, up_w, down_r)
                finally:
                    os._exit(1)
            os.close(up_w)
            os.close(down_r)
            kids.append((pid, "pa" if dev == a else "pb", up_r, down_w))
        live = {k[0]: 0 for k in kids}
        try:
            for _ in range(steps):
                for pid, _, up, down in kids:
                    os.write(down, b"x")
                    got = os.read(up, 8)
                    assert len(got) == 8, "a worker died"
                    live[pid] = struct.unpack("<Q", got)[0]
                    for name in ("pa", "pb"):
                        want = sum(live[p] for p, n, _, _ in kids if n == name)
                        assert current(name) == want, (name, want)
            assert int(knob("pa", "mem_current")) <= 6 * MIB
            assert int(knob("pb", "mem_current")) <= 3 * MIB
        finally:
            for i, (pid, _, _, _) in enumerate(kids):
                os.kill(pid, signal.SIGKILL if i % 2 else signal.SIGTERM)
                os.waitpid(pid, 0)
        assert wait_current("pa", 0) == 0
        assert wait_current("pb", 0) == 0


def test_kill_9_uncharges_even_with_a_mapping_alive_until_it_goes() -> None:
    with instance("k9", opts="mem=16M") as d:

        def hold() -> None:
            r = Rm(dev=d)
            dev, _ = r.device()
            r.vidmem(dev, 4 * MIB)

        with child_holding(hold):
            assert current("k9") == 4 * MIB
        assert wait_current("k9", 0) == 0
        assert int(knob("k9", "mem_peak")) == 4 * MIB


def test_refusal_wakes_pollers_of_events() -> None:
    with instance("poll", opts="mem=64K") as d:
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            f = open(inst_dir("poll") / "events", "rb")  # noqa: SIM115
            f.read()
            p = select.poll()
            p.register(f, select.POLLPRI | select.POLLERR)
            assert r.vidmem(dev, 128 * KIB)[0] == rm.NO_MEMORY
            assert p.poll(2000), "sysfs_notify on events"
            f.seek(0)
            assert f.read().strip() == b"1"
            f.close()
        finally:
            r.close()


def test_oom_netlink_event() -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("nl", opts="mem=64K") as d:
        sock = QgpuEventSocket()
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            assert r.vidmem(dev, 128 * KIB)[0] == rm.NO_MEMORY
            ev = next_event(sock, "oom")
            assert (ev.instance, ev.gpu, ev.pid, ev.size) == ("nl", 0, os.getpid(), 128 * KIB)
        finally:
            r.close()
            sock.close()


def test_the_tenant_sees_its_limit() -> None:
    with instance("view", opts="mem=4G") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            assert r.vidmem(dev, GIB)[0] == rm.OK
            total, free, heap, usable = r.fb_info(
                sub, rm.FB_TOTAL_RAM_SIZE, rm.FB_HEAP_FREE, 0x09, 0x20
            )
            assert (total, free, heap, usable) == (4 * MIB, 3 * MIB, 4 * MIB, 4 * MIB)
            info = r.vid_heap(5, dev)  # NVOS32 FUNCTION_INFO
            assert struct.unpack_from("<I", info, 20)[0] == rm.OK
            assert struct.unpack_from("<QQ", info, 24) == (4 * GIB, 3 * GIB)
            cards = rm.card_info(r.ctl)
            assert cards[0][2] <= 4 * GIB
            # the control on something that is not the tenant's subdevice is RM's to refuse
            params = bytearray(rm.fb_info_v2_size())
            assert r.control(dev, rm.FB_GET_INFO_V2, params) != rm.OK
        finally:
            r.close()


def test_nvsim_load_sees_the_limit_and_fails_cleanly_past_it() -> None:
    with instance("ld", opts="mem=256M") as d:
        i = subprocess.run(
            [str(LOAD), "--dev", d, "info", "--json"], capture_output=True, text=True, timeout=60
        )
        assert i.returncode == 0, i.stderr
        info = json.loads(i.stdout)
        assert (info["fb_total_bytes"], info["fb_free_bytes"]) == (256 * MIB, 256 * MIB)
        a = subprocess.run(
            [str(LOAD), "--dev", d, "alloc", "64M", "--count", "5", "--json"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        out = json.loads(a.stdout)
        assert (out["succeeded"], out["failed"]) == (4, 1)
        assert out["statuses"][-1] == "NV_ERR_NO_MEMORY"
        assert knob("ld", "events") == "1"
        assert wait_current("ld", 0) == 0


def test_get_pids_shows_only_the_instances_processes() -> None:
    with instance("pida", opts="mem=8M") as a, instance("pidb", opts="mem=8M") as b:

        def hold() -> None:
            r = Rm(dev=b)
            dev, _ = r.device()
            r.vidmem(dev, MIB)

        with child_holding(hold) as pid:
            ra = Rm(dev=a)
            try:
                dev, sub = ra.device()
                assert ra.vidmem(dev, 2 * MIB)[0] == rm.OK
                status, pids = ra.pids(sub)
                assert status == rm.OK
                assert pids == [os.getpid()]
                st, res, priv, _, _ = ra.pid_info(sub, os.getpid())
                assert (st, res, priv) == (rm.OK, rm.OK, 2 * MIB)
                st, res, priv, _, _ = ra.pid_info(sub, pid)
                assert (st, priv) == (rm.OK, 0)  # another instance's process shows nothing
            finally:
                ra.close()


def test_managed_refuse_fails_mmap_of_the_uvm_node() -> None:
    with instance("uvm", opts="mem=8M") as d:
        write(inst_dir("uvm") / "managed", "refuse")
        assert uvm_mmap_errno(d, 2 * MIB) == errno.EPERM


def test_managed_refuse_from_create_has_no_window() -> None:
    """managed=refuse in the create line: refused from the instance's first moment."""
    assert "managed" in read(gpu_dir(0) / "create_keys").split()
    with instance("uvmc", opts="mem=8M managed=refuse") as d:
        assert read(inst_dir("uvmc") / "managed") == "refuse"
        assert uvm_mmap_errno(d, 2 * MIB) == errno.EPERM
    with instance("uvmd", opts="mem=8M") as d:
        assert read(inst_dir("uvmd") / "managed") == "allow"


def test_fabric_memory_holds_the_charge_of_what_it_maps(seal_mode: str) -> None:
    """A sticky NV_MEMORY_FABRIC object holds the video memory it names after every handle of the
    tenant's to it is freed (RM keeps a duplicate), and its copies share the one charge. Forwarded
    as any other class, the free uncharged memory RM still held: allocate the limit, give it a
    fabric address, free it, and again."""
    huge = rm.ATTR_PAGE_HUGE
    with rm.nvsim_fabric(), instance("fab", opts="mem=8M") as d:
        a = Rm(dev=d)
        try:
            dev, sub = a.device()
            _, h, _ = a.vidmem(dev, 8 * MIB, attr=huge)
            status, f = a.alloc(a.client, sub, rm.MEMORY_FABRIC, rm.fabric_params(2 * MIB, h))
            assert status == rm.OK, hex(status)
            status, copy = a.dup(sub, a.client, f)
            assert status == rm.OK, hex(status)
            assert a.free(h) == rm.OK
            assert current("fab") == 8 * MIB
            assert a.vidmem(dev, 2 * MIB, attr=huge)[0] == rm.NO_MEMORY  # the limit counts it
            assert a.free(f) == rm.OK
            assert current("fab") == 8 * MIB  # the copy holds it
            assert a.free(copy) == rm.OK
            assert current("fab") == 0
            # freeing the subdevice frees its fabric objects, and what they held
            _, h, _ = a.vidmem(dev, 4 * MIB, attr=huge)
            status, sub2 = a.alloc(a.client, dev, rm.SUBDEVICE, bytes(4))
            assert status == rm.OK
            params = rm.fabric_params(4 * MIB, h)
            assert a.alloc(a.client, sub2, rm.MEMORY_FABRIC, params)[0] == rm.OK
            assert a.free(h) == rm.OK
            assert current("fab") == 4 * MIB
            assert a.free(sub2) == rm.OK
            assert current("fab") == 0
            # a flexible object, and one RM refuses, hold nothing
            _, h, _ = a.vidmem(dev, 2 * MIB, attr=huge)
            flexible = rm.fabric_params(2 * MIB, 0, flags=rm.FABRIC_FLEXIBLE)
            assert a.alloc(a.client, sub, rm.MEMORY_FABRIC, flexible)[0] == rm.OK
            too_long = rm.fabric_params(4 * MIB, h)
            assert a.alloc(a.client, sub, rm.MEMORY_FABRIC, too_long)[0] == rm.INVALID_ARGUMENT
            assert a.free(h) == rm.OK
            assert current("fab") == 0
            # the process's end lets go of what its objects held
            _, h, _ = a.vidmem(dev, 2 * MIB, attr=huge)
            assert a.alloc(a.client, sub, rm.MEMORY_FABRIC, rm.fabric_params(2 * MIB, h))[0] == 0
            assert a.free(h) == rm.OK
            assert current("fab") == 2 * MIB
        finally:
            a.close()
        assert wait_current("fab", 0) == 0


def test_a_fabric_objects_export_and_copies_share_what_it_holds() -> None:
    """A fabric object exported to an fd, and copied into another client of the instance, shares
    the one charge of the memory it holds: it stays until the last of them goes."""
    with rm.nvsim_fabric(), instance("fabx", opts="mem=8M") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        e = os.open(f"{d}/nvidiactl", os.O_RDWR)
        try:
            dev, sub = a.device()
            _, bsub = b.device()
            _, h, _ = a.vidmem(dev, 4 * MIB, attr=rm.ATTR_PAGE_HUGE)
            status, f = a.alloc(a.client, sub, rm.MEMORY_FABRIC, rm.fabric_params(2 * MIB, h))
            assert status == rm.OK, hex(status)
            assert a.export_object(f, e) == rm.OK
            status, copy = b.dup(bsub, a.client, f)
            assert status == rm.OK, hex(status)
            assert (a.free(h), a.free(f)) == (rm.OK, rm.OK)
            assert current("fabx") == 4 * MIB
            # counted once: what is left of the limit fits, and no more
            assert b.vidmem(bsub, 4 * MIB + 64 * KIB, rm.ATTR_PAGE_BIG)[0] == rm.NO_MEMORY
            status, hb, _ = b.vidmem(bsub, 4 * MIB)
            assert status == rm.OK
            assert b.free(hb) == rm.OK
            assert b.free(copy) == rm.OK
            assert current("fabx") == 4 * MIB  # the export fd holds it
            os.close(e)
            e = -1
            assert wait_current("fabx", 0) == 0
        finally:
            if e >= 0:
                os.close(e)
            a.close()
            b.close()
        assert current("fabx") == 0


def test_exported_memory_stays_charged_until_rm_lets_it_go() -> None:
    """An export fd holds memory after every handle of the tenant's to it is freed; an import
    shares the one charge. Forwarded, the free uncharged memory RM still held."""
    with instance("ex", opts="mem=16M") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        e = os.open(f"{d}/nvidiactl", os.O_RDWR)
        e1 = os.open(f"{d}/nvidiactl", os.O_RDWR)
        try:
            dev, _ = a.device()
            devb, _ = b.device()
            _, h, _ = a.vidmem(dev, 4 * MIB)
            assert a.export_objects(e, [h], max_objects=2, hdevice=dev) == rm.OK
            assert a.free(h) == rm.OK
            assert current("ex") == 4 * MIB
            status, handles, types = b.import_objects(e, devb, 1)
            assert (status, types) == (rm.OK, [rm.IMPORT_TYPE_VIDMEM])
            assert current("ex") == 4 * MIB  # one charge, shared
            # the limit counts it: 12 MiB and a page more do not fit
            assert b.vidmem(devb, 12 * MIB + 64 * KIB, rm.ATTR_PAGE_BIG)[0] == rm.NO_MEMORY
            os.close(e)
            e = -1
            assert current("ex") == 4 * MIB  # the import holds it
            assert b.free(handles[0]) == rm.OK
            assert current("ex") == 0
            # the single export: held until the fd goes; exporting over a slot lets the old go
            _, h, _ = a.vidmem(dev, 2 * MIB)
            assert a.export_object(h, e1) == rm.OK
            assert a.free(h) == rm.OK
            assert current("ex") == 2 * MIB
            os.close(e1)
            e1 = -1
            assert wait_current("ex", 0) == 0
        finally:
            for fd in (e, e1):
                if fd >= 0:
                    os.close(fd)
            a.close()
            b.close()
        assert current("ex") == 0


def test_an_export_slot_exported_over_lets_its_charge_go() -> None:
    with instance("exo", opts="mem=16M") as d:
        a = Rm(dev=d)
        e = os.open(f"{d}/nvidiactl", os.O_RDWR)
        try:
            dev, _ = a.device()
            _, h1, _ = a.vidmem(dev, 4 * MIB)
            _, h2, _ = a.vidmem(dev, 2 * MIB)
            assert a.export_objects(e, [h1, h2], max_objects=2, hdevice=dev) == rm.OK
            assert a.free(h1) == rm.OK and a.free(h2) == rm.OK
            assert current("exo") == 6 * MIB
            assert a.export_objects(e, [0], index=0) == rm.OK  # slot 0 emptied
            assert current("exo") == 2 * MIB
        finally:
            os.close(e)
            a.close()
        assert current("exo") == 0


def test_export_and_import_refusals() -> None:
    with instance("exa", opts="mem=16M") as a, instance("exb", opts="mem=16M") as b:
        ra, ra2, rb = Rm(dev=a), Rm(dev=a), Rm(dev=b)
        eb = os.open(f"{b}/nvidiactl", os.O_RDWR)
        ea = os.open(f"{a}/nvidiactl", os.O_RDWR)
        try:
            dev, _ = ra.device()
            _, h, _ = ra.vidmem(dev, MIB)
            # another instance's nvidiactl cannot hold this instance's exports
            status = ra.export_objects(eb, [h], max_objects=1, hdevice=dev)
            assert status == rm.INVALID_ARGUMENT
            # a client of another file is not the caller's (RM's clientValidate)
            params = bytearray(652)
            struct.pack_into("<iI", params, 0, ea, dev)
            struct.pack_into("<HH", params, 648, 1, 0)
            cmd = rm.IMPORT_OBJECTS_FROM_FD
            assert ra2.control(ra.client, cmd, params, hclient=ra.client) == rm.INVALID_CLIENT
            assert current("exa") == MIB and current("exb") == 0
        finally:
            os.close(ea)
            os.close(eb)
            for r in (ra, ra2, rb):
                r.close()


def test_kill_9_with_exported_memory_uncharges() -> None:
    with instance("exk", opts="mem=16M") as d:

        def hold() -> None:
            r = Rm(dev=d)
            dev, _ = r.device()
            e = os.open(f"{d}/nvidiactl", os.O_RDWR)
            _, h, _ = r.vidmem(dev, 4 * MIB)
            r.export_objects(e, [h], max_objects=1, hdevice=dev)
            r.free(h)

        with child_holding(hold):
            assert current("exk") == 4 * MIB
        assert wait_current("exk", 0) == 0


def _has(r: Rm, handle: int) -> bool:
    """Does RM have this handle of the client (NV0000 CLIENT_GET_HANDLE_INFO)?"""
    info = bytearray(struct.pack("<IIQ", handle, 1, 0))
    return r.control(r.client, rm.GET_HANDLE_INFO, info) == rm.OK


def test_a_new_handle_rewritten_to_an_import_cannot_leave_the_allocation_uncharged() -> None:
    """A sibling flips hObjectNew between a fresh handle and an imported one of the client.

    While RM read the request itself, qgpu could read the import in its copy, RM the fresh
    handle, and qgpu the import again afterwards: it would verify the import (video memory, of a
    size) and leave the new allocation uncharged (caught only because imports are mirrored, at
    the cost of the client). qgpu now makes the allocation from its own copy: RM makes exactly
    the handle qgpu read, or refuses the import's (NV_ERR_INSERT_DUPLICATE_NAME), and the
    charge equals what RM holds after every call, with the client kept.
    """
    size, decoy = 64 * KIB, 0xD0000001
    with instance("ri", opts="mem=64M") as d:
        shared = mmap.mmap(-1, mmap.PAGESIZE)
        req = (ctypes.c_char * rm.NVOS64.size).from_buffer(shared)
        fresh = ctypes.c_uint32.from_buffer(shared, 64)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the hostile sibling, on its own CPU
            word = ctypes.c_uint32.from_buffer(shared, 8)
            while True:
                word.value = decoy
                word.value = fresh.value
        r: Rm | None = None
        e, refused = -1, 0
        made: set[int] = set()
        try:
            for attempt in range(600):
                if r is None:
                    r = Rm(dev=d)
                    dev, _ = r.device()
                    e = os.open(f"{d}/nvidiactl", os.O_RDWR)
                    _, kept, _ = r.vidmem(dev, size)
                    assert r.export_objects(e, [kept], max_objects=1, hdevice=dev) == rm.OK
                    assert r.import_objects(e, dev, 1, handles=[decoy])[0] == rm.OK
                    ptr = r.buffer(struct.pack("<I60xQ56x", r.client, size))
                    made = set()
                fresh.value = 0xA0000000 + attempt
                # hObjectNew is never 0: RM would generate a handle the count below misses
                rm.NVOS64.pack_into(
                    req, 0, r.client, dev, fresh.value, rm.VIDMEM, ptr, 0, 0, 0, 0xFFFFFFFF
                )
                raw_ioctl(r.ctl, rm.RM_ALLOC, req)
                # qgpu made the call from its copy: no race to see, no client to lose
                assert _has(r, r.client), "the client went"
                status, hnew = struct.unpack_from("<I", req, 40)[0], fresh.value
                if _has(r, hnew):
                    made.add(hnew)
                else:
                    # qgpu's copy named the import: RM refused the handle, made nothing
                    assert status == rm.INSERT_DUPLICATE_NAME, hex(status)
                    refused += 1
                # the memory RM holds, exactly: the import shares the kept allocation's charge
                assert current("ri") == (1 + len(made)) * size, f"charged wrong ({made})"
            # the sibling reached qgpu's copy both ways: otherwise nothing above was tested
            assert made and refused, (len(made), refused)
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            if r is not None:
                os.close(e)
                r.close()
        assert wait_current("ri", 0) == 0


HANDLE_PROVIDED = 0x4000  # NVOS32_ALLOC_FLAGS_MEMORY_HANDLE_PROVIDED


@pytest.mark.parametrize("call", ["rm_alloc", "vid_heap"])
def test_a_sibling_rewriting_the_new_handle_and_the_status_cannot_leave_memory_uncharged(
    call: str,
) -> None:
    """A sibling keeps writing a zero handle (RM would generate one) and an error status into the
    tenant's allocation request while the tenant allocates 1 MiB at a time through an instance of
    8 MiB.

    While RM read the request itself, RM allocated under a handle qgpu never saw and qgpu read
    a failure: with RM_ALLOC nothing was charged and 32 MiB were held through the 8 MiB instance;
    with VID_HEAP qgpu saw the generated handle and freed the client. qgpu now makes the
    allocation from its own copy, so whatever the sibling writes, what RM holds is what qgpu
    charged, and no more than the limit.
    """
    rounds, limit = 32, 8 * MIB
    status_off, handle_off = (40, 8) if call == "rm_alloc" else (20, 44)
    real = Rm()
    _, rsub = real.device()
    before = real.fb_free_bytes(rsub)
    try:
        with instance("hs", opts="mem=8M") as d:
            shared = mmap.mmap(-1, mmap.PAGESIZE)
            size = rm.NVOS64.size if call == "rm_alloc" else rm.NVOS32_SIZE
            req = (ctypes.c_char * size).from_buffer(shared)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the hostile sibling
                status = ctypes.c_uint32.from_buffer(shared, status_off)
                handle = ctypes.c_uint32.from_buffer(shared, handle_off)
                flags = ctypes.c_uint32.from_buffer(shared, 52)  # NVOS32 AllocSize.flags
                while True:
                    status.value = 0x1F
                    handle.value = 0
                    if call == "vid_heap":
                        flags.value = 0  # no MEMORY_HANDLE_PROVIDED: RM generates one
            r = Rm(dev=d)
            try:
                dev, _ = r.device()
                ptr = r.buffer(struct.pack("<I60xQ56x", r.client, MIB))
                for i in range(rounds):
                    if call == "rm_alloc":
                        fields = (r.client, dev, 0xB0000000 + i, rm.VIDMEM, ptr, 0, 0, 0)
                        rm.NVOS64.pack_into(req, 0, *fields, 0xFFFFFFFF)
                        raw_ioctl(r.ctl, rm.RM_ALLOC, req)
                    else:
                        buf = bytearray(size)
                        struct.pack_into("<III", buf, 0, r.client, dev, rm.NVOS32_ALLOC_SIZE)
                        struct.pack_into("<I", buf, 20, 0xFFFFFFFF)
                        struct.pack_into("<III", buf, 44, 0xB0000000 + i, 0, HANDLE_PROVIDED)
                        struct.pack_into("<I", buf, 56, PAGE_4K)
                        struct.pack_into("<Q", buf, 88, MIB)
                        req[:] = bytes(buf)
                        raw_ioctl(r.ctl, rm.RM_VID_HEAP_CONTROL, req)
                    assert _has(r, r.client), "the client went"
                held = before - real.fb_free_bytes(rsub)
                assert (current("hs"), held) == (limit, limit), "RM holds what qgpu did not charge"
            finally:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                r.close()
        assert before - real.fb_free_bytes(rsub) == 0
    finally:
        real.close()


def _vidmem_params(
    client: int, size: int, attr: int = 0, attr2: int = 0, internal: int = 0
) -> bytes:
    """NV_MEMORY_ALLOCATION_PARAMS: owner, attr, attr2, size, internalflags."""
    params = bytearray(rm.MEM_PARAMS_SIZE)
    struct.pack_into("<I", params, 0, client)
    struct.pack_into("<II", params, 24, attr, attr2)
    struct.pack_into("<Q", params, 64, size)
    struct.pack_into("<I", params, 112, internal)
    return bytes(params)


RESERVED_HEAP = 1 << 14  # NVOS32_ATTR_ALLOCATE_FROM_RESERVED_HEAP
PAGE_OFFLINING_OFF = 1 << 19  # NVOS32_ATTR2_PAGE_OFFLINING_OFF
SKIP_SCRUB = 0x4  # NVOS32_ALLOC_INTERNAL_FLAGS_SKIP_SCRUB


def test_what_rm_grants_only_kernel_callers_is_answered_as_for_a_user() -> None:
    """qgpu allocates through its kernel client, which RM trusts with what it refuses a user:
    internalflags (SKIP_SCRUB: memory not scrubbed on free), PAGE_OFFLINING_OFF (retired pages)
    and ALLOCATE_FROM_RESERVED_HEAP (RM's own heap). Through an instance each must get what the
    driver gives a user, straight: the two refusals, and the reserved-heap bit ignored (the
    memory comes from the framebuffer heap, and is charged)."""
    direct = Rm()
    ddev, dsub = direct.device()
    with instance("kp", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            for who, parent in ((direct, ddev), (r, dev)):
                what = "direct" if who is direct else "through qgpu"
                for kw, want in (
                    ({"internal": SKIP_SCRUB}, rm.INVALID_ARGUMENT),
                    ({"attr2": PAGE_OFFLINING_OFF}, rm.INSUFFICIENT_PERMISSIONS),
                    ({"attr2": PAGE_OFFLINING_OFF, "internal": 1}, rm.INVALID_ARGUMENT),
                ):
                    status, _ = who.alloc(
                        who.client, parent, rm.VIDMEM, _vidmem_params(who.client, MIB, **kw)
                    )
                    assert status == want, (what, kw, hex(status))
                heap = who.vid_heap(
                    rm.NVOS32_ALLOC_SIZE, parent, size=MIB, attr=PAGE_4K, attr2=PAGE_OFFLINING_OFF
                )
                assert struct.unpack_from("<I", heap, 20)[0] == rm.INSUFFICIENT_PERMISSIONS, what
                free = direct.fb_free_bytes(dsub)
                status, h = who.alloc(
                    who.client, parent, rm.VIDMEM, _vidmem_params(who.client, MIB, RESERVED_HEAP)
                )
                assert status == rm.OK, (what, hex(status))
                assert free - direct.fb_free_bytes(dsub) == MIB, f"{what}: not the framebuffer"
                heap = who.vid_heap(
                    rm.NVOS32_ALLOC_SIZE, parent, size=MIB, attr=PAGE_4K | RESERVED_HEAP
                )
                assert struct.unpack_from("<I", heap, 20)[0] == rm.OK, what
                assert free - direct.fb_free_bytes(dsub) == 2 * MIB, f"{what}: not the framebuffer"
                assert who.free(h) == rm.OK
            assert current("kp") == MIB  # the VID_HEAP one is still held
        finally:
            r.close()
            direct.close()


def test_an_allocation_naming_another_files_client_is_refused_as_rm_refuses_it() -> None:
    """RM binds a client to the ctl file that made it and refuses it through any other; it does
    not check that for kernel calls, so qgpu does before it allocates on the tenant's behalf."""

    def refusals(dev_dir: str) -> list[int]:
        a, b = Rm(dev=dev_dir), Rm(dev=dev_dir)
        try:
            dev, _ = a.device()
            params = _vidmem_params(a.client, MIB)
            heap = bytearray(rm.NVOS32_SIZE)
            struct.pack_into("<IIII", heap, 0, a.client, dev, rm.NVOS32_ALLOC_SIZE, 0)
            struct.pack_into("<I", heap, 20, 0xFFFFFFFF)
            struct.pack_into("<I", heap, 56, PAGE_4K)
            struct.pack_into("<Q", heap, 88, MIB)
            b.call(b.ctl, rm.RM_VID_HEAP_CONTROL, heap)
            return [
                b.alloc(a.client, dev, rm.VIDMEM, params)[0],
                b.alloc(0xC1D0FFFF, dev, rm.VIDMEM, params)[0],
                struct.unpack_from("<I", heap, 20)[0],
            ]
        finally:
            a.close()
            b.close()

    want = [rm.INVALID_CLIENT] * 3
    assert refusals("/dev") == want
    with instance("fc") as d:
        assert refusals(d) == want
        assert current("fc") == 0


UVM_BASE = 0x7F0000000000


@contextlib.contextmanager
def uvm_space(name: str, limit: str = "mem=8M") -> Iterator[tuple[Rm, int, rm.UvmSpace]]:
    with instance(name, opts=limit) as d:
        r = Rm(dev=d)
        dev, sub = r.device()
        s = rm.UvmSpace(r, dev, f"{d}/nvidia-uvm")
        try:
            yield r, sub, s
        finally:
            s.close()
            r.close()


def map_and_free_handle(r: Rm, sub: int, s: rm.UvmSpace, size: int) -> None:
    """Allocate, map it all into a new external range at UVM_BASE, free the tenant's handle."""
    status, h, _ = r.vidmem(sub, size)
    assert status == rm.OK
    assert rm.uvm_create_range(s.fd, UVM_BASE, size) == rm.OK
    assert s.map(UVM_BASE, size, r.client, h) == rm.OK
    assert r.free(h) == rm.OK


def test_memory_uvm_maps_stays_charged_until_uvm_lets_it_go() -> None:
    """UVM_MAP_EXTERNAL_ALLOCATION has UVM duplicate the memory: allocating, mapping and freeing
    the handle must not free the charge, or the limit would not hold."""
    with uvm_space("uvm1") as (r, sub, s):
        map_and_free_handle(r, sub, s, 4 * MIB)
        assert current("uvm1") == 4 * MIB  # UVM's duplicate holds it
        status, b, _ = r.vidmem(sub, 4 * MIB)
        assert status == rm.OK
        assert r.vidmem(sub, MIB)[0] == rm.NO_MEMORY  # the limit holds
        assert r.free(b) == rm.OK
        assert s.unmap(UVM_BASE + MIB, MIB) == rm.OK  # a hole: two parts, one charge
        assert current("uvm1") == 4 * MIB
        assert s.unmap(UVM_BASE, MIB) == rm.OK
        assert s.unmap(UVM_BASE + 2 * MIB, 2 * MIB) == rm.OK
        assert current("uvm1") == 0


@pytest.mark.parametrize("how", ["free range", "unregister vaspace", "close", "kill"])
def test_uvm_letting_go_uncharges(seal_mode: str, how: str) -> None:
    if how == "kill":
        with instance("uvmk", opts="mem=8M") as d:

            def hold() -> None:
                r = Rm(dev=d)
                dev, sub = r.device()
                map_and_free_handle(r, sub, rm.UvmSpace(r, dev, f"{d}/nvidia-uvm"), 4 * MIB)

            with child_holding(hold):
                assert current("uvmk") == 4 * MIB
                assert mapped_bytes("uvmk") == 4 * MIB
            assert wait_current("uvmk", 0) == 0
            wait_count("uvmk", "mapped_current", 0)
        return
    with uvm_space("uvm2") as (r, sub, s):
        map_and_free_handle(r, sub, s, 4 * MIB)
        assert current("uvm2") == 4 * MIB
        assert mapped_bytes("uvm2") == 4 * MIB  # two 2 MiB regions, against mapped_max
        if how == "free range":
            assert rm.uvm_free(s.fd, UVM_BASE, 4 * MIB) == rm.OK
        elif how == "unregister vaspace":
            buf = bytearray(s.uuid + bytes(4))
            assert rm.uvm_ioctl(s.fd, rm.UVM_UNREGISTER_GPU_VASPACE, buf) == rm.OK
        else:
            s.close()
            s.fd = os.open("/dev/null", os.O_RDONLY)  # for the context's close
        assert wait_current("uvm2", 0) == 0
        wait_count("uvm2", "mapped_current", 0)


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize("version", ["580.95.05", "595.45.04"])
def test_uvm_free_in_each_layout_lets_go(version: str) -> None:
    """UVM_FREE names the range's base and length through 580 (24 B) and the base alone from 590
    (16 B): qgpu forwards, seals and follows the layout of the driver it runs on, so a tenant's
    free works and what the range held goes."""
    if version != rm.param("abi_version"):
        reload_modules(f"abi_version={version}")
    with uvm_space("uvmf") as (r, sub, s):
        map_and_free_handle(r, sub, s, 4 * MIB)
        assert (current("uvmf"), mapped_bytes("uvmf")) == (4 * MIB, 4 * MIB)
        buf = rm.uvm_free_params(UVM_BASE, 4 * MIB)
        want = rm.uvm_free_params(UVM_BASE, 4 * MIB)
        struct.pack_into("<I", want, len(want) - 8, rm.OK)
        assert rm.uvm_ioctl(s.fd, rm.UVM_FREE, buf) == rm.OK
        assert buf == want  # the status where the tenant's layout has it, and nothing else
        assert (current("uvmf"), mapped_bytes("uvmf")) == (0, 0)
        assert rm.uvm_free(s.fd, UVM_BASE, 4 * MIB) == rm.INVALID_ADDRESS  # gone


def test_uvm_refuses_another_instances_client() -> None:
    with uvm_space("uvm3") as (r, sub, s), instance("uvm4", opts="mem=8M") as d4:
        o = Rm(dev=d4)
        try:
            _, osub = o.device()
            status, h, _ = o.vidmem(osub, MIB)
            assert status == rm.OK
            assert rm.uvm_create_range(s.fd, UVM_BASE, MIB) == rm.OK
            assert s.map(UVM_BASE, MIB, o.client, h) == rm.INVALID_CLIENT
        finally:
            o.close()


def test_uvm_device_p2p_is_refused_as_without_p2pdma() -> None:
    """UVM_ALLOC_DEVICE_P2P duplicates memory as a mapping does; qgpu answers what UVM answers
    on a GPU without P2PDMA, even where the GPU has it (nvsim's p2pdma knob)."""
    with uvm_space("uvmp") as (r, sub, s), rm.nvsim_p2pdma(True):
        status, h, _ = r.vidmem(sub, 4 * MIB)
        assert status == rm.OK
        status = rm.uvm_alloc_device_p2p(s.fd, UVM_BASE, 4 * MIB, 0, s.uuid, r.client, h)
        assert status == rm.NOT_SUPPORTED
        assert r.free(h) == rm.OK
        assert current("uvmp") == 0
        status, h, _ = r.vidmem(sub, 8 * MIB)  # all of it: nothing else holds any
        assert status == rm.OK


def test_uvm_holds_follow_random_maps_unmaps_and_frees(seal_mode: str) -> None:
    """Property test: random allocations, external ranges, mappings (sparse ones too), partial
    unmaps, range frees, handle frees and dynamic-parallelism regions in one VA space. At every
    step mem_current equals what a model of UVM says is held: each allocation whose handle lives or
    that some part of a mapping still maps; and mapped_current the 2 MiB regions each piece of a
    mapping touches, and the regions' pages."""
    rnd = random.Random(5)
    slot = 2 * MIB
    with uvm_space("uvmprop", limit="mem=64M") as (r, sub, s):
        sizes: dict[int, int] = {}  # allocation id -> bytes charged
        handles: dict[int, int] = {}  # live handle -> allocation id
        ranges: dict[int, list[tuple[int, int, int]]] = {}  # base -> [(start, last, alloc id)]
        dps: set[int] = set()  # dynamic-parallelism regions, one 2 MiB page each
        sparse = -1  # the alloc id of a sparse mapping: no memory
        next_id = 0

        def held() -> int:
            alive = set(handles.values())
            alive |= {a for frags in ranges.values() for _, _, a in frags if a != sparse}
            return sum(sizes[a] for a in alive)

        def regions() -> int:
            """What the mappings count against mapped_max: the 2 MiB regions each piece touches."""
            return len(dps) + sum(
                (last >> 21) - (start >> 21) + 1
                for frags in ranges.values()
                for start, last, _ in frags
            )

        def unmap(base: int, start: int, last: int) -> None:
            kept = []
            for fs, fl, a in ranges[base]:
                if fl < start or fs > last:
                    kept.append((fs, fl, a))
                    continue
                if fs < start:
                    kept.append((fs, start - 1, a))
                if fl > last:
                    kept.append((last + 1, fl, a))
            ranges[base] = kept

        for step in range(300):
            op = rnd.choice(
                ["alloc", "range", "map", "map", "sparse", "unmap", "free range", "free", "dp"]
            )
            if op == "alloc" and held() + slot <= 48 * MIB:
                before = current("uvmprop")
                status, h, _ = r.vidmem(sub, rnd.choice([1, 2, 4]) * 256 * 1024)
                assert status == rm.OK
                sizes[next_id] = current("uvmprop") - before
                handles[h] = next_id
                next_id += 1
            elif op == "range":
                base = UVM_BASE + rnd.randrange(8) * slot
                status = rm.uvm_create_range(s.fd, base, slot)
                assert status == (rm.UVM_ADDRESS_IN_USE if base in ranges else rm.OK)
                ranges.setdefault(base, [])
            elif op == "map" and ranges and handles:
                base = rnd.choice(sorted(ranges))
                h = rnd.choice(sorted(handles))
                length = rnd.choice([64, 128, 256]) * 1024
                start = base + rnd.randrange(0, slot - length + 1, 64 * 1024)
                assert s.map(start, length, r.client, h) == rm.OK, step
                unmap(base, start, start + length - 1)
                ranges[base].append((start, start + length - 1, handles[h]))
            elif op == "sparse" and ranges:
                base = rnd.choice(sorted(ranges))
                length = rnd.choice([64, 128, 256]) * 1024
                start = base + rnd.randrange(0, slot - length + 1, 64 * 1024)
                assert rm.uvm_map_sparse(s.fd, start, length, s.uuid) == rm.OK, step
                unmap(base, start, start + length - 1)
                ranges[base].append((start, start + length - 1, sparse))
            elif op == "dp":
                base = UVM_BASE + (16 + rnd.randrange(4)) * slot
                if base in dps:
                    assert rm.uvm_free(s.fd, base, slot) == rm.OK
                    dps.remove(base)
                else:
                    assert rm.uvm_map_dp_region(s.fd, base, slot, s.uuid) == rm.OK
                    dps.add(base)
            elif op == "unmap" and ranges:
                base = rnd.choice(sorted(ranges))
                length = rnd.choice([64, 192, 512]) * 1024
                start = base + rnd.randrange(0, slot - length + 1, 64 * 1024)
                assert s.unmap(start, length) == rm.OK
                unmap(base, start, start + length - 1)
            elif op == "free range" and ranges:
                base = rnd.choice(sorted(ranges))
                assert rm.uvm_free(s.fd, base, slot) == rm.OK
                del ranges[base]
            elif op == "free" and handles:
                h = rnd.choice(sorted(handles))
                assert r.free(h) == rm.OK
                del handles[h]
            assert current("uvmprop") == held(), (step, op)
            assert mapped_bytes("uvmprop") == regions() * slot, (step, op)
        s.close()  # UVM lets go of every mapping: the live handles' charges are what is left
        s.fd = os.open("/dev/null", os.O_RDONLY)  # for the context's close
        ranges.clear()
        dps.clear()
        assert wait_current("uvmprop", held()) == held()
        wait_count("uvmprop", "mapped_current", 0)
        for h in handles:
            assert r.free(h) == rm.OK
        assert current("uvmprop") == 0
