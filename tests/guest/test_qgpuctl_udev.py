"""The real udev daemon with the project's rules, and what qgpuctl gets from it.

udevd runs for this module only (qgpuctl_cli.running_udevd). The kernel's
devtmpfs creates the instance nodes by itself; what is tested here is what
udev does on top: that udev/70-qgpu.rules parses and its rule matches the
instance nodes (and only them), that the live daemon names and modes them as
documented, that the `qgpu` subsystem's events reach a pyudev monitor (what
`qgpuctl create` waits on), and that `qgpuctl doctor` finds the rules.
"""

from __future__ import annotations

import os
import re
import select
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
import pyudev
from qgpu_sysfs import DEV, NODES, SYS, create, gpu_dir, inst_dir, remove
from qgpuctl_cli import qgpuctl, running_udevd, udevadm

from qgpuctl.backends.udev import UdevWaiter


@pytest.fixture(scope="module")
def rules() -> Iterator[Path]:
    with running_udevd() as installed:
        yield installed


@pytest.fixture(autouse=True)
def clean_gpu(rules: Path) -> Iterator[None]:
    yield
    for inst in (gpu_dir() / "instances").iterdir():
        remove(inst.name, force=True)


def syspath(name: str, node: str) -> str:
    return str(SYS / f"qgpu!{name}!{node}")


def test_rules_match_the_instance_nodes_and_nothing_else(rules: Path) -> None:
    create("udv mem=1G")
    assert udevadm("settle", "--timeout=30").returncode == 0
    for node in NODES:
        r = udevadm("test", "--action=add", syspath("udv", node))
        assert r.returncode == 0, r.stderr
        log = r.stdout + r.stderr
        assert f"Reading rules file: {rules}" in log
        # The rule line applied, with the mode it documents (udev logs FILE:LINE ACTION).
        assert re.search(rf"{re.escape(rules.name)}:\d+ MODE 0660", log), log[-3000:]
        assert f"DEVNAME=/dev/qgpu/udv/{node}" in log
        assert "SUBSYSTEM=qgpu" in log
    # The GPU parent is in the same class but has no node: the rule must not touch it.
    r = udevadm("test", "--action=add", str(SYS / "gpu0"))
    assert r.returncode == 0, r.stderr
    assert rules.name + ":" not in r.stdout + r.stderr


def test_daemon_names_and_modes_the_nodes(rules: Path) -> None:
    create("udv2 mem=1G")
    assert udevadm("settle", "--timeout=30").returncode == 0
    for node in NODES:
        path = DEV / "udv2" / node
        info = udevadm("info", "--query=all", f"--name={path}")
        assert info.returncode == 0, info.stderr
        assert f"N: qgpu/udv2/{node}" in info.stdout
        assert f"E: DEVNAME={path}" in info.stdout
        assert "E: SUBSYSTEM=qgpu" in info.stdout
        # udev processed its event: the device is in udev's database (initialized).
        device = pyudev.Devices.from_device_file(pyudev.Context(), str(path))
        assert device.is_initialized, f"{path} not initialized by udevd"
    # A node whose mode was changed behind udev's back is set back by the next event.
    victim = DEV / "udv2" / "nvidiactl"
    os.chmod(victim, 0o600)
    r = udevadm("trigger", "--action=change", "--settle", syspath("udv2", "nvidiactl"))
    assert r.returncode == 0, r.stderr
    st = os.stat(victim)
    assert stat.S_IMODE(st.st_mode) == 0o660
    assert (st.st_uid, st.st_gid) == (0, 0)


def test_pyudev_sees_the_qgpu_events_create_waits_for(rules: Path) -> None:
    monitor = pyudev.Monitor.from_netlink(pyudev.Context())  # source "udev": after the rules
    monitor.filter_by(subsystem="qgpu")
    monitor.start()
    create("udv3 mem=1G")
    seen: dict[str, tuple[str, str]] = {}
    while len(seen) < len(NODES):
        ready, _, _ = select.select([monitor], [], [], 30)
        assert ready, f"no udev event within 30 s; saw {seen}"
        device = monitor.poll(timeout=0)
        assert device is not None
        # udev's name for qgpu!udv3!<node> (sd-device turns '!' into '/')
        seen[device.device_node] = (device.action, device.sys_name)
    assert seen == {str(DEV / "udv3" / n): ("add", f"qgpu/udv3/{n}") for n in NODES}
    remove("udv3")
    gone = set()
    while len(gone) < len(NODES):
        device = monitor.poll(timeout=30)
        assert device is not None, "no remove event within 30 s"
        assert device.action == "remove"
        gone.add(device.device_node)
    assert gone == set(seen)


def test_qgpuctl_create_waits_through_udev(rules: Path) -> None:
    # In-process: the waiter qgpuctl create uses subscribes through pyudev when udevd runs.
    waiter = UdevWaiter()
    waiter.start()
    try:
        assert waiter._monitor is not None, "pyudev monitor did not start"
        create("udv4 mem=1G")
        assert waiter.wait([DEV / "udv4" / n for n in NODES], 30) == []
    finally:
        waiter.stop()
    # The CLI, end to end.
    r = qgpuctl("create", "udv5", "--mem", "1G", "--core", "10", "-o", "json")
    assert r.rc == 0, r
    assert r.json()["devices"] == [str(DEV / "udv5" / n) for n in NODES]
    assert all((DEV / "udv5" / n).exists() for n in NODES)
    assert inst_dir("udv5").is_dir()


def test_doctor_on_the_real_system(rules: Path) -> None:
    create("udv6 mem=1G core=10 sysmem=256M")
    spec = Path("/var/run/cdi/qgpu.yaml")  # /var/run -> /run, a tmpfs in the guest
    try:
        r = qgpuctl("cdi", "generate", "--file", str(spec))
        assert r.rc == 0, r
        r = qgpuctl("doctor", "-o", "json")
    finally:
        spec.unlink(missing_ok=True)
    assert r.rc == 0, r
    checks = {c["check"]: c for c in r.json()}
    assert {name: c["status"] for name, c in checks.items()} == {
        "qgpu module loaded": "ok",
        "NVIDIA driver nodes": "ok",
        "qgpu GPUs": "ok",
        "backend driver supported": "ok",
        "channel progress": "ok",
        "scheduling controls' cost": "ok",
        "kernel RM client": "ok",
        "sealed forwarding": "ok",
        "udev rules installed": "ok",
        "instance device nodes": "ok",
        "dma-buf exports refused": "ok",
        "channels bounded": "ok",
        "system memory limited": "ok",
        "CDI spec current": "ok",
        "GPU memory as NUMA node": "ok",
    }, checks
    assert checks["udev rules installed"]["detail"] == str(rules)
    assert checks["kernel RM client"]["detail"] == "through nvsim_get_rm_ops"
    # no channel group yet: nothing seen of GP_GET
    assert checks["channel progress"]["detail"] == "GPU 0: controls effective, GP_GET unknown"
    assert checks["sealed forwarding"]["detail"] == (
        "through probes on nvsim:rm_ioctl, nvsim:uvm_api_*, nvsim:os_memcpy_from_user,"
        " nvsim:nv_get_file_private, fget, nvsim:nv_is_gpu_accessible and nvsim:nvidia_dev_get"
    )
    assert checks["instance device nodes"]["detail"].startswith("3 nodes of 1 instances")
    assert checks["CDI spec current"]["detail"] == str(spec)
