"""Helpers for guest tests: load and unload modules, read the kernel log."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
MODULES = {
    "nvsim": PROJECT / "kmod" / "nvsim" / "nvsim.ko",
    "qgpu": PROJECT / "kmod" / "qgpu.ko",
    "qgpu_kclient_test": PROJECT / "tests" / "harness" / "kclient" / "qgpu_kclient_test.ko",
}

# Kernel-log lines that mean the kernel is unhappy, whatever the test asserted.
KERNEL_TROUBLE = re.compile(
    r"WARNING: CPU:|cut here|BUG:|Oops|kernel BUG at|general protection fault|UBSAN:|KASAN:"
    r"|refcount_t:|list_(add|del) corruption|blocked for more than"
)


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def is_loaded(name: str) -> bool:
    return Path("/sys/module", name).is_dir()


def insmod(name: str, *params: str) -> subprocess.CompletedProcess[str]:
    return run("insmod", str(MODULES[name]), *params)


def rmmod(name: str) -> subprocess.CompletedProcess[str]:
    return run("rmmod", name)


def reload_modules(*nvsim_params: str) -> None:
    """nvsim reloaded with `nvsim_params`, and qgpu on it with its defaults (qgpu goes first:
    it holds nvsim's files). Pair with the default_modules fixture."""
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            r = rmmod(name)
            assert r.returncode == 0, r.stderr
    for name, params in (("nvsim", nvsim_params), ("qgpu", ())):
        r = insmod(name, *params)
        assert r.returncode == 0, r.stderr


def dmesg() -> list[str]:
    return run("dmesg").stdout.splitlines()


class KernelLog:
    """What the kernel logs from now on: each record's text, read from /dev/kmsg.

    Cheaper than comparing two ``dmesg`` runs (a process each, 240-275 ms a test in the
    guest), and exact: every record is read once, in order, however full the ring buffer is.
    Records the buffer overwrote before they were read are lost to this reader (the console,
    which vm.sh checks, still had them).
    """

    def __init__(self) -> None:
        self._fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self._fd, 0, os.SEEK_END)

    def read(self) -> list[str]:
        """The records logged since the last read (or since this log was opened)."""
        lines: list[str] = []
        while True:
            try:
                record = os.read(self._fd, 8192)  # one record a read
            except BlockingIOError:  # none left
                return lines
            except BrokenPipeError:  # overwritten before it was read; go on with the next
                continue
            # "level,seq,usec,flags;text" and then " KEY=value" lines of the record's dictionary
            lines.append(record.decode(errors="replace").partition(";")[2].split("\n", 1)[0])

    def close(self) -> None:
        os.close(self._fd)

    def __enter__(self) -> KernelLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def trouble(lines: list[str]) -> list[str]:
    return [line for line in lines if KERNEL_TROUBLE.search(line)]
