"""The ``qgpuctl`` command: global options, the AppContext, and the command table."""

from __future__ import annotations

from typing import Annotated

import typer

import qgpuctl
from qgpuctl.cli import cdi as cdi_cmd
from qgpuctl.cli import declarative, instances, monitor
from qgpuctl.cli import doctor as doctor_cmd
from qgpuctl.cli import policy as policy_cmd
from qgpuctl.cli.context import AppContext
from qgpuctl.cli.group import QgpuGroup
from qgpuctl.cli.options import OUTPUT_HELP
from qgpuctl.render import OutputFormat

app = typer.Typer(
    name="qgpuctl",
    cls=QgpuGroup,
    help="Control plane for qgpu: share one NVIDIA GPU among containers.",
    pretty_exceptions_show_locals=False,
    no_args_is_help=True,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"qgpuctl {qgpuctl.__version__}")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    output: Annotated[
        OutputFormat,
        typer.Option(
            "-o", "--output", envvar="QGPU_OUTPUT", help=OUTPUT_HELP, case_sensitive=False
        ),
    ] = OutputFormat.TABLE,
    debug: Annotated[
        bool,
        typer.Option("--debug", envvar="QGPU_DEBUG", help="Show a traceback with errors."),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Control plane for qgpu: share one NVIDIA GPU among containers."""
    if isinstance(ctx.obj, AppContext):
        # Injected by a caller (tests) with its own backends; keep them.
        ctx.obj.output = output
        ctx.obj.debug = debug
    else:
        ctx.obj = AppContext(output=output, debug=debug)


# The command table, in the order `--help` lists them: inventory, instances,
# the declarative path, watching, integration, diagnosis.
app.command("gpus")(instances.gpus)
app.command("create")(instances.create)
app.command("list")(instances.list_)
app.command("show")(instances.show)
app.command("set")(instances.set_)
app.command("delete")(instances.delete)
app.add_typer(policy_cmd.app, name="policy")
app.command("apply")(declarative.apply)
app.command("assert")(declarative.assert_)
app.command("export")(declarative.export)
app.command("validate")(declarative.validate)
app.command("status")(monitor.status)
app.command("top")(monitor.top)
app.command("events")(monitor.events)
app.add_typer(cdi_cmd.app, name="cdi")
app.command("doctor")(doctor_cmd.doctor)


def main() -> None:
    """Console-script entry point; errors are mapped to exit codes by QgpuGroup."""
    app(prog_name="qgpuctl")
