"""Helpers for guest tests of qgpu instances: the sysfs knobs and the instance nodes."""

from __future__ import annotations

import ctypes
import mmap
import os
import re
import time
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


def errno_of_write(path: Path, text: str) -> int:
    """The errno a knob answers `text` with (0: accepted)."""
    try:
        write(path, text)
    except OSError as e:
        return e.errno
    return 0


def create(line: str, gpu: int = 0) -> None:
    write(gpu_dir(gpu) / "create", line + "\n")


def inst_dir(name: str, gpu: int = 0) -> Path:
    return gpu_dir(gpu) / "instances" / name


def remove(name: str, gpu: int = 0, force: bool = False) -> None:
    write(inst_dir(name, gpu) / "remove", "force\n" if force else "1\n")


def mem_current(name: str, gpu: int = 0) -> int:
    """The instance's charged video memory, in bytes."""
    return int(read(inst_dir(name, gpu) / "mem_current"))


def count(name: str, attr: str, gpu: int = 0) -> int:
    """An integer attribute of the instance (``channels``, ``rm_objects``, ``sysmem_current``)."""
    return int(read(inst_dir(name, gpu) / attr))


def wait_count(name: str, attr: str, n: int, seconds: float = 20) -> None:
    """Until the attribute reads `n`: a released file is reaped by a worker, so what it held goes
    a moment after the process. Fails the test after `seconds`."""
    deadline = time.monotonic() + seconds
    while (got := count(name, attr)) != n:
        assert time.monotonic() < deadline, f"{name}: {attr} {got}, not {n}"
        time.sleep(0.05)


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


def uvm_mmap_errno(node_dir: str, length: int = 2 << 20) -> int:
    """mmap() an instance's nvidia-uvm node the way UVM makes a managed range: 0, or the errno.

    With ``managed`` at refuse qgpu fails it with EPERM. Otherwise it reaches the driver;
    nvsim, which does not simulate managed memory, answers EBADFD (not a VA space).
    """
    fd = os.open(f"{node_dir}/nvidia-uvm", os.O_RDWR)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = (
            [ctypes.c_void_p, ctypes.c_size_t] + [ctypes.c_int] * 3 + [ctypes.c_long]
        )
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        prot = mmap.PROT_READ | mmap.PROT_WRITE
        addr = libc.mmap(None, length, prot, mmap.MAP_SHARED, fd, 0)
        if addr == ctypes.c_void_p(-1).value:
            return ctypes.get_errno()
        libc.munmap(addr, length)
        return 0
    finally:
        os.close(fd)


def instance_count(name: str, field: str) -> int:
    """A count on instance `name`'s line of /proc/qgpu/status (`rm objects`, `os events`)."""
    status = Path("/proc/qgpu/status").read_text()
    m = re.search(rf"- instance {re.escape(name)}:.* {field} (\d+),", status)
    assert m, status
    return int(m.group(1))
