"""Resolve a relative path under a root, refusing anything that would leave it.

Shared by the sysfs and /dev gateways: both take roots that tests and
operators override, and a knob name built from policy input must never reach
a file outside that root (``../../etc/...``, an absolute part, or a symlink
planted to point elsewhere).
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from qgpuctl.errors import KernelInterfaceError

PathPart = str | os.PathLike[str]


def confine(root: Path, resolved_root: Path, parts: tuple[PathPart, ...]) -> Path:
    """Return ``root/parts`` if it, and whatever it resolves to, stays inside ``root``.

    The lexical path is returned (not the resolved one) so messages name the
    path the operator knows, e.g. ``/sys/class/qgpu/qgpu0/...`` rather than the
    ``/sys/devices/virtual/...`` target of the class symlink.
    """
    rel = PurePosixPath()
    for part in parts:
        text = os.fspath(part)
        piece = PurePosixPath(text)
        if "\0" in text:
            raise KernelInterfaceError(
                root / text.replace("\0", "\\0"), None, None, detail="path contains a NUL byte"
            )
        if piece.is_absolute():
            raise KernelInterfaceError(piece, None, None, detail=f"absolute path, not under {root}")
        if ".." in piece.parts:
            raise KernelInterfaceError(
                root / rel / piece, None, None, detail=f"'..' is not allowed under {root}"
            )
        rel = rel / piece
    candidate = root / rel
    resolved = Path(os.path.realpath(candidate))
    if not resolved.is_relative_to(resolved_root):
        raise KernelInterfaceError(
            candidate, None, None, detail=f"resolves to {resolved}, outside {root}"
        )
    return candidate
