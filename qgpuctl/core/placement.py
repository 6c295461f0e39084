"""Where ``qgpuctl create`` puts an instance when no ``--gpu`` is given.

* ``binpack`` (default): the fullest GPU that fits, so whole GPUs stay free for
  big jobs (least free memory, then least free guaranteed core);
* ``spread``: the emptiest GPU, so instances see less contention.

"Fits" is what the kernel would accept: a free instance slot, the guarantee
within 100% under fixed-share/burst-share, and the memory limit within the free
memory unless the GPU overcommits (a ``max`` limit needs the whole GPU free).
Ties go to the lowest index, so placement is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from qgpuctl.backends import schema as k
from qgpuctl.core.state import GpuState
from qgpuctl.core.units import format_size
from qgpuctl.errors import UsageError


class Placement(StrEnum):
    BINPACK = "binpack"
    SPREAD = "spread"


def why_not(gpu: GpuState, mem: int | None, core: int) -> str | None:
    """Why ``gpu`` cannot take an instance of ``mem`` bytes and ``core`` %, or None if it can."""
    if gpu.available_instances is not None and gpu.available_instances <= 0:
        return "no free instance slot"
    if gpu.driver_supported is False:
        return f"driver {gpu.driver_version or '?'} is not supported by qgpu"
    if gpu.policy in k.GUARANTEED_POLICIES and gpu.core_used + core > k.CORE_MAX:
        return f"{gpu.core_free}% core free under {gpu.policy}, {core}% asked"
    if not gpu.overcommit and gpu.memory is not None:
        need = gpu.memory if mem is None else mem
        free = gpu.mem_free or 0
        if need > free:
            return f"{format_size(free)} memory free, {format_size(need)} asked"
    return None


def place(gpus: Sequence[GpuState], mem: int | None, core: int, strategy: Placement) -> GpuState:
    """The GPU to create on; UsageError listing each GPU's reason when none fits."""
    fitting = [gpu for gpu in gpus if why_not(gpu, mem, core) is None]
    if not fitting:
        if not gpus:
            raise UsageError("no GPUs are managed by qgpu")
        reasons = "; ".join(f"GPU {g.index}: {why_not(g, mem, core)}" for g in gpus)
        raise UsageError(f"no GPU fits mem {format_size(mem)}, core {core}%: {reasons}")

    def fullness(gpu: GpuState) -> tuple[int, int]:
        free_mem = gpu.mem_free if gpu.mem_free is not None else 0
        return (free_mem, gpu.core_free)

    if strategy is Placement.BINPACK:
        return min(fitting, key=lambda g: (*fullness(g), g.index))
    return min(fitting, key=lambda g: (-fullness(g)[0], -fullness(g)[1], g.index))
