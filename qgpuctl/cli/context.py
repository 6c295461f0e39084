"""What every command receives: global options and the backends to talk through.

Built once in the app callback. Tests can pass a ready AppContext as the
runner's ``obj`` to inject fake backends; the callback then only updates the
global options on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import typer

from qgpuctl.backends.devfs import DevTree
from qgpuctl.backends.sysfs import SysfsTree
from qgpuctl.render import OutputFormat


@dataclass(slots=True)
class AppContext:
    output: OutputFormat = OutputFormat.TABLE
    debug: bool = False
    sysfs: SysfsTree = field(default_factory=SysfsTree.from_env)
    dev: DevTree = field(default_factory=DevTree.from_env)


def app_context(ctx: typer.Context) -> AppContext:
    """The AppContext of the running invocation (the root callback always sets one)."""
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):  # pragma: no cover - only if the callback was bypassed
        raise RuntimeError("qgpuctl: command invoked without the app callback")
    return obj
