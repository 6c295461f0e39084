"""SysfsTree: containment, error mapping, and rollback."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from conftest import FakeTree

from qgpuctl.backends.devfs import DevTree
from qgpuctl.backends.sysfs import DEFAULT_ROOT, SysfsTree
from qgpuctl.errors import EXIT_KERNEL, EXIT_PARTIAL_APPLY, KernelInterfaceError, PartialApplyError

MEM = "class/qgpu/qgpu0/limits/mem"
CORES = "class/qgpu/qgpu0/limits/cores"


@pytest.fixture
def tree(fake_sysfs: FakeTree) -> SysfsTree:
    fake_sysfs.add(MEM, "max\n")
    fake_sysfs.add(CORES, "100\n")
    return SysfsTree(fake_sysfs.root)


def test_root_from_environment(fake_sysfs: FakeTree) -> None:
    assert SysfsTree.from_env().root == fake_sysfs.root
    assert SysfsTree.from_env({}).root == DEFAULT_ROOT
    assert SysfsTree.from_env({"QGPU_SYSFS_ROOT": ""}).root == DEFAULT_ROOT


def test_dev_root_from_environment(fake_dev: FakeTree) -> None:
    assert DevTree.from_env().root == fake_dev.root
    assert DevTree.from_env({}).root == Path("/dev")


@pytest.mark.parametrize(
    "parts",
    [
        ("..",),
        ("../etc/passwd",),
        ("class/../../etc/passwd",),
        ("class", "..", "module"),
        ("/etc/passwd",),
        ("class", "/etc/passwd"),
        ("class/qgpu\0",),
    ],
)
def test_path_refuses_escapes(tree: SysfsTree, parts: tuple[str, ...]) -> None:
    with pytest.raises(KernelInterfaceError) as info:
        tree.path(*parts)
    assert info.value.exit_code == EXIT_KERNEL


def test_symlink_out_of_root_is_refused(tree: SysfsTree, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.write_text("secret\n")
    (tree.root / "class/qgpu/evil").symlink_to(outside)
    with pytest.raises(KernelInterfaceError, match="outside"):
        tree.read("class/qgpu/evil")
    with pytest.raises(KernelInterfaceError, match="outside"):
        tree.write("class/qgpu/evil", "x")
    assert outside.read_text() == "secret\n"


def test_symlink_inside_root_is_followed(fake_sysfs: FakeTree) -> None:
    # The shape of real sysfs: class entries link into devices/.
    fake_sysfs.add("devices/virtual/qgpu/qgpu0/limits/mem", "4294967296\n")
    fake_sysfs.mkdir("class/qgpu")
    (fake_sysfs.root / "class/qgpu/qgpu0").symlink_to("../../devices/virtual/qgpu/qgpu0")
    tree = SysfsTree(fake_sysfs.root)
    assert tree.read_int("class/qgpu/qgpu0/limits/mem") == 4 * 2**30
    # Paths keep the name the operator knows, not the link target.
    assert tree.path("class/qgpu/qgpu0") == fake_sysfs.root / "class/qgpu/qgpu0"


def test_dev_tree_refuses_escapes(fake_dev: FakeTree) -> None:
    with pytest.raises(KernelInterfaceError):
        DevTree(fake_dev.root).path("../sys")


def test_read_strips_and_parses(tree: SysfsTree) -> None:
    assert tree.read(MEM) == "max"
    assert tree.read_int(CORES) == 100
    assert tree.exists(MEM)
    assert not tree.exists("class/qgpu/qgpu9")
    assert tree.listdir("class/qgpu/qgpu0/limits") == ["cores", "mem"]


def test_read_int_rejects_non_integers(tree: SysfsTree) -> None:
    with pytest.raises(KernelInterfaceError, match="expected an integer, read 'max'"):
        tree.read_int(MEM)


def test_read_missing_names_path_and_errno(tree: SysfsTree) -> None:
    with pytest.raises(KernelInterfaceError) as info:
        tree.read("module/qgpu/version")
    err = info.value
    assert err.errno == errno.ENOENT
    assert err.path == tree.root / "module/qgpu/version"
    assert str(err) == f"{tree.root}/module/qgpu/version: No such file or directory (ENOENT)"


def test_listdir_missing(tree: SysfsTree) -> None:
    with pytest.raises(KernelInterfaceError) as info:
        tree.listdir("class/nope")
    assert info.value.errno == errno.ENOENT


def test_write_replaces_the_whole_value(tree: SysfsTree) -> None:
    tree.write(CORES, 5)
    assert tree.read(CORES) == "5"
    tree.write(MEM, "4G")
    assert (tree.root / MEM).read_text() == "4G"


def test_write_missing_knob_is_enoent_and_creates_nothing(tree: SysfsTree) -> None:
    with pytest.raises(KernelInterfaceError) as info:
        tree.write("class/qgpu/qgpu0/limits/nope", "1")
    assert info.value.errno == errno.ENOENT
    assert info.value.value == "1"
    assert not (tree.root / "class/qgpu/qgpu0/limits/nope").exists()
    assert tree.originals == {}


def test_write_to_directory_is_eisdir(tree: SysfsTree) -> None:
    with pytest.raises(KernelInterfaceError) as info:
        tree.write("class/qgpu/qgpu0", "1")
    assert info.value.errno == errno.EISDIR


def test_kernel_refusal_maps_to_errno(tree: SysfsTree, monkeypatch: pytest.MonkeyPatch) -> None:
    """A store() returning -EINVAL surfaces as the errno of write(2)."""
    real_write = os.write

    def refusing_write(fd: int, data: bytes) -> int:
        if data == b"5G":
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", refusing_write)
    with pytest.raises(KernelInterfaceError) as info:
        tree.write(MEM, "5G")
    err = info.value
    assert (err.errno, err.value, err.path) == (errno.EINVAL, "5G", tree.root / MEM)
    assert str(err) == f"{tree.root / MEM}: writing '5G': Invalid argument (EINVAL)"
    # A refused write changed nothing in the kernel, so there is nothing to roll back.
    # (The fake's plain file was truncated by O_TRUNC; real sysfs ignores that.)
    assert tree.originals == {}


def test_short_write_is_an_error(tree: SysfsTree, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "write", lambda fd, data: 1)
    with pytest.raises(KernelInterfaceError, match="short write") as info:
        tree.write(MEM, "4G")
    assert info.value.errno == errno.EIO


def test_rollback_restores_originals_newest_first(
    tree: SysfsTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree.write(MEM, "4G")
    tree.write(CORES, "30")
    tree.write(MEM, "8G")  # a second write keeps the first original
    assert tree.originals == {tree.root / MEM: "max", tree.root / CORES: "100"}

    order: list[str] = []
    real_write = os.write

    def recording_write(fd: int, data: bytes) -> int:
        order.append(data.decode())
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", recording_write)
    tree.rollback()
    assert order == ["100", "max"]
    assert tree.read(MEM) == "max"
    assert tree.read(CORES) == "100"
    assert tree.originals == {}


def test_commit_forgets_originals(tree: SysfsTree) -> None:
    tree.write(CORES, "30")
    tree.commit()
    tree.rollback()
    assert tree.read(CORES) == "30"


def test_failed_rollback_is_a_partial_apply(tree: SysfsTree) -> None:
    tree.write(MEM, "4G")
    tree.write(CORES, "30")
    (tree.root / MEM).unlink()  # the instance went away mid-apply
    with pytest.raises(PartialApplyError, match="rollback incomplete") as info:
        tree.rollback()
    assert info.value.exit_code == EXIT_PARTIAL_APPLY
    assert "limits/mem" in str(info.value)
    # The other knob was still restored.
    assert tree.read(CORES) == "100"
