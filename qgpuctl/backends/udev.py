"""Wait for an instance's device nodes: pyudev where udev runs, polling elsewhere.

The monitor is started *before* the ``create`` write, so the uevent cannot slip
by between the write and the wait; existence is re-checked after every event
(and at least every half second), because devtmpfs creates the nodes even where
no udev daemon runs and a monitor would hear nothing.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qgpuctl.backends import schema as k

_POLL_S = 0.05
_MONITOR_SLICE_S = 0.5


class UdevWaiter:
    """``start()`` before the write, ``wait(paths, timeout)`` after, ``stop()`` at the end."""

    def __init__(self) -> None:
        self._monitor: Any = None

    def start(self) -> None:
        try:
            import pyudev

            context = pyudev.Context()
            monitor = pyudev.Monitor.from_netlink(context)
            monitor.filter_by(subsystem=k.UDEV_SUBSYSTEM)
            monitor.start()
        except Exception:  # no libudev, no netlink permission, a container: poll instead
            self._monitor = None
            return
        self._monitor = monitor

    def wait(self, paths: Sequence[Path], timeout: float) -> list[Path]:
        """The paths still missing after ``timeout`` seconds (empty: all there)."""
        deadline = time.monotonic() + timeout
        while True:
            missing = [p for p in paths if not p.exists()]
            remaining = deadline - time.monotonic()
            if not missing or remaining <= 0:
                return missing
            if self._monitor is not None:
                try:
                    self._monitor.poll(timeout=min(remaining, _MONITOR_SLICE_S))
                except Exception:
                    self._monitor = None
            else:
                time.sleep(min(remaining, _POLL_S))

    def stop(self) -> None:
        self._monitor = None
