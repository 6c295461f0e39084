"""The installed console script works end to end (not only the app object)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_kernel import FakeKernel

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


# Each library costs a command's start-up half a second or more in the test VM's emulation,
# where the guest tests run the CLI hundreds of times; a command that prints neither a table
# nor YAML should not load them.
_START_UP_PROBE = """
import json, sys
from qgpuctl.cli.app import main
sys.argv = ["qgpuctl", *sys.argv[1:]]
code = None
try:
    main()
except SystemExit as exc:
    code = exc.code
heavy = sorted(m for m in ("yaml", "rich") if m in sys.modules)
print(json.dumps({"code": code, "heavy": heavy}), file=sys.stderr)
"""


@pytest.fixture
def one_gpu(tmp_path: Path) -> Path:
    """A machine with one GPU and no instances: the root of its sys and dev trees."""
    (tmp_path / "dev").mkdir()
    FakeKernel(tmp_path / "sys", dev_root=tmp_path / "dev").add_gpu(0)
    return tmp_path


def _start_up(root: Path, *args: str) -> dict[str, Any]:
    """Run ``qgpuctl ARGS`` on the machine under ``root`` in a fresh interpreter: its exit
    code, its stdout, and which of the heavy libraries it had loaded when it returned."""
    env = {
        "PATH": "/usr/bin:/bin",
        "QGPU_SYSFS_ROOT": str(root / "sys"),
        "QGPU_DEV_ROOT": str(root / "dev"),
        "COLUMNS": "100",
        "NO_COLOR": "1",
    }
    proc = subprocess.run(
        [sys.executable, "-c", _START_UP_PROBE, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    last = proc.stderr.strip().splitlines()[-1]
    result: dict[str, Any] = json.loads(last)
    result["stdout"] = proc.stdout
    return result


def test_json_output_loads_neither_rich_nor_yaml(one_gpu: Path) -> None:
    r = _start_up(one_gpu, "list", "-o", "json")
    assert r["code"] in (0, None), r
    assert r["stdout"].startswith("["), r
    assert r["heavy"] == [], r


def test_table_and_yaml_output_load_what_they_print_with(one_gpu: Path) -> None:
    table = _start_up(one_gpu, "list")
    assert table["code"] in (0, None), table
    assert table["heavy"] == ["rich"], table
    document = _start_up(one_gpu, "list", "-o", "yaml")
    assert document["code"] in (0, None), document
    assert document["heavy"] == ["yaml"], document
