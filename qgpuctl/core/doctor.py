"""Preflight checks behind ``qgpuctl doctor``: is there anything for qgpuctl to drive?

The checks only ask the backends yes/no questions, so they run unchanged
against a fake tree in tests and against /sys and /dev on a host.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from qgpuctl.errors import KernelInterfaceError

MODULE_DIR = "module/qgpu"
NVIDIA_CTL = "nvidiactl"


class SysfsReader(Protocol):
    def path(self, *parts: str) -> Path: ...
    def exists(self, rel: str) -> bool: ...
    def read(self, rel: str) -> str: ...


class DevNodes(Protocol):
    def path(self, *parts: str) -> Path: ...
    def exists(self, name: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the doctor's report; ``detail`` says what to do when ``ok`` is False."""

    name: str
    ok: bool
    detail: str

    @property
    def status(self) -> str:
        return "ok" if self.ok else "fail"


def check_module(sysfs: SysfsReader) -> Check:
    """qgpu.ko is loaded iff the kernel published /sys/module/qgpu for it."""
    path = sysfs.path(MODULE_DIR)
    if not sysfs.exists(MODULE_DIR):
        return Check("qgpu module loaded", False, f"{path} missing; load it with `modprobe qgpu`")
    try:
        version = sysfs.read(f"{MODULE_DIR}/version")
    except KernelInterfaceError:
        # Only modules with MODULE_VERSION() publish it; loaded is what matters.
        return Check("qgpu module loaded", True, str(path))
    return Check("qgpu module loaded", True, f"{path} (version {version})")


def check_nvidia_nodes(dev: DevNodes) -> Check:
    """qgpu forwards to the real driver's nodes, so they must exist before instances can work."""
    path = dev.path(NVIDIA_CTL)
    if not dev.exists(NVIDIA_CTL):
        return Check(
            "NVIDIA driver nodes",
            False,
            f"{path} missing; is the NVIDIA driver (or nvsim) loaded?",
        )
    return Check("NVIDIA driver nodes", True, str(path))


def run_checks(sysfs: SysfsReader, dev: DevNodes) -> list[Check]:
    """All checks, in the order an operator should fix them."""
    return [check_module(sysfs), check_nvidia_nodes(dev)]
