"""Helpers for guest tests of qgpu instances: the sysfs knobs and the instance nodes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SYS = Path("/sys/class/qgpu")
DEV = Path("/dev/qgpu")
NODES = ("nvidiactl", "nvidia0", "nvidia-uvm")


def gpu_dir(gpu: int = 0) -> Path:
    return SYS / f"gpu{gpu}"


def read(path: Path) -> str:
    return path.read_text().strip()


def write(path: Path, text: str) -> None:
    """Write like `echo`, one write(2), so the knob's errno surfaces as OSError."""
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def create(line: str, gpu: int = 0) -> None:
    write(gpu_dir(gpu) / "create", line + "\n")


def inst_dir(name: str, gpu: int = 0) -> Path:
    return gpu_dir(gpu) / "instances" / name


def remove(name: str, gpu: int = 0, force: bool = False) -> None:
    write(inst_dir(name, gpu) / "remove", "force\n" if force else "1\n")


def instances(gpu: int = 0) -> list[str]:
    return sorted(p.name for p in (gpu_dir(gpu) / "instances").iterdir())


def dev(name: str) -> str:
    return str(DEV / name)


@contextmanager
def instance(name: str, gpu: int = 0, opts: str = "") -> Iterator[str]:
    """An instance for the test's duration; yields its node directory."""
    create(f"{name} {opts}".strip(), gpu)
    try:
        yield dev(name)
    finally:
        if inst_dir(name, gpu).exists():
            remove(name, gpu, force=True)
