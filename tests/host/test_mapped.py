"""qgpuctl and the bound on the GPU address space an instance's RM mappings span (``mapped_max``):
--mapped, the policy key mapped, and a module without the knob."""

from __future__ import annotations

import json

import pytest
from conftest import GIB, Host, policy_text

from qgpuctl.backends.qgpufs import QgpuControl, create_line
from qgpuctl.core.plan import InstanceConfig, Phase, make_plan
from qgpuctl.core.policy import load_policy
from qgpuctl.core.state import read_state
from qgpuctl.core.units import parse_mapped
from qgpuctl.errors import EXIT_KERNEL, EXIT_USAGE, PolicyError, SizeError

KNOB = "class/qgpu/gpu0/instances/a/mapped_max"
MIB = 1 << 20


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_bounds_parse_as_the_module_takes_them() -> None:
    assert [parse_mapped(v) for v in ("max", "2M", "64G", "512T")] == [
        None,
        2 * MIB,
        64 * GIB,
        512 << 40,
    ]
    for bad in ("0", "1M", "3M", "4097K", "1025T", "lots", "-2M", ""):
        with pytest.raises(SizeError):
            parse_mapped(bad)


def test_create_set_show(host: Host) -> None:
    r = host.invoke("create", "a", "--mem", "4G", "--core", "30", "--mapped", "64G")
    assert r.exit_code == 0, r.stderr
    assert "sysmem max, mapped 64G\n" in r.stdout
    assert host.kernel.writes == [
        ("class/qgpu/gpu0/create", "a mem=4G core=30 class=online mapped=64G")
    ]
    host.kernel.use("a", mapped_current=6 * MIB)
    assert "gpu mapped:   6M of 64G" in host.invoke("show", "a").stdout
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["mapped"], data["mapped_max"], data["mapped_current"]) == (
        "64G",
        64 * GIB,
        6 * MIB,
    )
    status = json.loads(host.invoke("status", "-o", "json").stdout)
    assert [(i["mapped_current"], i["mapped_max"]) for i in status["instances"]] == [
        (6 * MIB, 64 * GIB)
    ]
    r = host.invoke("set", "a", "--mapped", "max")
    assert r.exit_code == 0, r.stderr
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    # below what the instance's mappings span: the module refuses, and says why
    r = host.invoke("set", "a", "--mapped", "4M")
    assert r.exit_code == EXIT_KERNEL
    assert "EBUSY" in one_line(r.stderr) and "span more GPU address space" in one_line(r.stderr)
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    for bad in ("0", "3M", "lots"):
        host.kernel.writes.clear()
        r = host.invoke("set", "a", "--mapped", bad)
        assert r.exit_code == EXIT_USAGE and "--mapped: " in r.stderr
        assert host.kernel.writes == []
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--mapped", "1M")
    assert r.exit_code == EXIT_USAGE and read_state(host.kernel).find_instance("b") is None
    assert "2M regions" in r.stderr


def test_the_policy_key_is_planned_applied_and_exported(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "a", InstanceConfig(GIB, 10, "online", mapped=64 * GIB))
    ctl.create(0, "b", InstanceConfig(GIB, 10, "online"))
    host.kernel.writes.clear()
    text = policy_text(
        "name: a, mem: 1G, core: 10, mapped: 32G",
        "name: b, mem: 1G, core: 10, mapped: 16G",
        "name: c, mem: 1G, core: 10, mapped: 2M",
    )
    plan = make_plan(load_policy(text), read_state(host.kernel))
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.DECREASE, "set mapped_max of a on GPU 0: 64G -> 32G"),
        (Phase.DECREASE, "set mapped_max of b on GPU 0: max -> 16G"),
        (
            Phase.CREATE,
            "create c on GPU 0 (mem 1G, core 10%, class online, managed allow, dmabuf refuse, "
            "mapped 2M)",
        ),
    ]
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == 0, r.stderr
    assert ("class/qgpu/gpu0/create", "c mem=1G core=10 class=online mapped=2M") in (
        host.kernel.writes
    )
    bounds = {i.name: i.mapped_text for _, i in read_state(host.kernel).instances}
    assert bounds == {"a": "32G", "b": "16G", "c": "2M"}
    assert host.invoke("assert", "-f", "-", input=text).exit_code == 0
    exported = host.invoke("export").stdout
    assert "mapped: 32G}" in exported and "mapped: 2M}" in exported
    assert make_plan(load_policy(exported), read_state(host.kernel), prune=True).empty
    # left out, the key is max: a bounded instance is set back, after the decreases
    plan = make_plan(
        load_policy(policy_text("name: a, mem: 1G, core: 10")), read_state(host.kernel)
    )
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.INCREASE, "set mapped_max of a on GPU 0: 32G -> max")
    ]
    for bad in ("0", "3M", "lots", "true"):
        with pytest.raises(PolicyError) as info:
            load_policy(policy_text(f"name: a, mem: 1G, core: 10, mapped: {bad}"))
        assert info.value.path == "gpus[0].instances[0].mapped"


def test_a_module_without_the_knob(host: Host) -> None:
    """A module before mapped_max bounds nothing: max matches it, a bound is refused first."""
    host.kernel.set_create_keys(0, "mem core class managed dmabuf channels rm_objects sysmem")
    QgpuControl(host.kernel).create(0, "a", InstanceConfig(GIB, 10, "online"))
    state = read_state(host.kernel)
    _, a = state.find_instance("a") or (None, None)
    assert a is not None and (a.mapped_max, a.mapped_limit, a.mapped_text) == (None, None, None)
    assert "gpu mapped:   -\n" in host.invoke("show", "a").stdout
    assert make_plan(load_policy(policy_text("name: a, mem: 1G, core: 10")), state).empty
    host.kernel.writes.clear()
    r = host.invoke("apply", "-f", "-", input=policy_text("name: a, mem: 1G, core: 10, mapped: 2G"))
    assert r.exit_code == EXIT_USAGE
    assert "no 'mapped_max' knob on a" in one_line(r.stderr)
    text = policy_text("name: a, mem: 1G, core: 10", "name: b, mem: 1G, core: 10, mapped: 2G")
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == EXIT_USAGE
    assert "cannot bound GPU mappings" in one_line(r.stderr) and "leave mapped out" in r.stderr
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--mapped", "2G")
    assert r.exit_code == EXIT_KERNEL
    stderr = one_line(r.stderr)
    assert "cannot bound GPU mappings" in stderr and "without --mapped" in stderr
    assert host.kernel.writes == []
    assert create_line("b", InstanceConfig(GIB, 1, "online", mapped=2 * GIB)) == (
        "b mem=1G core=1 class=online"
    )
    # set: a knob the module does not have is refused before anything is written
    r = host.invoke("set", "a", "--mapped", "2G")
    assert r.exit_code == EXIT_KERNEL and "mapped_max" in r.stderr
    assert host.kernel.writes == []
