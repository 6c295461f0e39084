"""``qgpuctl cdi generate``: a CDI spec with one device per instance (nvidia-ctk's habit)."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from qgpuctl.backends.files import write_atomic
from qgpuctl.cli.context import AppContext, app_context
from qgpuctl.core.cdi import device_for, make_spec, valid_device_name
from qgpuctl.render import OutputFormat, print_error

app = typer.Typer(help="Container Device Interface specs for the instances.", no_args_is_help=True)


class CdiFormat(StrEnum):
    JSON = "json"
    YAML = "yaml"


def spec_text(spec: dict[str, Any], fmt: CdiFormat) -> str:
    if fmt is CdiFormat.JSON:
        return json.dumps(spec, indent=2) + "\n"
    import yaml  # here, not at the top: see qgpuctl.render.output

    return yaml.safe_dump(spec, sort_keys=False, default_flow_style=False)


def current_spec(app: AppContext, *, warn: bool = False) -> dict[str, Any]:
    """The spec for the instances that exist now (names CDI cannot carry are skipped)."""
    devices = []
    for _, inst in app.state().instances:
        if not valid_device_name(inst.name):
            if warn:
                print_error(
                    f"warning: instance {inst.name!r} is not a valid CDI device name; skipped",
                    sys.stderr,
                )
            continue
        devices.append(device_for(inst.name, str(app.dev.root)))
    return make_spec(devices)


def _format_for(file: Path | None, requested: CdiFormat | None, default: OutputFormat) -> CdiFormat:
    by_ext = None
    if file is not None:
        by_ext = {".json": CdiFormat.JSON, ".yaml": CdiFormat.YAML, ".yml": CdiFormat.YAML}.get(
            file.suffix.lower()
        )
    if requested is not None:
        if by_ext is not None and by_ext is not requested:
            print_error(
                f"warning: writing {requested.value} to {file}, whose name says {by_ext.value}",
                sys.stderr,
            )
        return requested
    if by_ext is not None:
        return by_ext
    if default is OutputFormat.JSON:
        return CdiFormat.JSON
    return CdiFormat.YAML


@app.command("generate")
def generate(
    ctx: typer.Context,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file",
            help="Write the spec here atomically (e.g. /etc/cdi/qgpu.yaml) instead of stdout.",
            show_default=False,
        ),
    ] = None,
    output: Annotated[
        CdiFormat | None,
        typer.Option(
            "-o",
            "--output",
            help="json or yaml; default from --file's extension, else yaml.",
            case_sensitive=False,
            show_default=False,
        ),
    ] = None,
) -> None:
    """A CDI spec (kind qgpu.io/vgpu), one device per instance.

    Each device maps /dev/qgpu/NAME/* to /dev/nvidiactl, /dev/nvidia0 and
    /dev/nvidia-uvm in the container: `podman run --device qgpu.io/vgpu=NAME`.
    """
    ctx_app = app_context(ctx)
    fmt = _format_for(file, output, ctx_app.output)
    spec = current_spec(ctx_app, warn=True)
    text = spec_text(spec, fmt)
    if file is None:
        sys.stdout.write(text)
        if not spec["devices"]:
            print_error("warning: no instances; the spec lists no devices", sys.stderr)
        return
    if not spec["devices"]:
        if file.exists():
            file.unlink()
            typer.echo(f"no instances: removed {file}")
        else:
            typer.echo(f"no instances: nothing written to {file}")
        return
    write_atomic(file, text)
    typer.echo(f"wrote {file}: {len(spec['devices'])} devices of kind {spec['kind']}")
