"""``qgpuctl doctor``: the preflight report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from qgpuctl.backends import schema as k
from qgpuctl.cli.cdi import current_spec
from qgpuctl.cli.context import app_context
from qgpuctl.cli.options import OutputOverride
from qgpuctl.core.doctor import (
    check_cdi,
    check_channels,
    check_control_cost,
    check_driver,
    check_gpus,
    check_instance_nodes,
    check_isolation,
    check_kernel_client,
    check_numa,
    check_progress,
    check_seal,
    check_sysmem,
    check_udev_rules,
    run_checks,
)
from qgpuctl.core.state import State
from qgpuctl.errors import EXIT_KERNEL, QgpuError
from qgpuctl.render import print_error, render_table

COLUMNS = ("check", "status", "detail")


def _load_specs(paths: list[Path]) -> list[tuple[Path, Any]]:
    import yaml  # here, not at the top: see qgpuctl.render.output

    specs: list[tuple[Path, Any]] = []
    for path in paths:
        try:
            specs.append((path, yaml.safe_load(path.read_text(encoding="utf-8"))))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            specs.append((path, None))
    return specs


def _read_status(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def doctor(ctx: typer.Context, output: OutputOverride = None) -> None:
    """Check the module, the driver, channel progress, what the scheduler's control calls cost,
    its kernel RM client, sealed forwarding, udev rules, instance nodes, dma-buf exports and the
    CDI spec.

    Exits 3 when a check fails, so scripts and units can gate on it; warnings do not fail.
    """
    app = app_context(ctx)
    checks = run_checks(app.sysfs, app.dev)
    state: State | None = None
    error: str | None = None
    try:
        state = app.state()
    except QgpuError as exc:
        error = str(exc)
    specs = _load_specs(app.host.files_in(k.CDI_DIRS, (".json", ".yaml", ".yml")))
    checks += [
        check_gpus(state, error),
        check_driver(state),
        check_progress(state),
        check_control_cost(state),
        check_numa(state),
        check_kernel_client(_read_status(app.host.path(k.PROC_STATUS))),
        check_seal(_read_status(app.host.path(k.PROC_STATUS))),
        check_udev_rules(lambda: app.host.find(k.UDEV_RULES_DIRS, k.UDEV_RULES_NAME)),
        check_instance_nodes(state, app.dev),
        check_isolation(state),
        check_channels(state),
        check_sysmem(state),
        check_cdi(state, specs, lambda: current_spec(app)),
    ]
    rows = [{"check": c.name, "status": c.status, "detail": c.detail} for c in checks]
    render_table(rows, COLUMNS, output or app.output, sys.stdout)
    failed = [c for c in checks if not c.ok]
    if failed:
        print_error(f"{len(failed)} of {len(checks)} checks failed", sys.stderr)
        raise typer.Exit(EXIT_KERNEL)
