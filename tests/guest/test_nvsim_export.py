"""nvsim's NV0000 OS_UNIX export and import controls (kmod/nvsim/nvsim_export.c): objects
exported into a nvidiactl fd outlive the exporter's handles until the fd goes, and import into
another client as a new handle of the same memory, with RM's statuses for what it refuses."""

from __future__ import annotations

import errno
import mmap
import os

import pytest
import rm
from rm import Rm

MIB = 1 << 20


def test_exported_memory_lives_until_the_fd_and_every_import_are_gone() -> None:
    a, b = Rm(), Rm()
    e = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        dev, sub = a.device()
        devb, _ = b.device()
        free0 = a.fb_free_bytes(sub)
        status, h, _ = a.vidmem(dev, 64 * MIB)
        assert status == rm.OK
        assert a.export_objects(e, [h], max_objects=4, hdevice=dev) == rm.OK
        assert a.free(h) == rm.OK
        assert a.fb_free_bytes(sub) == free0 - 64 * MIB  # the fd holds it
        status, handles, types = b.import_objects(e, devb, 2)
        assert status == rm.OK, hex(status)
        assert types == [rm.IMPORT_TYPE_VIDMEM, rm.IMPORT_TYPE_NONE]
        assert handles[0]
        os.close(e)
        e = -1
        assert a.fb_free_bytes(sub) == free0 - 64 * MIB  # the import holds it
        assert b.free(handles[0]) == rm.OK
        assert a.fb_free_bytes(sub) == free0
    finally:
        if e >= 0:
            os.close(e)
        a.close()
        b.close()


def test_single_export_imports_under_the_handle_named() -> None:
    a, b = Rm(), Rm()
    e = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        dev, sub = a.device()
        devb, _ = b.device()
        free0 = a.fb_free_bytes(sub)
        _, h, _ = a.vidmem(dev, 2 * MIB)
        assert a.export_object(h, e) == rm.OK
        assert a.free(h) == rm.OK
        assert b.import_object(e, devb, 0xB0000001) == (rm.OK, 0xB0000001)
        assert b.import_object(e, devb, 0xB0000001)[0] == rm.INSERT_DUPLICATE_NAME
        status, h2 = b.import_object(e, devb)
        assert status == rm.OK and h2 not in (0, 0xB0000001)
        os.close(e)
        e = -1
        assert b.free(0xB0000001) == rm.OK
        assert a.fb_free_bytes(sub) == free0 - 2 * MIB
        assert b.free(h2) == rm.OK
        assert a.fb_free_bytes(sub) == free0
    finally:
        if e >= 0:
            os.close(e)
        a.close()
        b.close()


def test_export_fd_statuses_are_rms() -> None:
    a = Rm()
    e = os.open("/dev/nvidiactl", os.O_RDWR)
    e2 = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        dev, sub = a.device()
        _, h, _ = a.vidmem(dev, MIB)
        # not a nvidiactl file, or none at all
        assert a.export_objects(a.gpu_fd, [h], max_objects=1, hdevice=dev) == rm.INVALID_PARAMETER
        assert a.export_objects(-1, [h], max_objects=1, hdevice=dev) == rm.INVALID_PARAMETER
        # the first export sets the fd up, and needs a size for it
        assert a.export_objects(e, [h], max_objects=0, hdevice=dev) == rm.INVALID_PARAMETER
        # memory of a device cannot go into an fd tied to no device
        assert a.export_objects(e, [h], max_objects=2) == rm.INVALID_PARAMETER
        assert a.create_export_fd(e, 2, dev) == rm.OK
        assert a.create_export_fd(e, 2, dev) == rm.STATE_IN_USE
        assert a.export_objects(e, [h], index=2) == rm.OUT_OF_RANGE
        assert a.export_objects(e, [dev]) == rm.INVALID_ARGUMENT  # devices are not copyable
        assert a.export_objects(e, [0x5EE5EE]) == rm.OBJECT_NOT_FOUND
        assert a.import_objects(e2, dev, 1)[0] == rm.INVALID_PARAMETER  # nothing exported
        assert a.export_object(h, e2, flags=1) == rm.INVALID_PARAMETER  # EMPTY_FD: userspace's
        assert a.export_object(h, e2) == rm.OK
        assert a.export_object(h, e2) == rm.STATE_IN_USE
        assert a.import_objects(e, dev, 3)[0] == rm.OUT_OF_RANGE
        status, _, types = a.import_objects(e, dev, 2)
        assert (status, types) == (rm.OK, [rm.IMPORT_TYPE_NONE] * 2)
    finally:
        os.close(e)
        os.close(e2)
        a.close()


def test_an_export_fd_is_not_mapped() -> None:
    """nvidia_mmap() refuses a file holding exported objects, even with a mapping context."""
    a = Rm()
    e = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        dev, _ = a.device()
        status, mem, _, _ = a.memory(rm.SYSMEM, dev, 64 * 1024, rm.ATTR_LOCATION_PCI)
        assert status == rm.OK
        assert a.map_memory(dev, mem, 0, 4096, e)[0] == rm.OK
        assert a.export_object(mem, e) == rm.OK
        with pytest.raises(OSError) as err:
            mmap.mmap(e, 4096)
        assert err.value.errno == errno.EINVAL
    finally:
        os.close(e)
        a.close()
