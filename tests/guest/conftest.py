"""Guest tests run inside the test VM only (scripts/vm.sh), with nvsim and qgpu loaded."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from kernel import PROJECT, KernelLog, insmod, is_loaded, rmmod, trouble
from rm import Rm


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("QGPU_IN_VM") != "1":
        # Not a skip: a guest suite that did not run has not passed.
        pytest.exit("the guest tests run only inside the test VM: use 'make test'", returncode=3)
    # Every qgpuctl these tests start (.venv/bin/qgpuctl, python -c) imports this tree's
    # package, whatever checkout the virtualenv's editable install points at.
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if str(PROJECT) not in paths[:1]:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(PROJECT), *paths])
    if str(PROJECT) not in sys.path[:1]:
        sys.path.insert(0, str(PROJECT))


@pytest.fixture(autouse=True)
def kernel_log_stays_clean() -> Iterator[None]:
    """Fail the test during which the kernel logged a WARN, oops or BUG."""
    with KernelLog() as log:
        yield
        new = log.read()
    assert not trouble(new), "kernel log:\n" + "\n".join(new)


@pytest.fixture
def default_modules() -> Iterator[None]:
    """Leave nvsim and qgpu loaded with default parameters after a test that reloads them."""
    yield
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            assert rmmod(name).returncode == 0
    for name in ("nvsim", "qgpu"):
        r = insmod(name)
        assert r.returncode == 0, r.stderr


def reload_qgpu(*params: str) -> None:
    """qgpu alone reloaded on the nvsim already loaded (no instance may exist)."""
    if is_loaded("qgpu"):
        r = rmmod("qgpu")
        assert r.returncode == 0, r.stderr
    r = insmod("qgpu", *params)
    assert r.returncode == 0, r.stderr


@pytest.fixture(params=["sealed", "unsealed"])
def seal_mode(request: pytest.FixtureRequest) -> Iterator[str]:
    """qgpu with its seal (the default), and with seal=0, where it takes the paths of a host
    without kprobes: duplicates through its kernel client, forwards verified afterwards."""
    if request.param == "unsealed":
        reload_qgpu("seal=0")
    yield request.param
    if request.param == "unsealed":
        reload_qgpu()


@pytest.fixture(params=[False, True], ids=["direct", "xfer"])
def any_path(request: pytest.FixtureRequest) -> Iterator[Rm]:
    """A process's RM client whose calls are issued directly and wrapped in IOCTL_XFER_CMD."""
    r = Rm(xfer=request.param)
    yield r
    r.close()
