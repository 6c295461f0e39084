"""Ordinary host files qgpuctl reads or writes: CDI specs, the udev rules.

Paths such as /etc/cdi and /etc/udev/rules.d sit under a root that tests
override with ``$QGPU_HOST_ROOT`` (default ``/``), the same way sysfs and /dev
have theirs.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from qgpuctl.errors import KernelInterfaceError

ENV_ROOT = "QGPU_HOST_ROOT"


class HostFiles:
    """Files under ``root`` (``/`` on a host)."""

    def __init__(self, root: Path = Path("/")) -> None:
        self.root = Path(root).absolute()

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> HostFiles:
        env = os.environ if environ is None else environ
        root = env.get(ENV_ROOT)
        return cls(Path(root) if root else Path("/"))

    def path(self, rel: str) -> Path:
        return self.root / rel.lstrip("/")

    def find(self, dirs: tuple[str, ...], name: str) -> Path | None:
        for d in dirs:
            candidate = self.path(d) / name
            if candidate.exists():
                return candidate
        return None

    def files_in(self, dirs: tuple[str, ...], suffixes: tuple[str, ...]) -> list[Path]:
        out: list[Path] = []
        for d in dirs:
            directory = self.path(d)
            if directory.is_dir():
                out.extend(
                    sorted(p for p in directory.iterdir() if p.suffix in suffixes and p.is_file())
                )
        return out


def write_atomic(path: Path, text: str, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never a part.

    A temporary file in the same directory (same filesystem), fsynced, then
    renamed over ``path``: a container runtime reading the CDI spec while we
    write it never sees half a spec.
    """
    directory = path.parent
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise KernelInterfaceError(directory, None, exc.errno, detail="cannot write here") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise KernelInterfaceError(path, None, exc.errno) from exc
