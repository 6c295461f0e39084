"""GPU identity from NVML where the real NVIDIA driver is present.

The only module that imports ``pynvml`` (nvidia-ml-py). Where libnvidia-ml
cannot be loaded (no driver, or nvsim in tests) :func:`inventory` returns None
and qgpuctl uses qgpu's own sysfs identity without a word: that is the normal
case on a development machine, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from qgpuctl.errors import NvmlError


@dataclass(frozen=True, slots=True)
class NvmlGpu:
    index: int
    uuid: str
    name: str | None
    memory: int | None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def inventory() -> dict[str, NvmlGpu] | None:
    """Physical GPUs by lower-case UUID, or None when NVML is unavailable."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        return None
    try:
        gpus: dict[str, NvmlGpu] = {}
        for index in range(pynvml.nvmlDeviceGetCount()):
            handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            uuid = _text(pynvml.nvmlDeviceGetUUID(handle))
            name: str | None
            try:
                name = _text(pynvml.nvmlDeviceGetName(handle))
            except pynvml.NVMLError_NotSupported:
                name = None
            memory: int | None
            try:
                memory = int(pynvml.nvmlDeviceGetMemoryInfo(handle).total)
            except pynvml.NVMLError_NotSupported:
                memory = None
            gpus[uuid.lower()] = NvmlGpu(index, uuid, name, memory)
        return gpus
    except pynvml.NVMLError as exc:
        raise NvmlError(f"NVML: {exc}") from exc
    finally:
        try:
            pynvml.nvmlShutdown()
        except pynvml.NVMLError:
            pass
