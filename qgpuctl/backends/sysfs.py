"""The one gateway to qgpu's sysfs knobs.

Every read and write of a kernel attribute goes through :class:`SysfsTree` so
that three rules hold everywhere:

* the root is overridable (``QGPU_SYSFS_ROOT``, or a ``tmp_path`` in tests) and
  nothing outside it is ever touched;
* a failure names the file, the value and the errno, because "EINVAL writing
  '5G' to .../limits/mem" is actionable and a bare ``OSError`` is not;
* the value a knob had before our first write is remembered, so ``apply`` can
  put everything back when a later step fails (tuned's ``_sysfs_original``).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from qgpuctl.backends._confine import PathPart, confine
from qgpuctl.errors import KernelInterfaceError, PartialApplyError

ENV_ROOT = "QGPU_SYSFS_ROOT"
DEFAULT_ROOT = Path("/sys")


class SysfsTree:
    """A sysfs tree rooted at ``root``; paths given to its methods are relative to it."""

    def __init__(self, root: Path = DEFAULT_ROOT) -> None:
        self.root = Path(root).absolute()
        # Resolved once: /sys itself is never a symlink, but a tmp_path may sit
        # under one (e.g. /tmp -> /private/tmp), and containment is checked on
        # resolved paths.
        self._resolved_root = Path(os.path.realpath(self.root))
        # Insertion-ordered: rollback() undoes writes newest first.
        self.originals: dict[Path, str] = {}

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> SysfsTree:
        """Build the tree the operator asked for: ``$QGPU_SYSFS_ROOT`` or ``/sys``."""
        env = os.environ if environ is None else environ
        root = env.get(ENV_ROOT)
        return cls(Path(root) if root else DEFAULT_ROOT)

    def __repr__(self) -> str:
        return f"SysfsTree({str(self.root)!r})"

    def path(self, *parts: PathPart) -> Path:
        """Absolute path of ``parts`` under the root; refuses anything that escapes it."""
        return confine(self.root, self._resolved_root, parts)

    def exists(self, rel: PathPart) -> bool:
        """Whether the attribute or directory is present (a knob can be hidden by .is_visible)."""
        return self.path(rel).exists()

    def writable(self, rel: PathPart) -> bool:
        """Whether the attribute exists and its mode lets it be written.

        The mode bits, not access(2): root may open any sysfs file for writing
        as far as DAC goes, but kernfs refuses a write to an attribute declared
        without a store() (mode 0444) with EACCES. That is how an older module
        shows a knob it publishes but cannot change yet.
        """
        try:
            st = os.stat(self.path(rel))
        except OSError:
            return False
        return stat.S_ISREG(st.st_mode) and bool(st.st_mode & 0o222)

    def read(self, rel: PathPart) -> str:
        """Contents of an attribute, without the trailing newline sysfs_emit() adds."""
        return self._read_path(self.path(rel))

    def read_optional(self, rel: PathPart) -> str | None:
        """Like :meth:`read`, but None when the attribute does not exist (an older module)."""
        path = self.path(rel)
        try:
            return self._read_path(path)
        except KernelInterfaceError as exc:
            if exc.errno == errno.ENOENT:
                return None
            raise

    def read_int(self, rel: PathPart) -> int:
        """An attribute that holds one decimal integer (counters, ids, percentages)."""
        path = self.path(rel)
        text = self._read_path(path)
        try:
            return int(text, 10)
        except ValueError:
            raise KernelInterfaceError(
                path, None, None, detail=f"expected an integer, read {text!r}"
            ) from None

    def listdir(self, rel: PathPart = "") -> list[str]:
        """Sorted entries of a directory, so callers iterate instances in a stable order."""
        path = self.path(rel)
        try:
            return sorted(os.listdir(path))
        except OSError as exc:
            raise KernelInterfaceError(path, None, exc.errno) from exc

    def write(self, rel: PathPart, value: str | int) -> None:
        """Write one value to a knob, remembering what it held before our first write.

        Write-only knobs (``create``, ``remove``) have nothing to read back and
        so nothing is recorded for them: undoing those is the caller's job.
        The original is recorded only once the write succeeds, because a
        refused write changed nothing.
        """
        path = self.path(rel)
        data = value if isinstance(value, str) else str(int(value))
        original: str | None = None
        if path not in self.originals:
            try:
                original = self._read_path(path)
            except KernelInterfaceError:
                original = None
        self._write_path(path, data)
        if original is not None:
            self.originals[path] = original

    def write_only(self, rel: PathPart, value: str) -> None:
        """Write a write-only knob (``create``, ``remove``): there is no original to remember."""
        self._write_path(self.path(rel), value)

    def rollback(self) -> None:
        """Restore every recorded original, newest first, then forget them.

        Restores are attempted even after one fails, so as much as possible is
        put back; if any failed, the system is between states and that is
        reported as a :class:`PartialApplyError` (exit 4).
        """
        failures: list[KernelInterfaceError] = []
        for path, value in reversed(list(self.originals.items())):
            try:
                self._write_path(path, value)
            except KernelInterfaceError as exc:
                failures.append(exc)
        self.originals.clear()
        if failures:
            raise PartialApplyError(
                "rollback incomplete: " + "; ".join(str(failure) for failure in failures)
            )

    def commit(self) -> None:
        """Forget the recorded originals: the changes are now the desired state."""
        self.originals.clear()

    def _read_path(self, path: Path) -> str:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read().strip()
        except OSError as exc:
            raise KernelInterfaceError(path, None, exc.errno) from exc

    def _write_path(self, path: Path, data: str) -> None:
        # One write(2) of the exact bytes, like `echo -n`: a sysfs store() sees
        # the whole value at once and its errno comes back from that call.
        # No O_CREAT, so a missing knob is ENOENT even in a fake tree.
        # An instance method so a test double can emulate the kernel's store().
        # O_TRUNC is what the shell's `echo >` does on sysfs too; it keeps fake
        # trees (plain files) from keeping a longer old value's tail.
        encoded = data.encode()
        try:
            fd = os.open(path, os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
            try:
                written = os.write(fd, encoded)
            finally:
                os.close(fd)
        except OSError as exc:
            raise KernelInterfaceError(path, data, exc.errno) from exc
        if written != len(encoded):
            raise KernelInterfaceError(
                path, data, errno.EIO, detail=f"short write ({written} of {len(encoded)} bytes)"
            )
