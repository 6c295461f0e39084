"""The running state as a policy file: ``qgpuctl export`` (mig-parted's export).

What it prints parses with :func:`qgpuctl.core.policy.load_policy` and, applied
to the same machine, plans nothing: ``qgpuctl export > p.yaml && qgpuctl
assert -f p.yaml`` exits 0.
"""

from __future__ import annotations

from enum import StrEnum

from qgpuctl.core.policy import GpuSpec, InstanceSpec, PolicyFile, Selector
from qgpuctl.core.state import State
from qgpuctl.errors import KernelInterfaceError


class SelectBy(StrEnum):
    INDEX = "index"
    UUID = "uuid"


def export_policy(state: State, select_by: SelectBy = SelectBy.INDEX) -> PolicyFile:
    gpus = []
    for i, gpu in enumerate(state.gpus):
        if select_by is SelectBy.UUID and gpu.uuid:
            selector = Selector(uuid=gpu.uuid)
        else:
            selector = Selector(index=gpu.index)
        instances = []
        for j, inst in enumerate(gpu.instances):
            if inst.core is None or (inst.mem_max is None and not inst.mem_unlimited):
                raise KernelInterfaceError(
                    f"class/qgpu/gpu{gpu.minor}/instances/{inst.name}",
                    None,
                    None,
                    detail="mem_max or core is not readable; cannot export this instance",
                )
            instances.append(
                InstanceSpec(
                    name=inst.name,
                    mem=None if inst.mem_unlimited else inst.mem_max,
                    core=inst.core,
                    klass=inst.klass or "online",
                    path=f"gpus[{i}].instances[{j}]",
                    # A module without the knobs never refuses managed memory or dma-bufs.
                    managed=inst.managed_mode,
                    dmabuf=inst.dmabuf_mode,
                    channels=inst.channels_bound,
                    rm_objects=inst.rm_objects_bound,
                    sysmem=inst.sysmem_limit,
                    mapped=inst.mapped_limit,
                )
            )
        gpus.append(
            GpuSpec(
                selector=selector,
                instances=tuple(instances),
                path=f"gpus[{i}]",
                policy=gpu.policy,
                timeslice_us=gpu.timeslice_us,
                period_us=gpu.period_us,
                overcommit=gpu.overcommit,
                unknown_escapes=gpu.unknown_escapes,
            )
        )
    return PolicyFile(gpus=tuple(gpus))
