"""The RM objects an instance's processes hold, counted and bounded (kmod/qgpu_objects.c, DOC: RM
objects): past ``rm_objects_max`` every call that would make one (RM_ALLOC, RM_DUP_OBJECT,
VID_HEAP_CONTROL ALLOC_*, RM_ALLOC_MEMORY and an event's RM_ALLOC on a GPU node, the OS_UNIX
imports) answers NV_ERR_INSUFFICIENT_RESOURCES, RM's answer when a client's handles run out, and
is not forwarded; the count follows every free and the process's end; other instances are not
bound by it."""

from __future__ import annotations

import errno
import os
import struct

import pytest
import rm
from holder import killed_after
from qgpu_sysfs import (
    count,
    errno_of_write,
    gpu_dir,
    inst_dir,
    instance,
    instance_count,
    read,
    wait_count,
    write,
)
from rm import Rm

EVENT_KEY = 77  # the ALLOC_OS_EVENT key an event object names


def gpu_node_event(r: Rm, sub: int) -> tuple[int, int]:
    """An OS event object under `sub`, allocated through the GPU node (the driver takes RM_ALLOC
    there for the event classes): (status, handle)."""
    ptr = r.buffer(struct.pack("<IIIIQ", r.client, sub, rm.OS_EVENT, 12, EVENT_KEY))
    buf = bytearray(rm.NVOS64.pack(r.client, sub, 0, rm.OS_EVENT, ptr, 0, 0, 0, 0xFFFFFFFF))
    r.call(r.gpu_fd, rm.RM_ALLOC, buf)
    fields = rm.NVOS64.unpack(buf)
    return fields[8], fields[2]


def sysmem_on_gpu_node(r: Rm, dev: int, hnew: int) -> int:
    """RM_ALLOC_MEMORY of system memory, not mapped, through the GPU node: the status."""
    no_map = 1 << 30
    buf = rm.alloc_memory(r, dev, rm.SYSMEM, hnew, no_map, 4095, r.gpu_fd)
    return int(struct.unpack_from("<I", buf, 40)[0])


def test_the_knob_and_create_key() -> None:
    assert "rm_objects" in read(gpu_dir(0) / "create_keys").split()
    with instance("obk", opts="mem=64M") as d:
        k = inst_dir("obk")
        assert (read(k / "rm_objects_max"), count("obk", "rm_objects")) == ("max", 0)
        assert os.stat(k / "rm_objects_max").st_mode & 0o777 == 0o644
        assert os.stat(k / "rm_objects").st_mode & 0o777 == 0o444
        write(k / "rm_objects_max", "100\n")
        assert read(k / "rm_objects_max") == "100"
        bad = ("0", "16777217", "123456789", "-1", "4k", "MAX", "\n", "5 5", "0x10")
        for value in bad:
            assert errno_of_write(k / "rm_objects_max", value) == errno.EINVAL, value
            assert read(k / "rm_objects_max") == "100"
        write(k / "rm_objects_max", "16777216")
        write(k / "rm_objects_max", "max")
        a = Rm(dev=d)
        try:
            a.device()  # its client, a device and a subdevice
            assert count("obk", "rm_objects") == 3
            assert instance_count("obk", "rm objects") == 3
            # below what the instance holds: refused, nothing changes; at it: taken
            assert errno_of_write(k / "rm_objects_max", "2") == errno.EBUSY
            assert read(k / "rm_objects_max") == "max"
            write(k / "rm_objects_max", "3")
            assert read(k / "rm_objects_max") == "3"
        finally:
            a.close()
        wait_count("obk", "rm_objects", 0)
    with instance("obk2", opts="mem=8M rm_objects=7"):
        assert read(inst_dir("obk2") / "rm_objects_max") == "7"
    for bad_key in ("rm_objects=0", "rm_objects=max rm_objects=4", "rm_objects=many"):
        assert errno_of_write(gpu_dir(0) / "create", f"obk3 mem=8M {bad_key}") == errno.EINVAL
        assert not inst_dir("obk3").exists()


@pytest.mark.parametrize("xfer", [False, True], ids=["direct", "xfer"])
def test_the_bound_refuses_every_way_of_making_an_object(seal_mode: str, xfer: bool) -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("obb", opts="mem=64M") as d, instance("obo", opts="mem=64M") as o:
        sock = QgpuEventSocket()
        a, b = Rm(dev=d, xfer=xfer), Rm(dev=o, xfer=xfer)
        export = os.open(f"{d}/nvidiactl", os.O_RDWR)
        try:
            dev, sub = a.device()
            status, mem, _ = a.vidmem(dev, 1 << 20)
            assert status == rm.OK
            assert a.export_object(mem, export) == rm.OK
            assert a.os_event(rm.ALLOC_OS_EVENT, EVENT_KEY) == rm.OK  # a key, not an object
            full = count("obb", "rm_objects")
            assert full == 4
            write(inst_dir("obb") / "rm_objects_max", f"{full}\n")

            refused = rm.INSUFFICIENT_RESOURCES
            assert a.vidmem(dev, 4096)[0] == refused
            assert a.alloc(a.client, sub, rm.USERMODE)[0] == refused
            assert a.alloc(0, 0, rm.ROOT_CLIENT)[0] == refused
            assert a.dup(dev, a.client, mem)[0] == refused
            heap = a.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=1 << 20)
            assert struct.unpack_from("<I", heap, 20)[0] == refused
            assert sysmem_on_gpu_node(a, dev, 0x7001) == refused
            assert gpu_node_event(a, sub)[0] == refused
            assert a.import_object(export, dev)[0] == refused
            assert count("obb", "rm_objects") == full
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.gpu, ev.pid) == ("obb", 0, os.getpid())
            assert "rm_objects_max" in ev.detail

            # the other instance is not bound by it
            devb, _ = b.device()
            assert b.vidmem(devb, 1 << 20)[0] == rm.OK
            assert count("obo", "rm_objects") == 4

            # a free makes room for one more
            assert a.free(mem) == rm.OK
            assert count("obb", "rm_objects") == full - 1
            status, mem, _ = a.vidmem(dev, 4096)
            assert status == rm.OK
            assert a.vidmem(dev, 4096)[0] == refused

            # unbounded, each way makes its object, counted, the GPU node's ones too
            write(inst_dir("obb") / "rm_objects_max", "max\n")
            assert a.dup(dev, a.client, mem)[0] == rm.OK
            heap = a.vid_heap(rm.NVOS32_ALLOC_SIZE, dev, size=1 << 20)
            assert struct.unpack_from("<I", heap, 20)[0] == rm.OK
            assert sysmem_on_gpu_node(a, dev, 0x7001) == rm.OK
            status, event = gpu_node_event(a, sub)
            assert status == rm.OK
            status, imported = a.import_object(export, dev)
            assert status == rm.OK
            assert count("obb", "rm_objects") == full + 5
            # ...and each free takes one off, through the ctl node as RM frees them
            for h in (imported, event, 0x7001):
                assert a.free(h) == rm.OK
            assert count("obb", "rm_objects") == full + 2
            assert a.free(dev) == rm.OK  # the device: everything under it
            assert count("obb", "rm_objects") == 1  # the client
        finally:
            os.close(export)
            a.close()
            b.close()
            sock.close()
        wait_count("obb", "rm_objects", 0)
        wait_count("obo", "rm_objects", 0)


def test_a_killed_process_gives_its_objects_back() -> None:
    with instance("obkill", opts="mem=64M rm_objects=64") as d:

        def hold() -> None:
            t = Rm(dev=d)
            dev, _ = t.device()
            t.vidmem(dev, 1 << 20)
            sysmem_on_gpu_node(t, dev, 0x7001)

        with killed_after(hold):
            assert count("obkill", "rm_objects") == 5
        wait_count("obkill", "rm_objects", 0)
