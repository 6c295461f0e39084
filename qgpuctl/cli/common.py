"""Small helpers shared by the commands: display forms and option types."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

from qgpuctl.backends import schema as k
from qgpuctl.backends.devfs import DevTree
from qgpuctl.core.cdi import qualified_name
from qgpuctl.core.state import GpuState, InstanceState
from qgpuctl.core.units import format_size
from qgpuctl.errors import UsageError


class InstanceClass(StrEnum):
    ONLINE = "online"
    OFFLINE = "offline"


class AllowRefuse(StrEnum):
    """The values of the instance knobs managed and dmabuf."""

    ALLOW = "allow"
    REFUSE = "refuse"


class Policy(StrEnum):
    BEST_EFFORT = "best-effort"
    FIXED_SHARE = "fixed-share"
    BURST_SHARE = "burst-share"


assert tuple(InstanceClass) == k.CLASSES and tuple(Policy) == k.POLICIES
assert tuple(AllowRefuse) == k.MANAGED_MODES == k.DMABUF_MODES
assert (AllowRefuse.ALLOW, AllowRefuse.REFUSE) == (k.MANAGED_DEFAULT, k.DMABUF_DEFAULT)

MANAGED_HELP = (
    "UVM managed memory, which grows by page faults that no limit can charge: allow, or refuse"
    " (mmap of the instance's nvidia-uvm fails with EPERM), which makes the memory limit hard."
)
DMABUF_HELP = (
    "dma-buf exports of video memory (cuMemGetHandleForAddressRange, GPUDirect RDMA): refuse"
    " (they fail with NV_ERR_NOT_SUPPORTED), or allow for trusted tenants only: the driver lets"
    " an exporter reach other clients' memory, and memory a dma-buf keeps after it is freed is"
    " not charged."
)

CHANNELS_HELP = (
    "The channels and channel groups the instance may hold at once (a CUDA context holds 24):"
    " a count 1..65536, or max. Past it, allocating one fails as when the GPU runs out of channel"
    " ids (NV_ERR_NO_FREE_FIFOS), so one tenant cannot take the ids every other tenant needs."
)


RM_OBJECTS_HELP = (
    "The RM objects the instance's processes may hold at once (a PyTorch process made 128 for"
    " its CUDA context and a tensor, and each allocation adds one): a count 1..16777216, or max."
    " Past it, a call that makes one fails as when RM runs out of handles"
    " (NV_ERR_INSUFFICIENT_RESOURCES), so one tenant cannot fill the driver's and the GPU"
    " firmware's memory, which no limit charges."
)

SYSMEM_HELP = (
    "The system memory the NVIDIA driver may allocate from the host for the instance's processes"
    " (4G, 512M, bytes, or max): pinned pages that no memory cgroup charges, so a container's"
    " memory limit does not hold them. Past it, such an allocation fails with NV_ERR_NO_MEMORY."
)

MAPPED_HELP = (
    "The GPU address space whose page tables the driver allocates for the instance at once, in"
    " whole 2M regions (64G, 2M, or max): its RM mappings (RM_MAP_MEMORY_DMA) and the virtual"
    " ranges it reserves without LAZY, which the driver maps up front. Page tables come from"
    " memory the GPU's tenants share, and each mapping holds a record of the driver's; no memory"
    " limit charges either. A mapping counts the 2M regions it touches. Past it, a mapping or"
    " such a range fails with NV_ERR_NO_MEMORY."
)


def held_of_bound(held: int | None, bound: str | None, sep: str = " of ") -> str | None:
    """A count held, of its bound: ``24 of 48``; None on an older module (no bound knob)."""
    if bound is None:
        return None
    return f"{held if held is not None else '-'}{sep}{bound}"


def human_size(size: int | None) -> str | None:
    """A size for a table: exact units where they divide (4G), else one decimal (15.8G)."""
    if size is None:
        return None
    exact = format_size(size)
    if not exact.isdigit() or size < 1024:
        return exact
    for suffix, mult in (("T", 2**40), ("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if size >= mult:
            return f"{size / mult:.1f}{suffix}"
    return exact  # pragma: no cover


def device_paths(dev: DevTree, name: str) -> list[Path]:
    return [dev.path(k.DEV_DIR, name, node) for node, _ in k.DEV_NODES]


def instance_data(gpu: GpuState, inst: InstanceState, dev: DevTree) -> dict[str, Any]:
    """Everything known about one instance, raw values (bytes, None) for scripts."""
    return {
        "name": inst.name,
        "gpu": gpu.index,
        "gpu_uuid": gpu.uuid,
        "mem": inst.mem_text,
        "mem_max": None if inst.mem_unlimited else inst.mem_max,
        "mem_current": inst.mem_current,
        "mem_peak": inst.mem_peak,
        "oom_events": inst.events,
        "managed": inst.managed,
        "dmabuf": inst.dmabuf,
        "channels_max": inst.channels_max,
        "channels": inst.channels,
        "rm_objects_max": inst.rm_objects_max,
        "rm_objects": inst.rm_objects,
        "sysmem": inst.sysmem_text,
        "sysmem_max": inst.sysmem_limit,
        "sysmem_current": inst.sysmem_current,
        "sysmem_peak": inst.sysmem_peak,
        "mapped": inst.mapped_text,
        "mapped_max": inst.mapped_limit,
        "mapped_current": inst.mapped_current,
        "core": inst.core,
        "share": inst.share,
        "class": inst.klass,
        "processes": [{"pid": p.pid, "comm": p.comm} for p in inst.processes],
        "gpu_time_ns": inst.gpu_time_ns,
        "throttled_ns": inst.throttled_ns,
        "preemptions": inst.preemptions,
        "devices": [str(p) for p in device_paths(dev, inst.name)],
        "cdi": qualified_name(inst.name),
    }


def read_text_arg(file: str) -> tuple[str, str]:
    """The text of ``-f FILE`` (``-`` = stdin) and the name to use in messages."""
    if file == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(file).read_text(encoding="utf-8"), file
    except OSError as exc:
        raise UsageError(f"cannot read {file}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {file}: not UTF-8 text") from None
