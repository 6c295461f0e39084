"""OS events through an instance (kmod/qgpu_os_events.c, DOC: OS events).

The driver keeps every file's ALLOC_OS_EVENT keys (hClient, fd) in one list that it walks under a
spinlock for every ALLOC_OS_EVENT and every file's release, and checks neither part of a key
(nvsim's /proc/driver/nvsim/os_events counts the list). Through an instance a proxy file may have
RM hold QGPU_OS_EVENTS_PER_FILE keys and the instance's files QGPU_OS_EVENTS_PER_INSTANCE; past
that ALLOC_OS_EVENT is NV_ERR_INSUFFICIENT_RESOURCES, not forwarded. Keys go as RM lets them go:
FREE_OS_EVENT, an RM_FREE of their client, the file they were allocated on.
"""

from __future__ import annotations

import os
import struct
import time
from pathlib import Path

import rm
from holder import killed_after
from qgpu_sysfs import instance, instance_count
from rm import LibcMapping, Rm
from test_qgpu_seal import raw_ioctl, sibling

PER_FILE = 64  # QGPU_OS_EVENTS_PER_FILE
PER_INSTANCE = 4096  # QGPU_OS_EVENTS_PER_INSTANCE


def driver_keys() -> int:
    """The keys in the driver's one list, for every file and client."""
    return int(Path("/proc/driver/nvsim/os_events").read_text())


def qgpu_keys(name: str) -> int:
    return instance_count(name, "os events")


def test_freeing_a_client_frees_its_os_events_as_straight_on_the_driver() -> None:
    """The driver's RM_FREE escape frees a client's keys with it (nvsim's test shows it straight
    on the driver); the kernel interface does not. Through an instance too the keys go."""
    base = driver_keys()
    with instance("osevfree", opts="mem=64M") as d:
        tenant = Rm(dev=d)
        try:
            assert tenant.os_event(rm.ALLOC_OS_EVENT, 3, on=tenant.gpu_fd) == rm.OK
            assert tenant.os_event(rm.ALLOC_OS_EVENT, 4) == rm.OK
            assert driver_keys() == base + 2
            assert tenant.free(tenant.client) == rm.OK
            assert driver_keys() == base
            assert qgpu_keys("osevfree") == 0
            # the client is gone from the instance: its key cannot be named any more
            assert tenant.os_event(rm.FREE_OS_EVENT, 3) == rm.INVALID_CLIENT
        finally:
            tenant.close()
    assert driver_keys() == base


def test_os_events_are_bounded_per_file_and_per_instance() -> None:
    base = driver_keys()
    with instance("osevcap", opts="mem=64M") as d:
        tenant = Rm(dev=d)
        files: list[int] = []
        try:
            for fd in range(PER_FILE):
                assert tenant.os_event(rm.ALLOC_OS_EVENT, fd, on=tenant.gpu_fd) == rm.OK
            status = tenant.os_event(rm.ALLOC_OS_EVENT, PER_FILE, on=tenant.gpu_fd)
            assert status == rm.INSUFFICIENT_RESOURCES, hex(status)
            assert (driver_keys(), qgpu_keys("osevcap")) == (base + PER_FILE, PER_FILE)
            # freed through another file of the instance, the key makes room on its own file
            assert tenant.os_event(rm.FREE_OS_EVENT, 0) == rm.OK
            assert tenant.os_event(rm.ALLOC_OS_EVENT, PER_FILE, on=tenant.gpu_fd) == rm.OK
            # more files, each up to its limit, until the instance's is reached
            while qgpu_keys("osevcap") < PER_INSTANCE:
                files.append(os.open(f"{d}/nvidia0", os.O_RDWR))
                for i in range(PER_FILE):  # keys are unique for the whole driver
                    fd = 1000 * len(files) + i
                    assert tenant.os_event(rm.ALLOC_OS_EVENT, fd, on=files[-1]) == rm.OK
            assert qgpu_keys("osevcap") == PER_INSTANCE
            assert driver_keys() == base + PER_INSTANCE
            assert tenant.os_event(rm.ALLOC_OS_EVENT, 0, on=tenant.ctl) == rm.INSUFFICIENT_RESOURCES
            # a file that goes takes its keys with it
            os.close(files.pop())
            assert (driver_keys(), qgpu_keys("osevcap")) == (
                base + PER_INSTANCE - PER_FILE,
                PER_INSTANCE - PER_FILE,
            )
            assert tenant.os_event(rm.ALLOC_OS_EVENT, 0, on=tenant.ctl) == rm.OK
            # and the client takes the rest
            assert tenant.free(tenant.client) == rm.OK
            assert (driver_keys(), qgpu_keys("osevcap")) == (base, 0)
        finally:
            for f in files:
                os.close(f)
            tenant.close()
    assert driver_keys() == base


def test_os_events_stay_counted_while_a_mapping_keeps_their_file() -> None:
    """A mapping keeps the real file after its fd is closed, and RM frees the file's keys only
    with it: until then they count against the instance."""
    base = driver_keys()
    with instance("osevmap", opts="mem=64M") as d:
        tenant = Rm(dev=d)
        try:
            dev, _ = tenant.device()
            status, mem, _ = tenant.vidmem(dev, 2 << 20)
            assert status == rm.OK
            fd = tenant.open_gpu()
            assert tenant.map_memory(dev, mem, 0, 2 << 20, fd)[0] == rm.OK
            m = LibcMapping(fd, 2 << 20)  # keeps no fd of its own
            for i in range(PER_FILE):
                assert tenant.os_event(rm.ALLOC_OS_EVENT, 500 + i, on=fd) == rm.OK
            os.close(fd)
            assert (driver_keys() - base, qgpu_keys("osevmap")) == (PER_FILE, PER_FILE)
            m.unmap()
            deadline = time.monotonic() + 10  # qgpu looks for idle real files every 20 ms
            while qgpu_keys("osevmap") and time.monotonic() < deadline:
                time.sleep(0.05)
            assert (driver_keys() - base, qgpu_keys("osevmap")) == (0, 0)
        finally:
            tenant.close()


def test_a_killed_process_leaves_no_os_events() -> None:
    base = driver_keys()
    with instance("osevkill", opts="mem=64M") as d:

        def hold() -> None:
            t = Rm(dev=d)
            for fd in range(10):
                t.os_event(rm.ALLOC_OS_EVENT, fd, on=t.gpu_fd)

        with killed_after(hold):
            assert (driver_keys(), qgpu_keys("osevkill")) == (base + 10, 10)
        assert (driver_keys(), qgpu_keys("osevkill")) == (base, 0)


def test_a_refused_os_event_tells_the_operator() -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("osevnl", opts="mem=64M") as d:
        sock = QgpuEventSocket()
        tenant = Rm(dev=d)
        try:
            for fd in range(PER_FILE):
                assert tenant.os_event(rm.ALLOC_OS_EVENT, fd) == rm.OK
            assert tenant.os_event(rm.ALLOC_OS_EVENT, PER_FILE) == rm.INSUFFICIENT_RESOURCES
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.pid) == ("osevnl", os.getpid())
            assert "OS events" in ev.detail
        finally:
            tenant.close()
            sock.close()


def test_a_sibling_rewriting_the_status_cannot_hide_an_os_event() -> None:
    """RM's status in qgpu's sealed copy decides what is counted: a sibling that keeps writing a
    failure into the status the tenant's memory holds does not get keys past the file's bound
    (with seal=0 qgpu believes that memory, and the driver ends up with more)."""
    base = driver_keys()
    with instance("osevrace", opts="mem=64M") as d:
        tenant = Rm(dev=d)
        try:
            with sibling(16, [(12, (0xFFFFFFFF, rm.INSUFFICIENT_RESOURCES))]) as req:
                for fd in range(3 * PER_FILE):
                    struct.pack_into("<III", req, 0, tenant.client, 0, fd)
                    assert raw_ioctl(tenant.gpu_fd, rm.ALLOC_OS_EVENT, req) == 0
            assert (driver_keys() - base, qgpu_keys("osevrace")) == (PER_FILE, PER_FILE)
        finally:
            tenant.close()
    assert driver_keys() == base
