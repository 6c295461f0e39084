"""From a policy file and the kernel's current state to an ordered list of changes.

``apply`` manages the GPUs the file selects and nothing else. On those GPUs:

* an instance listed in the file is created if missing, and its ``mem``,
  ``core``, ``class``, ``managed``, ``dmabuf``, ``channels``, ``rm_objects``, ``sysmem`` and
  ``mapped`` are set live where they differ;
* a GPU knob given in the file (``policy``, ``timeslice_us``, ``period_us``, ``overcommit``,
  ``unknown_escapes``) is written where it differs; one left out is left alone;
* an instance that is *not* listed is kept and reported, and deleted only with
  ``--prune`` (mig-parted's rule: apply converges what the file names, it does
  not silently destroy what it does not know about);
* an instance listed for one GPU but present on another is moved (deleted and
  re-created), which also needs ``--prune`` since its processes lose it.

Everything is validated against the final state before any write: selectors
must match, no GPU may be selected twice, names stay unique across all GPUs,
guarantees add up to at most 100% under fixed-share/burst-share, and memory
limits fit the GPU unless it overcommits.

The actions come in phases so that every intermediate state is one the kernel
accepts, and each phase can be undone (:mod:`qgpuctl.core.apply`):

1. ``delete`` (pruned or moved instances), freeing guarantees and memory;
2. ``set`` that *lower* a limit, a bound or a guarantee on kept instances;
3. ``set`` of GPU knobs (overcommit, policy, timeslice, unknown escapes): after
   the decreases, so a switch to fixed-share sees the lowered sums;
4. ``set`` that *raise* a limit, a bound or a guarantee, and class, managed and dmabuf
   changes;
5. ``create``.

Each intermediate sum is at most the final one, which was validated.

:func:`check_settable` then refuses, still before any write, a plan that would
write a knob the running module does not have or publishes read-only (an older
module: docs/kernel-interface.md, "What exists today"), so ``apply`` never
starts what it cannot finish. A module without the ``managed`` or ``dmabuf``
knob allows what the knob would refuse: a file asking it to refuse is refused
the same way, while ``allow`` matches it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from qgpuctl.backends import schema as k
from qgpuctl.core.policy import GpuSpec, InstanceSpec, PolicyFile
from qgpuctl.core.state import GpuState, InstanceState, State
from qgpuctl.core.units import format_size
from qgpuctl.errors import PolicyError


class Phase(IntEnum):
    DELETE = 1
    DECREASE = 2
    GPU = 3
    INCREASE = 4
    CREATE = 5


OP_NAMES = {
    Phase.DELETE: "delete",
    Phase.DECREASE: "set",
    Phase.GPU: "set-gpu",
    Phase.INCREASE: "set",
    Phase.CREATE: "create",
}


@dataclass(frozen=True, slots=True)
class InstanceConfig:
    """What ``create`` needs, and what re-creating a deleted instance restores."""

    mem: int | None  # None = max
    core: int
    klass: str
    # In the create line where the module lists the key (create_keys); else written after.
    managed: str = k.MANAGED_DEFAULT
    # In the create line where the module lists the key; a module without it cannot refuse.
    dmabuf: str = k.DMABUF_DEFAULT
    # channels= and rm_objects= in the create line where the module lists the key; a module
    # without it bounds nothing.
    channels: str = k.CHANNELS_DEFAULT
    rm_objects: str = k.RM_OBJECTS_DEFAULT
    # sysmem= in the create line where the module lists the key; None = max
    sysmem: int | None = None
    # mapped= likewise, in bytes (whole 2 MiB regions); None = max
    mapped: int | None = None

    def knobs(self) -> dict[str, str]:
        """The knobs ``create`` takes as keys (k.CREATE_KNOB_DEFAULTS), with their values."""
        return {k.INST_MANAGED: self.managed, k.INST_DMABUF: self.dmabuf}

    def describe(self) -> str:
        bound = "" if self.channels == k.CHANNELS_DEFAULT else f", channels {self.channels}"
        if self.rm_objects != k.RM_OBJECTS_DEFAULT:
            bound += f", rm objects {self.rm_objects}"
        if self.sysmem is not None:
            bound += f", sysmem {format_size(self.sysmem)}"
        if self.mapped is not None:
            bound += f", mapped {format_size(self.mapped)}"
        return (
            f"mem {format_size(self.mem)}, core {self.core}%, class {self.klass}, "
            f"managed {self.managed}, dmabuf {self.dmabuf}{bound}"
        )


@dataclass(frozen=True, slots=True)
class Action:
    phase: Phase
    gpu_minor: int
    gpu_index: int
    instance: str | None  # None for GPU knobs
    attr: str | None = None  # kernel attribute for set/set-gpu
    old: str | None = None  # display / kernel value before
    new: str | None = None  # kernel value to write
    config: InstanceConfig | None = None  # create: the new one; delete: the old one
    # set/set-gpu: the policy file field asking for it; create: the instance's entry
    source: str | None = None

    @property
    def op(self) -> str:
        return OP_NAMES[self.phase]

    def describe(self) -> str:
        where = f"GPU {self.gpu_index}"
        if self.phase is Phase.CREATE and self.config is not None:
            return f"create {self.instance} on {where} ({self.config.describe()})"
        if self.phase is Phase.DELETE:
            return f"delete {self.instance} on {where}"
        target = where if self.instance is None else f"{self.instance} on {where}"
        return f"set {self.attr} of {target}: {self.old or '-'} -> {self.new}"

    def change(self) -> str:
        if self.phase is Phase.CREATE and self.config is not None:
            return self.config.describe()
        if self.phase is Phase.DELETE and self.config is not None:
            return f"(was {self.config.describe()})"
        return f"{self.attr}: {self.old if self.old is not None else '-'} -> {self.new}"

    def to_data(self, step: int) -> dict[str, Any]:
        data: dict[str, Any] = {
            "step": step,
            "action": self.op,
            "gpu": self.gpu_index,
            "instance": self.instance,
        }
        if self.attr is not None:
            data["attribute"] = self.attr
            data["from"] = self.old
            data["to"] = self.new
        if self.config is not None:
            data["mem"] = format_size(self.config.mem)
            data["core"] = self.config.core
            data["class"] = self.config.klass
            data["managed"] = self.config.managed
            data["dmabuf"] = self.config.dmabuf
            data["channels"] = self.config.channels
            data["rm_objects"] = self.config.rm_objects
            data["sysmem"] = format_size(self.config.sysmem)
            data["mapped"] = format_size(self.config.mapped)
        return data


@dataclass(frozen=True, slots=True)
class Note:
    gpu_index: int
    instance: str
    text: str


@dataclass(slots=True)
class Plan:
    actions: list[Action] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)  # unlisted instances kept

    @property
    def empty(self) -> bool:
        return not self.actions

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "step": n,
                "action": a.op,
                "gpu": a.gpu_index,
                "target": a.instance or "-",
                "change": a.change(),
            }
            for n, a in enumerate(self.actions, 1)
        ]

    def to_data(self) -> dict[str, Any]:
        return {
            "actions": [a.to_data(n) for n, a in enumerate(self.actions, 1)],
            "unlisted": [
                {"gpu": note.gpu_index, "instance": note.instance, "note": note.text}
                for note in self.notes
            ],
        }


# Kernel attribute -> the policy file's key for it (messages name the file's field).
_POLICY_KEYS = {
    k.GPU_POLICY: "policy",
    k.GPU_TIMESLICE: "timeslice_us",
    k.GPU_PERIOD: "period_us",
    k.GPU_OVERCOMMIT: "overcommit",
    k.GPU_UNKNOWN_ESCAPES: "unknown_escapes",
    k.INST_MEM_MAX: "mem",
    k.INST_CORE: "core",
    k.INST_CLASS: "class",
    k.INST_MANAGED: "managed",
    k.INST_DMABUF: "dmabuf",
    k.INST_CHANNELS_MAX: "channels",
    k.INST_RM_OBJECTS_MAX: "rm_objects",
    k.INST_SYSMEM_MAX: "sysmem",
    k.INST_MAPPED_MAX: "mapped",
}
# Instance knobs whose absence allows what they refuse: what refuse stops (for messages).
_REFUSES = {
    k.INST_MANAGED: "UVM managed memory",
    k.INST_DMABUF: "dma-buf exports",
}


def _mem_value(mem: int | None) -> str:
    return format_size(mem)


def _mem_of(inst: InstanceState) -> int | None:
    return None if inst.mem_unlimited else inst.mem_max


def resolve(policy: PolicyFile, state: State) -> list[tuple[GpuSpec, GpuState]]:
    """Each selected GPU with the entry that selects it; errors name the selector."""
    owner: dict[int, GpuSpec] = {}
    pairs: list[tuple[GpuSpec, GpuState]] = []
    known = ", ".join(f"{g.index} ({g.uuid or 'no uuid'})" for g in state.gpus) or "none"
    for spec in policy.gpus:
        matched = [g for g in state.gpus if spec.selector.matches(g.index, g.uuid)]
        if not matched and not spec.selector.is_all:
            raise PolicyError(
                f"{spec.path}.selector", f"{spec.selector} matches no GPU (GPUs: {known})"
            )
        for gpu in matched:
            if gpu.minor in owner:
                raise PolicyError(
                    f"{spec.path}.selector",
                    f"GPU {gpu.index} is already selected by {owner[gpu.minor].path}",
                )
            owner[gpu.minor] = spec
            pairs.append((spec, gpu))
    return pairs


def _desired(
    pairs: list[tuple[GpuSpec, GpuState]],
) -> dict[int, list[tuple[str, InstanceSpec]]]:
    """Expanded instance names per GPU minor, unique across the whole file."""
    where: dict[str, tuple[str, int]] = {}
    out: dict[int, list[tuple[str, InstanceSpec]]] = {}
    for spec, gpu in pairs:
        out[gpu.minor] = []
        for inst in spec.instances:
            name = inst.expand(gpu.index)
            if name in where:
                other_path, other_gpu = where[name]
                raise PolicyError(
                    f"{inst.path}.name",
                    f"{name!r} on GPU {gpu.index} is also {other_path} on GPU {other_gpu}; "
                    "names are unique across GPUs (use {gpu} in names of an 'all' entry)",
                )
            where[name] = (f"{inst.path}.name", gpu.index)
            out[gpu.minor].append((name, inst))
    return out


def _check_final(
    spec: GpuSpec, gpu: GpuState, wanted: list[tuple[str, InstanceSpec]], kept: list[InstanceState]
) -> None:
    policy = spec.policy or gpu.policy
    if policy in k.GUARANTEED_POLICIES:
        total = sum(i.core for _, i in wanted) + sum(i.core or 0 for i in kept)
        if total > k.CORE_MAX:
            extra = (
                f" (with unlisted {', '.join(i.name for i in kept)}; --prune deletes them)"
                if kept
                else ""
            )
            raise PolicyError(
                f"{spec.path}.instances",
                f"core guarantees on GPU {gpu.index} add up to {total}%{extra}; "
                f"{policy} allows at most 100%",
            )
    overcommit = spec.overcommit if spec.overcommit is not None else gpu.overcommit
    if not overcommit and gpu.memory is not None:
        total_mem = sum(gpu.memory if i.mem is None else i.mem for _, i in wanted)
        total_mem += sum(gpu.memory if _mem_of(i) is None else (_mem_of(i) or 0) for i in kept)
        if total_mem > gpu.memory:
            raise PolicyError(
                f"{spec.path}.instances",
                f"memory limits on GPU {gpu.index} add up to {format_size(total_mem)} "
                f"({total_mem} bytes) but it has {format_size(gpu.memory)}; lower them or set "
                "overcommit: true (a max limit counts as the whole GPU)",
            )


def make_plan(policy: PolicyFile, state: State, *, prune: bool = False) -> Plan:
    """The actions that make ``state`` match ``policy``; raises PolicyError if it cannot."""
    pairs = resolve(policy, state)
    desired = _desired(pairs)
    selected = {gpu.minor for _, gpu in pairs}
    plan = Plan()

    # Names that exist where the file does not put them.
    location = {inst.name: gpu for gpu, inst in state.instances}
    moves: set[str] = set()
    for _, gpu in pairs:
        for name, want in desired[gpu.minor]:
            current_gpu = location.get(name)
            if current_gpu is None or current_gpu.minor == gpu.minor:
                continue
            if current_gpu.minor not in selected:
                raise PolicyError(
                    f"{want.path}.name",
                    f"{name!r} already exists on GPU {current_gpu.index}, which this file does "
                    "not select; instance names are unique across GPUs",
                )
            if not prune:
                raise PolicyError(
                    f"{want.path}.name",
                    f"{name!r} exists on GPU {current_gpu.index}; moving it to GPU {gpu.index} "
                    "deletes and re-creates it: rerun with --prune",
                )
            moves.add(name)

    for spec, gpu in pairs:
        wanted = desired[gpu.minor]
        wanted_names = {name for name, _ in wanted}
        kept: list[InstanceState] = []
        for inst in gpu.instances:
            if inst.name in wanted_names:
                continue
            if inst.name in moves or prune:
                plan.actions.append(_delete(gpu, inst))
            else:
                kept.append(inst)
                plan.notes.append(
                    Note(gpu.index, inst.name, "not in the file; kept (apply --prune deletes it)")
                )
        _check_final(spec, gpu, wanted, kept)
        _gpu_knobs(spec, gpu, plan)
        for name, want in wanted:
            have = gpu.instance(name)
            if have is None:
                plan.actions.append(
                    Action(
                        Phase.CREATE,
                        gpu.minor,
                        gpu.index,
                        name,
                        config=InstanceConfig(
                            want.mem,
                            want.core,
                            want.klass,
                            want.managed,
                            want.dmabuf,
                            want.channels,
                            want.rm_objects,
                            want.sysmem,
                            want.mapped,
                        ),
                        source=want.path,
                    )
                )
            else:
                _instance_sets(gpu, have, want, plan)

    gpu_order = {gpu.minor: gpu.index for gpu in state.gpus}
    plan.actions.sort(key=lambda a: (a.phase, gpu_order.get(a.gpu_minor, 0), a.instance or ""))
    return plan


def _delete(gpu: GpuState, inst: InstanceState) -> Action:
    config = InstanceConfig(
        _mem_of(inst),
        inst.core or k.CORE_MIN,
        inst.klass or "online",
        # A module without the knobs allows both: re-created, the instance does so again.
        inst.managed_mode,
        inst.dmabuf_mode,
        inst.channels_bound,
        inst.rm_objects_bound,
        inst.sysmem_limit,
        inst.mapped_limit,
    )
    return Action(Phase.DELETE, gpu.minor, gpu.index, inst.name, config=config)


def _gpu_knobs(spec: GpuSpec, gpu: GpuState, plan: Plan) -> None:
    def knob(attr: str, have: str | None, want: str | None) -> None:
        if want is not None and have != want:
            plan.actions.append(
                Action(
                    Phase.GPU,
                    gpu.minor,
                    gpu.index,
                    None,
                    attr=attr,
                    old=have,
                    new=want,
                    source=f"{spec.path}.{_POLICY_KEYS[attr]}",
                )
            )

    def b(value: bool | None) -> str | None:
        return None if value is None else str(int(value))

    # The final sort is stable, so the knobs keep this order: overcommit first
    # (a GPU that starts overcommitting must do so before limits are raised).
    knob(k.GPU_OVERCOMMIT, b(gpu.overcommit), b(spec.overcommit))
    knob(k.GPU_POLICY, gpu.policy, spec.policy)
    knob(
        k.GPU_TIMESLICE,
        None if gpu.timeslice_us is None else str(gpu.timeslice_us),
        None if spec.timeslice_us is None else str(spec.timeslice_us),
    )
    knob(
        k.GPU_PERIOD,
        None if gpu.period_us is None else str(gpu.period_us),
        None if spec.period_us is None else str(spec.period_us),
    )
    knob(k.GPU_UNKNOWN_ESCAPES, gpu.unknown_escapes, spec.unknown_escapes)


def _instance_sets(gpu: GpuState, have: InstanceState, want: InstanceSpec, plan: Plan) -> None:
    def add(phase: Phase, attr: str, old: str | None, new: str) -> None:
        plan.actions.append(
            Action(
                phase,
                gpu.minor,
                gpu.index,
                have.name,
                attr=attr,
                old=old,
                new=new,
                source=f"{want.path}.{_POLICY_KEYS[attr]}",
            )
        )

    have_mem = _mem_of(have)
    if have.mem_max is not None or have.mem_unlimited:
        if have_mem != want.mem:
            lower = want.mem is not None and (have_mem is None or want.mem < have_mem)
            phase = Phase.DECREASE if lower else Phase.INCREASE
            add(phase, k.INST_MEM_MAX, _mem_value(have_mem), _mem_value(want.mem))
    else:
        add(Phase.INCREASE, k.INST_MEM_MAX, None, _mem_value(want.mem))
    if have.core != want.core:
        lower = have.core is not None and want.core < have.core
        phase = Phase.DECREASE if lower else Phase.INCREASE
        add(phase, k.INST_CORE, None if have.core is None else str(have.core), str(want.core))
    if have.klass != want.klass:
        add(Phase.INCREASE, k.INST_CLASS, have.klass, want.klass)
    # A module without one of these knobs never refuses: its mode is allow (InstanceState).
    for attr, have_value, have_mode, want_value in (
        (k.INST_MANAGED, have.managed, have.managed_mode, want.managed),
        (k.INST_DMABUF, have.dmabuf, have.dmabuf_mode, want.dmabuf),
    ):
        if have_mode != want_value:
            add(Phase.INCREASE, attr, have_value, want_value)
    # A module without the knob bounds nothing: its bound is max (InstanceState).
    for attr, have_value, have_bound, want_bound in (
        (k.INST_CHANNELS_MAX, have.channels_max, have.channels_bound, want.channels),
        (k.INST_RM_OBJECTS_MAX, have.rm_objects_max, have.rm_objects_bound, want.rm_objects),
    ):
        if have_bound != want_bound:
            phase = Phase.DECREASE if _bound_lower(have_bound, want_bound) else Phase.INCREASE
            add(phase, attr, have_value, want_bound)
    # A module without the knob limits nothing: its limit is max (InstanceState).
    for attr, have_text, have_size, want_size in (
        (k.INST_SYSMEM_MAX, have.sysmem_text, have.sysmem_limit, want.sysmem),
        (k.INST_MAPPED_MAX, have.mapped_text, have.mapped_limit, want.mapped),
    ):
        if have_size != want_size:
            lower = want_size is not None and (have_size is None or want_size < have_size)
            phase = Phase.DECREASE if lower else Phase.INCREASE
            add(phase, attr, have_text, _mem_value(want_size))


def _bound_lower(have: str, want: str) -> bool:
    """Whether bound ``want`` is below ``have`` (``max`` is above every count)."""
    return want != k.UNBOUNDED and (have == k.UNBOUNDED or int(want) < int(have))


def check_settable(plan: Plan, state: State) -> None:
    """Raise PolicyError if the plan writes a knob this module lacks or cannot change.

    Called before anything is written: a file asking for ``policy`` on a module
    without compute scheduling, or for a new ``mem`` of a running instance while
    ``mem_max`` is read-only, is refused as a whole rather than half applied.
    """
    gpus = {gpu.minor: gpu for gpu in state.gpus}
    for action in plan.actions:
        gpu = gpus[action.gpu_minor]
        if action.phase is Phase.CREATE:
            _check_create_settable(action, gpu, state)
            continue
        if action.attr is None or action.phase is Phase.DELETE:
            continue
        later = _arrives_with(action.attr)
        where = action.source or action.attr
        if action.instance is None:
            if action.attr not in gpu.settable:
                raise PolicyError(
                    where,
                    f"the qgpu module has no writable {action.attr!r} knob on GPU "
                    f"{gpu.index}{later}; leave the key out",
                )
            continue
        inst = gpu.instance(action.instance)
        if inst is not None and action.attr not in inst.settable and action.old is None:
            # The module lacks the knob altogether: re-creating the instance would not help.
            refuses = _REFUSES.get(action.attr)
            lacks = f"the qgpu module has no {action.attr!r} knob on {action.instance}{later}"
            if refuses is None:
                raise PolicyError(where, f"{lacks}, so it cannot be set to {action.new}")
            raise PolicyError(
                where,
                f"{lacks}, so it cannot refuse {refuses}, which it allows; "
                + refuse_remedy(f"write {_POLICY_KEYS[action.attr]}: allow for it"),
            )
        if inst is not None and action.attr not in inst.settable:
            raise PolicyError(
                where,
                f"{action.instance} has {action.attr} {action.old or '-'}, the file wants "
                f"{action.new}, and the qgpu module cannot change it on a running instance"
                f"{later}; delete {action.instance} (qgpuctl delete) and apply again to "
                "re-create it",
            )


def _arrives_with(attr: str) -> str:
    feature = k.ARRIVES_WITH.get(attr)
    return f" (it arrives with {feature})" if feature else ""


def refuse_remedy(allow: str) -> str:
    """What resolves a ``refuse`` the module cannot honour; ``allow`` says how to ask for allow."""
    return f"{allow}, or load a qgpu module that has the knob"


def no_dmabuf_key(where: str = "") -> str:
    """Why a module whose ``create`` lacks ``dmabuf=`` cannot make an instance that refuses.

    The knob and the key arrived together: such a module forwards every dma-buf export.
    """
    return (
        f"the qgpu module{where} cannot refuse dma-buf exports: its create takes no "
        f"{k.INST_DMABUF!r} key{_arrives_with(k.INST_DMABUF)}, and it forwards them"
    )


def no_channels_key(where: str = "") -> str:
    """Why a module whose ``create`` lacks ``channels=`` cannot make a bounded instance.

    The knob and the key arrived together: such a module bounds no instance's channels.
    """
    return (
        f"the qgpu module{where} cannot bound channels: its create takes no "
        f"{k.CHANNELS_CREATE_KEY!r} key{_arrives_with(k.INST_CHANNELS_MAX)}"
    )


def no_rm_objects_key(where: str = "") -> str:
    """Why a module whose ``create`` lacks ``rm_objects=`` cannot make a bounded instance.

    The knob and the key arrived together: such a module bounds no instance's RM objects.
    """
    return (
        f"the qgpu module{where} cannot bound RM objects: its create takes no "
        f"{k.RM_OBJECTS_CREATE_KEY!r} key{_arrives_with(k.INST_RM_OBJECTS_MAX)}"
    )


def no_sysmem_key(where: str = "") -> str:
    """Why a module whose ``create`` lacks ``sysmem=`` cannot make a limited instance.

    The knob and the key arrived together: such a module charges no system memory.
    """
    return (
        f"the qgpu module{where} cannot limit system memory: its create takes no "
        f"{k.SYSMEM_CREATE_KEY!r} key{_arrives_with(k.INST_SYSMEM_MAX)}"
    )


def no_mapped_key(where: str = "") -> str:
    """Why a module whose ``create`` lacks ``mapped=`` cannot make a bounded instance.

    The knob and the key arrived together: such a module bounds no instance's GPU mappings.
    """
    return (
        f"the qgpu module{where} cannot bound GPU mappings: its create takes no "
        f"{k.MAPPED_CREATE_KEY!r} key{_arrives_with(k.INST_MAPPED_MAX)}"
    )


@dataclass(frozen=True, slots=True)
class CreateProblem:
    """A knob value the module cannot create an instance with; it would allow instead."""

    attr: str  # the instance knob (for managed and dmabuf also its create key)
    value: str  # what was asked for
    reason: str  # for people, one clause
    remedy: str = ""  # what resolves it; empty: ask for allow, or load a module with the knob


def create_problem(state: State, gpu: GpuState, config: InstanceConfig) -> CreateProblem | None:
    """Why this module cannot create an instance with ``config`` on ``gpu``, told first.

    An older module's ``create`` has no key for ``managed``: a new instance that refuses
    managed memory gets it by a write after create, which needs the knob writable. Judged
    from the instances that exist; with none, the write after create decides (and is undone).
    A module that takes ``managed=`` in its create line has the knob too.

    ``dmabuf`` has no write after create: a module whose ``create_keys`` does not list it
    lacks the knob and forwards every export, so it cannot make an instance that refuses.
    """
    if (
        config.managed != k.MANAGED_DEFAULT
        and state.instance_knob_settable(k.INST_MANAGED) is False
    ):
        reason = (
            f"the qgpu module has no writable {k.INST_MANAGED!r} knob on its instances"
            f"{_arrives_with(k.INST_MANAGED)}"
        )
        return CreateProblem(k.INST_MANAGED, config.managed, reason)
    if config.dmabuf != k.WITHOUT_KNOB and not gpu.create_takes(k.INST_DMABUF):
        return CreateProblem(k.INST_DMABUF, config.dmabuf, no_dmabuf_key(f" on {gpu.label}"))
    if config.channels != k.CHANNELS_DEFAULT and not gpu.create_takes(k.CHANNELS_CREATE_KEY):
        reason = no_channels_key(f" on {gpu.label}")
        return CreateProblem(k.INST_CHANNELS_MAX, config.channels, reason, "leave channels out")
    if config.rm_objects != k.RM_OBJECTS_DEFAULT and not gpu.create_takes(k.RM_OBJECTS_CREATE_KEY):
        reason = no_rm_objects_key(f" on {gpu.label}")
        return CreateProblem(
            k.INST_RM_OBJECTS_MAX, config.rm_objects, reason, "leave rm_objects out"
        )
    if config.sysmem is not None and not gpu.create_takes(k.SYSMEM_CREATE_KEY):
        reason = no_sysmem_key(f" on {gpu.label}")
        return CreateProblem(
            k.INST_SYSMEM_MAX, format_size(config.sysmem), reason, "leave sysmem out"
        )
    if config.mapped is not None and not gpu.create_takes(k.MAPPED_CREATE_KEY):
        reason = no_mapped_key(f" on {gpu.label}")
        return CreateProblem(
            k.INST_MAPPED_MAX, format_size(config.mapped), reason, "leave mapped out"
        )
    return None


def _check_create_settable(action: Action, gpu: GpuState, state: State) -> None:
    if action.config is None:
        return
    problem = create_problem(state, gpu, action.config)
    if problem is not None:
        key = _POLICY_KEYS[problem.attr]
        remedy = refuse_remedy(
            f"{problem.remedy} of the file" if problem.remedy else f"write {key}: allow for it"
        )
        raise PolicyError(
            f"{action.source}.{key}" if action.source else key,
            f"{problem.reason}, so {action.instance} cannot be created with {key} "
            f"{problem.value}; {remedy}",
        )
