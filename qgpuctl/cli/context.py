"""What every command receives: global options and the backends to talk through.

Built once in the app callback. Tests can pass a ready AppContext as the
runner's ``obj`` to inject fake backends; the callback then only updates the
global options on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import typer

from qgpuctl.backends.devfs import DevTree
from qgpuctl.backends.events import EventSource
from qgpuctl.backends.files import HostFiles
from qgpuctl.backends.nvml import NvmlGpu, inventory
from qgpuctl.backends.qgpufs import QgpuControl
from qgpuctl.backends.sysfs import SysfsTree
from qgpuctl.backends.udev import UdevWaiter
from qgpuctl.core.state import State, read_state
from qgpuctl.render import OutputFormat


def _open_events() -> EventSource:
    # Imported here: pyroute2 is slow to import and only `qgpuctl events` needs it.
    from qgpuctl.backends.netlink import QgpuEventSocket

    return QgpuEventSocket()


@dataclass(slots=True)
class AppContext:
    output: OutputFormat = OutputFormat.TABLE
    debug: bool = False
    sysfs: SysfsTree = field(default_factory=SysfsTree.from_env)
    dev: DevTree = field(default_factory=DevTree.from_env)
    host: HostFiles = field(default_factory=HostFiles.from_env)
    nvml: Callable[[], dict[str, NvmlGpu] | None] = inventory
    events: Callable[[], EventSource] = _open_events
    waiter: Callable[[], UdevWaiter] = UdevWaiter

    def state(self) -> State:
        """The kernel's state right now (qgpuctl keeps none of its own)."""
        return read_state(self.sysfs)

    def control(self) -> QgpuControl:
        return QgpuControl(self.sysfs)

    def fmt(self, override: OutputFormat | None) -> OutputFormat:
        return override or self.output


def app_context(ctx: typer.Context) -> AppContext:
    """The AppContext of the running invocation (the root callback always sets one)."""
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):  # pragma: no cover - only if the callback was bypassed
        raise RuntimeError("qgpuctl: command invoked without the app callback")
    return obj
