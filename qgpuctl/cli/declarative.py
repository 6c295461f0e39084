"""The declarative path, after NVIDIA mig-parted: apply, assert, export, validate."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from qgpuctl.cli.common import read_text_arg
from qgpuctl.cli.context import app_context
from qgpuctl.cli.options import OutputOverride
from qgpuctl.core.apply import execute
from qgpuctl.core.export import SelectBy, export_policy
from qgpuctl.core.plan import Action, Plan, check_settable, make_plan
from qgpuctl.core.policy import dump_policy_yaml, load_policy, policy_to_data
from qgpuctl.errors import AssertionFailed
from qgpuctl.render import OutputFormat, render_data, render_table

FileOption = Annotated[
    str,
    typer.Option(
        "-f",
        "--file",
        envvar="QGPU_POLICY_FILE",
        help="Policy file (version: v1); - reads stdin.",
        show_default=False,
    ),
]
PLAN_COLUMNS = ("step", "action", "gpu", "target", "change")


def render_plan(plan: Plan, fmt: OutputFormat) -> None:
    """The plan as a table (people) or data (scripts); notes about unlisted instances follow."""
    if fmt is not OutputFormat.TABLE:
        return
    if plan.actions:
        render_table(plan.rows(), PLAN_COLUMNS, fmt, sys.stdout)
    for note in plan.notes:
        typer.echo(f"note: GPU {note.gpu_index}: {note.instance}: {note.text}")


def apply(
    ctx: typer.Context,
    file: FileOption,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the plan; change nothing.")
    ] = False,
    prune: Annotated[
        bool,
        typer.Option(
            "--prune",
            help="Also delete instances on the selected GPUs that the file does not list.",
        ),
    ] = False,
    output: OutputOverride = None,
) -> None:
    """Make the selected GPUs match a policy file; only what differs is changed.

    The whole file is validated against the machine before anything is written
    (including that the module has, and can change, every knob the plan writes);
    a failure part-way rolls every change back (exit 4 only if that fails too).
    """
    app = app_context(ctx)
    fmt = app.fmt(output)
    text, source = read_text_arg(file)
    policy = load_policy(text, source)
    state = app.state()
    plan = make_plan(policy, state, prune=prune)
    render_plan(plan, fmt)
    check_settable(plan, state)
    applied = False
    if not plan.empty and not dry_run:

        def progress(step: int, action: Action) -> None:
            if fmt is OutputFormat.TABLE:
                typer.echo(f"step {step}/{len(plan.actions)}: {action.describe()}: done", err=True)

        execute(plan, app.control(), progress)
        applied = True
    if fmt is not OutputFormat.TABLE:
        render_data({"dry_run": dry_run, "applied": applied, **plan.to_data()}, fmt, sys.stdout)
    elif plan.empty:
        typer.echo(f"nothing to do: the GPUs match {source}")
    elif dry_run:
        typer.echo(f"dry run: {len(plan.actions)} changes planned, nothing changed")
    else:
        typer.echo(f"applied {len(plan.actions)} changes from {source}")


def assert_(
    ctx: typer.Context,
    file: FileOption,
    allow_unlisted: Annotated[
        bool,
        typer.Option(
            "--allow-unlisted",
            help="Instances the file does not list do not count as a difference.",
        ),
    ] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Show what differs.")] = False,
    output: OutputOverride = None,
) -> None:
    """Exit 0 if the GPUs match the policy file, 1 if they do not (nothing is changed).

    Matching means `apply --prune` would do nothing; --allow-unlisted makes it
    `apply` (without --prune) instead.
    """
    app = app_context(ctx)
    fmt = app.fmt(output)
    text, source = read_text_arg(file)
    plan = make_plan(load_policy(text, source), app.state(), prune=not allow_unlisted)
    if fmt is not OutputFormat.TABLE:
        render_data({"match": plan.empty, **plan.to_data()}, fmt, sys.stdout)
    elif verbose and not plan.empty:
        render_plan(plan, fmt)
    if not plan.empty:
        raise AssertionFailed(
            f"the GPUs differ from {source}: {len(plan.actions)} changes needed"
            + ("" if verbose or fmt is not OutputFormat.TABLE else " (-v shows them)")
        )
    if fmt is OutputFormat.TABLE:
        typer.echo(f"the GPUs match {source}")


def export(
    ctx: typer.Context,
    selector: Annotated[
        SelectBy,
        typer.Option("--selector", case_sensitive=False, help="Select GPUs by index or by UUID."),
    ] = SelectBy.INDEX,
    output: OutputOverride = None,
) -> None:
    """Print the current state as a policy file (YAML; JSON with -o json).

    `qgpuctl export > p.yaml; qgpuctl assert -f p.yaml` exits 0.
    """
    app = app_context(ctx)
    fmt = app.fmt(output)
    policy = export_policy(app.state(), selector)
    if fmt is OutputFormat.JSON:
        sys.stdout.write(json.dumps(policy_to_data(policy), indent=2) + "\n")
    else:
        sys.stdout.write(dump_policy_yaml(policy, "# qgpuctl export: the running state\n"))


def validate(
    ctx: typer.Context,
    file: FileOption,
    output: OutputOverride = None,
) -> None:
    """Check a policy file on its own (schema, ranges, names); the machine is not read."""
    app = app_context(ctx)
    fmt = app.fmt(output)
    text, source = read_text_arg(file)
    policy = load_policy(text, source)
    instances = sum(len(g.instances) for g in policy.gpus)
    if fmt is OutputFormat.TABLE:
        typer.echo(f"{source}: valid ({len(policy.gpus)} GPU entries, {instances} instances)")
    else:
        render_data(
            {
                "file": source,
                "valid": True,
                "gpu_entries": len(policy.gpus),
                "instances": instances,
            },
            fmt,
            sys.stdout,
        )
