"""The installed console script works end to end (not only the app object)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import qgpuctl


def test_console_script_version() -> None:
    script = Path(sys.executable).parent / "qgpuctl"
    assert script.is_file(), f"console script not installed at {script}; run `make deps`"
    proc = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "qgpuctl 0.1.0\n"
    assert qgpuctl.__version__ == "0.1.0"
    assert proc.stderr == ""


def test_python_dash_m_version() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "qgpuctl", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "qgpuctl 0.1.0\n"
