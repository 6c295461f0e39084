"""Helpers for guest tests: load and unload modules, read the kernel log."""

from __future__ import annotations

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


def trouble(lines: list[str]) -> list[str]:
    return [line for line in lines if KERNEL_TROUBLE.search(line)]
