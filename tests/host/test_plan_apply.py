"""Planning and applying against the emulated kernel: order, validation, rollback, goldens."""

from __future__ import annotations

import errno
import json
from dataclasses import replace

import pytest
from conftest import GIB, Host, policy_text
from fake_kernel import fs_snapshot
from golden import check_golden

from qgpuctl.backends import schema as k
from qgpuctl.backends.qgpufs import QgpuControl
from qgpuctl.core.apply import execute
from qgpuctl.core.export import SelectBy, export_policy
from qgpuctl.core.plan import InstanceConfig, Phase, make_plan
from qgpuctl.core.policy import dump_policy_yaml, load_policy
from qgpuctl.core.state import read_state
from qgpuctl.errors import (
    EXIT_ASSERT_FAILED,
    EXIT_KERNEL,
    EXIT_PARTIAL_APPLY,
    EXIT_USAGE,
    ApplyFailed,
    PartialApplyError,
    PolicyError,
)

POLICY = """\
version: v1
gpus:
  - selector: {index: 0}
    policy: burst-share
    timeslice_us: 2048
    instances:
      - {name: infer-a, mem: 4G, core: 30, class: online, managed: refuse}
      - {name: infer-b, mem: 6G, core: 40, class: online, dmabuf: allow}
      - {name: batch-1, mem: 8G, core: 20, class: offline}
  - selector: {index: 1}
    overcommit: true
    instances:
      - {name: train, mem: max, core: 100, class: offline, managed: refuse}
"""


def seed(host: Host) -> None:
    """A running state that differs from POLICY in every way a plan handles."""
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "infer-a", InstanceConfig(8 * GIB, 50, "online"))  # lower mem and core
    # raise mem, class; dmabuf back to the default
    ctl.create(0, "batch-1", InstanceConfig(4 * GIB, 20, "online", dmabuf="allow"))
    ctl.create(0, "old", InstanceConfig(1 * GIB, 10, "offline", "refuse", "allow"))  # unlisted
    ctl.create(1, "scratch", InstanceConfig(2 * GIB, 5, "online"))  # unlisted


def plan_for(host: Host, text: str = POLICY, *, prune: bool = False):  # type: ignore[no-untyped-def]
    return make_plan(load_policy(text), read_state(host.kernel), prune=prune)


def test_plan_orders_phases_and_keeps_unlisted(host: Host) -> None:
    seed(host)
    plan = plan_for(host)
    assert [a.phase for a in plan.actions] == sorted(a.phase for a in plan.actions)
    described = [a.describe() for a in plan.actions]
    assert described == [
        "set mem_max of infer-a on GPU 0: 8G -> 4G",
        "set core of infer-a on GPU 0: 50 -> 30",
        "set policy of GPU 0: best-effort -> burst-share",
        "set timeslice_us of GPU 0: 1024 -> 2048",
        "set overcommit of GPU 1: 0 -> 1",
        "set mem_max of batch-1 on GPU 0: 4G -> 8G",
        "set class of batch-1 on GPU 0: online -> offline",
        "set dmabuf of batch-1 on GPU 0: allow -> refuse",
        "set managed of infer-a on GPU 0: allow -> refuse",
        "create infer-b on GPU 0 (mem 6G, core 40%, class online, managed allow, dmabuf allow)",
        "create train on GPU 1 (mem max, core 100%, class offline, managed refuse, dmabuf refuse)",
    ]
    assert [(n.gpu_index, n.instance) for n in plan.notes] == [(0, "old"), (1, "scratch")]


def test_plan_golden(host: Host) -> None:
    seed(host)
    r = host.invoke("apply", "-f", "-", "--dry-run", "--prune", input=POLICY)
    assert r.exit_code == 0, r.stderr
    check_golden("plan.txt", r.stdout)
    r = host.invoke("-o", "json", "apply", "-f", "-", "--dry-run", "--prune", input=POLICY)
    assert r.exit_code == 0, r.stderr
    check_golden("plan.json", r.stdout)
    assert json.loads(r.stdout)["applied"] is False


def test_unlisted_guarantees_count_without_prune(host: Host) -> None:
    seed(host)
    # 'old' keeps its 10%: 30+40+20+10 = 100 fits; 'scratch' (5%) + train 100% on GPU 1 does not
    # matter because GPU 1 stays best-effort. Make GPU 1 fixed-share to trip it.
    text = POLICY.replace("overcommit: true", "overcommit: true\n    policy: fixed-share")
    with pytest.raises(PolicyError) as info:
        plan_for(host, text)
    assert info.value.path == "gpus[1].instances"
    assert "105%" in info.value.msg and "scratch" in info.value.msg
    assert plan_for(host, text, prune=True).actions  # pruning makes it fit


def test_memory_must_fit_without_overcommit(host: Host) -> None:
    text = POLICY.replace("mem: 8G, core: 20", "mem: 31G, core: 20")
    with pytest.raises(PolicyError, match="41G") as info:
        plan_for(host, text)
    assert info.value.path == "gpus[0].instances"


def test_selector_must_match(host: Host) -> None:
    text = POLICY.replace("{index: 1}", "{index: 7}")
    with pytest.raises(PolicyError, match="index 7 matches no GPU") as info:
        plan_for(host, text)
    assert info.value.path == "gpus[1].selector"


def test_gpu_selected_twice_by_index_and_uuid(host: Host) -> None:
    uuid = read_state(host.kernel).gpus[0].uuid
    text = POLICY.replace("{index: 1}", f"{{uuid: '{uuid}'}}")
    with pytest.raises(PolicyError, match="already selected by gpus\\[0\\]"):
        plan_for(host, text)


def test_name_on_unselected_gpu_conflicts(host: Host) -> None:
    QgpuControl(host.kernel).create(1, "infer-a", InstanceConfig(GIB, 5, "online"))
    text = POLICY.split("  - selector: {index: 1}")[0]
    with pytest.raises(PolicyError, match="already exists on GPU 1") as info:
        plan_for(host, text)
    assert info.value.path == "gpus[0].instances[0].name"


def test_move_needs_prune(host: Host) -> None:
    QgpuControl(host.kernel).create(1, "infer-a", InstanceConfig(GIB, 5, "online"))
    with pytest.raises(PolicyError, match="--prune"):
        plan_for(host)
    plan = plan_for(host, prune=True)
    assert plan.actions[0].phase is Phase.DELETE and plan.actions[0].instance == "infer-a"
    execute(plan, QgpuControl(host.kernel))
    assert read_state(host.kernel).find_instance("infer-a")[0].index == 0  # type: ignore[index]


def test_all_selector_expands_names(host: Host) -> None:
    text = (
        "version: v1\ngpus:\n- selector: all\n  instances:\n"
        "  - {name: 'inf-{gpu}', mem: 1G, core: 10}\n"
    )
    execute(plan_for(host, text), QgpuControl(host.kernel))
    names = [(g.index, i.name) for g, i in read_state(host.kernel).instances]
    assert names == [(0, "inf-0"), (1, "inf-1")]
    bad = text.replace("inf-{gpu}", "inf")
    with pytest.raises(PolicyError, match="use \\{gpu\\}"):
        plan_for(host, bad)


def test_apply_converges_and_is_idempotent(host: Host) -> None:
    seed(host)
    execute(plan_for(host, prune=True), QgpuControl(host.kernel))
    assert plan_for(host, prune=True).empty
    state = read_state(host.kernel)
    assert {i.name for _, i in state.instances} == {"infer-a", "infer-b", "batch-1", "train"}
    assert state.gpus[0].policy == "burst-share" and state.gpus[1].overcommit is True
    assert host.kernel.originals == {}  # committed


def test_export_round_trip_and_golden(host: Host) -> None:
    seed(host)
    execute(plan_for(host, prune=True), QgpuControl(host.kernel))
    exported = dump_policy_yaml(export_policy(read_state(host.kernel)))
    check_golden("export.yaml", exported)
    assert make_plan(load_policy(exported), read_state(host.kernel), prune=True).empty
    by_uuid = dump_policy_yaml(export_policy(read_state(host.kernel), SelectBy.UUID))
    assert "uuid: GPU-00000000" in by_uuid
    assert make_plan(load_policy(by_uuid), read_state(host.kernel), prune=True).empty


@pytest.mark.parametrize("fail_at", range(1, 14))
def test_failure_at_any_step_rolls_everything_back(host: Host, fail_at: int) -> None:
    seed(host)
    plan = plan_for(host, prune=True)
    before = fs_snapshot(host.kernel.root)
    if fail_at > len(plan.actions):
        pytest.skip(f"the plan has {len(plan.actions)} steps")
    action = plan.actions[fail_at - 1]
    if action.phase is Phase.CREATE:
        suffix = f"gpu{action.gpu_minor}/create"
    elif action.instance is None:
        suffix = f"gpu{action.gpu_minor}/{action.attr}"
    else:
        suffix = f"{action.instance}/{action.attr or 'remove'}"
    host.kernel.fail_next(suffix, errno.EIO)
    with pytest.raises(ApplyFailed) as info:
        execute(plan, QgpuControl(host.kernel))
    assert info.value.exit_code == EXIT_KERNEL
    assert f"step {fail_at} of {len(plan.actions)}" in str(info.value)
    assert "rolled back" in str(info.value)
    after = fs_snapshot(host.kernel.root)
    # Re-created instances come back with their limits; only usage counters are new.
    assert after == before  # re-created instances come back with the same limits


def test_failed_rollback_is_partial_apply(host: Host) -> None:
    seed(host)
    plan = plan_for(host)
    host.kernel.fail_next("gpu1/create", errno.ENOSPC)  # the last step
    host.kernel.fail_next("infer-b/remove", errno.EBUSY)  # its undo
    with pytest.raises(PartialApplyError) as info:
        execute(plan, QgpuControl(host.kernel))
    assert info.value.exit_code == EXIT_PARTIAL_APPLY
    assert "rollback incomplete" in str(info.value) and "infer-b" in str(info.value)


def test_kernel_refusal_mid_apply_via_cli_rolls_back(host: Host) -> None:
    seed(host)
    host.kernel.use("infer-a", mem_current=6 * GIB)  # lowering mem_max to 4G is now EBUSY
    before = fs_snapshot(host.kernel.root)
    r = host.invoke("apply", "-f", "-", input=POLICY)
    assert r.exit_code == EXIT_KERNEL
    line = r.stderr.strip().splitlines()[-1]
    assert "step 1 of 11 (set mem_max of infer-a on GPU 0: 8G -> 4G) failed" in line
    assert "Device or resource busy (EBUSY)" in line and "rolled back" in line
    assert fs_snapshot(host.kernel.root) == before


# Files that flip a knob of two instances made with infer-a at allow and batch-1 at refuse; a key
# left out means the kernel's default, as for class (managed: allow, dmabuf: refuse).
MANAGED = policy_text(
    "name: infer-a, mem: 4G, core: 30, managed: refuse", "name: batch-1, mem: 4G, core: 20"
)
DMABUF = policy_text(
    "name: infer-a, mem: 4G, core: 30", "name: batch-1, mem: 4G, core: 20, dmabuf: allow"
)
FLIPS = {"managed": MANAGED, "dmabuf": DMABUF}


def exported_line(name: str, mem_core: str, attr: str, value: str) -> str:
    knobs = {"managed": k.MANAGED_DEFAULT, "dmabuf": k.DMABUF_DEFAULT, attr: value}
    return (
        f"{{name: {name}, {mem_core}, class: online, "
        f"managed: {knobs['managed']}, dmabuf: {knobs['dmabuf']}}}"
    )


@pytest.mark.parametrize("attr", sorted(FLIPS))
def test_allow_refuse_knobs_are_planned_applied_asserted_and_exported(
    host: Host, attr: str
) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(0, "infer-a", replace(InstanceConfig(4 * GIB, 30, "online"), **{attr: "allow"}))
    ctl.create(0, "batch-1", replace(InstanceConfig(4 * GIB, 20, "online"), **{attr: "refuse"}))
    text = FLIPS[attr]
    plan = plan_for(host, text)
    assert [(a.phase, a.describe()) for a in plan.actions] == [
        (Phase.INCREASE, f"set {attr} of batch-1 on GPU 0: refuse -> allow"),
        (Phase.INCREASE, f"set {attr} of infer-a on GPU 0: allow -> refuse"),
    ]
    r = host.invoke("assert", "-f", "-", input=text)
    assert r.exit_code == EXIT_ASSERT_FAILED
    r = host.invoke("-o", "json", "apply", "-f", "-", input=text)
    assert r.exit_code == 0, r.stderr
    assert [(a["attribute"], a["from"], a["to"]) for a in json.loads(r.stdout)["actions"]] == [
        (attr, "refuse", "allow"),
        (attr, "allow", "refuse"),
    ]
    state = read_state(host.kernel)
    knob = {i.name: getattr(i, attr) for _, i in state.instances}
    assert knob == {"infer-a": "refuse", "batch-1": "allow"}
    assert host.invoke("assert", "-f", "-", input=text).exit_code == 0
    exported = host.invoke("export").stdout
    assert exported_line("infer-a", "mem: 4G, core: 30", attr, "refuse") in exported
    assert exported_line("batch-1", "mem: 4G, core: 20", attr, "allow") in exported
    assert make_plan(load_policy(exported), read_state(host.kernel), prune=True).empty
    as_json = json.loads(host.invoke("-o", "json", "export").stdout)
    assert [i[attr] for i in as_json["gpus"][0]["instances"]] == ["allow", "refuse"]
    # A new instance gets it in its create line, so it never has the default for a moment.
    host.kernel.writes.clear()
    other = "refuse" if k.CREATE_KNOB_DEFAULTS[attr] == "allow" else "allow"
    more = text + f"      - {{name: infer-c, mem: 1G, core: 5, {attr}: {other}}}\n"
    assert host.invoke("apply", "-f", "-", input=more).exit_code == 0
    assert host.kernel.writes == [
        ("class/qgpu/gpu0/create", f"infer-c mem=1G core=5 class=online {attr}={other}")
    ]


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (MANAGED.replace("managed: refuse", "managed: deny"), "instances[0].managed"),
        (DMABUF.replace("dmabuf: allow", "dmabuf: deny"), "instances[1].dmabuf"),
    ],
)
def test_a_bad_allow_refuse_value_in_a_file_applies_nothing(
    host: Host, bad: str, field: str
) -> None:
    QgpuControl(host.kernel).create(0, "infer-a", InstanceConfig(4 * GIB, 30, "online"))
    host.kernel.writes.clear()
    before = fs_snapshot(host.kernel.root)
    for verb in ("validate", "apply", "assert"):
        r = host.invoke(verb, "-f", "-", input=bad)
        assert r.exit_code == EXIT_USAGE, verb
        lines = r.stderr.strip().splitlines()
        assert lines == [
            f"qgpuctl: error: gpus[0].{field}: expected one of allow, refuse, got str 'deny'"
        ]
    assert fs_snapshot(host.kernel.root) == before and host.kernel.writes == []


def before_create_keys(host: Host) -> str:
    """The module before create_keys, and so before dmabuf, the count bounds, the
    system-memory limit and the mapping bound; returns POLICY for it.

    A new instance gets managed by a write after its create. The module forwards every
    dma-buf export, so the file must allow them (as export would write it), or it is refused.
    """
    for gpu in read_state(host.kernel).gpus:
        host.kernel.set_create_keys(gpu.minor, None)
        for inst in gpu.instances:
            for attr in (
                k.INST_DMABUF,
                k.INST_CHANNELS_MAX,
                k.INST_CHANNELS,
                k.INST_RM_OBJECTS_MAX,
                k.INST_RM_OBJECTS,
                k.INST_SYSMEM_MAX,
                k.INST_SYSMEM_CURRENT,
                k.INST_SYSMEM_PEAK,
                k.INST_MAPPED_MAX,
                k.INST_MAPPED_CURRENT,
            ):
                host.kernel.remove_attr(f"{k.instance_dir(gpu.minor, inst.name)}/{attr}")
    lines = POLICY.splitlines(keepends=True)
    return "".join(
        line.replace("}", ", dmabuf: allow}") if "{name:" in line and "dmabuf" not in line else line
        for line in lines
    )


def test_create_with_managed_refused_after_create_rolls_everything_back(host: Host) -> None:
    seed(host)
    policy = before_create_keys(host)
    plan = plan_for(host, policy, prune=True)
    before = fs_snapshot(host.kernel.root)
    host.kernel.fail_next("instances/train/managed", errno.EIO)  # the last step's second write
    with pytest.raises(ApplyFailed) as info:
        execute(plan, QgpuControl(host.kernel))
    assert f"step {len(plan.actions)} of {len(plan.actions)}" in str(info.value)
    assert "train was removed again" in str(info.value) and "rolled back" in str(info.value)
    assert fs_snapshot(host.kernel.root) == before


def test_create_whose_undo_fails_is_partial_apply(host: Host) -> None:
    seed(host)
    plan = plan_for(host, before_create_keys(host))
    host.kernel.fail_next("instances/train/managed", errno.EIO)
    host.kernel.fail_next("train/remove", errno.EBUSY)  # removing the half-made instance
    with pytest.raises(PartialApplyError) as info:
        execute(plan, QgpuControl(host.kernel))
    assert "removing the new instance train failed" in str(info.value)
