"""Imperative commands: gpus, create, list, show, set, delete."""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable
from typing import Annotated, Any

import typer

from qgpuctl.backends import schema as k
from qgpuctl.cli.common import (
    CHANNELS_HELP,
    DMABUF_HELP,
    MANAGED_HELP,
    MAPPED_HELP,
    RM_OBJECTS_HELP,
    SYSMEM_HELP,
    AllowRefuse,
    InstanceClass,
    device_paths,
    held_of_bound,
    human_size,
    instance_data,
)
from qgpuctl.cli.context import AppContext, app_context
from qgpuctl.cli.options import OutputOverride
from qgpuctl.core.cdi import qualified_name
from qgpuctl.core.placement import Placement, place, why_not
from qgpuctl.core.plan import InstanceConfig, create_problem, refuse_remedy
from qgpuctl.core.policy import check_name
from qgpuctl.core.state import GpuState, InstanceState, State, resolve_gpu
from qgpuctl.core.units import (
    format_size,
    parse_channels,
    parse_limit,
    parse_mapped,
    parse_rm_objects,
    parse_size,
)
from qgpuctl.errors import KernelInterfaceError, QgpuError, SizeError, UsageError
from qgpuctl.render import OutputFormat, render_data, render_fields, render_table

# UUIDs make the table too wide for a terminal; -o json/yaml has them (and export --selector uuid).
GPU_COLUMNS = (
    "index",
    "name",
    "memory",
    "policy",
    "instances",
    "free_mem",
    "free_core",
    "driver",
)
LIST_COLUMNS = (
    "name",
    "gpu",
    "mem",
    "used",
    "core",
    "share",
    "class",
    "managed",
    "dmabuf",
    "channels",
    "procs",
)


def _gpu_row(gpu: GpuState, nvml: dict[str, Any] | None, table: bool) -> dict[str, Any]:
    name, memory, source = gpu.name, gpu.memory, "sysfs"
    if nvml is not None and gpu.uuid is not None and gpu.uuid.lower() in nvml:
        ident = nvml[gpu.uuid.lower()]
        name = ident.name or name
        memory = ident.memory if ident.memory is not None else memory
        source = "nvml"
    row: dict[str, Any] = {
        "index": gpu.index,
        "name": name,
        "uuid": gpu.uuid,
        "memory": human_size(memory) if table else memory,
        "policy": gpu.policy,
        "instances": len(gpu.instances),
        "free_mem": human_size(gpu.mem_free) if table else gpu.mem_free,
        "free_core": f"{gpu.core_free}%" if table else gpu.core_free,
        "driver": gpu.driver_version,
    }
    if not table:
        row.update(
            minor=gpu.minor,
            identity=source,
            overcommit=gpu.overcommit,
            available_instances=gpu.available_instances,
            driver_supported=gpu.driver_supported,
        )
    return row


def gpus(ctx: typer.Context, output: OutputOverride = None) -> None:
    """Physical GPUs: identity, memory, policy, instances, free memory and guaranteed cores.

    Identity (name, memory) comes from NVML where the NVIDIA driver is present,
    from qgpu's sysfs otherwise.
    """
    app = app_context(ctx)
    fmt = app.fmt(output)
    state = app.state()
    nvml = app.nvml()
    table = fmt is OutputFormat.TABLE
    rows = [_gpu_row(gpu, nvml, table) for gpu in state.gpus]
    columns = GPU_COLUMNS if table else tuple(rows[0]) if rows else GPU_COLUMNS
    render_table(rows, columns, fmt, sys.stdout)


def _find(state: State, name: str) -> tuple[GpuState, InstanceState]:
    found = state.find_instance(name)
    if found is None:
        known = ", ".join(inst.name for _, inst in state.instances) or "none"
        raise UsageError(f"no instance {name!r} (instances: {known})")
    return found


# The create option of each count bound, the system-memory limit and the mapping bound, for
# messages about a module that lacks it.
_BOUND_OPTIONS = {
    k.INST_CHANNELS_MAX: "channels",
    k.INST_RM_OBJECTS_MAX: "rm-objects",
    k.INST_SYSMEM_MAX: "sysmem",
    k.INST_MAPPED_MAX: "mapped",
}


def _auto_name(state: State) -> str:
    taken = {inst.name for _, inst in state.instances}
    n = 0
    while f"vgpu{n}" in taken:
        n += 1
    return f"vgpu{n}"


def _bound_arg(option: str, parse: Callable[[str | int], str], value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return parse(value)
    except ValueError as exc:
        raise UsageError(f"--{option}: {exc}") from None


def _size_arg(
    option: str, value: str, parse: Callable[[str], int | None] = parse_limit
) -> int | None:
    """A size option (4G, 512M, bytes, max): bytes, None for max; a usage error names it."""
    try:
        return parse(value)
    except SizeError as exc:
        raise UsageError(f"--{option}: {exc}") from None


def _sysmem_text(inst: InstanceState) -> str | None:
    """``256K used of 2G``; None on an older module (no sysmem_max knob)."""
    if inst.sysmem_text is None:
        return None
    return f"{human_size(inst.sysmem_current) or '-'} used of {inst.sysmem_text}"


def _mapped_text(inst: InstanceState) -> str | None:
    """``6M of 64G``; None on an older module (no mapped_max knob)."""
    if inst.mapped_text is None:
        return None
    return f"{human_size(inst.mapped_current) or '-'} of {inst.mapped_text}"


def _print_instance(app: AppContext, gpu: GpuState, inst: InstanceState, fmt: OutputFormat) -> None:
    data = instance_data(gpu, inst, app.dev)
    if fmt is not OutputFormat.TABLE:
        render_data(data, fmt, sys.stdout)
        return
    procs = ", ".join(f"{p.pid} {p.comm}" for p in inst.processes) or None
    share = None if inst.share is None else f"{inst.share:g}%"
    fields: list[tuple[str, Any]] = [
        ("name", inst.name),
        ("gpu", f"{gpu.index} ({gpu.uuid or '-'})"),
        ("class", inst.klass),
        ("memory", f"{human_size(inst.mem_current) or '-'} used of {inst.mem_text or '-'}"),
        ("memory peak", human_size(inst.mem_peak)),
        ("oom refusals", inst.events),
        ("managed", inst.managed),
        ("dmabuf", inst.dmabuf),
        ("channels", held_of_bound(inst.channels, inst.channels_max)),
        ("rm objects", held_of_bound(inst.rm_objects, inst.rm_objects_max)),
        ("sysmem", _sysmem_text(inst)),
        ("gpu mapped", _mapped_text(inst)),
        ("core", None if inst.core is None else f"{inst.core}% guaranteed ({gpu.policy or '-'})"),
        ("share now", share),
        ("gpu time", None if inst.gpu_time_ns is None else f"{inst.gpu_time_ns / 1e9:.3f}s"),
        ("throttled", None if inst.throttled_ns is None else f"{inst.throttled_ns / 1e9:.3f}s"),
        ("preemptions", inst.preemptions),
        ("processes", procs),
        ("devices", " ".join(data["devices"])),
        ("cdi", data["cdi"]),
    ]
    render_fields(fields, fmt, sys.stdout)


def create(
    ctx: typer.Context,
    mem: Annotated[
        str,
        typer.Option("--mem", help="Memory limit: 4G, 512M, bytes, or max.", show_default=False),
    ],
    core: Annotated[
        int,
        typer.Option("--core", min=1, max=100, help="Guaranteed core share in percent (1-100)."),
    ],
    name: Annotated[
        str | None,
        typer.Argument(
            help="Instance name (a-z 0-9 _ . -, up to 32); default vgpuN.", show_default=False
        ),
    ] = None,
    gpu: Annotated[
        str | None,
        typer.Option(
            "--gpu", help="GPU index or UUID; default: chosen by --placement.", show_default=False
        ),
    ] = None,
    klass: Annotated[
        InstanceClass,
        typer.Option("--class", help="online preempts offline.", case_sensitive=False),
    ] = InstanceClass.ONLINE,
    managed: Annotated[
        AllowRefuse,
        typer.Option("--managed", help=MANAGED_HELP, case_sensitive=False),
    ] = AllowRefuse.ALLOW,
    dmabuf: Annotated[
        AllowRefuse,
        typer.Option("--dmabuf", help=DMABUF_HELP, case_sensitive=False),
    ] = AllowRefuse.REFUSE,
    channels: Annotated[
        str,
        typer.Option("--channels", help=CHANNELS_HELP),
    ] = k.CHANNELS_DEFAULT,
    rm_objects: Annotated[
        str,
        typer.Option("--rm-objects", help=RM_OBJECTS_HELP),
    ] = k.RM_OBJECTS_DEFAULT,
    sysmem: Annotated[
        str,
        typer.Option("--sysmem", help=SYSMEM_HELP),
    ] = "max",
    mapped: Annotated[
        str,
        typer.Option("--mapped", help=MAPPED_HELP),
    ] = "max",
    placement: Annotated[
        Placement,
        typer.Option(
            "--placement",
            help="Without --gpu: binpack fills the fullest GPU that fits, spread the emptiest.",
            case_sensitive=False,
        ),
    ] = Placement.BINPACK,
    wait: Annotated[
        float,
        typer.Option("--wait-timeout", min=0, help="Seconds to wait for the device nodes."),
    ] = 10.0,
    output: OutputOverride = None,
) -> None:
    """Create an instance, wait for its device nodes, and print how to use it."""
    app = app_context(ctx)
    mem_bytes = parse_size(mem)
    channels_bound = _bound_arg("channels", parse_channels, channels) or k.UNBOUNDED
    rm_objects_bound = _bound_arg("rm-objects", parse_rm_objects, rm_objects) or k.UNBOUNDED
    sysmem_bytes = _size_arg("sysmem", sysmem)
    mapped_bytes = _size_arg("mapped", mapped, parse_mapped)
    state = app.state()
    if name is None:
        name = _auto_name(state)
    problem = check_name(name)
    if problem is not None:
        raise UsageError(problem)
    found = state.find_instance(name)
    if found is not None:
        raise UsageError(f"instance {name!r} already exists on GPU {found[0].index}")
    if gpu is not None:
        target = resolve_gpu(state, gpu)
        reason = why_not(target, mem_bytes, core)
        if reason is not None:
            raise UsageError(f"GPU {target.index} cannot take it: {reason}")
    else:
        target = place(state.gpus, mem_bytes, core, placement)
    config = InstanceConfig(
        mem_bytes,
        core,
        klass.value,
        managed.value,
        dmabuf.value,
        channels_bound,
        rm_objects_bound,
        sysmem_bytes,
        mapped_bytes,
    )
    refused = create_problem(state, target, config)
    if refused is not None:
        option = _BOUND_OPTIONS.get(refused.attr, refused.attr)
        remedy = (
            f"create it without --{option}"
            if refused.remedy
            else f"create it with --{option} allow"
        )
        raise KernelInterfaceError(
            app.sysfs.path(k.instance_dir(target.minor, name), refused.attr),
            refused.value,
            None,
            detail=f"{refused.reason}; " + refuse_remedy(remedy) + "; nothing was created",
        )
    waiter = app.waiter()
    waiter.start()
    try:
        app.control().create(target.minor, name, config)
        paths = device_paths(app.dev, name)
        missing = waiter.wait(paths, wait)
    finally:
        waiter.stop()
    if missing:
        raise KernelInterfaceError(
            missing[0],
            None,
            errno.ETIMEDOUT,
            detail=f"instance {name} was created on GPU {target.index} but its device nodes did "
            f"not appear within {wait:g}s; check udev and `qgpuctl doctor`",
        )
    fresh = app.state().find_instance(name)
    gpu_state, inst = fresh if fresh is not None else _find(app.state(), name)
    fmt = app.fmt(output)
    if fmt is not OutputFormat.TABLE:
        render_data(instance_data(gpu_state, inst, app.dev), fmt, sys.stdout)
        return
    nodes = " ".join(str(p) for p in device_paths(app.dev, name))
    cdi = qualified_name(name)
    typer.echo(
        f"created {name} on GPU {gpu_state.index}: mem {inst.mem_text or '-'}, "
        f"core {inst.core if inst.core is not None else '-'}%, class {inst.klass or '-'}, "
        f"managed {inst.managed or '-'}, dmabuf {inst.dmabuf or '-'}, "
        f"channels {inst.channels_max or '-'}, rm objects {inst.rm_objects_max or '-'}, "
        f"sysmem {inst.sysmem_text or '-'}, mapped {inst.mapped_text or '-'}\n"
        f"  device nodes: {nodes}\n"
        f"  CDI device:   {cdi} (refresh the spec: qgpuctl cdi generate --file "
        f"/etc/cdi/qgpu.yaml)\n"
        f"  run:          podman run --device {cdi} IMAGE"
    )


def list_(ctx: typer.Context, output: OutputOverride = None) -> None:
    """All instances on all GPUs."""
    app = app_context(ctx)
    fmt = app.fmt(output)
    state = app.state()
    if fmt is not OutputFormat.TABLE:
        render_data([instance_data(g, i, app.dev) for g, i in state.instances], fmt, sys.stdout)
        return
    rows = [
        {
            "name": inst.name,
            "gpu": gpu.index,
            "mem": inst.mem_text,
            "used": human_size(inst.mem_current),
            "core": None if inst.core is None else f"{inst.core}%",
            "share": None if inst.share is None else f"{inst.share:g}%",
            "class": inst.klass,
            "managed": inst.managed,
            "dmabuf": inst.dmabuf,
            "channels": held_of_bound(inst.channels, inst.channels_max, "/"),
            "procs": len(inst.processes),
        }
        for gpu, inst in state.instances
    ]
    render_table(rows, LIST_COLUMNS, fmt, sys.stdout)


def show(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Instance name.")],
    output: OutputOverride = None,
) -> None:
    """One instance in full: limits, usage, share, processes, device nodes, CDI name."""
    app = app_context(ctx)
    gpu, inst = _find(app.state(), name)
    _print_instance(app, gpu, inst, app.fmt(output))


def set_(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Instance name.")],
    mem: Annotated[
        str | None,
        typer.Option("--mem", help="New memory limit (4G, max, ...).", show_default=False),
    ] = None,
    core: Annotated[
        int | None,
        typer.Option(
            "--core", min=1, max=100, help="New guaranteed share (%).", show_default=False
        ),
    ] = None,
    klass: Annotated[
        InstanceClass | None,
        typer.Option(
            "--class", case_sensitive=False, help="online or offline.", show_default=False
        ),
    ] = None,
    managed: Annotated[
        AllowRefuse | None,
        typer.Option("--managed", case_sensitive=False, help=MANAGED_HELP, show_default=False),
    ] = None,
    dmabuf: Annotated[
        AllowRefuse | None,
        typer.Option("--dmabuf", case_sensitive=False, help=DMABUF_HELP, show_default=False),
    ] = None,
    channels: Annotated[
        str | None,
        typer.Option("--channels", help=CHANNELS_HELP, show_default=False),
    ] = None,
    rm_objects: Annotated[
        str | None,
        typer.Option("--rm-objects", help=RM_OBJECTS_HELP, show_default=False),
    ] = None,
    sysmem: Annotated[
        str | None,
        typer.Option("--sysmem", help=SYSMEM_HELP, show_default=False),
    ] = None,
    mapped: Annotated[
        str | None,
        typer.Option("--mapped", help=MAPPED_HELP, show_default=False),
    ] = None,
    output: OutputOverride = None,
) -> None:
    """Change a running instance's limits live; all or nothing.

    Lowering the memory limit below what the instance uses is refused (EBUSY), and so is
    lowering --sysmem, --channels, --rm-objects or --mapped below what its processes hold.
    --managed refuse applies to mappings made from then on; existing ones stay.
    --dmabuf applies to exports made from then on; existing dma-bufs stay.
    A knob the module publishes read-only (an older module) is refused before
    anything is written (exit 3).
    """
    app = app_context(ctx)
    given = (mem, core, klass, managed, dmabuf, channels, rm_objects, sysmem, mapped)
    if all(v is None for v in given):
        raise UsageError(
            "nothing to set: give --mem, --core, --class, --managed, --dmabuf, --channels,"
            " --rm-objects, --sysmem and/or --mapped"
        )
    mem_value = None if mem is None else format_size(parse_size(mem))
    channels_value = _bound_arg("channels", parse_channels, channels)
    rm_objects_value = _bound_arg("rm-objects", parse_rm_objects, rm_objects)
    sysmem_value = None if sysmem is None else format_size(_size_arg("sysmem", sysmem))
    mapped_value = (
        None if mapped is None else format_size(_size_arg("mapped", mapped, parse_mapped))
    )
    gpu, inst = _find(app.state(), name)
    writes: list[tuple[str, str]] = []
    if mem_value is not None:
        writes.append((k.INST_MEM_MAX, mem_value))
    if core is not None:
        writes.append((k.INST_CORE, str(core)))
    if klass is not None:
        writes.append((k.INST_CLASS, klass.value))
    if managed is not None:
        writes.append((k.INST_MANAGED, managed.value))
    if dmabuf is not None:
        writes.append((k.INST_DMABUF, dmabuf.value))
    if channels_value is not None:
        writes.append((k.INST_CHANNELS_MAX, channels_value))
    if rm_objects_value is not None:
        writes.append((k.INST_RM_OBJECTS_MAX, rm_objects_value))
    if sysmem_value is not None:
        writes.append((k.INST_SYSMEM_MAX, sysmem_value))
    if mapped_value is not None:
        writes.append((k.INST_MAPPED_MAX, mapped_value))
    for attr, value in writes:
        if attr not in inst.settable:
            feature = k.ARRIVES_WITH.get(attr)
            rel = f"{k.instance_dir(gpu.minor, name)}/{attr}"
            cannot = (
                "cannot change it on a running instance"
                if app.sysfs.exists(rel)
                else "does not have it"
            )
            raise KernelInterfaceError(
                app.sysfs.path(rel),
                value,
                None,
                detail=f"the qgpu module {cannot}"
                + (f" (it arrives with {feature})" if feature else "")
                + "; nothing was changed",
            )
    ctl = app.control()
    try:
        for attr, value in writes:
            ctl.write_instance(gpu.minor, name, attr, value)
    except QgpuError:
        ctl.rollback_writes()
        raise
    ctl.commit()
    gpu, inst = _find(app.state(), name)
    _print_instance(app, gpu, inst, app.fmt(output))


def delete(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Instance name.")],
    force: Annotated[
        bool,
        typer.Option("--force", help="Remove even while processes use it (their calls fail)."),
    ] = False,
    output: OutputOverride = None,
) -> None:
    """Delete an instance; refused while in use unless --force."""
    app = app_context(ctx)
    gpu, inst = _find(app.state(), name)
    app.control().remove(gpu.minor, name, force=force)
    fmt = app.fmt(output)
    if fmt is OutputFormat.TABLE:
        typer.echo(f"deleted {name} from GPU {gpu.index}")
    else:
        render_data({"deleted": name, "gpu": gpu.index, "forced": force}, fmt, sys.stdout)
