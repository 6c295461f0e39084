"""Device nodes under /dev (the NVIDIA driver's and, later, qgpu's own).

Separate from sysfs because it has its own root (``QGPU_DEV_ROOT``): tests and
the doctor need to fake ``/dev/nvidiactl`` without faking all of /dev.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from qgpuctl.backends._confine import PathPart, confine

ENV_ROOT = "QGPU_DEV_ROOT"
DEFAULT_ROOT = Path("/dev")


class DevTree:
    """A /dev directory rooted at ``root``; names given to its methods are relative to it."""

    def __init__(self, root: Path = DEFAULT_ROOT) -> None:
        self.root = Path(root).absolute()
        self._resolved_root = Path(os.path.realpath(self.root))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DevTree:
        """Build the tree the operator asked for: ``$QGPU_DEV_ROOT`` or ``/dev``."""
        env = os.environ if environ is None else environ
        root = env.get(ENV_ROOT)
        return cls(Path(root) if root else DEFAULT_ROOT)

    def __repr__(self) -> str:
        return f"DevTree({str(self.root)!r})"

    def path(self, *parts: PathPart) -> Path:
        """Absolute path of a node under the root; refuses anything that escapes it."""
        return confine(self.root, self._resolved_root, parts)

    def exists(self, name: PathPart) -> bool:
        """Whether the node is present (its type is not checked: fakes are plain files)."""
        return self.path(name).exists()
