"""qgpu instances: sysfs lifecycle, strict create parsing, limits, device nodes, unload policy.

The harness loads nvsim (one GPU) and qgpu with their defaults; every test leaves no instance.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from kernel import insmod, is_loaded, rmmod
from qgpu_sysfs import (
    DEV,
    NODES,
    create,
    gpu_dir,
    inst_dir,
    instance,
    instances,
    read,
    remove,
    write,
)

PER_GPU = 128


@pytest.fixture(autouse=True)
def no_instances_left() -> Iterator[None]:
    yield
    if is_loaded("qgpu") and gpu_dir().exists():
        left = instances()
        for name in left:
            remove(name, force=True)
        write(gpu_dir() / "overcommit", "0\n")
        assert left == [], "a test left instances behind"


def refused(line: str, gpu: int = 0) -> int:
    with pytest.raises(OSError) as exc:
        create(line, gpu)
    return exc.value.errno


def test_gpu_parent_shows_the_gpu() -> None:
    g = gpu_dir()
    assert read(g / "index") == "0"
    assert read(g / "name") == rm.param("gpu_name")
    assert read(g / "uuid") == rm.param("gpu_uuid")
    assert int(read(g / "memory")) == int(rm.param("fb_mib")) << 20
    assert read(g / "driver_version") == rm.param("abi_version")
    assert read(g / "available_instances") == str(PER_GPU)
    assert read(g / "unknown_escapes") == "allow"
    assert stat.S_IMODE((g / "create").stat().st_mode) == 0o200
    assert stat.S_IMODE((g / "unknown_escapes").stat().st_mode) == 0o644
    assert not (gpu_dir(1)).exists()


def test_create_shows_settings_and_nodes_then_remove() -> None:
    create("t1 mem=1G core=50 class=offline")
    d = inst_dir("t1")
    assert read(d / "mem_max") == str(1 << 30)
    assert read(d / "core") == "50"
    assert read(d / "class") == "offline"
    assert read(d / "processes") == ""
    assert read(gpu_dir() / "available_instances") == str(PER_GPU - 1)
    majors = set()
    for node in NODES:
        st = os.stat(DEV / "t1" / node)
        assert stat.S_ISCHR(st.st_mode)
        assert stat.S_IMODE(st.st_mode) == 0o660
        assert (st.st_uid, st.st_gid) == (0, 0)
        majors.add(os.major(st.st_rdev))
    assert len(majors) == 1 and 195 not in majors
    assert (
        "instance t1: mem 1073741824, core 50, class offline"
        in Path("/proc/qgpu/status").read_text()
    )

    write(gpu_dir() / "overcommit", "1\n")  # t2's default limit is the whole GPU, as t1's 1G is
    create("t2")
    d2 = inst_dir("t2")
    assert (read(d2 / "mem_max"), read(d2 / "core"), read(d2 / "class")) == ("max", "100", "online")
    assert instances() == ["t1", "t2"]
    remove("t1")
    remove("t2")
    write(gpu_dir() / "overcommit", "0\n")
    assert instances() == []
    assert not (DEV / "t1").exists()
    assert read(gpu_dir() / "available_instances") == str(PER_GPU)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "Upper",
        "-dash",
        "a/b",
        "x" * 33,
        "ok gpu=1",
        "ok mem=12Q",
        "ok mem=0",
        "ok core=101",
        "ok core=0",
        "ok class=onlien",
        "ok mem=1G mem=2G",
        "ok extra",
    ],
)
def test_bad_create_lines_create_nothing(line: str) -> None:
    assert refused(line) == errno.EINVAL
    assert instances() == []
    assert not DEV.exists() or list(DEV.iterdir()) == []


def test_duplicate_name_and_memory_above_the_gpu_are_refused() -> None:
    with instance("dup"):
        assert refused("dup") == errno.EINVAL
        assert refused("dup mem=1G") == errno.EINVAL
        assert instances() == ["dup"]
    too_much = (int(rm.param("fb_mib")) + 1) << 20
    assert refused(f"big mem={too_much}") == errno.EINVAL
    assert instances() == []


def test_name_may_be_32_characters() -> None:
    name = "a" + "b-._9" * 6 + "z"
    assert len(name) == 32
    with instance(name) as d:
        assert os.path.exists(f"{d}/nvidiactl")


def test_many_instances_on_one_gpu() -> None:
    names = [f"i{n}" for n in range(PER_GPU)]
    write(gpu_dir() / "overcommit", "1\n")  # 128 unlimited instances
    try:
        for name in names:
            create(name)
        assert read(gpu_dir() / "available_instances") == "0"
        assert refused("one-more") == errno.ENOSPC
        fd = os.open(f"/dev/qgpu/{names[-1]}/nvidiactl", os.O_RDWR)
        os.close(fd)
    finally:
        for name in names:
            if inst_dir(name).exists():
                remove(name)
    assert read(gpu_dir() / "available_instances") == str(PER_GPU)


def test_remove_while_open_is_busy_unless_forced() -> None:
    create("busy")
    fd = os.open("/dev/qgpu/busy/nvidiactl", os.O_RDWR)
    try:
        with pytest.raises(OSError) as exc:
            remove("busy")
        assert exc.value.errno == errno.EBUSY
        with pytest.raises(OSError) as exc:
            write(inst_dir("busy") / "remove", "2\n")
        assert exc.value.errno == errno.EINVAL
        procs = read(inst_dir("busy") / "processes").splitlines()
        assert procs == [f"{os.getpid()} {Path('/proc/self/comm').read_text().strip()}"]
        assert f" {os.getpid()}(" in Path("/proc/qgpu/status").read_text()
        remove("busy", force=True)
        assert instances() == []
        assert not (DEV / "busy").exists()
        with pytest.raises(OSError) as exc:
            rm.ioctl(fd, rm.CARD_INFO, bytearray(72))
        assert exc.value.errno == errno.ENODEV
    finally:
        os.close(fd)


def test_closing_makes_it_removable() -> None:
    create("c")
    fds = [os.open(f"/dev/qgpu/c/{n}", os.O_RDWR) for n in NODES]
    for fd in fds:
        os.close(fd)
    assert read(inst_dir("c") / "processes") == ""
    remove("c")


def test_unknown_escapes_are_counted_and_refusable() -> None:
    g = gpu_dir()
    with instance("esc") as d:
        ctl = os.open(f"{d}/nvidiactl", os.O_RDWR)
        try:
            before = int(read(g / "unknown_escapes_seen"))
            with pytest.raises(OSError) as exc:
                rm.ioctl(ctl, 0x7F, bytearray(16))
            assert exc.value.errno == errno.EINVAL  # nvsim refuses it itself
            assert int(read(g / "unknown_escapes_seen")) == before + 1
            write(g / "unknown_escapes", "refuse\n")
            with pytest.raises(OSError) as exc:
                rm.ioctl(ctl, 0x7F, bytearray(16))
            assert exc.value.errno == errno.EINVAL
            assert int(read(g / "unknown_escapes_seen")) == before + 2
            rm.card_info(ctl)  # known escapes still work
        finally:
            write(g / "unknown_escapes", "allow")
            os.close(ctl)
    with pytest.raises(OSError) as exc:
        write(g / "unknown_escapes", "maybe")
    assert exc.value.errno == errno.EINVAL


def test_open_of_a_removed_instance_fails() -> None:
    create("gone")
    st = os.stat("/dev/qgpu/gone/nvidiactl")
    remove("gone")
    path = "/tmp/qgpu-stale-node"
    os.mknod(path, stat.S_IFCHR | 0o600, st.st_rdev)
    try:
        with pytest.raises(OSError) as exc:
            os.open(path, os.O_RDWR)
        assert exc.value.errno == errno.ENODEV
    finally:
        os.unlink(path)


@pytest.mark.usefixtures("default_modules")
def test_rmmod_is_refused_while_instances_exist() -> None:
    create("pin")
    r = rmmod("qgpu")
    assert r.returncode != 0
    assert is_loaded("qgpu")
    remove("pin")
    assert rmmod("qgpu").returncode == 0
    assert not Path("/sys/class/qgpu").exists()
    r = insmod("qgpu")
    assert r.returncode == 0, r.stderr


def test_card_info_answers_through_the_instance() -> None:
    with instance("ci") as d:
        ctl = os.open(f"{d}/nvidiactl", os.O_RDWR)
        try:
            cards = rm.card_info(ctl)
            assert len(cards) == 1
            gpu_id, minor, fb = cards[0]
            assert minor == 0
            assert fb == int(rm.param("fb_mib")) << 20
            assert read(gpu_dir() / "gpu_id") == hex(gpu_id)
            buf = bytearray(72 * 2)
            rm.ioctl(ctl, rm.CARD_INFO, buf)
            assert struct.unpack_from("<I", buf, 16)[0] == gpu_id
            assert buf[72:] == bytes(72)
        finally:
            os.close(ctl)
