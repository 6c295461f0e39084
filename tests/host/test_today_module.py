"""qgpuctl on a module that has only part of the interface (qgpu.ko before issues 5 and 6).

docs/kernel-interface.md, "What exists today" as it was: no GPU ``policy``/``timeslice_us``/
``overcommit`` and no ``create_keys``, no instance ``managed`` or ``dmabuf``, and an instance's
``mem_max``/``core``/``class`` are published read-only (0444). The emulation is trimmed to that
shape; qgpuctl must refuse anything that writes a missing or read-only knob before it writes
anything. Such a module forwards every dma-buf export: it is what ``dmabuf: allow`` asks for,
and a file or command that wants the default ``refuse`` is refused before anything changes.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GIB, Host, policy_text
from fake_kernel import fs_snapshot

from qgpuctl.backends import schema as k
from qgpuctl.backends.qgpufs import QgpuControl
from qgpuctl.core.plan import InstanceConfig
from qgpuctl.errors import EXIT_ASSERT_FAILED, EXIT_KERNEL, EXIT_OK, EXIT_USAGE

MISSING_GPU_ATTRS = (
    k.GPU_POLICY,
    k.GPU_TIMESLICE,
    k.GPU_OVERCOMMIT,
    k.GPU_UTILIZATION,
    k.GPU_CREATE_KEYS,  # its create takes mem, core and class
)
MISSING_INSTANCE_KNOBS = (k.INST_MANAGED, k.INST_DMABUF)


def as_today(host: Host) -> None:
    """Remove the knobs today's module lacks; make the instance knobs it shows read-only."""
    host.kernel.instance_lacks.update(MISSING_INSTANCE_KNOBS)
    for gpu in (host.kernel.root / k.CLASS_DIR).iterdir():
        for attr in MISSING_GPU_ATTRS:
            (gpu / attr).unlink()
        for inst in (gpu / k.GPU_INSTANCES).iterdir():
            for attr in k.INST_SETTABLE:
                if attr in MISSING_INSTANCE_KNOBS:
                    (inst / attr).unlink()
                else:
                    (inst / attr).chmod(0o444)


@pytest.fixture
def today(host: Host) -> Host:
    QgpuControl(host.kernel).create(0, "infer-a", InstanceConfig(4 * GIB, 30, "online"))
    as_today(host)
    host.kernel.writes.clear()
    return host


def snapshot(host: Host) -> dict[str, str]:
    return fs_snapshot(host.kernel.root)


def test_set_of_a_read_only_knob_is_one_clear_line_and_changes_nothing(today: Host) -> None:
    before = snapshot(today)
    r = today.invoke("set", "infer-a", "--mem", "8G")
    assert r.exit_code == EXIT_KERNEL
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "mem_max" in lines[0] and "cannot change it on a running instance" in lines[0]
    assert "memory limits" in lines[0] and "nothing was changed" in lines[0]
    assert snapshot(today) == before
    assert today.kernel.writes == []


def test_set_refuses_all_when_one_knob_is_read_only(today: Host) -> None:
    inst = today.kernel.root / k.instance_dir(0, "infer-a")
    (inst / k.INST_CLASS).chmod(0o644)  # class writable, core not: nothing may be written
    r = today.invoke("set", "infer-a", "--class", "offline", "--core", "50")
    assert r.exit_code == EXIT_KERNEL
    assert "core" in r.stderr
    assert today.kernel.writes == []


def test_policy_set_without_the_knob(today: Host) -> None:
    r = today.invoke("policy", "set", "0", "fixed-share")
    assert r.exit_code == EXIT_KERNEL
    assert "no writable knob" in r.stderr and "compute scheduling" in r.stderr
    assert today.kernel.writes == []


def test_apply_of_a_missing_gpu_knob_fails_before_any_write(today: Host) -> None:
    policy = """\
version: v1
gpus:
  - selector: {index: 0}
    policy: fixed-share
    instances:
      - {name: infer-a, mem: 4G, core: 30, dmabuf: allow}
      - {name: new-one, mem: 1G, core: 10, dmabuf: allow}
"""
    before = snapshot(today)
    r = today.invoke("apply", "-f", "-", input=policy)
    assert r.exit_code == EXIT_USAGE
    assert "gpus[0].policy" in r.stderr and "no writable 'policy' knob" in r.stderr
    assert snapshot(today) == before
    assert today.kernel.writes == []
    dry = today.invoke("apply", "-f", "-", "--dry-run", input=policy)
    assert dry.exit_code == EXIT_USAGE


def test_apply_of_a_read_only_instance_knob_fails_before_any_write(today: Host) -> None:
    policy = """\
version: v1
gpus:
  - selector: {index: 0}
    instances:
      - {name: new-one, mem: 1G, core: 10, dmabuf: allow}
      - {name: infer-a, mem: 8G, core: 30, dmabuf: allow}
"""
    before = snapshot(today)
    r = today.invoke("apply", "-f", "-", input=policy)
    assert r.exit_code == EXIT_USAGE
    assert "gpus[0].instances[1].mem" in r.stderr
    assert "delete infer-a" in r.stderr
    assert snapshot(today) == before
    # assert still reports the difference as a difference, not as a bad file
    assert today.invoke("assert", "-f", "-", input=policy).exit_code == EXIT_ASSERT_FAILED


def test_export_apply_assert_round_trip(today: Host, tmp_path: Path) -> None:
    exported = today.invoke("export")
    assert exported.exit_code == EXIT_OK
    assert "policy:" not in exported.stdout and "overcommit" not in exported.stdout
    assert "unknown_escapes: refuse" in exported.stdout
    # what a module without the knobs does: it never refuses managed memory or dma-bufs
    assert "managed: allow, dmabuf: allow}" in exported.stdout
    r = today.invoke("apply", "-f", "-", input=exported.stdout)
    assert r.exit_code == EXIT_OK and "nothing to do" in r.stdout
    assert today.invoke("assert", "-f", "-", input=exported.stdout).exit_code == EXIT_OK
    # unknown_escapes is writable today: a file that changes it applies
    changed = exported.stdout.replace("unknown_escapes: refuse", "unknown_escapes: allow")
    assert today.invoke("apply", "-f", "-", input=changed).exit_code == EXIT_OK
    assert today.invoke("assert", "-f", "-", input=exported.stdout).exit_code == 1


def test_show_and_json_list_absent_knobs_as_null(today: Host) -> None:
    r = today.invoke("-o", "json", "gpus")
    gpu = json.loads(r.stdout)[0]
    assert gpu["policy"] is None and gpu["overcommit"] is None
    (inst,) = json.loads(today.invoke("-o", "json", "list").stdout)
    assert inst["managed"] is None and inst["dmabuf"] is None
    shown = today.invoke("show", "infer-a").stdout
    assert "managed:      -" in shown and "dmabuf:       -" in shown
    r = today.invoke("policy", "show")
    assert r.exit_code == EXIT_OK


def test_doctor_warns_that_a_module_without_the_dmabuf_knob_forwards_exports(
    today: Host,
) -> None:
    rows = json.loads(today.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "dma-buf exports refused")
    assert row["status"] == "warn"
    assert "no dmabuf knob" in row["detail"] and "infer-a" in row["detail"]


def test_doctor_finds_rules_in_run(host: Host) -> None:
    rules = host.files / "run/udev/rules.d" / k.UDEV_RULES_NAME
    rules.parent.mkdir(parents=True)
    rules.write_text("# rules\n")
    r = host.invoke("-o", "json", "doctor")
    checks = {c["check"]: c for c in json.loads(r.stdout)}
    assert checks["udev rules installed"]["status"] == "ok"
    assert checks["udev rules installed"]["detail"] == str(rules)


@pytest.mark.parametrize("attr", ["managed", "dmabuf"])
def test_set_of_a_knob_the_module_lacks(today: Host, attr: str) -> None:
    before = snapshot(today)
    r = today.invoke("set", "infer-a", f"--{attr}", "refuse")
    assert r.exit_code == EXIT_KERNEL
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"infer-a/{attr}: writing 'refuse'" in lines[0] and "does not have it" in lines[0]
    assert "memory limits" in lines[0] and "nothing was changed" in lines[0]
    assert snapshot(today) == before and today.kernel.writes == []


def test_apply_of_managed_refuse_without_the_knob_fails_before_any_write(today: Host) -> None:
    running = """\
version: v1
gpus:
  - selector: {index: 0}
    instances:
      - {name: infer-a, mem: 4G, core: 30, managed: refuse, dmabuf: allow}
"""
    new = """\
version: v1
gpus:
  - selector: {index: 0}
    instances:
      - {name: infer-a, mem: 4G, core: 30, dmabuf: allow}
      - {name: new-one, mem: 1G, core: 10, managed: refuse, dmabuf: allow}
"""
    before = snapshot(today)
    for text, field in (
        (running, "gpus[0].instances[0].managed"),
        (new, "gpus[0].instances[1].managed"),
    ):
        r = today.invoke("apply", "-f", "-", input=text)
        assert r.exit_code == EXIT_USAGE, r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and field in lines[0], r.stderr
        assert "'managed' knob" in lines[0] and "memory limits" in lines[0]
    assert snapshot(today) == before and today.kernel.writes == []
    # Without the key (allow) the file matches: such a module never refuses managed memory.
    plain = new.replace(", managed: refuse", "")
    assert today.invoke("apply", "-f", "-", input=plain).exit_code == EXIT_OK


def test_create_managed_refuse_without_the_knob(today: Host) -> None:
    # With an instance to judge from: refused before anything is written.
    r = today.invoke("create", "b", "--mem", "1G", "--core", "5", "--managed", "refuse")
    assert r.exit_code == EXIT_KERNEL
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "nothing was created" in lines[0], r.stderr
    assert today.kernel.writes == []
    # With none: the write after create is the test, and the instance is removed again.
    # (--dmabuf allow: the module forwards dma-bufs, and refuse would be refused first.)
    assert today.invoke("delete", "infer-a").exit_code == EXIT_OK
    today.kernel.writes.clear()
    before = snapshot(today)
    r = today.invoke(
        "create", "b", "--mem", "1G", "--core", "5", "--managed", "refuse", "--dmabuf", "allow"
    )
    assert r.exit_code == EXIT_KERNEL
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "ENOENT" in lines[0] and "no managed knob" in lines[0]
    assert "b was removed again; nothing was changed" in lines[0]
    assert snapshot(today) == before
    assert not (today.dev / "qgpu" / "b").exists()


DMABUF_DEFAULT = policy_text("name: infer-a, mem: 4G, core: 30")
DMABUF_NEW = policy_text(
    "name: infer-a, mem: 4G, core: 30, dmabuf: allow", "name: new-one, mem: 1G, core: 10"
)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        (DMABUF_DEFAULT, "gpus[0].instances[0].dmabuf"),
        (DMABUF_NEW, "gpus[0].instances[1].dmabuf"),
    ],
)
def test_a_file_wanting_dmabuf_refuse_is_refused_before_any_write(
    today: Host, text: str, field: str
) -> None:
    # The default is refuse: a file without the key asks for what this module cannot do.
    before = snapshot(today)
    for args in (("apply",), ("apply", "--dry-run")):
        r = today.invoke(*args, "-f", "-", input=text)
        assert r.exit_code == EXIT_USAGE, r.stdout
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"qgpuctl: error: {field}: "), r.stderr
        assert "no 'dmabuf' key" in lines[0] or "no 'dmabuf' knob" in lines[0]
        assert "cannot refuse dma-buf exports" in lines[0] and "memory limits" in lines[0]
        assert "write dmabuf: allow" in lines[0]
        assert "load a qgpu module that has the knob" in lines[0]
    assert snapshot(today) == before and today.kernel.writes == []
    # assert reports it as a difference, not as a bad file
    assert today.invoke("assert", "-f", "-", input=text).exit_code == EXIT_ASSERT_FAILED


def test_a_file_allowing_dmabuf_matches_and_creates(today: Host) -> None:
    matching = DMABUF_DEFAULT.replace("core: 30}", "core: 30, dmabuf: allow}")
    assert today.invoke("assert", "-f", "-", input=matching).exit_code == EXIT_OK
    r = today.invoke("apply", "-f", "-", input=matching)
    assert r.exit_code == EXIT_OK and "nothing to do" in r.stdout
    more = DMABUF_NEW.replace("core: 10}", "core: 10, dmabuf: allow}")
    r = today.invoke("apply", "-f", "-", input=more)
    assert r.exit_code == EXIT_OK, r.stderr
    # The create line has only what this module takes, and nothing is written after it.
    assert today.kernel.writes == [
        ("class/qgpu/gpu0/create", "new-one mem=1G core=10 class=online")
    ]
    assert today.invoke("assert", "-f", "-", input=more).exit_code == EXIT_OK


def test_create_without_dmabuf_allow_is_refused_before_any_write(today: Host) -> None:
    # Judged from create_keys, so refused with or without an instance to judge from.
    for delete_first in (False, True):
        if delete_first:
            assert today.invoke("delete", "infer-a").exit_code == EXIT_OK
            today.kernel.writes.clear()
        before = snapshot(today)
        r = today.invoke("create", "b", "--mem", "1G", "--core", "5")
        assert r.exit_code == EXIT_KERNEL
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert "instances/b/dmabuf: writing 'refuse'" in lines[0]
        assert "cannot refuse dma-buf exports" in lines[0] and "memory limits" in lines[0]
        assert "--dmabuf allow" in lines[0] and lines[0].endswith("nothing was created")
        assert snapshot(today) == before and today.kernel.writes == []
    r = today.invoke("-o", "json", "create", "b", "--mem", "1G", "--core", "5", "--dmabuf", "allow")
    assert r.exit_code == EXIT_OK, r.stderr
    assert json.loads(r.stdout)["dmabuf"] is None  # no knob: it forwards
    assert today.kernel.writes == [("class/qgpu/gpu0/create", "b mem=1G core=5 class=online")]
