"""qgpu.ko and nvsim.ko load and unload cleanly in the guest."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from kernel import PROJECT, insmod, is_loaded, rmmod

NV_MAJOR = 195


def char_dev(path: str) -> tuple[int, int]:
    st = os.stat(path)
    assert stat.S_ISCHR(st.st_mode), f"{path} is not a character device"
    return os.major(st.st_rdev), os.minor(st.st_rdev)


def version() -> str:
    header = (PROJECT / "kmod" / "qgpu_version.h").read_text()
    return header.split('#define QGPU_VERSION "')[1].split('"')[0]


def test_both_modules_loaded_by_the_harness() -> None:
    assert is_loaded("nvsim")
    assert is_loaded("qgpu")
    assert Path("/sys/module/qgpu/version").read_text().strip() == version()


def test_nvsim_creates_the_nvidia_nodes() -> None:
    assert char_dev("/dev/nvidiactl") == (NV_MAJOR, 255)
    assert char_dev("/dev/nvidia0") == (NV_MAJOR, 0)
    uvm_major, _ = char_dev("/dev/nvidia-uvm")
    assert uvm_major != NV_MAJOR
    for node in ("nvidiactl", "nvidia0", "nvidia-uvm"):
        # As nvidia-modprobe makes them: usable by anyone, RM decides what a caller may do.
        assert stat.S_IMODE(os.stat(f"/dev/{node}").st_mode) == 0o666, node


def test_qgpu_proc_status() -> None:
    lines = Path("/proc/qgpu/status").read_text().splitlines()
    assert lines[0] == f"qgpu {version()}"
    assert "backend_dir: /dev" in lines


@pytest.mark.usefixtures("default_modules")
def test_unload_removes_everything_and_reload_works() -> None:
    assert rmmod("qgpu").returncode == 0
    assert rmmod("nvsim").returncode == 0
    assert not is_loaded("qgpu") and not is_loaded("nvsim")
    assert not Path("/proc/qgpu").exists()
    assert not Path("/dev/nvidiactl").exists()
    assert not Path("/dev/nvidia0").exists()
    assert not Path("/dev/nvidia-uvm").exists()

    r = insmod("nvsim", "num_gpus=3")
    assert r.returncode == 0, r.stderr
    for i in range(3):
        assert char_dev(f"/dev/nvidia{i}") == (NV_MAJOR, i)
    assert not Path("/dev/nvidia3").exists()
    r = insmod("qgpu", "backend_dir=/dev")
    assert r.returncode == 0, r.stderr


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize("num_gpus", ["0", "33"])
def test_nvsim_refuses_bad_gpu_count_and_leaves_nothing(num_gpus: str) -> None:
    assert rmmod("qgpu").returncode == 0
    assert rmmod("nvsim").returncode == 0
    r = insmod("nvsim", f"num_gpus={num_gpus}")
    assert r.returncode != 0
    assert "Invalid parameters" in r.stderr  # kmod's wording of EINVAL
    assert not is_loaded("nvsim")
    assert not Path("/dev/nvidiactl").exists()
