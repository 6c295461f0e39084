"""qgpu's events as plain data, without pyroute2.

:mod:`qgpuctl.backends.netlink` decodes them off the wire; this module is what
the commands import, so that every ``qgpuctl`` invocation but ``events`` starts
without loading pyroute2 (a large import: it dominates start-up time on slow
machines such as the test VM).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class QgpuEvent:
    """One event; fields the kernel did not send are None."""

    event: str
    gpu: int | None = None
    instance: str | None = None
    pid: int | None = None
    size: int | None = None
    timestamp_ns: int | None = None
    detail: str | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            "timestamp_ns": self.timestamp_ns,
            "event": self.event,
            "gpu": self.gpu,
            "instance": self.instance,
            "pid": self.pid,
            "size": self.size,
            "detail": self.detail,
        }


class EventSource(Protocol):
    """Where ``qgpuctl events`` reads from.

    A live source must be read on the thread that opened it: pyroute2 delivers
    a netlink socket's messages only to the thread that created the socket.
    """

    def events(self) -> Iterator[QgpuEvent]: ...
    def close(self) -> None: ...
