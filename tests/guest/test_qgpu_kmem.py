"""What qgpu keeps for a tenant is charged to the tenant's memory cgroup (GFP_KERNEL_ACCOUNT,
kmod/qgpu_internal.h): every allocation a tenant makes leaves a mirror node and a charge in
qgpu, and the tenant's cgroup, not the host, pays for them."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import rm
from qgpu_sysfs import instance
from rm import Rm

CGROUP = Path("/sys/fs/cgroup")
ALLOCS = 10_000
# qgpu's record of one allocation (its mirror node and charge, struct qgpu_mem_made) is more
# than 100 bytes; nvsim's own, like the real driver's, is charged to no cgroup.
RECORD_BYTES = 100


@contextmanager
def memory_cgroup(name: str) -> Iterator[Path]:
    if not (CGROUP / "cgroup.controllers").exists():
        CGROUP.mkdir(parents=True, exist_ok=True)
        assert os.system(f"mount -t cgroup2 none {CGROUP}") == 0
    assert "memory" in (CGROUP / "cgroup.controllers").read_text().split()
    (CGROUP / "cgroup.subtree_control").write_text("+memory")
    cg = CGROUP / name
    cg.mkdir()
    try:
        yield cg
    finally:
        cg.rmdir()


def slab_bytes(cg: Path) -> int:
    for line in (cg / "memory.stat").read_text().splitlines():
        key, value = line.split()
        if key == "slab":
            return int(value)
    raise AssertionError("no slab in memory.stat")


def test_what_qgpu_keeps_for_a_tenant_is_charged_to_its_memory_cgroup() -> None:
    with memory_cgroup("qgpukmem") as cg, instance("kmem", opts="mem=1G") as d:
        ready_r, ready_w = os.pipe()
        go_r, go_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.read(go_r, 1)  # in the cgroup now
                t = Rm(dev=d)
                dev, _ = t.device()
                os.write(ready_w, b"a")
                os.read(go_r, 1)
                for _ in range(ALLOCS):
                    if t.vidmem(dev, 4096)[0] != rm.OK:
                        os._exit(2)
                os.write(ready_w, b"b")
                signal.pause()
            finally:
                os._exit(1)
        try:
            (cg / "cgroup.procs").write_text(str(pid))
            os.write(go_w, b"x")
            assert os.read(ready_r, 1) == b"a"
            before = slab_bytes(cg)
            os.write(go_w, b"x")
            assert os.read(ready_r, 1) == b"b"
            # memory.stat is flushed from per-CPU counts at least every 2 s
            deadline = time.monotonic() + 10
            grown = slab_bytes(cg) - before
            while grown < ALLOCS * RECORD_BYTES and time.monotonic() < deadline:
                time.sleep(0.5)
                grown = slab_bytes(cg) - before
            assert grown >= ALLOCS * RECORD_BYTES, (before, grown)
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            for fd in (ready_r, ready_w, go_r, go_w):
                os.close(fd)
