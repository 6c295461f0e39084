"""The CLI contract: exit codes, one-line errors on stderr, data on stdout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from conftest import FakeTree
from fake_kernel import FakeKernel
from typer.testing import CliRunner, Result

from qgpuctl.backends.sysfs import SysfsTree
from qgpuctl.cli.app import app
from qgpuctl.cli.context import AppContext
from qgpuctl.errors import KernelInterfaceError

runner = CliRunner()


def invoke(*args: str, obj: AppContext | None = None) -> Result:
    return runner.invoke(app, list(args), prog_name="qgpuctl", obj=obj)


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got {lines!r}"
    return lines[0]


CHECKS = [
    "qgpu module loaded",
    "NVIDIA driver nodes",
    "qgpu GPUs",
    "backend driver supported",
    "channel progress",
    "scheduling controls' cost",
    "GPU memory as NUMA node",
    "kernel RM client",
    "sealed forwarding",
    "udev rules installed",
    "instance device nodes",
    "dma-buf exports refused",
    "channels bounded",
    "system memory limited",
    "CDI spec current",
]


@pytest.fixture
def healthy_host(
    fake_sysfs: FakeTree, fake_dev: FakeTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    FakeKernel(fake_sysfs.root).add_gpu(0)
    fake_dev.add("nvidiactl")
    rules = tmp_path / "host/etc/udev/rules.d/70-qgpu.rules"
    rules.parent.mkdir(parents=True)
    rules.write_text("")
    status = tmp_path / "host/proc/qgpu/status"
    status.parent.mkdir(parents=True)
    status.write_text(
        "qgpu 0.1.0\nbackend_dir: /dev\nrm_client: nvidia_get_rm_ops\n"
        "seal: nvidia:rm_ioctl (0 missed)\nseal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
        "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
        "seal_fd: nvidia:nv_get_file_private (0 missed, 0 lent)\n"
        "seal_uvm_fd: fget (0 missed, 0 lent)\n"
        "seal_gpu: nvidia:nv_is_gpu_accessible (0 missed, 0 answered)\n"
        "seal_attach: nvidia:nvidia_dev_get (0 missed, 0 refused)\ngpus: 1\n"
    )
    monkeypatch.setenv("QGPU_HOST_ROOT", str(tmp_path / "host"))


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0
    assert result.stdout == "qgpuctl 0.1.0\n"
    assert result.stderr == ""


def test_help_lists_doctor() -> None:
    result = invoke("--help")
    assert result.exit_code == 0
    assert "doctor" in result.stdout
    assert "--output" in result.stdout


def test_no_arguments_prints_help() -> None:
    result = invoke()
    assert result.exit_code == 2
    assert "doctor" in result.output


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-o", "xml", "doctor"], "xml"),
        (["doctor", "-o", "xml"], "xml"),
        (["docter"], "Did you mean 'doctor'"),
        (["--no-such-flag"], "--no-such-flag"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], needle: str) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert needle in one_line(result.stderr)
    assert one_line(result.stderr).startswith("qgpuctl: error: ")
    assert result.stdout == ""


def test_doctor_without_module_exits_3() -> None:
    result = invoke("doctor")
    assert result.exit_code == 3
    assert "qgpu module loaded" in result.stdout
    assert "fail" in result.stdout
    assert "modprobe qgpu" in result.stdout
    assert "checks failed" in one_line(result.stderr)


def test_doctor_module_loaded_but_no_driver_nodes_exits_3(fake_sysfs: FakeTree) -> None:
    fake_sysfs.mkdir("module/qgpu")
    result = invoke("-o", "json", "doctor")
    assert result.exit_code == 3
    status = {row["check"]: row["status"] for row in json.loads(result.stdout)}
    assert list(status) == CHECKS
    assert status["qgpu module loaded"] == "ok"
    assert status["NVIDIA driver nodes"] == "fail"
    assert status["qgpu GPUs"] == "fail"  # module dir without the class tree


@pytest.mark.usefixtures("healthy_host")
def test_doctor_healthy_host_exits_0() -> None:
    result = invoke("doctor")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.count(" ok ") == len(CHECKS)
    assert "fail" not in result.stdout


@pytest.mark.usefixtures("healthy_host")
@pytest.mark.parametrize(
    ("args", "parse"),
    [
        (["-o", "json", "doctor"], json.loads),
        (["doctor", "--output", "json"], json.loads),
        (["--output", "yaml", "doctor"], yaml.safe_load),
        (["doctor", "-o", "YAML"], yaml.safe_load),
    ],
)
def test_doctor_machine_readable(args: list[str], parse: object) -> None:
    result = invoke(*args)
    assert result.exit_code == 0, result.stderr
    assert callable(parse)
    rows = parse(result.stdout)
    assert [row["check"] for row in rows] == CHECKS
    assert {row["status"] for row in rows} == {"ok"}
    assert set(rows[0]) == {"check", "status", "detail"}


@pytest.mark.usefixtures("healthy_host")
def test_output_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QGPU_OUTPUT", "json")
    result = invoke("doctor")
    assert result.exit_code == 0
    assert json.loads(result.stdout)[1]["status"] == "ok"


def test_doctor_shows_module_version(healthy_host: None, fake_sysfs: FakeTree) -> None:
    fake_sysfs.add("module/qgpu/version", "0.1.0\n")
    result = invoke("doctor")
    assert result.exit_code == 0
    assert "(version 0.1.0)" in result.stdout


def test_doctor_reads_the_dev_root_from_the_environment(fake_dev: FakeTree) -> None:
    result = invoke("-o", "json", "doctor")
    assert str(fake_dev.root / "nvidiactl") in result.stdout


class _BrokenSysfs(SysfsTree):
    def __init__(self, root: Path, exc: Exception) -> None:
        super().__init__(root)
        self.exc = exc

    def exists(self, rel: object) -> bool:
        raise self.exc


def test_qgpu_error_is_one_red_line_and_its_exit_code(tmp_path: Path) -> None:
    exc = KernelInterfaceError(tmp_path / "module/qgpu", None, 13)
    result = invoke("doctor", obj=AppContext(sysfs=_BrokenSysfs(tmp_path, exc)))
    assert result.exit_code == 3
    line = one_line(result.stderr)
    assert line == f"qgpuctl: error: {tmp_path}/module/qgpu: Permission denied (EACCES)"
    assert result.stdout == ""


def test_debug_adds_the_traceback(tmp_path: Path) -> None:
    exc = KernelInterfaceError(tmp_path / "module/qgpu", None, 13)
    result = invoke("--debug", "doctor", obj=AppContext(sysfs=_BrokenSysfs(tmp_path, exc)))
    assert result.exit_code == 3
    assert "Traceback (most recent call last)" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("qgpuctl: error: ")


def test_unexpected_error_is_one_line_exit_1(tmp_path: Path) -> None:
    broken = _BrokenSysfs(tmp_path, RuntimeError("boom"))
    result = invoke("doctor", obj=AppContext(sysfs=broken))
    assert result.exit_code == 1
    line = one_line(result.stderr)
    assert "unexpected RuntimeError: boom" in line
    assert "--debug" in line


def test_unexpected_error_with_debug_shows_traceback(tmp_path: Path) -> None:
    broken = _BrokenSysfs(tmp_path, RuntimeError("boom"))
    result = invoke("--debug", "doctor", obj=AppContext(sysfs=broken))
    assert result.exit_code == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "RuntimeError: boom" in result.stderr
