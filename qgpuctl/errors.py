"""Every error qgpuctl reports on purpose, and the exit code it maps to.

Library code (``core/``, ``backends/``) raises these; only ``cli/`` catches them,
prints one line and exits with ``exit_code``. Keeping the table here, next to the
classes, means scripts and systemd units have a single place to look up what a
status means.

Exit codes:

====  ===========================================================
code  meaning
====  ===========================================================
0     success
1     ``assert`` found the system differs from the policy
      (:class:`AssertionFailed`); also any unexpected error
2     bad usage or an invalid policy file (:class:`UsageError`,
      :class:`PolicyError`, :class:`SizeError`)
3     the kernel interface is missing or refused a request
      (:class:`KernelInterfaceError`, :class:`NvmlError`; also
      :class:`ApplyFailed` when ``apply`` rolled a refusal back)
4     ``apply`` changed some knobs, then failed, and could not
      roll all of them back (:class:`PartialApplyError`)
====  ===========================================================
"""

from __future__ import annotations

import errno as errno_mod
import os
from pathlib import Path

EXIT_OK = 0
EXIT_ASSERT_FAILED = 1
EXIT_USAGE = 2
EXIT_KERNEL = 3
EXIT_PARTIAL_APPLY = 4


class QgpuError(Exception):
    """Base of all expected failures; ``exit_code`` tells the CLI how to exit."""

    exit_code: int = EXIT_ASSERT_FAILED


class UsageError(QgpuError):
    """The operator asked for something that cannot make sense."""

    exit_code = EXIT_USAGE


class SizeError(UsageError, ValueError):
    """A memory size string the kernel knob would also reject.

    Also a ValueError so it can be used wherever a value parser is expected to
    signal bad input that way (argument converters, hypothesis strategies).
    """


class PolicyError(UsageError):
    """A policy file is invalid; ``path`` points at the offending field.

    ``path`` uses the dotted form ``profiles.train[1].mem`` so a message can be
    matched to the YAML without a line number.
    """

    def __init__(self, path: str, msg: str) -> None:
        self.path = path
        self.msg = msg
        super().__init__(f"{path}: {msg}" if path else msg)


class KernelInterfaceError(QgpuError):
    """A sysfs/dev node is missing or the kernel refused a value written to it.

    The message names the node and the errno text because that is what an
    operator needs to tell "module not loaded" (ENOENT) from "limit rejected"
    (EINVAL) or "not root" (EACCES).
    """

    exit_code = EXIT_KERNEL

    def __init__(
        self,
        path: os.PathLike[str] | str,
        value: str | None,
        errno: int | None,
        *,
        detail: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.value = value
        self.errno = errno
        self.detail = detail
        super().__init__(self._describe())

    def _describe(self) -> str:
        if self.errno is not None:
            name = errno_mod.errorcode.get(self.errno, str(self.errno))
            reason = f"{os.strerror(self.errno)} ({name})"
            if self.detail:
                reason = f"{reason}: {self.detail}"
        else:
            reason = self.detail or "refused"
        if self.value is None:
            return f"{self.path}: {reason}"
        return f"{self.path}: writing {self.value!r}: {reason}"


class NvmlError(QgpuError):
    """NVML (the real NVIDIA driver behind qgpu) failed or is unavailable."""

    exit_code = EXIT_KERNEL


class AssertionFailed(QgpuError):
    """``assert``: the running state does not match the policy."""

    exit_code = EXIT_ASSERT_FAILED


class PartialApplyError(QgpuError):
    """``apply`` left the system between the old and the new state."""

    exit_code = EXIT_PARTIAL_APPLY


class ApplyFailed(QgpuError):
    """``apply`` failed at a step and put everything back; exits as its cause would."""

    def __init__(self, message: str, cause: QgpuError) -> None:
        self.cause = cause
        self.exit_code = cause.exit_code
        super().__init__(message)
