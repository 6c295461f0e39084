"""qgpu's kernel RM client and its mirror of each tenant's RM objects.

The mirror is what lets later work (memory charges, channel-group duplicates) drop its state
exactly when RM frees objects: a subtree, a client, or everything of a real ctl file, which may
outlive the tenant's fd while a mapping holds it. /proc/qgpu/status counts the mirrored objects.
"""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import rm
from kernel import rmmod
from qgpu_sysfs import inst_dir, instance, instance_count, read
from rm import LibcMapping, Rm

MIB = 1 << 20


def status() -> str:
    return Path("/proc/qgpu/status").read_text()


def objects(name: str) -> int:
    return instance_count(name, "rm objects")


def wait_objects(name: str, n: int, seconds: float = 5) -> int:
    deadline = time.monotonic() + seconds
    while objects(name) != n and time.monotonic() < deadline:
        time.sleep(0.05)
    return objects(name)


def test_qgpu_has_its_own_rm_client_and_holds_the_backend() -> None:
    assert "rm_client: nvsim_get_rm_ops" in status()
    r = rmmod("nvsim")
    assert r.returncode != 0, "nvsim must stay while qgpu's kernel client uses it"


def test_the_mirror_follows_allocations_and_subtree_frees() -> None:
    with instance("trk") as d:
        r = Rm(dev=d)
        try:
            assert objects("trk") == 1  # the client
            dev, sub = r.device()
            status_, mem, _ = r.vidmem(sub, MIB)
            assert status_ == rm.OK
            assert objects("trk") == 4
            assert r.free(0xDEAD) == rm.OK  # RM has no such handle: NV_OK, nothing changes
            assert objects("trk") == 4
            assert r.free(dev) == rm.OK  # the device takes its subdevice and memory along
            assert objects("trk") == 1
            dev, _ = r.device()
            heap = r.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=MIB, attr=0)
            assert int.from_bytes(heap[20:24], "little") == rm.OK
            assert objects("trk") == 4
        finally:
            r.close()
        assert objects("trk") == 0


def test_the_mirror_lives_as_long_as_the_real_ctl_file() -> None:
    # A mapping through the owning ctl file keeps RM's clients after every fd is closed.
    with instance("zomb") as d:
        r = Rm(dev=d)
        dev, _ = r.device()
        status_, mem, _, _ = r.memory(rm.SYSMEM, dev, 64 * 1024, rm.ATTR_LOCATION_PCI)
        assert status_ == rm.OK
        assert r.map_memory(dev, mem, 0, 4096, r.ctl)[0] == rm.OK
        m = LibcMapping(r.ctl, 4096)
        held = objects("zomb")
        r.close()
        time.sleep(0.5)
        assert objects("zomb") == held, "RM still has the clients: so must the mirror"
        m.unmap()
        assert wait_objects("zomb", 0) == 0


def test_kill_9_leaves_no_mirrored_object() -> None:
    with instance("kill") as d:
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid == 0:
            r = Rm(dev=d)
            dev, _ = r.device()
            r.vidmem(dev, MIB)
            os.write(wfd, b"x")
            time.sleep(60)
            os._exit(0)
        assert os.read(rfd, 1) == b"x"
        assert objects("kill") == 4
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        assert wait_objects("kill", 0) == 0


def test_a_client_index_grown_and_shrunk_again_keeps_every_charge() -> None:
    """A client's nodes are in a hash table that resizes with it (64 buckets up to thousands and
    back): every handle stays findable across the resizes, by its own file's frees and by a
    duplicate made through another ctl file, which looks the source up without that file's lock."""
    n = 3000
    with instance("grow", opts="mem=1G") as d:
        r, r2 = Rm(dev=d), Rm(dev=d)
        current = inst_dir("grow") / "mem_current"
        try:
            dev, _ = r.device()
            dev2, _ = r2.device()
            base = objects("grow")
            handles = []
            for _ in range(n):
                status_, h, _ = r.vidmem(dev, 64 * 1024)
                assert status_ == rm.OK
                handles.append(h)
            each = int(read(current)) // n
            assert each > 0 and int(read(current)) == each * n
            assert objects("grow") == base + n
            source = handles[n // 2]
            status_, dup = r2.dup(dev2, r.client, source)
            assert status_ == rm.OK
            assert int(read(current)) == each * n  # found the source's charge: none added
            random.Random(10).shuffle(handles)
            held_by_dup = 0
            for i, h in enumerate(handles):
                assert r.free(h) == rm.OK
                held_by_dup |= h == source
                if i % 97 == 0:
                    assert int(read(current)) == each * (n - 1 - i + held_by_dup), i
            assert int(read(current)) == each  # the duplicate still holds its memory
            assert objects("grow") == base + 1
            assert r2.free(dup) == rm.OK
            assert int(read(current)) == 0
        finally:
            r2.close()
            r.close()
