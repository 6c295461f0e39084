"""Carry out a plan, and put everything back if a step fails.

The undo of each phase of :mod:`qgpuctl.core.plan`:

* ``create``: remove the instance (nothing can use it yet: its nodes were
  created moments ago);
* ``set``: write the value the knob had before (the sysfs gateway remembers
  the original of every knob it writes and restores them newest first);
* ``delete``: create the instance again with the mem/core/class/managed/dmabuf it had.
  ``apply`` never forces a removal, and the kernel refuses to remove an
  instance with open files (EBUSY), so nothing was using a deleted instance
  and re-creating it restores everything that mattered about it.

Undo runs in the reverse order of the steps: remove what was created, restore
knobs, then re-create what was deleted. If the undo itself fails somewhere the
system is between the two states, and that (only that) is a PartialApplyError,
exit 4; a failure that was fully rolled back exits with its own code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from qgpuctl.core.plan import Action, InstanceConfig, Phase, Plan
from qgpuctl.errors import ApplyFailed, PartialApplyError, QgpuError


class KernelControl(Protocol):
    """The writes qgpuctl makes; backends.qgpufs.QgpuControl is the real one."""

    def create(self, minor: int, name: str, config: InstanceConfig) -> None: ...
    def remove(self, minor: int, name: str, *, force: bool = False) -> None: ...
    def write_gpu(self, minor: int, attr: str, value: str) -> None: ...
    def write_instance(self, minor: int, name: str, attr: str, value: str) -> None: ...
    def rollback_writes(self) -> None: ...
    def commit(self) -> None: ...


def run_action(ctl: KernelControl, action: Action) -> None:
    if action.phase is Phase.CREATE:
        assert action.instance is not None and action.config is not None
        ctl.create(action.gpu_minor, action.instance, action.config)
    elif action.phase is Phase.DELETE:
        assert action.instance is not None
        ctl.remove(action.gpu_minor, action.instance)
    elif action.instance is None:
        assert action.attr is not None and action.new is not None
        ctl.write_gpu(action.gpu_minor, action.attr, action.new)
    else:
        assert action.attr is not None and action.new is not None
        ctl.write_instance(action.gpu_minor, action.instance, action.attr, action.new)


def execute(
    plan: Plan,
    ctl: KernelControl,
    progress: Callable[[int, Action], None] | None = None,
) -> None:
    """Run every action in order; on a failure undo the done ones, then raise."""
    created: list[Action] = []
    deleted: list[Action] = []
    total = len(plan.actions)
    for step, action in enumerate(plan.actions, 1):
        try:
            run_action(ctl, action)
        except QgpuError as exc:
            failures = undo(ctl, created, deleted)
            if isinstance(exc, PartialApplyError):  # the step itself left something behind
                failures.insert(0, str(exc))
            what = f"step {step} of {total} ({action.describe()}) failed: {exc}"
            if failures:
                raise PartialApplyError(
                    f"{what}; rollback incomplete, the GPUs are between the old and the new "
                    f"state: {'; '.join(failures)}"
                ) from exc
            raise ApplyFailed(f"{what}; every change was rolled back", exc) from exc
        if action.phase is Phase.CREATE:
            created.append(action)
        elif action.phase is Phase.DELETE:
            deleted.append(action)
        if progress is not None:
            progress(step, action)
    ctl.commit()


def undo(ctl: KernelControl, created: list[Action], deleted: list[Action]) -> list[str]:
    """Reverse the steps done so far; returns what could not be undone (empty = all)."""
    failures: list[str] = []
    for action in reversed(created):
        assert action.instance is not None
        try:
            ctl.remove(action.gpu_minor, action.instance)
        except QgpuError as exc:
            failures.append(f"removing {action.instance}: {exc}")
    try:
        ctl.rollback_writes()
    except QgpuError as exc:
        failures.append(str(exc))
    for action in reversed(deleted):
        assert action.instance is not None and action.config is not None
        try:
            ctl.create(action.gpu_minor, action.instance, action.config)
        except QgpuError as exc:
            failures.append(f"re-creating {action.instance}: {exc}")
    return failures
