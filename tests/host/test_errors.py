"""The exit-code table in qgpuctl.errors is the contract scripts rely on."""

from __future__ import annotations

import errno

import pytest

from qgpuctl.errors import (
    AssertionFailed,
    KernelInterfaceError,
    NvmlError,
    PartialApplyError,
    PolicyError,
    QgpuError,
    SizeError,
    UsageError,
)


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (AssertionFailed("differs"), 1),
        (UsageError("bad"), 2),
        (PolicyError("profiles.train[1].mem", "not a size"), 2),
        (SizeError("bad size"), 2),
        (KernelInterfaceError("/sys/x", "1", errno.EINVAL), 3),
        (NvmlError("no driver"), 3),
        (PartialApplyError("half done"), 4),
    ],
)
def test_exit_codes(exc: QgpuError, code: int) -> None:
    assert isinstance(exc, QgpuError)
    assert exc.exit_code == code


def test_policy_error_names_the_field() -> None:
    err = PolicyError("profiles.train[1].mem", "not a size")
    assert str(err) == "profiles.train[1].mem: not a size"
    assert (err.path, err.msg) == ("profiles.train[1].mem", "not a size")


def test_kernel_interface_error_without_errno_or_value() -> None:
    assert str(KernelInterfaceError("/sys/x", None, None)) == "/sys/x: refused"
    err = KernelInterfaceError("/sys/x", None, errno.ENOENT, detail="is qgpu loaded?")
    assert str(err) == "/sys/x: No such file or directory (ENOENT): is qgpu loaded?"
