"""Watching: status (one snapshot), top (live), events (the kernel's event stream)."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated, Any

import typer

from qgpuctl.backends.events import QgpuEvent
from qgpuctl.cli.common import held_of_bound, human_size
from qgpuctl.cli.context import app_context
from qgpuctl.cli.options import OutputOverride
from qgpuctl.core.state import State
from qgpuctl.core.units import format_size
from qgpuctl.render import OutputFormat, console_for, render_sections
from qgpuctl.render.output import sections_renderable

GPU_COLUMNS = ("gpu", "policy", "util", "instances", "mem_committed", "memory")
INSTANCE_COLUMNS = (
    "name",
    "gpu",
    "class",
    "mem",
    "channels",
    "share",
    "preempt",
    "oom",
    "processes",
)


def _pct(value: float | int | None) -> str:
    return "-" if value is None else f"{value:g}%"


Section = tuple[str, list[dict[str, Any]], tuple[str, ...]]


def status_sections(state: State) -> tuple[list[Section], dict[str, Any]]:
    gpu_rows = []
    gpu_data = []
    for gpu in state.gpus:
        gpu_rows.append(
            {
                "gpu": gpu.index,
                "policy": gpu.policy,
                "util": _pct(gpu.utilization),
                "instances": len(gpu.instances),
                "mem_committed": human_size(gpu.mem_committed),
                "memory": human_size(gpu.memory),
            }
        )
        gpu_data.append(
            {
                "gpu": gpu.index,
                "uuid": gpu.uuid,
                "policy": gpu.policy,
                "utilization": gpu.utilization,
                "instances": len(gpu.instances),
                "mem_committed": gpu.mem_committed,
                "memory": gpu.memory,
                "core_guaranteed": gpu.core_used,
            }
        )
    inst_rows = []
    inst_data = []
    for gpu, inst in state.instances:
        procs = " ".join(f"{p.pid}:{p.comm}" for p in inst.processes)
        inst_rows.append(
            {
                "name": inst.name,
                "gpu": gpu.index,
                "class": inst.klass,
                "mem": f"{human_size(inst.mem_current) or '-'}/{inst.mem_text or '-'}",
                # an older module without the knob: none shown
                "channels": held_of_bound(inst.channels, inst.channels_max, "/"),
                "share": f"{_pct(inst.share)}/{_pct(inst.core)}",
                "preempt": inst.preemptions,
                "oom": inst.events,
                "processes": procs or None,
            }
        )
        inst_data.append(
            {
                "name": inst.name,
                "gpu": gpu.index,
                "class": inst.klass,
                "mem_current": inst.mem_current,
                "mem_max": None if inst.mem_unlimited else inst.mem_max,
                "channels": inst.channels,
                "channels_max": inst.channels_max,
                "rm_objects": inst.rm_objects,
                "rm_objects_max": inst.rm_objects_max,
                "sysmem_current": inst.sysmem_current,
                "sysmem_max": inst.sysmem_limit,
                "mapped_current": inst.mapped_current,
                "mapped_max": inst.mapped_limit,
                "share_target": inst.core,
                "share_achieved": inst.share,
                "preemptions": inst.preemptions,
                "throttled_ns": inst.throttled_ns,
                "oom_events": inst.events,
                "processes": [{"pid": p.pid, "comm": p.comm} for p in inst.processes],
            }
        )
    sections: list[Section] = [
        ("GPUs", gpu_rows, GPU_COLUMNS),
        (
            "Instances (mem and channels used/limit, share achieved/guaranteed)",
            inst_rows,
            INSTANCE_COLUMNS,
        ),
    ]
    return sections, {"gpus": gpu_data, "instances": inst_data}


def status(ctx: typer.Context, output: OutputOverride = None) -> None:
    """Per instance memory used/limit, share, class, processes; per GPU utilization."""
    app = app_context(ctx)
    sections, data = status_sections(app.state())
    render_sections(sections, data, app.fmt(output), sys.stdout)


def top(
    ctx: typer.Context,
    interval: Annotated[
        float, typer.Option("--interval", min=0.1, help="Seconds between refreshes.")
    ] = 1.0,
    iterations: Annotated[
        int, typer.Option("--iterations", min=0, help="Stop after N refreshes (0: until Ctrl-C).")
    ] = 0,
) -> None:
    """`status`, refreshed live until Ctrl-C."""
    from rich.live import Live

    app = app_context(ctx)
    console = console_for(sys.stdout)

    def frame() -> Any:
        sections, _ = status_sections(app.state())
        return sections_renderable(sections)

    n = 0
    try:
        with Live(frame(), console=console, auto_refresh=False, transient=False) as live:
            while True:
                n += 1
                if iterations and n >= iterations:
                    break
                time.sleep(interval)
                live.update(frame(), refresh=True)
    except KeyboardInterrupt:
        pass


def _event_line(event: QgpuEvent) -> str:
    parts = [
        f"{event.timestamp_ns / 1e9:.6f}" if event.timestamp_ns is not None else "-",
        f"{event.event:<15}",
        f"gpu={event.gpu if event.gpu is not None else '-'}",
    ]
    if event.instance is not None:
        parts.append(f"instance={event.instance}")
    if event.pid is not None:
        parts.append(f"pid={event.pid}")
    if event.size is not None:
        parts.append(f"size={format_size(event.size)}")
    if event.detail:
        parts.append(f"detail={event.detail!r}")
    return " ".join(parts)


def events(
    ctx: typer.Context,
    count: Annotated[
        int, typer.Option("--count", min=0, help="Stop after N events (0: never).")
    ] = 0,
    instance: Annotated[
        str | None,
        typer.Option("--instance", help="Only events of this instance.", show_default=False),
    ] = None,
    output: OutputOverride = None,
) -> None:
    """Follow the kernel's events: OOM and knob refusals, preemptions, lifecycle, policy changes.

    One line per event; -o json prints JSON Lines, -o yaml one document per event.
    """
    app = app_context(ctx)
    fmt = app.fmt(output)
    source = app.events()
    seen = 0
    try:
        for event in source.events():
            if instance is not None and event.instance != instance:
                continue
            if fmt is OutputFormat.JSON:
                sys.stdout.write(json.dumps(event.to_data()) + "\n")
            elif fmt is OutputFormat.YAML:
                import yaml  # here, not at the top: see qgpuctl.render.output

                sys.stdout.write("---\n" + yaml.safe_dump(event.to_data(), sort_keys=False))
            else:
                sys.stdout.write(_event_line(event) + "\n")
            sys.stdout.flush()
            seen += 1
            if count and seen >= count:
                break
    except KeyboardInterrupt:
        pass
    finally:
        source.close()
