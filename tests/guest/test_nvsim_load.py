"""nvsim-load, the user-space RM client, against nvsim: identity, framebuffer, video memory.

nvsim-load speaks the real RM ioctl ABI (CHECK_VERSION_STR, RM_ALLOC of client/device/subdevice,
CARD_INFO, REGISTER_FD, RM_CONTROL, RM_ALLOC of NV01_MEMORY_LOCAL_USER, RM_FREE), so these tests
check nvsim's driver side from the outside. Expected values come from nvsim's own module
parameters, never from constants here.
"""

from __future__ import annotations

import json
import select
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kernel import PROJECT, insmod, is_loaded, rmmod
from rm import nvsim_switch

BIN = PROJECT / "build" / "bin" / "nvsim-load"
PARAMS = Path("/sys/module/nvsim/parameters")
MIB = 1024 * 1024


def param(name: str) -> str:
    return (PARAMS / name).read_text().strip()


def fb_bytes() -> int:
    return int(param("fb_mib")) * MIB


def gpu_uuid(index: int) -> str:
    """nvsim's UUID of GPU `index`: gpu_uuid (GPU 0) with `index` added to its last hex digits."""
    head, last = param("gpu_uuid").rsplit("-", 1)
    return f"{head}-{int(last, 16) + index:0{len(last)}x}"


def load(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN), *args], capture_output=True, text=True, check=False, timeout=120
    )


def load_json(*args: str, rc: int = 0) -> dict[str, Any]:
    r = load(*args, "--json")
    assert r.returncode == rc, f"exit {r.returncode}, stderr: {r.stderr}"
    out: dict[str, Any] = json.loads(r.stdout)
    return out


def info(*args: str) -> dict[str, Any]:
    return load_json("info", *args)


def third_of_fb_mib() -> int:
    """A size (MiB, a multiple of 2 MiB pages) of which 3 fit in the framebuffer and 4 do not."""
    return int(param("fb_mib")) // 3 // 2 * 2


def reload_nvsim(*params: str) -> None:
    """Reload nvsim with `params`; qgpu must go first (it holds nvsim's files) and stays out."""
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            r = rmmod(name)
            assert r.returncode == 0, r.stderr
    r = insmod("nvsim", *params)
    assert r.returncode == 0, r.stderr


def test_info_reports_nvsim_parameters() -> None:
    i = info()
    assert i["driver_version"] == param("abi_version")
    assert i["name"] == param("gpu_name")
    assert i["uuid"] == gpu_uuid(0)
    assert i["minor"] == 0
    assert i["fb_total_bytes"] == fb_bytes()
    assert i["fb_free_bytes"] == i["fb_total_bytes"], "nothing is allocated, all must be free"
    assert i["dmabuf"] is True
    with nvsim_switch("dmabuf", False):
        assert info()["dmabuf"] is False


def test_info_text_output() -> None:
    r = load("info")
    assert r.returncode == 0, r.stderr
    assert f"name:      {param('gpu_name')}" in r.stdout.splitlines()
    assert f"uuid:      {gpu_uuid(0)}" in r.stdout.splitlines()
    assert "dma-buf:   yes" in r.stdout.splitlines()


def test_alloc_a_few_mib() -> None:
    a = load_json("alloc", "4M", "--count", "3")
    assert a["requested"] == 3
    assert a["succeeded"] == 3
    assert a["failed"] == 0
    assert a["statuses"] == ["NV_OK"] * 3
    assert a["allocated_bytes"] >= 3 * 4 * MIB

    r = load("alloc", "4M")
    assert r.returncode == 0, r.stderr
    assert "NV_OK (0x0)" in r.stdout


def test_alloc_beyond_framebuffer_fails_with_no_memory() -> None:
    size = third_of_fb_mib()
    a = load_json("alloc", f"{size}M", "--count", "4", rc=1)
    assert a["statuses"] == ["NV_OK"] * 3 + ["NV_ERR_NO_MEMORY"]
    assert a["succeeded"] == 3
    assert a["failed"] == 1
    assert 3 * size * MIB <= a["allocated_bytes"] <= fb_bytes()

    r = load("alloc", f"{2 * fb_bytes()}")
    assert r.returncode == 1
    assert "NV_ERR_NO_MEMORY (0x51)" in r.stdout


def test_memory_is_free_again_after_exit() -> None:
    r = load("alloc", "64M", "--count", "4")
    assert r.returncode == 0, r.stderr
    i = info()
    assert i["fb_free_bytes"] == i["fb_total_bytes"]


def test_memory_is_free_again_after_kill() -> None:
    """Killed while holding memory: the driver must free the client when its file closes."""
    proc = subprocess.Popen(
        [str(BIN), "alloc", "256M", "--count", "2", "--hold", "60", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "nvsim-load printed nothing within 60 s"
        assert proc.stdout is not None
        a = json.loads(proc.stdout.readline())
        assert a["succeeded"] == 2
        held = info()
        assert held["fb_free_bytes"] == held["fb_total_bytes"] - a["allocated_bytes"]
    finally:
        proc.kill()
        proc.communicate(timeout=60)
    i = info()
    assert i["fb_free_bytes"] == i["fb_total_bytes"]


@pytest.mark.usefixtures("default_modules")
def test_older_abi_and_second_gpu() -> None:
    reload_nvsim("abi_version=535.104.05", "fb_mib=1024", "num_gpus=2")

    gpu0 = info()
    assert gpu0["driver_version"] == "535.104.05"
    assert gpu0["abi_family"] == "535"
    assert gpu0["minor"] == 0
    assert gpu0["uuid"] == gpu_uuid(0)
    assert gpu0["fb_total_bytes"] == 1024 * MIB
    assert gpu0["fb_free_bytes"] == gpu0["fb_total_bytes"]

    gpu1 = info("--gpu", "1")
    assert gpu1["minor"] == 1
    assert gpu1["gpu_index"] == 1
    assert gpu1["device_instance"] == 1
    assert gpu1["uuid"] == gpu_uuid(1)
    assert gpu1["name"] == param("gpu_name")
    assert gpu1["fb_total_bytes"] == 1024 * MIB

    assert load_json("alloc", "16M", "--count", "2")["succeeded"] == 2
    size = third_of_fb_mib()
    a = load_json("alloc", f"{size}M", "--count", "4", "--gpu", "1", rc=1)
    assert a["minor"] == 1
    assert a["statuses"] == ["NV_OK"] * 3 + ["NV_ERR_NO_MEMORY"]

    for args in ((), ("--gpu", "1")):
        i = info(*args)
        assert i["fb_free_bytes"] == i["fb_total_bytes"]


def test_gpu_that_does_not_exist() -> None:
    r = load("info", "--gpu", "7")
    assert r.returncode == 1
    assert r.stderr.strip() == (
        f"nvsim-load: CARD_INFO: no GPU with minor number 7 ({param('num_gpus')} GPU(s) present)"
    )


def test_dev_without_nodes_fails_clearly(tmp_path: Path) -> None:
    r = load("--dev", str(tmp_path), "info")
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == f"nvsim-load: open {tmp_path}/nvidiactl: No such file or directory\n"


@pytest.mark.parametrize("size", ["0", "12Q", "abc", "1.5G", "99999999999999999999"])
def test_bad_size_is_a_usage_error(size: str) -> None:
    r = load("alloc", size)
    assert r.returncode == 2
    assert "bad SIZE" in r.stderr


@pytest.mark.parametrize(
    "args",
    [
        ("run", "--kernel-us", "0"),
        ("run", "--kernel-us", "abc"),
        ("run", "--seconds", "-1"),
        ("run", "--queued-us", "0"),
        ("run", "--queued-us", "60000001"),
        ("alloc", "4K", "--queued-us", "1000"),
        ("churn",),
        ("churn", "4K", "extra"),
        ("churn", "4K", "--hold", "1"),
        ("churn", "4K", "--rounds", "0"),
        ("churn", "4K", "--live", "1000001"),
        ("info", "--live", "3"),
        ("run", "--count", "3"),
        ("run", "extra"),
        ("info", "--seconds", "1"),
    ],
)
def test_run_usage_errors(args: tuple[str, ...]) -> None:
    r = load(*args)
    assert r.returncode == 2
    assert r.stderr.startswith("nvsim-load: ")


def test_churn_times_each_round_and_leaves_nothing_allocated() -> None:
    free = info()["fb_free_bytes"]
    r = load_json("churn", "64K", "--count", "20", "--live", "7", "--rounds", "3")
    assert (r["size"], r["live"], r["pairs_per_round"]) == (64 * 1024, 7, 20)
    assert len(r["ns_per_pair"]) == 3 and all(ns > 0 for ns in r["ns_per_pair"])
    assert info()["fb_free_bytes"] == free


def test_churn_past_the_framebuffer_fails_naming_the_allocation() -> None:
    # three held fill it: the first pair's allocation is refused
    r = load("churn", f"{third_of_fb_mib()}M", "--live", "3", "--rounds", "1")
    assert r.returncode == 1
    assert "RM_ALLOC vidmem" in r.stderr and "NO_MEMORY" in r.stderr, r.stderr
    assert info()["fb_free_bytes"] == fb_bytes()
