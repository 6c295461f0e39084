"""Helpers for guest tests of the real qgpuctl CLI: run it, snapshot the kernel's state, udevd.

The CLI runs as the operator runs it, ``.venv/bin/qgpuctl`` in a subprocess, with
``PYTHONPATH`` set to this tree, so the qgpuctl under test is the one next to
these tests even when the virtualenv's editable install points at another
checkout. Each start of the CLI costs seconds under the VM's software
emulation, so tests ask for ``-o json`` and read several facts from one call.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel import PROJECT
from qgpu_sysfs import DEV, SYS

QGPUCTL = PROJECT / ".venv" / "bin" / "qgpuctl"
NVSIM_LOAD = PROJECT / "build" / "bin" / "nvsim-load"
RULES = PROJECT / "udev" / "70-qgpu.rules"
RUN_RULES_DIR = Path("/run/udev/rules.d")
UDEVD_PATHS = (Path("/lib/systemd/systemd-udevd"), Path("/usr/lib/systemd/systemd-udevd"))


def tree_env() -> dict[str, str]:
    """The environment with this tree first on PYTHONPATH."""
    env = dict(os.environ)
    old = env.get("PYTHONPATH")
    env["PYTHONPATH"] = str(PROJECT) + (os.pathsep + old if old else "")
    env.pop("QGPU_OUTPUT", None)
    env["COLUMNS"] = "200"  # one table row per line
    return env


@dataclass
class Result:
    args: tuple[str, ...]
    rc: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)

    def __str__(self) -> str:
        return f"qgpuctl {' '.join(self.args)}: exit {self.rc}\n{self.stdout}{self.stderr}"


def qgpuctl(*args: str, input: str | None = None, timeout: float = 120) -> Result:
    proc = subprocess.run(
        [str(QGPUCTL), *args],
        input=input,
        capture_output=True,
        text=True,
        env=tree_env(),
        timeout=timeout,
        check=False,
    )
    return Result(tuple(args), proc.returncode, proc.stdout, proc.stderr)


def qgpuctl_many(calls: list[tuple[str, ...]], timeout: float = 300) -> list[Result]:
    """Several CLI runs at once (the guest has two CPUs): for calls that must change nothing."""
    procs = [
        subprocess.Popen(
            [str(QGPUCTL), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=tree_env(),
        )
        for args in calls
    ]
    results = []
    for args, proc in zip(calls, procs, strict=True):
        out, err = proc.communicate(timeout=timeout)
        results.append(Result(args, proc.returncode, out, err))
    return results


def nvsim_load(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NVSIM_LOAD), *args], capture_output=True, text=True, timeout=timeout, check=False
    )


def _attrs(directory: Path) -> dict[str, str]:
    out = {}
    for entry in sorted(directory.iterdir()):
        if entry.is_symlink() or not entry.is_file():
            continue
        try:
            out[entry.name] = entry.read_text().strip()
        except OSError:  # write-only (create, remove)
            continue
    return out


def snapshot(gpu: int = 0) -> dict[str, Any]:
    """Every readable attribute of the GPU and its instances, and the instances' nodes."""
    base = SYS / f"gpu{gpu}"
    instances = {p.name: _attrs(p) for p in sorted((base / "instances").iterdir())}
    nodes = sorted(str(p.relative_to(DEV)) for p in DEV.glob("*/*")) if DEV.is_dir() else []
    return {"gpu": _attrs(base), "instances": instances, "nodes": nodes}


def one_line_error(result: Result) -> str:
    """The CLI's error: exactly one line on stderr, which is returned."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, f"expected one line on stderr:\n{result}"
    assert lines[0].startswith("qgpuctl: error: "), result
    return lines[0]


# --- udevd -----------------------------------------------------------------------------------


def udevd_path() -> Path:
    for path in UDEVD_PATHS:
        if path.exists():
            return path
    raise AssertionError(f"no systemd-udevd at {', '.join(map(str, UDEVD_PATHS))}")


def udevadm(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["udevadm", *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@contextmanager
def running_udevd() -> Iterator[Path]:
    """The real udev daemon with the project's rules installed as runtime rules.

    The guest's root is the host's, read-only; udevd reads rules from
    /etc/udev/rules.d, /run/udev/rules.d and /usr/lib/udev/rules.d, and /run is
    a tmpfs here, so the rules go to /run/udev/rules.d. udevd runs in the
    foreground as our child (so we know its pid), is stopped with
    ``udevadm control --exit`` and the rules are removed again. Yields the
    installed rules file.
    """
    RUN_RULES_DIR.mkdir(parents=True, exist_ok=True)
    installed = RUN_RULES_DIR / RULES.name
    shutil.copyfile(RULES, installed)
    log = open("/tmp/udevd.log", "w")  # noqa: SIM115 - closed below
    daemon = subprocess.Popen([str(udevd_path())], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while udevadm("control", "--ping", timeout=30).returncode != 0:
            assert daemon.poll() is None, f"udevd exited {daemon.returncode}"
            assert time.monotonic() < deadline, "udevd did not answer within 60 s"
            time.sleep(0.2)
        yield installed
    finally:
        udevadm("settle", "--timeout=30")
        udevadm("control", "--exit", timeout=30)
        try:
            daemon.wait(timeout=30)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
        log.close()
        installed.unlink(missing_ok=True)
