"""Shared fixtures: a quiet, fixed-size terminal and fake /sys and /dev trees.

Every test starts with QGPU_SYSFS_ROOT and QGPU_DEV_ROOT pointing at empty
directories, so nothing here ever reads the host's real /sys or /dev: a test
that wants a kernel node builds it with ``fake_sysfs`` / ``fake_dev``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fake_kernel import FakeKernel
from typer.testing import CliRunner, Result

from qgpuctl.backends.devfs import DevTree
from qgpuctl.backends.files import HostFiles
from qgpuctl.backends.netlink import ReplaySource
from qgpuctl.backends.nvml import NvmlGpu
from qgpuctl.cli.app import app
from qgpuctl.cli.context import AppContext

WIDTH = 100


@dataclass
class FakeTree:
    """A directory standing in for /sys or /dev; files are plain files."""

    root: Path

    def add(self, rel: str, content: str = "") -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        return path

    def mkdir(self, rel: str) -> Path:
        path = self.root / rel
        path.mkdir(parents=True, exist_ok=True)
        return path


@pytest.fixture(autouse=True)
def _isolated_terminal_and_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "dumb")
    for var in ("FORCE_COLOR", "QGPU_OUTPUT", "QGPU_DEBUG", "QGPU_POLICY_FILE", "QGPU_HOST_ROOT"):
        monkeypatch.delenv(var, raising=False)
    empty = tmp_path / "empty-host"
    (empty / "sys").mkdir(parents=True)
    (empty / "dev").mkdir()
    monkeypatch.setenv("QGPU_SYSFS_ROOT", str(empty / "sys"))
    monkeypatch.setenv("QGPU_DEV_ROOT", str(empty / "dev"))


@pytest.fixture
def fake_sysfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTree:
    """An empty sysfs root under tmp_path, exported as QGPU_SYSFS_ROOT."""
    root = tmp_path / "sys"
    root.mkdir()
    monkeypatch.setenv("QGPU_SYSFS_ROOT", str(root))
    return FakeTree(root)


@pytest.fixture
def fake_dev(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeTree:
    """An empty /dev under tmp_path, exported as QGPU_DEV_ROOT."""
    root = tmp_path / "dev"
    root.mkdir()
    monkeypatch.setenv("QGPU_DEV_ROOT", str(root))
    return FakeTree(root)


# --- a fake qgpu kernel and a CLI wired to it -------------------------------------

GIB = 2**30


def policy_text(*instances: str, gpu: int = 0) -> str:
    """A policy file for GPU ``gpu`` with these instances (``name: a, mem: 1G, core: 10``)."""
    entries = "".join(f"      - {{{inst}}}\n" for inst in instances)
    return f"version: v1\ngpus:\n  - selector: {{index: {gpu}}}\n    instances:\n{entries}"


@dataclass
class Host:
    """A fake machine: qgpu's sysfs (emulated), /dev and the host's files (/etc ...)."""

    kernel: FakeKernel
    dev: Path
    files: Path
    nvml: dict[str, NvmlGpu] | None = None
    recorded_events: list[bytes] = field(default_factory=list)

    def context(self) -> AppContext:
        return AppContext(
            sysfs=self.kernel,
            dev=DevTree(self.dev),
            host=HostFiles(self.files),
            nvml=lambda: self.nvml,
            events=lambda: ReplaySource(self.recorded_events),
        )

    def invoke(self, *args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(
            app, list(args), prog_name="qgpuctl", obj=self.context(), input=input
        )


@pytest.fixture
def host(tmp_path: Path) -> Host:
    """Two GPUs (index 0: 40G, index 1: 80G), best-effort, no instances yet."""
    (tmp_path / "dev").mkdir(exist_ok=True)
    (tmp_path / "files").mkdir()
    kernel = FakeKernel(tmp_path / "sys", dev_root=tmp_path / "dev")
    kernel.add_gpu(0, memory=40 * GIB)
    kernel.add_gpu(1, name="NVIDIA A100-SXM4-80GB", memory=80 * GIB)
    (tmp_path / "dev" / "nvidiactl").write_text("")
    status = tmp_path / "files/proc/qgpu/status"
    status.parent.mkdir(parents=True)
    status.write_text(
        "qgpu 0.1.0\nrm_client: nvidia_get_rm_ops\nseal: nvidia:rm_ioctl (0 missed)\n"
        "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
        "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
        "seal_fd: nvidia:nv_get_file_private (0 missed, 0 lent)\n"
        "seal_uvm_fd: fget (0 missed, 0 lent)\n"
        "seal_gpu: nvidia:nv_is_gpu_accessible (0 missed, 0 answered)\n"
        "seal_attach: nvidia:nvidia_dev_get (0 missed, 0 refused)\ngpus: 2\n"
    )
    return Host(kernel, tmp_path / "dev", tmp_path / "files")
