"""``qgpuctl doctor``: is there a qgpu module and an NVIDIA driver to drive?"""

from __future__ import annotations

import sys

import typer

from qgpuctl.cli.context import app_context
from qgpuctl.cli.options import OutputOverride
from qgpuctl.core.doctor import run_checks
from qgpuctl.errors import EXIT_KERNEL
from qgpuctl.render import print_error, render_table

COLUMNS = ("check", "status", "detail")


def doctor(ctx: typer.Context, output: OutputOverride = None) -> None:
    """Check that the qgpu kernel module and the NVIDIA driver nodes are present.

    Exits 3 when a check fails, so scripts and units can gate on it.
    """
    app = app_context(ctx)
    checks = run_checks(app.sysfs, app.dev)
    rows = [{"check": c.name, "status": c.status, "detail": c.detail} for c in checks]
    render_table(rows, COLUMNS, output or app.output, sys.stdout)
    failed = [c for c in checks if not c.ok]
    if failed:
        print_error(f"{len(failed)} of {len(checks)} checks failed", sys.stderr)
        raise typer.Exit(EXIT_KERNEL)
