"""Shared fixtures: a quiet, fixed-size terminal and fake /sys and /dev trees.

Every test starts with QGPU_SYSFS_ROOT and QGPU_DEV_ROOT pointing at empty
directories, so nothing here ever reads the host's real /sys or /dev: a test
that wants a kernel node builds it with ``fake_sysfs`` / ``fake_dev``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

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
    for var in ("FORCE_COLOR", "QGPU_OUTPUT", "QGPU_DEBUG"):
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
