"""The real qgpuctl CLI against the real modules: the imperative commands and CDI.

create -> nodes appear -> nvsim-load through them -> limits observed -> set live -> delete.
Knobs the module does not have yet (docs/kernel-interface.md, "What exists today")
must be refused cleanly with nothing changed; once they arrive the same tests
check that the change was applied instead, so they hold on either side.
"""

from __future__ import annotations

import errno
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from kernel import PROJECT
from qgpu_sysfs import DEV, NODES, SYS, create, gpu_dir, inst_dir, read, remove, uvm_mmap_errno
from qgpuctl_cli import NVSIM_LOAD, one_line_error, qgpuctl, qgpuctl_many, snapshot, tree_env

from qgpuctl.core.cdi import CDI_VERSION, validate_spec
from qgpuctl.errors import EXIT_KERNEL, EXIT_USAGE

GIB = 1 << 30


@pytest.fixture(autouse=True)
def clean_gpu() -> Iterator[None]:
    yield
    for inst in (gpu_dir() / "instances").iterdir():
        remove(inst.name, force=True)


def test_the_cli_under_test_is_this_trees() -> None:
    r = subprocess.run(
        [str(PROJECT / ".venv/bin/python"), "-c", "import qgpuctl; print(qgpuctl.__file__)"],
        capture_output=True,
        text=True,
        env=tree_env(),
        check=True,
    )
    assert Path(r.stdout.strip()) == PROJECT / "qgpuctl" / "__init__.py"


def test_gpus_reads_the_real_gpu() -> None:
    r = qgpuctl("gpus", "-o", "json")
    assert r.rc == 0, r
    gpus = r.json()
    assert [g["index"] for g in gpus] == list(range(len(list(SYS.glob("gpu[0-9]*")))))
    gpu = gpus[0]
    assert gpu["minor"] == 0
    assert gpu["name"] == rm.param("gpu_name")
    assert gpu["uuid"] == rm.param("gpu_uuid")
    assert gpu["memory"] == int(rm.param("fb_mib")) << 20
    assert gpu["driver"] == rm.param("abi_version")
    assert gpu["driver_supported"] is True
    assert gpu["identity"] == "sysfs"  # no NVML in the guest
    assert gpu["available_instances"] == int(read(gpu_dir() / "available_instances"))
    assert gpu["free_mem"] == gpu["memory"] and gpu["free_core"] == 100
    # What this module does not publish yet is null, never an error.
    for knob in ("policy", "overcommit"):
        if not (gpu_dir() / knob).exists():
            assert gpu[knob] is None


def test_instance_lifecycle_through_the_cli() -> None:
    r = qgpuctl("create", "cli-a", "--mem", "1G", "--core", "30", "--class", "offline")
    assert r.rc == 0, r
    assert r.stdout.startswith("created cli-a on GPU 0: mem 1G, core 30%, class offline")
    d = inst_dir("cli-a")
    assert (read(d / "mem_max"), read(d / "core"), read(d / "class")) == (
        str(GIB),
        "30",
        "offline",
    )
    for node in NODES:
        assert (DEV / "cli-a" / node).is_char_device()

    # A libcuda-style client through the instance's nodes sees the GPU.
    info = subprocess.run(
        [str(NVSIM_LOAD), "--dev", str(DEV / "cli-a"), "info", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert info.returncode == 0, info.stderr
    facts = json.loads(info.stdout)
    assert facts["uuid"] == rm.param("gpu_uuid")
    gpu_memory = int(rm.param("fb_mib")) << 20
    enforced = (d / "mem_current").exists()  # arrives with the memory-limit work
    # Limits observed: with enforcement the instance sees its limit as the GPU's size and
    # cannot allocate past it; without it (today) the limit is recorded but not applied.
    assert facts["fb_total_bytes"] == (GIB if enforced else gpu_memory)
    over = subprocess.run(
        [str(NVSIM_LOAD), "--dev", str(DEV / "cli-a"), "alloc", "768M", "--count", "2", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    result = json.loads(over.stdout)
    if enforced:
        assert over.returncode == 1 and result["succeeded"] == 1, over.stdout
    else:
        assert over.returncode == 0 and result["succeeded"] == 2, over.stdout

    # A process holding the nodes: list/show/status show it.
    with subprocess.Popen(
        [str(NVSIM_LOAD), "--dev", str(DEV / "cli-a"), "alloc", "1M", "--hold", "600"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as holder:
        try:
            _lifecycle_with_a_holder(holder, d)
        finally:
            holder.kill()


def _lifecycle_with_a_holder(holder: subprocess.Popen[str], d: Path) -> None:
    """list/show/status with a process in the instance, set, and delete (refused, then forced)."""
    assert holder.stdout is not None
    assert "NV_OK" in holder.stdout.readline()  # allocated: its nodes are open
    assert read(d / "processes") == f"{holder.pid} nvsim-load"

    # Read-only commands, run at once (each CLI start costs seconds in the VM).
    listing, shown, r = qgpuctl_many(
        [("list", "-o", "json"), ("show", "cli-a"), ("status", "-o", "json")]
    )
    assert listing.rc == 0, listing
    (listed,) = listing.json()
    assert listed["name"] == "cli-a" and listed["gpu"] == 0
    assert (listed["mem"], listed["mem_max"], listed["core"], listed["class"]) == (
        "1G",
        GIB,
        30,
        "offline",
    )
    assert listed["processes"] == [{"pid": holder.pid, "comm": "nvsim-load"}]
    assert listed["devices"] == [str(DEV / "cli-a" / n) for n in NODES]
    assert listed["cdi"] == "qgpu.io/vgpu=cli-a"

    assert shown.rc == 0, shown
    assert f"{holder.pid} nvsim-load" in shown.stdout
    assert "1G" in shown.stdout and "30% guaranteed" in shown.stdout

    assert r.rc == 0, r
    status = r.json()
    assert status["gpus"][0]["instances"] == 1
    assert status["gpus"][0]["mem_committed"] == GIB
    assert status["gpus"][0]["core_guaranteed"] == 30
    (row,) = status["instances"]
    assert row["name"] == "cli-a" and row["mem_max"] == GIB and row["share_target"] == 30
    assert row["processes"] == [{"pid": holder.pid, "comm": "nvsim-load"}]

    # set: applied where the module has the knob writable, else one clean refusal.
    before = snapshot()
    r = qgpuctl("set", "cli-a", "--mem", "2G", "-o", "json")
    if r.rc == 0:
        assert r.json()["mem_max"] == 2 * GIB
        assert read(d / "mem_max") == str(2 * GIB)
    else:
        assert r.rc == EXIT_KERNEL, r
        line = one_line_error(r)
        assert "mem_max" in line and "nothing was changed" in line
        assert snapshot() == before
        assert read(d / "mem_max") == str(GIB)
    before = snapshot()
    r = qgpuctl("set", "cli-a", "--core", "40", "--class", "online", "-o", "json")
    if r.rc == 0:
        assert (r.json()["core"], r.json()["class"]) == (40, "online")
        assert (read(d / "core"), read(d / "class")) == ("40", "online")
    else:
        assert r.rc == EXIT_KERNEL, r
        assert "nothing was changed" in one_line_error(r)
        assert snapshot() == before

    # delete is refused while a process holds the nodes; --force detaches it.
    r = qgpuctl("delete", "cli-a")
    assert r.rc == EXIT_KERNEL, r
    line = one_line_error(r)
    assert "EBUSY" in line and "--force" in line
    assert d.is_dir()
    r = qgpuctl("delete", "cli-a", "--force", "-o", "json")
    assert r.rc == 0, r
    assert r.json() == {"deleted": "cli-a", "gpu": 0, "forced": True}
    assert not d.exists()
    assert not (DEV / "cli-a").exists()


def test_cli_refusals_change_nothing() -> None:
    create("cli-b mem=2G core=50")
    before = snapshot()
    # (Each start of the CLI costs seconds in the VM: a few cases here, the rest on the host.)
    results = qgpuctl_many(
        [
            ("create", "cli-b", "--mem", "1G", "--core", "10"),  # the name is taken
            ("create", "cli-c", "--mem", "64G", "--core", "10"),  # does not fit
        ]
    )
    for r in results:
        assert r.rc == EXIT_USAGE, r
        one_line_error(r)
    assert snapshot() == before


def test_managed_through_the_cli_decides_a_uvm_mmap() -> None:
    r = qgpuctl(
        "create", "mgd-a", "--mem", "64M", "--core", "10", "--managed", "refuse", "-o", "json"
    )
    assert r.rc == 0, r
    assert r.json()["managed"] == "refuse"
    d, nodes = inst_dir("mgd-a"), str(DEV / "mgd-a")
    assert read(d / "managed") == "refuse"
    # How UVM creates managed memory, refused by qgpu: the memory limit is hard.
    assert uvm_mmap_errno(nodes) == errno.EPERM

    r = qgpuctl("set", "mgd-a", "--managed", "allow", "-o", "json")
    assert r.rc == 0, r
    assert r.json()["managed"] == "allow" and read(d / "managed") == "allow"
    # Now the mmap reaches the driver; nvsim does not simulate managed memory and says EBADFD.
    assert uvm_mmap_errno(nodes) == errno.EBADFD

    before = snapshot()
    r = qgpuctl("set", "mgd-a", "--managed", "deny")
    assert r.rc == EXIT_USAGE, r
    assert "--managed" in one_line_error(r)
    assert snapshot() == before


def test_cdi_spec_of_the_real_instances() -> None:
    create("cdi-a mem=1G core=10")
    create("cdi-b mem=1G core=10")
    r = qgpuctl("cdi", "generate", "-o", "json")
    assert r.rc == 0, r
    spec = r.json()
    validate_spec(spec)
    assert spec["cdiVersion"] == CDI_VERSION and spec["kind"] == "qgpu.io/vgpu"
    assert [d["name"] for d in spec["devices"]] == ["cdi-a", "cdi-b"]
    for device in spec["devices"]:
        nodes = device["containerEdits"]["deviceNodes"]
        assert [n["path"] for n in nodes] == ["/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"]
        for n in nodes:
            assert Path(n["hostPath"]).is_char_device(), n
            assert n["hostPath"].startswith(f"/dev/qgpu/{device['name']}/")


@pytest.fixture
def overcommit() -> Iterator[None]:
    """A "max" limit counts as the whole GPU: two instances with one only fit with overcommit."""
    knob = SYS / "gpu0" / "overcommit"
    knob.write_text("1\n")
    yield
    for name in ("st-a", "st-b"):
        if inst_dir(name).exists():
            remove(name, force=True)
    knob.write_text("0\n")


@pytest.mark.usefixtures("overcommit")
def test_status_json_is_consistent_with_sysfs() -> None:
    create("st-a mem=1G core=20")
    create("st-b mem=max core=10 class=offline")
    t0 = time.monotonic()
    r = qgpuctl("status", "-o", "json")
    assert r.rc == 0, r
    assert time.monotonic() - t0 < 120
    data = r.json()
    by_name = {i["name"]: i for i in data["instances"]}
    assert by_name["st-a"]["mem_max"] == GIB and by_name["st-a"]["class"] == "online"
    assert by_name["st-b"]["mem_max"] is None and by_name["st-b"]["class"] == "offline"
    memory = int(read(SYS / "gpu0" / "memory"))
    assert data["gpus"][0]["mem_committed"] == GIB + memory  # max counts as the whole GPU
