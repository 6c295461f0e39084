"""apply / assert / export on the real sysfs: the round trip, and bad files changing nothing.

The policies here use only what the module has today (instances with mem/core/class at
creation and managed right after it, and the GPU's unknown_escapes); a file that asks for a
knob the module lacks or cannot change live must be refused before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from qgpu_sysfs import DEV, NODES, gpu_dir, inst_dir, read, remove, write
from qgpuctl_cli import one_line_error, qgpuctl, qgpuctl_many, snapshot

from qgpuctl.errors import EXIT_ASSERT_FAILED, EXIT_USAGE

GIB = 1 << 30

POLICY = """\
version: v1
gpus:
  - selector: {index: 0}
    unknown_escapes: refuse
    instances:
      - {name: pol-a, mem: 2G, core: 30, class: online}
      - {name: pol-b, mem: 4G, core: 20, class: offline, managed: refuse}
"""


@pytest.fixture(autouse=True)
def clean_gpu() -> Iterator[None]:
    yield
    for inst in (gpu_dir() / "instances").iterdir():
        remove(inst.name, force=True)
    write(gpu_dir() / "unknown_escapes", "allow")


def policy_file(tmp_path: Path, text: str, name: str = "policy.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_apply_assert_export_round_trip(tmp_path: Path) -> None:
    policy = policy_file(tmp_path, POLICY)
    r = qgpuctl("apply", "-f", policy)
    assert r.rc == 0, r
    assert "applied 3 changes" in r.stdout
    a, b = inst_dir("pol-a"), inst_dir("pol-b")
    assert [read(a / x) for x in ("mem_max", "core", "class")] == [str(2 * GIB), "30", "online"]
    assert [read(b / x) for x in ("mem_max", "core", "class")] == [str(4 * GIB), "20", "offline"]
    assert (read(a / "managed"), read(b / "managed")) == ("allow", "refuse")
    assert read(gpu_dir() / "unknown_escapes") == "refuse"
    for name in ("pol-a", "pol-b"):
        assert all((DEV / name / n).is_char_device() for n in NODES)

    # assert matches; export (read at the same time) applies as a no-op.
    asserted, r = qgpuctl_many([("assert", "-f", policy), ("export",)])
    assert asserted.rc == 0, asserted
    assert r.rc == 0, r
    exported = policy_file(tmp_path, r.stdout, "exported.yaml")
    assert "pol-a" in r.stdout and "unknown_escapes: refuse" in r.stdout
    assert "{name: pol-b, mem: 4G, core: 20, class: offline, managed: refuse, dmabuf: refuse}" in (
        r.stdout
    )
    before = snapshot()
    r = qgpuctl("apply", "-f", exported)
    assert r.rc == 0, r
    assert "nothing to do" in r.stdout
    assert snapshot() == before

    # A change behind qgpuctl's back: assert exits 1 and names it; apply converges again.
    write(gpu_dir() / "unknown_escapes", "allow")
    r = qgpuctl("assert", "-f", policy, "-o", "json")
    assert r.rc == EXIT_ASSERT_FAILED, r
    data = r.json()
    assert data["match"] is False
    assert [(x["action"], x["attribute"], x["to"]) for x in data["actions"]] == [
        ("set-gpu", "unknown_escapes", "refuse")
    ]
    r = qgpuctl("apply", "-f", policy)
    assert r.rc == 0, r
    assert read(gpu_dir() / "unknown_escapes") == "refuse"


BAD_FILES = {
    "unknown key": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    instances:\n"
        "      - {name: pol-x, mem: 1G, cores: 30}\n",
        "gpus[0].instances[0].cores: unknown key",
    ),
    "bad size": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    instances:\n"
        "      - {name: pol-x, mem: 1.5G, core: 30}\n",
        "gpus[0].instances[0].mem",
    ),
    "duplicate names": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    instances:\n"
        "      - {name: pol-x, mem: 1G, core: 30}\n"
        "      - {name: pol-x, mem: 1G, core: 30}\n",
        "gpus[0].instances[1].name",
    ),
    "core over 100 under fixed-share": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    policy: fixed-share\n    instances:\n"
        "      - {name: pol-x, mem: 1G, core: 60}\n"
        "      - {name: pol-y, mem: 1G, core: 50}\n",
        "add up to 110%",
    ),
    # A valid file the GPU cannot hold: refused before any write (the kernel would say ENOSPC).
    "limits over the GPU's memory without overcommit": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    instances:\n"
        "      - {name: pol-x, mem: 10G, core: 30}\n"
        "      - {name: pol-y, mem: 10G, core: 30}\n",
        "memory limits on GPU 0 add up to",
    ),
    # Valid files asking for what this module cannot do: refused before any write.
    "a GPU knob the module lacks": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    timeslice_us: 2048\n    instances:\n"
        "      - {name: pol-x, mem: 1G, core: 30}\n",
        "gpus[0].timeslice_us",
    ),
    "a live change of a read-only knob": (
        "version: v1\ngpus:\n  - selector: {index: 0}\n    instances:\n"
        "      - {name: pol-x, mem: 1G, core: 30}\n"
        "      - {name: pol-keep, mem: 3G, core: 10}\n",
        "gpus[0].instances[1].mem",
    ),
}


def test_bad_files_change_nothing(tmp_path: Path) -> None:
    # An instance the last file would have to change live (its mem_max is 1G).
    qgpuctl_made = qgpuctl("create", "pol-keep", "--mem", "1G", "--core", "10")
    assert qgpuctl_made.rc == 0, qgpuctl_made
    timeslice_writable = (gpu_dir() / "timeslice_us").exists()
    mem_writable = (inst_dir("pol-keep") / "mem_max").stat().st_mode & 0o222
    cases = dict(BAD_FILES)
    if timeslice_writable:  # the compute-scheduling work has landed: the file is fine now
        del cases["a GPU knob the module lacks"]
    if mem_writable:  # the memory-limit work has landed: mem_max changes live
        del cases["a live change of a read-only knob"]
    before = snapshot()
    # None of them may change anything, so they can run at once.
    results = qgpuctl_many(
        [
            ("apply", "-f", policy_file(tmp_path, text, f"bad-{n}.yaml"))
            for n, (text, _) in enumerate(cases.values())
        ]
    )
    for (case, (_, where)), r in zip(cases.items(), results, strict=True):
        assert r.rc == EXIT_USAGE, f"{case}: {r}"
        line = one_line_error(r)
        assert where in line, f"{case}: {line}"
    assert snapshot() == before
