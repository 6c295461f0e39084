"""The channels_max knob through qgpuctl: create/set --channels, list/show/json, the policy key
``channels`` (plan, apply, export), and a module without the knob (kmod/qgpu_channels.c)."""

from __future__ import annotations

import json

import pytest
from conftest import GIB, Host, policy_text

from qgpuctl.backends import schema as k
from qgpuctl.backends.qgpufs import QgpuControl, create_line
from qgpuctl.core.doctor import check_channels
from qgpuctl.core.plan import InstanceConfig, Phase, make_plan
from qgpuctl.core.policy import load_policy
from qgpuctl.core.state import read_state
from qgpuctl.core.units import parse_channels
from qgpuctl.errors import EXIT_KERNEL, EXIT_USAGE, PolicyError

KNOB = "class/qgpu/gpu0/instances/a/channels_max"


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_channel_bounds_parse_as_the_module_takes_them() -> None:
    assert [parse_channels(v) for v in ("max", "1", "48", 65536, "007")] == [
        "max",
        "1",
        "48",
        "65536",
        "7",
    ]
    for bad in ("0", 0, "65537", "-1", "4k", "MAX", "", True, "1.5"):
        with pytest.raises(ValueError, match="expected a count 1..65536 or 'max'"):
            parse_channels(bad)  # type: ignore[arg-type]


def test_create_set_list_show(host: Host) -> None:
    r = host.invoke("create", "a", "--mem", "4G", "--core", "30", "--channels", "48")
    assert r.exit_code == 0, r.stderr
    assert "dmabuf refuse, channels 48, rm objects max, sysmem max, mapped max\n" in r.stdout
    assert host.kernel.writes == [
        ("class/qgpu/gpu0/create", "a mem=4G core=30 class=online channels=48")
    ]
    host.kernel.use("a", channels=24)
    assert host.invoke("list").stdout.splitlines()[1].split()[9] == "24/48"
    assert "channels:     24 of 48" in host.invoke("show", "a").stdout
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["channels_max"], data["channels"]) == ("48", 24)
    r = host.invoke("set", "a", "--channels", "max")
    assert r.exit_code == 0, r.stderr
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    # below what the instance holds: the module refuses, and says why
    r = host.invoke("set", "a", "--channels", "8")
    assert r.exit_code == EXIT_KERNEL
    assert "EBUSY" in one_line(r.stderr) and "holds more channels than that" in r.stderr
    assert (host.kernel.root / KNOB).read_text() == "max\n"
    for bad in ("0", "lots", "65537"):
        host.kernel.writes.clear()
        r = host.invoke("set", "a", "--channels", bad)
        assert r.exit_code == EXIT_USAGE and "--channels: expected a count" in r.stderr
        assert host.kernel.writes == []
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--channels", "0")
    assert r.exit_code == EXIT_USAGE and read_state(host.kernel).find_instance("b") is None


def test_the_policy_key_is_planned_applied_and_exported(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "a", InstanceConfig(GIB, 10, "online", channels="48"))
    ctl.create(0, "b", InstanceConfig(GIB, 10, "online"))
    host.kernel.writes.clear()
    text = policy_text(
        "name: a, mem: 1G, core: 10, channels: 24",
        "name: b, mem: 1G, core: 10, channels: 96",
        "name: c, mem: 1G, core: 10, channels: 12",
    )
    plan = make_plan(load_policy(text), read_state(host.kernel))
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.DECREASE, "set channels_max of a on GPU 0: 48 -> 24"),
        (Phase.DECREASE, "set channels_max of b on GPU 0: max -> 96"),  # max is above any count
        (
            Phase.CREATE,
            "create c on GPU 0 (mem 1G, core 10%, class online, managed allow, dmabuf refuse, "
            "channels 12)",
        ),
    ]
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == 0, r.stderr
    assert ("class/qgpu/gpu0/create", "c mem=1G core=10 class=online channels=12") in (
        host.kernel.writes
    )
    bounds = {i.name: i.channels_max for _, i in read_state(host.kernel).instances}
    assert bounds == {"a": "24", "b": "96", "c": "12"}
    assert host.invoke("assert", "-f", "-", input=text).exit_code == 0
    exported = host.invoke("export").stdout
    assert "{name: a, mem: 1G, core: 10, class: online, managed: allow, dmabuf: refuse, " in (
        exported
    )
    assert "channels: 24}" in exported
    assert make_plan(load_policy(exported), read_state(host.kernel), prune=True).empty
    # left out, the key is max: a bounded instance is set back
    plan = make_plan(
        load_policy(policy_text("name: a, mem: 1G, core: 10")), read_state(host.kernel)
    )
    assert [a.describe() for a in plan.actions] == ["set channels_max of a on GPU 0: 24 -> max"]
    with pytest.raises(PolicyError) as info:
        load_policy(policy_text("name: a, mem: 1G, core: 10, channels: 0"))
    assert info.value.path == "gpus[0].instances[0].channels"


def test_a_module_without_the_knob(host: Host) -> None:
    """A module before channels_max bounds nothing: max matches it, a bound is refused first."""
    host.kernel.set_create_keys(0, "mem core class managed dmabuf")
    QgpuControl(host.kernel).create(0, "a", InstanceConfig(GIB, 10, "online"))
    state = read_state(host.kernel)
    _, a = state.find_instance("a") or (None, None)
    assert a is not None and (a.channels_max, a.channels_bound) == (None, "max")
    assert make_plan(load_policy(policy_text("name: a, mem: 1G, core: 10")), state).empty
    host.kernel.writes.clear()
    r = host.invoke(
        "apply", "-f", "-", input=policy_text("name: a, mem: 1G, core: 10, channels: 8")
    )
    assert r.exit_code == EXIT_USAGE
    assert "no 'channels_max' knob on a" in one_line(r.stderr)
    text = policy_text("name: a, mem: 1G, core: 10", "name: b, mem: 1G, core: 10, channels: 8")
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == EXIT_USAGE
    assert "cannot bound channels" in one_line(r.stderr) and "leave channels out" in r.stderr
    r = host.invoke("create", "b", "--mem", "1G", "--core", "1", "--channels", "8")
    assert r.exit_code == EXIT_KERNEL
    assert "cannot bound channels" in one_line(r.stderr) and "without --channels" in r.stderr
    assert host.kernel.writes == []
    assert create_line("b", InstanceConfig(GIB, 1, "online", channels="8")) == (
        "b mem=1G core=1 class=online"
    )


def test_doctor_says_which_instances_sharing_a_gpu_are_unbounded(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "a", InstanceConfig(GIB, 10, "online"))
    assert check_channels(read_state(host.kernel)).detail == "no GPU is shared"
    ctl.create(0, "b", InstanceConfig(GIB, 10, "online", channels="96"))
    ctl.create(1, "c", InstanceConfig(GIB, 10, "online"))  # alone on its GPU: hurts no one
    check = check_channels(read_state(host.kernel))
    assert check.status == "warn" and "unbounded on a (GPU 0):" in check.detail
    assert "qgpuctl set NAME --channels N" in check.detail
    ctl.write_instance(0, "a", k.INST_CHANNELS_MAX, "48")
    check = check_channels(read_state(host.kernel))
    assert (check.status, check.detail) == ("ok", "bounded on all 2 instances that share a GPU")
    host.kernel.remove_attr(f"{k.instance_dir(0, 'a')}/{k.INST_CHANNELS_MAX}")
    check = check_channels(read_state(host.kernel))
    assert check.status == "warn" and "no channels_max knob" in check.detail
    assert check_channels(None).status == "warn"
