"""The sysmem_max knob through qgpuctl: create/set --sysmem, show/json, the policy key ``sysmem``
(plan, apply, export), and a module without the knob (kmod/qgpu_mem.c, DOC: system memory)."""

from __future__ import annotations

import json

import pytest
from conftest import GIB, Host, policy_text

from qgpuctl.backends import schema as k
from qgpuctl.backends.qgpufs import QgpuControl, create_line
from qgpuctl.core.doctor import check_sysmem
from qgpuctl.core.plan import InstanceConfig, Phase, make_plan
from qgpuctl.core.policy import load_policy
from qgpuctl.core.state import read_state
from qgpuctl.core.units import parse_limit
from qgpuctl.errors import EXIT_KERNEL, EXIT_USAGE, PolicyError, SizeError

KNOB = "class/qgpu/gpu0/instances/a/sysmem_max"
MIB = 1 << 20


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_limits_parse_as_the_module_takes_them() -> None:
    assert [parse_limit(v) for v in ("max", "1", "2G", "512M")] == [None, 1, 2 * GIB, 512 * MIB]
    for bad in ("0", "0G", "lots", "-1", "4X", ""):
        with pytest.raises(SizeError):
            parse_limit(bad)


def test_create_set_show(host: Host) -> None:
    r = host.invoke("create", "a", "--mem", "4G", "--core", "30", "--sysmem", "2G")
    assert r.exit_code == 0, r.stderr
    assert "channels max, rm objects max, sysmem 2G, mapped max\n" in r.stdout
    assert host.kernel.writes == [
        ("class/qgpu/gpu0/create", "a mem=4G core=30 class=online sysmem=2G")
    ]
    host.kernel.use("a", sysmem_current=70 * MIB)
    assert "sysmem:       70M used of 2G" in host.invoke("show", "a").stdout
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["sysmem"], data["sysmem_max"], data["sysmem_current"]) == (
        "2G",
        2 * GIB,
        70 * MIB,
    )
    status = json.loads(host.invoke("status", "-o", "json").stdout)
    assert [(i["sysmem_current"], i["sysmem_max"]) for i in status["instances"]] == [
        (70 * MIB, 2 * GIB)
    ]
    r = host.invoke("set", "a", "--sysmem", "max")
    assert r.exit_code == 0, r.stderr
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    assert json.loads(host.invoke("show", "a", "-o", "json").stdout)["sysmem_max"] is None
    # below what the instance's processes hold: the module refuses, and says why
    r = host.invoke("set", "a", "--sysmem", "64M")
    assert r.exit_code == EXIT_KERNEL
    assert "EBUSY" in one_line(r.stderr) and "hold more system memory now" in one_line(r.stderr)
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    for bad in ("0", "lots", "4X"):
        host.kernel.writes.clear()
        r = host.invoke("set", "a", "--sysmem", bad)
        assert r.exit_code == EXIT_USAGE and "--sysmem: " in r.stderr
        assert host.kernel.writes == []
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--sysmem", "0")
    assert r.exit_code == EXIT_USAGE and read_state(host.kernel).find_instance("b") is None


def test_the_policy_key_is_planned_applied_and_exported(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "a", InstanceConfig(GIB, 10, "online", sysmem=4 * GIB))
    ctl.create(0, "b", InstanceConfig(GIB, 10, "online"))
    host.kernel.writes.clear()
    text = policy_text(
        "name: a, mem: 1G, core: 10, sysmem: 2G",
        "name: b, mem: 1G, core: 10, sysmem: 8G",
        "name: c, mem: 1G, core: 10, sysmem: 512M",
    )
    plan = make_plan(load_policy(text), read_state(host.kernel))
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.DECREASE, "set sysmem_max of a on GPU 0: 4G -> 2G"),
        (Phase.DECREASE, "set sysmem_max of b on GPU 0: max -> 8G"),
        (
            Phase.CREATE,
            "create c on GPU 0 (mem 1G, core 10%, class online, managed allow, dmabuf refuse, "
            "sysmem 512M)",
        ),
    ]
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == 0, r.stderr
    assert ("class/qgpu/gpu0/create", "c mem=1G core=10 class=online sysmem=512M") in (
        host.kernel.writes
    )
    limits = {i.name: i.sysmem_text for _, i in read_state(host.kernel).instances}
    assert limits == {"a": "2G", "b": "8G", "c": "512M"}
    assert host.invoke("assert", "-f", "-", input=text).exit_code == 0
    exported = host.invoke("export").stdout
    assert "sysmem: 2G}" in exported and "sysmem: 512M}" in exported
    assert make_plan(load_policy(exported), read_state(host.kernel), prune=True).empty
    # left out, the key is max: a limited instance is set back, after the decreases
    plan = make_plan(
        load_policy(policy_text("name: a, mem: 1G, core: 10")), read_state(host.kernel)
    )
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.INCREASE, "set sysmem_max of a on GPU 0: 2G -> max")
    ]
    for bad in ("0", "lots", "true"):
        with pytest.raises(PolicyError) as info:
            load_policy(policy_text(f"name: a, mem: 1G, core: 10, sysmem: {bad}"))
        assert info.value.path == "gpus[0].instances[0].sysmem"


def test_a_module_without_the_knob(host: Host) -> None:
    """A module before sysmem_max limits nothing: max matches it, a limit is refused first."""
    host.kernel.set_create_keys(0, "mem core class managed dmabuf channels rm_objects")
    QgpuControl(host.kernel).create(0, "a", InstanceConfig(GIB, 10, "online"))
    state = read_state(host.kernel)
    _, a = state.find_instance("a") or (None, None)
    assert a is not None and (a.sysmem_max, a.sysmem_limit, a.sysmem_text) == (None, None, None)
    assert "sysmem:       -\n" in host.invoke("show", "a").stdout
    assert make_plan(load_policy(policy_text("name: a, mem: 1G, core: 10")), state).empty
    host.kernel.writes.clear()
    r = host.invoke("apply", "-f", "-", input=policy_text("name: a, mem: 1G, core: 10, sysmem: 1G"))
    assert r.exit_code == EXIT_USAGE
    assert "no 'sysmem_max' knob on a" in one_line(r.stderr)
    text = policy_text("name: a, mem: 1G, core: 10", "name: b, mem: 1G, core: 10, sysmem: 1G")
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == EXIT_USAGE
    assert "cannot limit system memory" in one_line(r.stderr) and "leave sysmem out" in r.stderr
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--sysmem", "1G")
    assert r.exit_code == EXIT_KERNEL
    stderr = one_line(r.stderr)
    assert "cannot limit system memory" in stderr and "without --sysmem" in stderr
    assert host.kernel.writes == []
    assert create_line("b", InstanceConfig(GIB, 1, "online", sysmem=GIB)) == (
        "b mem=1G core=1 class=online"
    )
    # set: a knob the module does not have is refused before anything is written
    r = host.invoke("set", "a", "--sysmem", "1G")
    assert r.exit_code == EXIT_KERNEL and "sysmem_max" in r.stderr
    assert host.kernel.writes == []


def test_doctor_says_which_instances_have_unlimited_system_memory(host: Host) -> None:
    assert check_sysmem(read_state(host.kernel)).detail == "no instances"
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "a", InstanceConfig(GIB, 10, "online"))
    ctl.create(1, "b", InstanceConfig(GIB, 10, "online", sysmem=GIB))
    # alone on its GPU or not: the host's memory is what every instance shares
    check = check_sysmem(read_state(host.kernel))
    assert check.status == "warn" and "unlimited on a:" in check.detail
    assert "qgpuctl set NAME --sysmem SIZE" in check.detail
    ctl.write_instance(0, "a", k.INST_SYSMEM_MAX, "256M")
    check = check_sysmem(read_state(host.kernel))
    assert (check.status, check.detail) == ("ok", "limited on all 2 instances")
    host.kernel.remove_attr(f"{k.instance_dir(0, 'a')}/{k.INST_SYSMEM_MAX}")
    check = check_sysmem(read_state(host.kernel))
    assert check.status == "warn" and "no sysmem_max knob" in check.detail
    assert check_sysmem(None).status == "warn"
