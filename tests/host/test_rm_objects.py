"""The rm_objects_max knob through qgpuctl: create/set --rm-objects, show/json, the policy key
``rm_objects`` (plan, apply, export), and a module without the knob (kmod/qgpu_objects.c)."""

from __future__ import annotations

import json

import pytest
from conftest import GIB, Host, policy_text

from qgpuctl.backends.qgpufs import QgpuControl, create_line
from qgpuctl.core.plan import InstanceConfig, Phase, make_plan
from qgpuctl.core.policy import load_policy
from qgpuctl.core.state import read_state
from qgpuctl.core.units import parse_rm_objects
from qgpuctl.errors import EXIT_KERNEL, EXIT_USAGE, PolicyError

KNOB = "class/qgpu/gpu0/instances/a/rm_objects_max"


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_bounds_parse_as_the_module_takes_them() -> None:
    assert [parse_rm_objects(v) for v in ("max", "1", "4096", 16777216, "007")] == [
        "max",
        "1",
        "4096",
        "16777216",
        "7",
    ]
    for bad in ("0", 0, "16777217", "-1", "4k", "MAX", "", True, "1.5"):
        with pytest.raises(ValueError, match="expected a count 1..16777216 or 'max'"):
            parse_rm_objects(bad)  # type: ignore[arg-type]


def test_create_set_show(host: Host) -> None:
    r = host.invoke("create", "a", "--mem", "4G", "--core", "30", "--rm-objects", "4096")
    assert r.exit_code == 0, r.stderr
    assert "channels max, rm objects 4096, sysmem max, mapped max\n" in r.stdout
    assert host.kernel.writes == [
        ("class/qgpu/gpu0/create", "a mem=4G core=30 class=online rm_objects=4096")
    ]
    host.kernel.use("a", rm_objects=130)
    assert "rm objects:   130 of 4096" in host.invoke("show", "a").stdout
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["rm_objects_max"], data["rm_objects"]) == ("4096", 130)
    status = json.loads(host.invoke("status", "-o", "json").stdout)
    assert [(i["rm_objects"], i["rm_objects_max"]) for i in status["instances"]] == [(130, "4096")]
    r = host.invoke("set", "a", "--rm-objects", "max")
    assert r.exit_code == 0, r.stderr
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    # below what the instance's processes hold: the module refuses, and says why
    r = host.invoke("set", "a", "--rm-objects", "100")
    assert r.exit_code == EXIT_KERNEL
    assert "EBUSY" in one_line(r.stderr) and "hold more RM objects now" in one_line(r.stderr)
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    for bad in ("0", "lots", "16777217"):
        host.kernel.writes.clear()
        r = host.invoke("set", "a", "--rm-objects", bad)
        assert r.exit_code == EXIT_USAGE and "--rm-objects: expected a count" in r.stderr
        assert host.kernel.writes == []
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--rm-objects", "0")
    assert r.exit_code == EXIT_USAGE and read_state(host.kernel).find_instance("b") is None


def test_the_policy_key_is_planned_applied_and_exported(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "a", InstanceConfig(GIB, 10, "online", rm_objects="4096"))
    ctl.create(0, "b", InstanceConfig(GIB, 10, "online"))
    host.kernel.writes.clear()
    text = policy_text(
        "name: a, mem: 1G, core: 10, rm_objects: 2048",
        "name: b, mem: 1G, core: 10, rm_objects: 65536",
        "name: c, mem: 1G, core: 10, channels: 48, rm_objects: 1024",
    )
    plan = make_plan(load_policy(text), read_state(host.kernel))
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.DECREASE, "set rm_objects_max of a on GPU 0: 4096 -> 2048"),
        (Phase.DECREASE, "set rm_objects_max of b on GPU 0: max -> 65536"),
        (
            Phase.CREATE,
            "create c on GPU 0 (mem 1G, core 10%, class online, managed allow, dmabuf refuse, "
            "channels 48, rm objects 1024)",
        ),
    ]
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == 0, r.stderr
    line = "c mem=1G core=10 class=online channels=48 rm_objects=1024"
    assert ("class/qgpu/gpu0/create", line) in host.kernel.writes
    bounds = {i.name: i.rm_objects_max for _, i in read_state(host.kernel).instances}
    assert bounds == {"a": "2048", "b": "65536", "c": "1024"}
    assert host.invoke("assert", "-f", "-", input=text).exit_code == 0
    exported = host.invoke("export").stdout
    assert "rm_objects: 2048}" in exported and "channels: 48, rm_objects: 1024}" in exported
    assert make_plan(load_policy(exported), read_state(host.kernel), prune=True).empty
    # left out, the key is max: a bounded instance is set back, after the decreases
    plan = make_plan(
        load_policy(policy_text("name: a, mem: 1G, core: 10")), read_state(host.kernel)
    )
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.INCREASE, "set rm_objects_max of a on GPU 0: 2048 -> max")
    ]
    with pytest.raises(PolicyError) as info:
        load_policy(policy_text("name: a, mem: 1G, core: 10, rm_objects: 0"))
    assert info.value.path == "gpus[0].instances[0].rm_objects"


def test_a_module_without_the_knob(host: Host) -> None:
    """A module before rm_objects_max bounds nothing: max matches it, a bound is refused first."""
    host.kernel.set_create_keys(0, "mem core class managed dmabuf channels")
    QgpuControl(host.kernel).create(0, "a", InstanceConfig(GIB, 10, "online"))
    state = read_state(host.kernel)
    _, a = state.find_instance("a") or (None, None)
    assert a is not None and (a.rm_objects_max, a.rm_objects_bound) == (None, "max")
    assert make_plan(load_policy(policy_text("name: a, mem: 1G, core: 10")), state).empty
    host.kernel.writes.clear()
    r = host.invoke(
        "apply", "-f", "-", input=policy_text("name: a, mem: 1G, core: 10, rm_objects: 8")
    )
    assert r.exit_code == EXIT_USAGE
    assert "no 'rm_objects_max' knob on a" in one_line(r.stderr)
    text = policy_text("name: a, mem: 1G, core: 10", "name: b, mem: 1G, core: 10, rm_objects: 8")
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == EXIT_USAGE
    assert "cannot bound RM objects" in one_line(r.stderr) and "leave rm_objects out" in r.stderr
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--rm-objects", "8")
    assert r.exit_code == EXIT_KERNEL
    stderr = one_line(r.stderr)
    assert "cannot bound RM objects" in stderr and "without --rm-objects" in stderr
    assert host.kernel.writes == []
    assert create_line("b", InstanceConfig(GIB, 1, "online", rm_objects="8")) == (
        "b mem=1G core=1 class=online"
    )
    # set: a knob the module does not have is refused before anything is written
    r = host.invoke("set", "a", "--rm-objects", "64")
    assert r.exit_code == EXIT_KERNEL and "rm_objects_max" in r.stderr
    assert host.kernel.writes == []
