"""The test harness itself: scripts/vm.sh and scripts/test.sh fail when the guest does.

Each case boots the VM once with the least it needs (no project modules, no Python in the guest),
so the whole file costs about a minute.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
VM = PROJECT / "scripts" / "vm.sh"
CRASHMOD = PROJECT / "tests" / "harness" / "crashmod" / "qgpu_crashtest.ko"

pytestmark = pytest.mark.vm


def vm(*args: str, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VM), *args],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_guest_exit_code_is_the_commands() -> None:
    r = vm("--no-modules", "--", "sh", "-c", "echo guest-says-hi; exit 3")
    assert r.returncode == 3, r.stderr
    assert "guest-says-hi" in r.stdout  # the guest's output streams to the caller
    assert "guest command exited 3" in r.stderr


def test_guest_oops_fails_the_run() -> None:
    r = vm("--no-modules", "--insmod", f"{CRASHMOD} mode=oops", "--", "true")
    assert r.returncode == 131, r.stderr
    assert "died without a result" in r.stderr


def test_guest_warn_fails_the_run() -> None:
    r = vm("--no-modules", "--insmod", f"{CRASHMOD} mode=warn", "--", "true")
    assert r.returncode == 131, r.stderr
    assert "WARNING" in r.stdout + r.stderr


def test_guest_timeout_fails_the_run() -> None:
    r = vm("--no-modules", "--timeout", "30", "--", "sleep", "600")
    assert r.returncode == 124, r.stderr
    assert "did not finish within 30s" in r.stderr


def test_a_failing_guest_suite_fails_the_test_run(tmp_path: Path) -> None:
    """scripts/test.sh (what `make test` runs after building) fails and says so in its last line."""
    env = dict(
        os.environ,
        QGPU_TEST_STAGES="guest",
        QGPU_TEST_RESULTS=str(tmp_path),
        QGPU_GUEST_SUITE="exit 7",
    )
    r = subprocess.run(
        [str(PROJECT / "scripts" / "test.sh")],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode != 0
    assert r.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"
