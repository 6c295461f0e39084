"""Helpers for guest tests of qgpu's netlink events."""

from __future__ import annotations

import signal

from qgpuctl.backends.netlink import QgpuEvent, QgpuEventSocket


def _timeout(signum: int, frame: object) -> None:
    raise TimeoutError("no such event within the deadline")


def next_event(sock: QgpuEventSocket, name: str, seconds: int = 20) -> QgpuEvent:
    """The next event called `name` on `sock`, or TimeoutError after `seconds`."""
    old = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(seconds)
    try:
        return next(e for e in sock.events() if e.event == name)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
