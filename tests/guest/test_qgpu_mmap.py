"""mmap through an instance: the real file takes the VMA, so the driver's mappings, faults and the
doorbell work exactly as on the driver's own nodes."""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterator

import pytest
import rm
from qgpu_sysfs import inst_dir as inst_path
from qgpu_sysfs import instance, read
from qgpu_sysfs import remove as remove_instance
from rm import LibcMapping, Rm, mapped

MIB = 1 << 20


@pytest.fixture
def proc() -> Iterator[Rm]:
    with instance("maps") as d:
        r = Rm(dev=d)
        try:
            yield r
        finally:
            r.close()


def test_vidmem_maps_through_instance_files(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _ = proc.vidmem(dev, 2 * MIB)
    assert status == rm.OK
    a_fd, b_fd = proc.open_gpu(), proc.open_gpu()
    try:
        assert proc.map_memory(dev, mem, 0, 2 * MIB, a_fd)[0] == rm.OK
        assert proc.map_memory(dev, mem, MIB, 4096, b_fd)[0] == rm.OK
        a, b = mapped(a_fd, 2 * MIB), mapped(b_fd, 4096)
        a[MIB : MIB + 6] = b"shared"
        assert b[:6] == b"shared"
        a.close()
        b.close()
    finally:
        os.close(a_fd)
        os.close(b_fd)


def test_sysmem_maps_through_the_instance_ctl(proc: Rm) -> None:
    dev, _ = proc.device()
    status, mem, _, _ = proc.memory(rm.SYSMEM, dev, 64 * 1024, rm.ATTR_LOCATION_PCI)
    assert status == rm.OK
    ctl = os.open(f"{proc.dev}/nvidiactl", os.O_RDWR)
    try:
        assert proc.map_memory(dev, mem, 0, 8192, ctl)[0] == rm.OK
        m = mapped(ctl, 8192)
        m[8000:8004] = b"ctl!"
        assert m[8000:8004] == b"ctl!"
        m.close()
    finally:
        os.close(ctl)


def test_the_doorbell_rings_through_an_instance(proc: Rm) -> None:
    dev, sub = proc.device()
    status, usermode = proc.alloc(proc.client, sub, rm.USERMODE)
    assert status == rm.OK
    gpu = proc.open_gpu()
    try:
        assert proc.map_memory(sub, usermode, 0, rm.USERMODE_SIZE, gpu)[0] == rm.OK
        m = mapped(gpu, rm.USERMODE_SIZE)
        for token in (1, 2, 3):
            rm.store(m, rm.DOORBELL, token)
            deadline = time.monotonic() + 5
            while struct.unpack_from("<I", m, rm.DOORBELL)[0] and time.monotonic() < deadline:
                time.sleep(0.01)
            assert struct.unpack_from("<I", m, rm.DOORBELL)[0] == 0, f"ring {token} not seen"
        m.close()
    finally:
        os.close(gpu)


def test_a_mapping_outlives_its_proxy_fd_and_then_lets_the_instance_go() -> None:
    with instance("keep") as d:
        r = Rm(dev=d)
        dev, _ = r.device()
        status, mem, _ = r.vidmem(dev, MIB)
        assert status == rm.OK
        gpu = r.open_gpu()
        assert r.map_memory(dev, mem, 0, MIB, gpu)[0] == rm.OK
        # libc's mmap, not Python's: mmap.mmap keeps a dup() of the fd.
        m = LibcMapping(gpu, MIB)
        os.close(gpu)
        m.write(0, b"live")
        assert m.read(0, 4) == b"live"
        r.close()
        # The VMA holds the real file, not the proxy: nothing of the instance is open.
        assert read(inst_path("keep") / "processes") == ""
        m.unmap()
        remove_instance("keep")
        assert not inst_path("keep").exists()
