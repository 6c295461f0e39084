"""Event delivery end to end: a KERNEL_NOTIFY entry completes on the engine, the engine raises
NV2080_NOTIFIERS_GRAPHICS, an NV01_EVENT_OS_EVENT on the subdevice posts to the file that issued
ALLOC_OS_EVENT, and poll() / RM_GET_EVENT_DATA see it, as nvidia_poll and RmGetEventData do."""

from __future__ import annotations

import ctypes
import os
import select
import struct
import time
from collections.abc import Iterator

import pytest
import rm
from rm import Channel, Rm

GRAPHICS = 12  # NV2080_NOTIFIERS_GRAPHICS
NONSTALL_INTR = 0x08000000  # NV01_EVENT_NONSTALL_INTR, as clients of work completion set it
WITHOUT_EVENT_DATA = 0x10000000
SUBDEVICE_SPECIFIC = 0x20000000
NVOS41 = struct.Struct("<QII")
MS = 1000


@pytest.fixture
def chan() -> Iterator[Channel]:
    r = Rm()
    dev, sub = r.device()
    ch = Channel(r, dev, sub)
    yield ch
    ch.close()
    r.close()


class Event:
    """A dedicated event file (as libcuda opens one per event), its key and its event object."""

    def __init__(self, ch: Channel, notify_index: int, nonblock: bool = False) -> None:
        self.r = ch.r
        flags = os.O_RDWR | (os.O_NONBLOCK if nonblock else 0)
        self.fd = os.open("/dev/nvidiactl", flags)
        assert self.r.os_event(rm.ALLOC_OS_EVENT, self.fd, on=self.fd) == rm.OK
        params = struct.pack("<IIIIQ", self.r.client, ch.sub, rm.OS_EVENT, notify_index, self.fd)
        status, self.handle = self.r.alloc(self.r.client, ch.sub, rm.OS_EVENT, params)
        assert status == rm.OK, hex(status)

    def poll(self, timeout_ms: int = 0) -> int:
        p = select.poll()
        p.register(self.fd, select.POLLIN | select.POLLPRI)
        got = p.poll(timeout_ms)
        return got[0][1] if got else 0

    def get(self) -> tuple[int, int, int, int]:
        """RM_GET_EVENT_DATA on the event file: (status, MoreEvents, hObject, NotifyIndex)."""
        record = ctypes.create_string_buffer(16)
        buf = bytearray(NVOS41.pack(ctypes.addressof(record), 0, 0xFFFFFFFF))
        rm.ioctl(self.fd, rm.RM_GET_EVENT_DATA, buf)
        _, more, status = NVOS41.unpack(buf)
        hobject, index = struct.unpack_from("<II", record.raw)
        return status, more, hobject, index

    def close(self) -> None:
        assert self.r.free(self.handle) == rm.OK
        os.close(self.fd)


SEM = 0x8000  # a word of the ring's memory, past the ring, before USERD
_done = 0


def notify(ch: Channel, n: int = 1, us: int = 1 * MS) -> None:
    """n KERNEL_NOTIFY entries; returns once the engine completed them.

    A semaphore release after them says so: USERD's GP_GET passes an entry when the host fetches
    it, before the kernel completes (nvsim's gp_get_ahead, as on an H200).
    """
    global _done
    _done += 1
    ch.submit(*[rm.kernel(us, rm.OP_KERNEL_NOTIFY)] * n, rm.sem_release(SEM, _done))
    deadline = time.monotonic() + 20
    while ch.word(SEM) != _done:
        assert time.monotonic() < deadline, f"semaphore {ch.word(SEM)} != {_done}"
        time.sleep(0.01)


def wait_posted(witness: Event, n: int) -> None:
    """Return once `witness`, an event with data, has been posted `n` more times.

    The engine writes a semaphore before the notifications of the entries ahead of it are posted
    (nvsim's thread posts them after it drops the engine's lock, and an RM call or a doorbell may
    run the engine and leave the posting to the thread), as a GPU's semaphore write lands before
    the CPU has handled the non-stall interrupt raised ahead of it. One notification posts to
    every event object listening, so once the witness has its records, so has every other event.
    """
    deadline = time.monotonic() + 20
    while n:
        if witness.get()[0] == rm.OK:
            n -= 1
            continue
        assert time.monotonic() < deadline, f"{n} notifications not posted"
        time.sleep(0.01)


def test_event_with_data_per_notification(chan: Channel) -> None:
    ev = Event(chan, GRAPHICS | NONSTALL_INTR | SUBDEVICE_SPECIFIC)
    witness = Event(chan, GRAPHICS | NONSTALL_INTR | SUBDEVICE_SPECIFIC)
    try:
        assert ev.poll() == 0
        assert ev.get()[0] == rm.OPERATING_SYSTEM  # nothing queued
        # A plain KERNEL raises nothing: had it, a fourth record would be queued ahead of these.
        chan.submit(rm.kernel(1 * MS))
        notify(chan, 3)
        wait_posted(witness, 3)
        assert ev.poll(5000) & (select.POLLIN | select.POLLPRI) == select.POLLIN | select.POLLPRI
        records = [ev.get() for _ in range(3)]
        # The index is reported without the flags; MoreEvents counts down.
        assert records == [
            (rm.OK, 1, ev.handle, GRAPHICS),
            (rm.OK, 1, ev.handle, GRAPHICS),
            (rm.OK, 0, ev.handle, GRAPHICS),
        ]
        assert ev.get()[0] == rm.OPERATING_SYSTEM
        assert ev.poll() == 0  # data drained: nothing pending
    finally:
        witness.close()
        ev.close()


def test_dataless_event_wakes_poll_once_per_notification(chan: Channel) -> None:
    ev = Event(chan, GRAPHICS | NONSTALL_INTR | WITHOUT_EVENT_DATA)
    try:
        for _ in range(3):
            chan.submit(rm.kernel(200 * MS, rm.OP_KERNEL_NOTIFY))
            start = time.monotonic()
            mask = ev.poll(10_000)  # blocking file: woken by the notification
            assert mask & select.POLLPRI, mask
            assert time.monotonic() - start < 9
            assert ev.poll() == 0  # edge-triggered: reported once
        assert ev.get()[0] == rm.OPERATING_SYSTEM  # no data for a dataless event
        # Two notifications before one poll are one report.
        witness = Event(chan, GRAPHICS | NONSTALL_INTR | SUBDEVICE_SPECIFIC)
        try:
            notify(chan, 2)
            wait_posted(witness, 2)
            assert ev.poll() != 0
            assert ev.poll() == 0
        finally:
            witness.close()
    finally:
        ev.close()


def test_nonblocking_poll_does_not_sleep_on_the_events_queue(chan: Channel) -> None:
    """nvidia_poll calls poll_wait only without O_NONBLOCK: a poll on an O_NONBLOCK file is not
    woken by the event, it sees it only when its timeout ends (the final pass of do_poll)."""
    ev = Event(chan, GRAPHICS | NONSTALL_INTR | WITHOUT_EVENT_DATA, nonblock=True)
    try:
        # The kernel must still be running when poll starts, even on a loaded emulated guest.
        chan.submit(rm.kernel(1000 * MS, rm.OP_KERNEL_NOTIFY))
        start = time.monotonic()
        mask = ev.poll(3000)
        elapsed = time.monotonic() - start
        assert mask & select.POLLPRI, mask
        assert elapsed >= 2.9, elapsed
    finally:
        ev.close()


def test_other_indices_see_nothing(chan: Channel) -> None:
    other = Event(chan, 13 | NONSTALL_INTR)  # not the graphics notifier
    ev = Event(chan, GRAPHICS)  # no flags at all still matches the index
    try:
        notify(chan)
        assert ev.poll(5000) != 0
        assert ev.get()[:4] == (rm.OK, 0, ev.handle, GRAPHICS)
        assert other.poll() == 0
    finally:
        other.close()
        ev.close()
