"""qgpu's generic-netlink event stream (family ``qgpu``, multicast group ``events``).

The only module that imports pyroute2 (and only ``qgpuctl events`` imports this
module). :class:`QgpuEventSocket` subscribes to
the kernel's events; :class:`ReplaySource` decodes recorded messages through
the same decoder, so tests (and ``qgpuctl events`` on a recording) run with no
kernel at all.
"""

from __future__ import annotations

import errno
import struct
from collections.abc import Iterable, Iterator
from typing import Any

from pyroute2.netlink import genlmsg
from pyroute2.netlink.exceptions import NetlinkError
from pyroute2.netlink.generic import GenericNetlinkSocket

from qgpuctl.backends import schema as k
from qgpuctl.backends.events import EventSource, QgpuEvent
from qgpuctl.errors import KernelInterfaceError

__all__ = [
    "EventSource",
    "QgpuEvent",
    "QgpuEventSocket",
    "ReplaySource",
    "decode_buffer",
    "decode_message",
    "encode_event",
    "qgpumsg",
]


class qgpumsg(genlmsg):  # type: ignore[misc]  # noqa: N801 - pyroute2's naming convention for message classes
    """The attributes of QGPU_CMD_EVENT, numbered as in docs/kernel-interface.md."""

    prefix = "QGPU_ATTR_"
    nla_map = (
        (0, "QGPU_ATTR_UNSPEC", "none"),
        (k.QGPU_ATTR_EVENT, "QGPU_ATTR_EVENT", "asciiz"),
        (k.QGPU_ATTR_GPU, "QGPU_ATTR_GPU", "uint32"),
        (k.QGPU_ATTR_INSTANCE, "QGPU_ATTR_INSTANCE", "asciiz"),
        (k.QGPU_ATTR_PID, "QGPU_ATTR_PID", "uint32"),
        (k.QGPU_ATTR_SIZE, "QGPU_ATTR_SIZE", "uint64"),
        (k.QGPU_ATTR_TIMESTAMP_NS, "QGPU_ATTR_TIMESTAMP_NS", "uint64"),
        (k.QGPU_ATTR_DETAIL, "QGPU_ATTR_DETAIL", "asciiz"),
    )


def decode_message(msg: Any) -> QgpuEvent | None:
    """A decoded qgpumsg as an event; None for anything that is not QGPU_CMD_EVENT."""
    if msg.get("cmd") != k.QGPU_CMD_EVENT:
        return None

    def attr(name: str) -> Any:
        return msg.get_attr(f"QGPU_ATTR_{name}")

    event = attr("EVENT")
    if not isinstance(event, str):
        return None
    return QgpuEvent(
        event=event,
        gpu=attr("GPU"),
        instance=attr("INSTANCE"),
        pid=attr("PID"),
        size=attr("SIZE"),
        timestamp_ns=attr("TIMESTAMP_NS"),
        detail=attr("DETAIL"),
    )


def decode_buffer(data: bytes) -> list[QgpuEvent]:
    """Every qgpu event in a buffer of netlink messages (as one recv() returns them)."""
    events: list[QgpuEvent] = []
    offset = 0
    while offset + 16 <= len(data):
        (length,) = struct.unpack_from("=I", data, offset)
        if length < 16 or offset + length > len(data):
            break
        msg = qgpumsg(data[offset : offset + length])
        msg.decode()
        event = decode_message(msg)
        if event is not None:
            events.append(event)
        offset += (length + 3) & ~3
    return events


def encode_event(event: QgpuEvent, family_id: int = 0x20, seq: int = 0) -> bytes:
    """The bytes the kernel sends for ``event`` (tests, recordings)."""
    msg = qgpumsg()
    msg["cmd"] = k.QGPU_CMD_EVENT
    msg["version"] = k.GENL_VERSION
    msg["header"]["type"] = family_id
    msg["header"]["sequence_number"] = seq
    attrs: list[tuple[str, int | str]] = [("QGPU_ATTR_EVENT", event.event)]
    for name, value in (
        ("GPU", event.gpu),
        ("INSTANCE", event.instance),
        ("PID", event.pid),
        ("SIZE", event.size),
        ("TIMESTAMP_NS", event.timestamp_ns),
        ("DETAIL", event.detail),
    ):
        if value is not None:
            attrs.append((f"QGPU_ATTR_{name}", value))
    msg["attrs"] = attrs
    msg.encode()
    return bytes(msg.data)


class ReplaySource:
    """Events from recorded netlink buffers (one bytes object per recv())."""

    def __init__(self, buffers: Iterable[bytes]) -> None:
        self._buffers = list(buffers)

    def events(self) -> Iterator[QgpuEvent]:
        for buf in self._buffers:
            yield from decode_buffer(buf)

    def close(self) -> None:
        pass


class QgpuEventSocket:
    """A live subscription to the kernel's ``qgpu`` family, group ``events``.

    Read it on the thread that created it: pyroute2 hands a socket's messages
    only to the thread that made it (another thread's ``get()`` waits forever).
    """

    def __init__(self) -> None:
        self._sock = GenericNetlinkSocket()
        # pyroute2 logs a missing family through the root logger; our error says it in one line.
        self._sock.asyncore.module_err_level = "debug"
        try:
            self._sock.bind(k.GENL_FAMILY, qgpumsg)
            self._sock.add_membership(k.GENL_MCGRP_EVENTS)
        except NetlinkError as exc:
            self._sock.close()
            code = exc.code if isinstance(exc.code, int) else errno.EIO
            raise KernelInterfaceError(
                f"genetlink:{k.GENL_FAMILY}",
                None,
                code,
                detail="no qgpu generic-netlink family; is the qgpu module loaded?",
            ) from exc
        except KeyError as exc:
            self._sock.close()
            raise KernelInterfaceError(
                f"genetlink:{k.GENL_FAMILY}/{k.GENL_MCGRP_EVENTS}",
                None,
                errno.ENOENT,
                detail="the qgpu family has no 'events' multicast group (an older module?)",
            ) from exc

    def events(self) -> Iterator[QgpuEvent]:
        while True:
            for msg in self._sock.get():
                event = decode_message(msg)
                if event is not None:
                    yield event

    def close(self) -> None:
        self._sock.close()
