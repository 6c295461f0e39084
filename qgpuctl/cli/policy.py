"""``qgpuctl policy show|set``: a GPU's compute-sharing policy."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from qgpuctl.backends import schema as k
from qgpuctl.cli.common import Policy
from qgpuctl.cli.context import app_context
from qgpuctl.cli.options import OutputOverride
from qgpuctl.core.state import GpuState, resolve_gpu
from qgpuctl.errors import KernelInterfaceError, QgpuError, UsageError
from qgpuctl.render import OutputFormat, render_table

app = typer.Typer(
    help="Show or set a GPU's sharing policy (best-effort, fixed-share, burst-share).",
    no_args_is_help=True,
)

COLUMNS = (
    "gpu",
    "policy",
    "timeslice_us",
    "period_us",
    "overcommit",
    "unknown_escapes",
    "core_guaranteed",
)


def _row(gpu: GpuState, table: bool) -> dict[str, Any]:
    return {
        "gpu": gpu.index,
        "policy": gpu.policy,
        "timeslice_us": gpu.timeslice_us,
        "period_us": gpu.period_us,
        "overcommit": gpu.overcommit,
        "unknown_escapes": gpu.unknown_escapes,
        "core_guaranteed": f"{gpu.core_used}%" if table else gpu.core_used,
    }


@app.command("show")
def show(
    ctx: typer.Context,
    gpu: Annotated[str | None, typer.Argument(help="GPU index or UUID; default all.")] = None,
    output: OutputOverride = None,
) -> None:
    """The policy and scheduling knobs of one or all GPUs."""
    ctx_app = app_context(ctx)
    fmt = ctx_app.fmt(output)
    state = ctx_app.state()
    gpus = [resolve_gpu(state, gpu)] if gpu is not None else list(state.gpus)
    render_table([_row(g, fmt is OutputFormat.TABLE) for g in gpus], COLUMNS, fmt, sys.stdout)


@app.command("set")
def set_(
    ctx: typer.Context,
    gpu: Annotated[str, typer.Argument(help="GPU index or UUID.")],
    policy: Annotated[Policy, typer.Argument(help="best-effort, fixed-share or burst-share.")],
    timeslice_us: Annotated[
        int | None,
        typer.Option("--timeslice-us", min=1, help="Scheduling time slice in microseconds."),
    ] = None,
    period_us: Annotated[
        int | None,
        typer.Option(
            "--period-us",
            min=k.PERIOD_MIN_US,
            max=k.PERIOD_MAX_US,
            help="Scheduling period in microseconds (default 10000): each instance's share of it, "
            "and the longest a waking instance waits for a window. Longer periods switch less "
            "often: on a real GPU each switch costs 1-2 ms of the controls' latency.",
        ),
    ] = None,
    output: OutputOverride = None,
) -> None:
    """Set a GPU's policy (and time slice, period) live; all or nothing.

    fixed-share and burst-share need the guarantees on the GPU to add up to 100% or less.
    """
    ctx_app = app_context(ctx)
    state = ctx_app.state()
    target = resolve_gpu(state, gpu)
    if policy.value in k.GUARANTEED_POLICIES and target.core_used > k.CORE_MAX:
        raise UsageError(
            f"GPU {target.index}: core guarantees add up to {target.core_used}%; "
            f"{policy.value} allows at most 100% (lower them with qgpuctl set NAME --core)"
        )
    wanted = [(k.GPU_POLICY, policy.value)]
    if timeslice_us is not None:
        wanted.append((k.GPU_TIMESLICE, str(timeslice_us)))
    if period_us is not None:
        wanted.append((k.GPU_PERIOD, str(period_us)))
    for attr, value in wanted:
        if attr not in target.settable:
            feature = k.ARRIVES_WITH.get(attr)
            raise KernelInterfaceError(
                ctx_app.sysfs.path(k.gpu_dir(target.minor), attr),
                value,
                None,
                detail="the qgpu module has no writable knob for it"
                + (f" (it arrives with {feature})" if feature else "")
                + "; nothing was changed",
            )
    ctl = ctx_app.control()
    try:
        if target.policy != policy.value:
            ctl.write_gpu(target.minor, k.GPU_POLICY, policy.value)
        if timeslice_us is not None and target.timeslice_us != timeslice_us:
            ctl.write_gpu(target.minor, k.GPU_TIMESLICE, str(timeslice_us))
        if period_us is not None and target.period_us != period_us:
            ctl.write_gpu(target.minor, k.GPU_PERIOD, str(period_us))
    except QgpuError:
        ctl.rollback_writes()
        raise
    ctl.commit()
    fmt = ctx_app.fmt(output)
    fresh = resolve_gpu(ctx_app.state(), str(target.index))
    render_table([_row(fresh, fmt is OutputFormat.TABLE)], COLUMNS, fmt, sys.stdout)
