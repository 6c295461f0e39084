"""A minimal RM ioctl client for guest tests, packing the parameter structs by hand.

Offsets and sizes are the ones kmod/nvrm/nvrm_abi.h states for 535+ drivers (NVOS64 of 48 bytes,
NV_MEMORY_ALLOCATION_PARAMS of 128 bytes from 545); the tests check nvsim against them independently
of the C header. Embedded user pointers point at ctypes buffers kept alive by the caller.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import mmap
import os
import struct
from collections.abc import Iterator
from pathlib import Path

# Escapes (nv_escape.h, nv-ioctl-numbers.h)
CARD_INFO, REGISTER_FD, CHECK_VERSION_STR, XFER, ATTACH_GPUS, SYS_PARAMS = (
    200,
    201,
    210,
    211,
    212,
    214,
)
RM_FREE, RM_CONTROL, RM_ALLOC = 0x29, 0x2A, 0x2B
RM_MAP_MEMORY, RM_UNMAP_MEMORY = 0x4E, 0x4F
RM_ALLOC_MEMORY, RM_DUP_OBJECT, RM_VID_HEAP_CONTROL, RM_GET_EVENT_DATA = 0x27, 0x34, 0x4A, 0x52
ALLOC_OS_EVENT, FREE_OS_EVENT = 206, 207
RM_SHARE, RM_ACCESS_REGISTRY = 0x35, 0x4D
RM_MAP_MEMORY_DMA, RM_UNMAP_MEMORY_DMA = 0x57, 0x58
VIRTMEM = 0x50A0  # NV50_MEMORY_VIRTUAL
DMA_OFFSET_FIXED = 1 << 15  # NVOS46_FLAGS_DMA_OFFSET_FIXED
# NVOS32_ALLOC_FLAGS_*: a virtual range RM maps nothing of up front, and a VIRTUAL vid-heap request
ALLOC_FLAGS_LAZY, ALLOC_FLAGS_VIRTUAL = 0x400, 0x80000
RM_UPDATE_DEVICE_MAPPING_INFO = 0x5E
NUMA_INFO, EXPORT_TO_DMABUF_FD = 215, 217

# Classes and controls
ROOT_CLIENT, DEVICE, SUBDEVICE, VIDMEM, SYSMEM = 0x41, 0x80, 0x2080, 0x40, 0x3E
USERMODE = 0xC661  # HOPPER_USERMODE_A
USERMODE_SIZE = 0x10000  # NVC361_NV_USERMODE__SIZE
DOORBELL = 0x90  # NVC361_NOTIFY_CHANNEL_PENDING
ATTR_LOCATION_PCI = 1 << 25
FB_GET_INFO, FB_GET_INFO_V2 = 0x20801301, 0x20801303
GPU_GET_INFO_V2, GPU_GET_CACHED_INFO = 0x20800102, 0x20800182
GPU_INFO_MOBILE_CONFIG_ENABLED, GPU_INFO_DMABUF_CAPABILITY = 0x35, 0x3D
GPU_GET_NAME_STRING, GPU_GET_GID_INFO = 0x20800110, 0x2080014A
GPU_GET_ID_INFO_V2 = 0x00000205  # on the root client
GET_HANDLE_INFO = 0x00000D02  # NV0000 CLIENT_GET_HANDLE_INFO, on the root client
FB_TOTAL_RAM_SIZE, FB_HEAP_FREE = 0x08, 0x16
# NV0000 OS_UNIX export/import (ctrl0000unix.h): on the root client, the fd a nvidiactl file
EXPORT_OBJECT_TO_FD, IMPORT_OBJECT_FROM_FD = 0x3D05, 0x3D06
CREATE_EXPORT_OBJECT_FD, EXPORT_OBJECTS_TO_FD, IMPORT_OBJECTS_FROM_FD = 0x3D0A, 0x3D0B, 0x3D0C
IMPORT_TYPE_NONE, IMPORT_TYPE_VIDMEM = 0, 1
GPU_GET_PIDS, GPU_GET_PID_INFO = 0x2080018D, 0x2080018E
OS_EVENT, TSG, MEMORY_VIRTUAL_0070 = 0x79, 0xA06C, 0x70
MEMORY_FABRIC = 0xF8  # NV_MEMORY_FABRIC, under a subdevice
FABRIC_FLEXIBLE, FABRIC_READ_ONLY = 0x1, 0x8  # NV00F8_ALLOC_FLAGS_*
ATTR_PAGE_HUGE = 3 << 23  # NVOS32 ATTR PAGE_SIZE=HUGE (2 MiB)
ATTR_PAGE_BIG = 2 << 23  # PAGE_SIZE=BIG (64 KiB: the default is 2 MiB from 2 MiB on)
NVOS32_ALLOC_SIZE, NVOS32_FREE, NVOS32_INFO = 2, 3, 5

# Status codes (nvstatuscodes.h)
OK = 0
INSUFFICIENT_PERMISSIONS = 0x1B
INVALID_ADDRESS = 0x1E
INVALID_ARGUMENT = 0x1F
INVALID_CLASS = 0x22
INVALID_CLIENT = 0x23
INVALID_OBJECT_HANDLE = 0x33
INVALID_OBJECT = 0x31
INVALID_OBJECT_PARENT = 0x36
IN_USE = 0x17
INVALID_PARAM_STRUCT = 0x3A
NO_MEMORY = 0x51
NO_FREE_FIFOS = 0x4F  # what RM answers when its channel ids run out
NOT_SUPPORTED = 0x56
INSERT_DUPLICATE_NAME = 0x19
INVALID_DEVICE = 0x26
INVALID_LIMIT = 0x2E
INVALID_OFFSET = 0x37
STATE_IN_USE = 0x63
INSUFFICIENT_RESOURCES = 0x1A
INVALID_EVENT = 0x28
INVALID_FLAGS = 0x29
OBJECT_NOT_FOUND = 0x57
OPERATING_SYSTEM = 0x59
GENERIC = 0xFFFF
INVALID_ACCESS_TYPE = 0x1D
INVALID_STRING_LENGTH = 0x41
INVALID_PARAMETER = 0x3B
OUT_OF_RANGE = 0x5B
ATTR_LOCATION_PCI = 1 << 25

NVOS64 = struct.Struct("<IIIIQQIII4x")  # 48 B
NVOS21 = struct.Struct("<IIIIQII")  # 32 B, 535+
NVOS00 = struct.Struct("<IIII")
NVOS54 = struct.Struct("<IIIIQII")
XFER_S = struct.Struct("<IIQ")
NVOS33_FD = struct.Struct("<IIII QQQ II i4x")  # 56 B: NVOS33 + fd@48
NVOS34 = struct.Struct("<IIIIQII")  # 32 B
NVOS56 = struct.Struct("<IIIIQQII")  # hClient, hDevice, hMemory, pad, pOld, pNew, status, pad
NVOS55 = struct.Struct("<IIIIIII")  # 28 B
OS_EVENT_S = struct.Struct("<IIII")  # 16 B
# NVOS38 (RM_ACCESS_REGISTRY), 72 B: hClient, hObject, AccessType, DevNodeLength, pDevNode,
# ParmStrLength, pParmStr, BinaryDataLength, pBinaryData, Data, Entry, status
REGISTRY_S = struct.Struct("<IIIIQI4xQI4xQIII4x")
REG_READ_DWORD, REG_WRITE_DWORD, REG_READ_BINARY, REG_WRITE_BINARY = 1, 2, 6, 7
# NVOS57 (RM_SHARE), 24 B: hClient, hObject, RS_SHARE_POLICY {target, accessMask, type,
# action}, status
SHARE_S = struct.Struct("<IIIIHBxI")
SHARE_TYPE_ALL, SHARE_TYPE_CLIENT, SHARE_TYPE_PID = 1, 3, 4
SHARE_ACTION_REVOKE, SHARE_ACTION_REQUIRE, SHARE_ACTION_COMPOSE = 1, 2, 4
ACCESS_DUP_OBJECT = 1  # the RS_ACCESS_DUP_OBJECT bit of an access mask
NVOS32_SIZE = 184
MEM_PARAMS_SIZE = 128


def abi_max(table: tuple[tuple[tuple[int, ...], int], ...]) -> int:
    """The value of the newest (since, value) row the ABI nvsim speaks has reached."""
    version = tuple(int(x) for x in param("abi_version").split("."))
    return next(value for since, value in table if version >= since)


def fb_info_max() -> int:
    """NV2080_CTRL_FB_INFO_MAX_LIST_SIZE of nvsim's ABI (nvrm_abi.h)."""
    return abi_max((((580,), 0x80), ((560,), 0x39), ((545,), 0x37), ((0,), 0x36)))


def fb_info_v2_size() -> int:
    """sizeof(NV2080_CTRL_FB_GET_INFO_V2_PARAMS) of nvsim's ABI."""
    return 4 + 8 * fb_info_max()


def numa_info_size() -> int:
    """sizeof(nv_ioctl_numa_info_t) of nvsim's ABI: 552 B before 535, 560 B after."""
    return abi_max((((535,), 560), ((0,), 552)))


def gpu_info_max() -> int:
    """NV2080_CTRL_GPU_INFO_MAX_LIST_SIZE of nvsim's ABI (nvrm_abi.h)."""
    return abi_max(
        (
            ((580,), 0x46),
            ((575,), 0x42),
            ((545,), 0x41),
            ((535,), 0x40),
            ((530,), 0x3F),
            ((0,), 0x3E),
        )
    )


def gpu_info_v2_size() -> int:
    """sizeof(NV2080_CTRL_GPU_GET_INFO_V2_PARAMS) of nvsim's ABI."""
    return 4 + 8 * gpu_info_max()


def iowr(nr: int, size: int) -> int:
    return 0xC0000000 | (size << 16) | (0x46 << 8) | nr


def param(name: str) -> str:
    return Path("/sys/module/nvsim/parameters", name).read_text().strip()


def attached_refs(gpu: int) -> int:
    """References files took on nvsim's GPU `gpu` with ATTACH_GPUS_TO_FD and still hold."""
    return int(Path(f"/proc/driver/nvsim/gpu{gpu}/attached").read_text())


def dma_mappings(gpu: int = 0) -> tuple[int, int]:
    """nvsim's RM_MAP_MEMORY_DMA records on a GPU, and the bytes they map."""
    text = Path(f"/proc/driver/nvsim/gpu{gpu}/dma_mappings").read_text().split()
    return int(text[1]), int(text[3])


def fb_bytes() -> int:
    """The framebuffer nvsim was loaded with, in bytes."""
    return int(param("fb_mib")) << 20


def ioctl(fd: int, nr: int, buf: bytearray) -> None:
    """Issue an escape directly; raises OSError for a refused call."""
    fcntl.ioctl(fd, iowr(nr, len(buf)), buf, True)


def refused(fd: int, nr: int, buf: bytearray) -> int:
    """Issue an escape the driver must refuse; returns the errno."""
    try:
        ioctl(fd, nr, buf)
    except OSError as e:
        return e.errno
    raise AssertionError(f"escape {nr} was not refused")


def ioctl_xfer(fd: int, nr: int, buf: bytearray) -> None:
    """The same escape wrapped in IOCTL_XFER_CMD; the driver copies results back into buf."""
    inner = ctypes.create_string_buffer(bytes(buf), len(buf))
    outer = bytearray(XFER_S.pack(nr, len(buf), ctypes.addressof(inner)))
    try:
        ioctl(fd, XFER, outer)
    finally:
        buf[:] = inner.raw


NVOS02_FD = struct.Struct("<IIIIIIQQIIiI")  # 56 B: NVOS02 + fd@48


def alloc_memory(
    r: Rm, hparent: int, hclass: int, hnew: int, flags: int, limit: int, on: int, fd: int = -1
) -> bytearray:
    """RM_ALLOC_MEMORY (NVOS02 + fd) issued on `on` (a GPU fd); returns the parameters, the
    status at 40."""
    buf = bytearray(
        NVOS02_FD.pack(r.client, hparent, hnew, hclass, flags, 0, 0, limit, 0xFFFFFFFF, 0, fd, 0)
    )
    r.call(on, RM_ALLOC_MEMORY, buf)
    return buf


def dmabuf_params(
    ranges: list[tuple[int, int, int]],
    fd: int,
    total_objects: int,
    total_size: int,
    index: int,
    hclient: int,
    mapping_type: int = 0,
    allow_mmap: bool = False,
) -> bytearray:
    """nv_ioctl_export_to_dma_buf_fd_t for the ABI nvsim speaks: 2600 B before 570 (handles@32),
    2608 B from 570 (mappingType@32, bAllowMmap@33 from 580, handles@36)."""
    new = abi_at_least((570,))
    buf = bytearray(2608 if new else 2600)
    handles, offsets, sizes = (36, 552, 1576) if new else (32, 544, 1568)
    struct.pack_into(
        "<iIIII4xQ", buf, 0, fd, hclient, total_objects, len(ranges), index, total_size
    )
    if new:
        buf[32] = mapping_type
        buf[33] = int(allow_mmap)
    for i, (h, off, size) in enumerate(ranges):
        struct.pack_into("<I", buf, handles + 4 * i, h)
        struct.pack_into("<Q", buf, offsets + 8 * i, off)
        struct.pack_into("<Q", buf, sizes + 8 * i, size)
    struct.pack_into("<I", buf, len(buf) - 8, 0xFFFFFFFF)  # status, then padding
    return buf


def card_info(ctl: int, slots: int = 32) -> list[tuple[int, int, int]]:
    """CARD_INFO: (gpu_id, minor_number, fb_size) of every valid slot."""
    buf = bytearray(72 * slots)
    ioctl(ctl, CARD_INFO, buf)
    return [
        (
            struct.unpack_from("<I", buf, 72 * i + 16)[0],
            struct.unpack_from("<I", buf, 72 * i + 56)[0],
            struct.unpack_from("<Q", buf, 72 * i + 48)[0],
        )
        for i in range(slots)
        if buf[72 * i]
    ]


class Rm:
    """One process's view: a ctl fd, its client, and optionally a registered GPU fd.

    `dev` is the directory of the nodes: /dev for the driver itself, /dev/qgpu/NAME for a qgpu
    instance (whose GPU node is always nvidia0).
    """

    def __init__(self, gpu: int | None = 0, xfer: bool = False, dev: str = "/dev") -> None:
        self.dev = dev
        self.ctl = os.open(f"{dev}/nvidiactl", os.O_RDWR)
        self.call = ioctl_xfer if xfer else ioctl
        self.keep: list[ctypes.Array[ctypes.c_char]] = []
        self.gpu_fd = -1
        if gpu is not None:
            self.gpu_fd = os.open(f"{dev}/nvidia{gpu}", os.O_RDWR)
            ioctl(self.gpu_fd, REGISTER_FD, bytearray(struct.pack("<i", self.ctl)))
        status, self.client = self.alloc(0, 0, ROOT_CLIENT)
        assert status == OK, hex(status)

    def close(self) -> None:
        for fd in (self.gpu_fd, self.ctl):
            if fd >= 0:
                os.close(fd)

    def buffer(self, data: bytes) -> int:
        b = ctypes.create_string_buffer(data, len(data))
        self.keep.append(b)
        return ctypes.addressof(b)

    def alloc(
        self, hroot: int, hparent: int, hclass: int, params: bytes | None = None, hnew: int = 0
    ) -> tuple[int, int]:
        ptr = self.buffer(params) if params is not None else 0
        buf = bytearray(NVOS64.pack(hroot, hparent, hnew, hclass, ptr, 0, 0, 0, 0xFFFFFFFF))
        self.call(self.ctl, RM_ALLOC, buf)
        fields = NVOS64.unpack(buf)
        return fields[8], fields[2]

    def free(self, hobject: int, hparent: int = 0) -> int:
        buf = bytearray(NVOS00.pack(self.client, hparent, hobject, 0xFFFFFFFF))
        self.call(self.ctl, RM_FREE, buf)
        return NVOS00.unpack(buf)[3]

    def control(self, hobject: int, cmd: int, params: bytearray, hclient: int = 0) -> int:
        ptr = self.buffer(bytes(params))
        buf = bytearray(
            NVOS54.pack(hclient or self.client, hobject, cmd, 0, ptr, len(params), 0xFFFFFFFF)
        )
        self.call(self.ctl, RM_CONTROL, buf)
        params[:] = self.keep[-1].raw
        return NVOS54.unpack(buf)[6]

    def device_instance(self, gpu_id: int) -> tuple[int, int]:
        """NV0000 GPU_GET_ID_INFO_V2: (status, deviceInstance) of a CARD_INFO gpu_id."""
        info = bytearray(struct.pack("<I28x", gpu_id))
        status = self.control(self.client, GPU_GET_ID_INFO_V2, info)
        return status, struct.unpack_from("<I", info, 8)[0]

    def device(self, index: int = 0) -> tuple[int, int]:
        """Allocate device and subdevice; returns their handles."""
        status, dev = self.alloc(self.client, self.client, DEVICE, struct.pack("<I52x", index))
        assert status == OK, hex(status)
        status, sub = self.alloc(self.client, dev, SUBDEVICE, struct.pack("<I", 0))
        assert status == OK, hex(status)
        return dev, sub

    def memory(
        self, hclass: int, parent: int, size: int, attr: int = 0, flags: int = 0
    ) -> tuple[int, int, int, int]:
        """Allocate memory; returns (status, handle, size and offset RM wrote back)."""
        params = bytearray(MEM_PARAMS_SIZE)
        struct.pack_into("<I", params, 0, self.client)
        struct.pack_into("<I", params, 8, flags)
        struct.pack_into("<I", params, 24, attr)
        struct.pack_into("<Q", params, 64, size)
        ptr = self.buffer(bytes(params))
        buf = bytearray(NVOS64.pack(self.client, parent, 0, hclass, ptr, 0, 0, 0, 0xFFFFFFFF))
        self.call(self.ctl, RM_ALLOC, buf)
        fields = NVOS64.unpack(buf)
        written = struct.unpack_from("<Q", self.keep[-1].raw, 64)[0]
        offset = struct.unpack_from("<Q", self.keep[-1].raw, 80)[0]
        return fields[8], fields[2], written, offset

    def vidmem(self, parent: int, size: int, attr: int = 0) -> tuple[int, int, int]:
        """Allocate framebuffer; returns (status, handle, size RM wrote back)."""
        return self.memory(VIDMEM, parent, size, attr)[:3]

    def open_gpu(self, gpu: int = 0) -> int:
        """A fresh registered /dev/nvidiaN fd, as user space opens one for every mapping."""
        fd = os.open(f"{self.dev}/nvidia{gpu}", os.O_RDWR)
        ioctl(fd, REGISTER_FD, bytearray(struct.pack("<i", self.ctl)))
        return fd

    def map_memory(
        self, hdevice: int, hmemory: int, offset: int, length: int, fd: int, flags: int = 0
    ) -> tuple[int, int]:
        """RM_MAP_MEMORY onto fd's mapping context; returns (status, pLinearAddress)."""
        buf = bytearray(
            NVOS33_FD.pack(
                self.client, hdevice, hmemory, 0, offset, length, 0, 0xFFFFFFFF, flags, fd
            )
        )
        self.call(self.ctl, RM_MAP_MEMORY, buf)
        fields = NVOS33_FD.unpack(buf)
        return fields[7], fields[6]

    def unmap_memory(self, hdevice: int, hmemory: int, address: int) -> int:
        buf = bytearray(NVOS34.pack(self.client, hdevice, hmemory, 0, address, 0xFFFFFFFF, 0))
        self.call(self.ctl, RM_UNMAP_MEMORY, buf)
        return NVOS34.unpack(buf)[5]

    def update_mapping(
        self, hdevice: int, hmemory: int, old: int, new: int, hclient: int = 0
    ) -> int:
        """RM_UPDATE_DEVICE_MAPPING_INFO: RM knows the mapping made at old at new from now on."""
        buf = bytearray(
            NVOS56.pack(hclient or self.client, hdevice, hmemory, 0, old, new, 0xFFFFFFFF, 0)
        )
        self.call(self.ctl, RM_UPDATE_DEVICE_MAPPING_INFO, buf)
        return NVOS56.unpack(buf)[6]

    def map_dma(
        self,
        hdevice: int,
        hdma: int,
        hmemory: int,
        length: int,
        dma_offset: int = 0,
        offset: int = 0,
        flags: int = 0,
        hclient: int = 0,
    ) -> tuple[int, int]:
        """RM_MAP_MEMORY_DMA (NVOS46): (status, the dmaOffset RM wrote back: an absolute VA)."""
        v580 = abi_at_least((580,))
        fmt = "<IIIIQQIIIIQI4x" if v580 else "<IIIIQQI4xQI4x"
        head = (hclient or self.client, hdevice, hdma, hmemory, offset, length, flags)
        fields = (
            (*head, 0, 0, 0, dma_offset, 0xFFFFFFFF) if v580 else (*head, dma_offset, 0xFFFFFFFF)
        )
        buf = bytearray(struct.pack(fmt, *fields))
        self.call(self.ctl, RM_MAP_MEMORY_DMA, buf)
        out = struct.unpack(fmt, buf)
        return out[-1], out[-2]

    def unmap_dma(
        self, hdevice: int, hdma: int, dma_offset: int, size: int = 0, hmemory: int = 0
    ) -> int:
        """RM_UNMAP_MEMORY_DMA (NVOS47); size is dropped where the layout has none (525-545)."""
        if abi_at_least((550,)):
            fmt, fields = "<IIIII4xQQI4x", (dma_offset, size)
        else:
            fmt, fields = "<IIIII4xQI4x", (dma_offset,)
        head = (self.client, hdevice, hdma, hmemory, 0)
        buf = bytearray(struct.pack(fmt, *head, *fields, 0xFFFFFFFF))
        self.call(self.ctl, RM_UNMAP_MEMORY_DMA, buf)
        return struct.unpack(fmt, buf)[-1]

    def fb_info(self, subdevice: int, *indices: int) -> list[int]:
        params = bytearray(fb_info_v2_size())
        struct.pack_into("<I", params, 0, len(indices))
        for i, index in enumerate(indices):
            struct.pack_into("<II", params, 4 + 8 * i, index, 0)
        status = self.control(subdevice, FB_GET_INFO_V2, params)
        assert status == OK, hex(status)
        return [struct.unpack_from("<I", params, 8 + 8 * i)[0] for i in range(len(indices))]

    def gpu_info(
        self, subdevice: int, *indices: int, cmd: int = GPU_GET_INFO_V2, count: int | None = None
    ) -> tuple[int, list[int]]:
        """GPU_GET_INFO_V2 (or GPU_GET_CACHED_INFO): (status, data of each index); count
        overrides the list size the call claims."""
        params = bytearray(gpu_info_v2_size())
        struct.pack_into("<I", params, 0, len(indices) if count is None else count)
        for i, index in enumerate(indices):
            struct.pack_into("<II", params, 4 + 8 * i, index, 0xFFFFFFFF)
        status = self.control(subdevice, cmd, params)
        return status, [struct.unpack_from("<I", params, 8 + 8 * i)[0] for i in range(len(indices))]

    def fb_free_bytes(self, subdevice: int) -> int:
        return self.fb_info(subdevice, FB_HEAP_FREE)[0] * 1024

    def dup(
        self, hparent: int, hclient_src: int, hobject_src: int, hobject: int = 0, flags: int = 0
    ) -> tuple[int, int]:
        """RM_DUP_OBJECT into this process's client; returns (status, new handle)."""
        buf = bytearray(
            NVOS55.pack(self.client, hparent, hobject, hclient_src, hobject_src, flags, 0xFFFFFFFF)
        )
        self.call(self.ctl, RM_DUP_OBJECT, buf)
        fields = NVOS55.unpack(buf)
        return fields[6], fields[2]

    def export_object(self, hobject: int, fd: int, hdevice: int = 0, flags: int = 0) -> int:
        """EXPORT_OBJECT_TO_FD: the one object into a fresh nvidiactl fd; returns the status."""
        params = bytearray(struct.pack("<IIIIiI", 1, hdevice, 0, hobject, fd, flags))
        return self.control(self.client, EXPORT_OBJECT_TO_FD, params)

    def import_object(self, fd: int, hparent: int, hobject: int = 0) -> tuple[int, int]:
        """IMPORT_OBJECT_FROM_FD under hparent; returns (status, the new handle)."""
        params = bytearray(struct.pack("<iIIII", fd, 1, 0, hparent, hobject))
        status = self.control(self.client, IMPORT_OBJECT_FROM_FD, params)
        return status, struct.unpack_from("<I", params, 16)[0]

    def create_export_fd(self, fd: int, max_objects: int, hdevice: int = 0) -> int:
        params = bytearray(76)
        struct.pack_into("<IH", params, 0, hdevice, max_objects)
        struct.pack_into("<i", params, 72, fd)
        return self.control(self.client, CREATE_EXPORT_OBJECT_FD, params)

    def export_objects(
        self, fd: int, objects: list[int], index: int = 0, max_objects: int = 0, hdevice: int = 0
    ) -> int:
        """EXPORT_OBJECTS_TO_FD of objects into slots index..; returns the status."""
        params = bytearray(2128)
        struct.pack_into("<iIH", params, 0, fd, hdevice, max_objects)
        struct.pack_into(f"<{len(objects)}I", params, 76, *objects)
        struct.pack_into("<HH", params, 2124, len(objects), index)
        return self.control(self.client, EXPORT_OBJECTS_TO_FD, params)

    def import_objects(
        self, fd: int, hparent: int, n: int, index: int = 0, handles: list[int] | None = None
    ) -> tuple[int, list[int], list[int]]:
        """IMPORT_OBJECTS_FROM_FD of slots index..index+n; returns (status, handles, types)."""
        params = bytearray(652)
        struct.pack_into("<iI", params, 0, fd, hparent)
        if handles:
            struct.pack_into(f"<{len(handles)}I", params, 8, *handles)
        struct.pack_into("<HH", params, 648, n, index)
        status = self.control(self.client, IMPORT_OBJECTS_FROM_FD, params)
        return (
            status,
            list(struct.unpack_from(f"<{n}I", params, 8)),
            list(params[520 : 520 + n]),
        )

    def export_dmabuf(
        self,
        ranges: list[tuple[int, int, int]],
        fd: int = -1,
        total_objects: int = 0,
        total_size: int = 0,
        index: int = 0,
        hclient: int = 0,
        mapping_type: int = 0,
        allow_mmap: bool = False,
        on: int | None = None,
    ) -> tuple[int, int]:
        """EXPORT_TO_DMABUF_FD on the GPU fd of (handle, offset, size) ranges into slots index..

        total_objects and total_size default to the ranges' own. Returns (status, fd written
        back); raises OSError where the driver refuses the call itself.
        """
        buf = dmabuf_params(
            ranges,
            fd,
            total_objects or len(ranges),
            total_size or sum(size for _, _, size in ranges),
            index,
            hclient or self.client,
            mapping_type,
            allow_mmap,
        )
        self.call(self.gpu_fd if on is None else on, EXPORT_TO_DMABUF_FD, buf)
        return struct.unpack_from("<I", buf, len(buf) - 8)[0], struct.unpack_from("<i", buf)[0]

    def vid_heap(self, function: int, hparent: int, **fields: int) -> bytearray:
        """RM_VID_HEAP_CONTROL; fields: hmemory, flags, attr, attr2, size (AllocSize/Free).
        Returns it."""
        buf = bytearray(NVOS32_SIZE)
        struct.pack_into("<III", buf, 0, self.client, hparent, function)
        struct.pack_into("<I", buf, 20, 0xFFFFFFFF)
        if function == NVOS32_FREE:
            struct.pack_into("<II", buf, 44, fields.get("hmemory", 0), fields.get("flags", 1))
        else:
            struct.pack_into("<I", buf, 44, fields.get("hmemory", 0))
            struct.pack_into("<II", buf, 52, fields.get("flags", 0), fields.get("attr", 0))
            struct.pack_into("<Q", buf, 88, fields.get("size", 0))
            struct.pack_into("<I", buf, 144, fields.get("attr2", 0))
        self.call(self.ctl, RM_VID_HEAP_CONTROL, buf)
        return buf

    def os_event(self, nr: int, fd: int, hclient: int = 0, on: int | None = None) -> int:
        buf = bytearray(OS_EVENT_S.pack(hclient or self.client, 0, fd, 0xFFFFFFFF))
        self.call(self.ctl if on is None else on, nr, buf)
        return OS_EVENT_S.unpack(buf)[3]

    def registry(
        self, access: int, key: str, data: int = 0, hclient: int = 0, hobject: int = 0
    ) -> tuple[int, int]:
        """RM_ACCESS_REGISTRY of `key` (hObject = hClient: the global registry): (status, Data)."""
        hclient = hclient or self.client
        ptr = self.buffer(key.encode() + b"\0")
        buf = bytearray(REGISTRY_S.size)
        REGISTRY_S.pack_into(
            buf,
            0,
            hclient,
            hobject or hclient,
            access,
            0,
            0,
            len(key),
            ptr,
            0,
            0,
            data,
            0,
            0xFFFFFFFF,
        )
        self.call(self.ctl, RM_ACCESS_REGISTRY, buf)
        fields = REGISTRY_S.unpack(buf)
        return fields[11], fields[9]

    def share(
        self,
        hclient: int,
        hobject: int,
        share_type: int,
        target: int = 0,
        mask: int = 0xFFFFFFFF,
        action: int = 0,
    ) -> int:
        """RM_SHARE of `hobject` with a policy of `share_type` (all rights unless `mask`): status.

        CUDA's IPC export shares with SHARE_TYPE_ALL, mask ACCESS_DUP_OBJECT and action 0.
        """
        params = SHARE_S.pack(hclient, hobject, target, mask, share_type, action, 0xFFFFFFFF)
        buf = bytearray(params)
        self.call(self.ctl, RM_SHARE, buf)
        return SHARE_S.unpack(buf)[6]

    def pids(self, subdevice: int, id_: int = SUBDEVICE) -> tuple[int, list[int]]:
        params = bytearray(3812)
        struct.pack_into("<II", params, 0, 0, id_)
        status = self.control(subdevice, GPU_GET_PIDS, params)
        count = struct.unpack_from("<I", params, 8)[0]
        return status, list(struct.unpack_from(f"<{count}I", params, 12))

    def pid_info(self, subdevice: int, pid: int) -> tuple[int, int, int, int, int]:
        """GET_PID_INFO video memory of one pid: (status, result, private, owned, duped)."""
        params = bytearray(14408)
        struct.pack_into("<I", params, 0, 1)
        struct.pack_into("<II", params, 8, pid, 0)
        status = self.control(subdevice, GPU_GET_PID_INFO, params)
        result = struct.unpack_from("<I", params, 16)[0]
        priv, owned, duped = struct.unpack_from("<QQQ", params, 24)
        return status, result, priv, owned, duped


# Channels and work submission (nvrm_abi.h sections 5 and 9; kmod/nvsim/README.md "Engine")
VASPACE, TSG, CTXSHARE, CHANNEL, COMPUTE = 0x90F1, 0xA06C, 0x9067, 0xC86F, 0xCBC0
COPY = 0xC8B5  # HOPPER_DMA_COPY_A
TSG_SCHEDULE, SET_TIMESLICE, GET_TIMESLICE, PREEMPT = 0xA06C0101, 0xA06C0103, 0xA06C0104, 0xA06C0105
CHANNEL_SCHEDULE, WORK_SUBMIT_TOKEN = 0xA06F0103, 0xC36F0108
# a group's interleave level, set and read through the group or through any of its channels
SET_INTERLEAVE, GET_INTERLEAVE = 0xA06C0107, 0xA06C0108
MAKE_REALTIME = 0xA06C0110  # NVA06C_CTRL_MAKE_REALTIME_PARAMS {NvBool bRealtime}
RESTART_RUNLIST = 0xA06F0111  # NVA06F_CTRL_RESTART_RUNLIST_PARAMS {bForceRestart, bBypassWait}
CHANNEL_SET_INTERLEAVE, CHANNEL_GET_INTERLEAVE = 0xA06F0109, 0xA06F0110
INTERLEAVE_LOW, INTERLEAVE_MEDIUM, INTERLEAVE_HIGH = 0, 1, 2
# NV2080 GR controls on a subdevice naming a channel of its client: a context's preemption modes
GR_SET_PREEMPTION_MODE, GR_GET_CTXSW_MODES = 0x20801210, 0x20801235
GR_PREEMPTION_BIND = 0x20801211  # 112 B: flags, hClient, hChannel, buffers, modes
PREEMPT_WFI, PREEMPT_CTA, PREEMPT_CILP = 0, 1, 2


def set_compute_preemption(r: Rm, sub: int, hchannel: int, mode: int, flags: int = 1) -> int:
    """GR_SET_CTXSW_PREEMPTION_MODE (32 B) of the compute mode (`flags` bit 0)."""
    params = bytearray(struct.pack("<IIIIIIQ", flags, hchannel, 0, mode, 0, 0, 0))
    return r.control(sub, GR_SET_PREEMPTION_MODE, params)


def compute_preemption(r: Rm, sub: int, hchannel: int) -> tuple[int, int]:
    """GR_GET_CTXSW_MODES (24 B): (status, the channel's context's compute preemption mode)."""
    params = bytearray(struct.pack("<I20x", hchannel))
    status = r.control(sub, GR_GET_CTXSW_MODES, params)
    return status, struct.unpack_from("<I", params, 16)[0]


FIFO_DISABLE_CHANNELS = 0x2080110B
INVALID_CHANNEL = 0x21
TIMEOUT = 0x65
GP_GET, GP_PUT = 0x88, 0x8C
CHANNEL_PARAMS_SIZE = 368  # 570+
OP_NOP, OP_KERNEL, OP_KERNEL_NOTIFY, OP_SEM_RELEASE = 0x00, 0xA5, 0xA6, 0xA7


def disable_channels_params(
    pairs: list[tuple[int, int]], disable: bool = True, only_sched: bool = False
) -> bytearray:
    """NV2080_CTRL_FIFO_DISABLE_CHANNELS_PARAMS (536 B) for (hClient, hChannel) pairs."""
    p = bytearray(536)
    struct.pack_into("<BxxxIB", p, 0, disable, len(pairs), only_sched)
    for i, (hclient, hchannel) in enumerate(pairs):
        struct.pack_into("<I", p, 24 + 4 * i, hclient)
        struct.pack_into("<I", p, 280 + 4 * i, hchannel)
    return p


def schedule_size() -> int:
    """NVA06C/NVA06F GPFIFO_SCHEDULE params: 2 B before 575, 3 B from 575."""
    return 3 if int(param("abi_version").split(".")[0]) >= 575 else 2


def kernel(us: float, op: int = OP_KERNEL) -> int:
    """A synthetic GPFIFO entry running for `us` microseconds of GPU time."""
    return (op << 56) | int(us * 1000)


def sem_release(offset: int, payload: int) -> int:
    """A synthetic entry writing `payload` at byte `offset` of the ring's memory once run."""
    return (OP_SEM_RELEASE << 56) | (offset << 32) | payload


def channel_params(
    gpfifo: int,
    entries: int,
    userd: int,
    userd_offset: int = 0,
    ctxshare: int = 0,
    engine: int = 1,
) -> bytes:
    """NV_CHANNEL_ALLOC_PARAMS. `engine` is the NV2080 engine type: GRAPHICS by default, which a
    channel under a device makes its group of; 0 takes its group's (RM refuses another's from
    Ampere on)."""
    p = bytearray(CHANNEL_PARAMS_SIZE)
    struct.pack_into("<QI", p, 8, gpfifo, entries)
    struct.pack_into("<I", p, 24, ctxshare)
    struct.pack_into("<I", p, 32, userd)
    struct.pack_into("<Q", p, 64, userd_offset)
    struct.pack_into("<I", p, 128, engine)
    return bytes(p)


def store(m: mmap.mmap, offset: int, value: int, size: int = 4) -> None:
    """Write @value to @m with one store of @size bytes, as a driver writes GP_PUT or a doorbell.

    Not struct.pack_into: CPython zeroes the field first and then writes it byte by byte, so a
    concurrent reader (nvsim's engine reading GP_PUT) can see 0 or a torn value, take GP_PUT to
    have moved backwards and run the whole ring again. A slice assignment is one memcpy, which
    glibc does with whole-word moves for 4 and 8 bytes.
    """
    m[offset : offset + size] = value.to_bytes(size, "little")


class Channel:
    """A channel group with one channel, its ring and USERD mapped, and the doorbell mapped."""

    MEM = 0x20000
    USERD = 0x10000

    def __init__(
        self,
        r: Rm,
        dev: int,
        sub: int,
        entries: int = 256,
        schedule: bool = True,
        vaspace: int = 0,
        cilp: bool = True,
    ):
        """`vaspace`: the GPU VA space its group and subcontext are in (0: the device's). In one
        that UVM manages (UvmSpace.vaspace) RM schedules it only once UVM_REGISTER_CHANNEL has
        bound it, so pass schedule=False and register it first. `cilp`: ask for instruction-level
        compute preemption, as libcuda does (RM's default for a new context is WFI)."""
        self.r, self.entries, self.put = r, entries, 0
        self.dev, self.sub = dev, sub
        self.fds: list[int] = []
        status, usermode = r.alloc(r.client, sub, USERMODE)
        assert status == OK, hex(status)
        self.doorbell = self._map(sub, usermode, USERMODE_SIZE)
        status, self.tsg = r.alloc(r.client, dev, TSG, group_params(ENGINE_GRAPHICS, vaspace))
        assert status == OK, hex(status)
        # a subcontext names its VA space itself: 0 is the device's, not the group's
        status, self.ctxshare = r.alloc(r.client, self.tsg, CTXSHARE, ctxshare_params(vaspace))
        assert status == OK, hex(status)
        status, self.hmem, _, self.gpu_va = r.memory(VIDMEM, dev, self.MEM)
        assert status == OK, hex(status)
        self.mem = self._map(dev, self.hmem, self.MEM)
        params = channel_params(self.gpu_va, entries, self.hmem, self.USERD, self.ctxshare)
        status, self.channel = r.alloc(r.client, self.tsg, CHANNEL, params)
        assert status == OK, hex(status)
        status, _ = r.alloc(r.client, self.channel, COMPUTE)
        assert status == OK, hex(status)
        if cilp:
            assert set_compute_preemption(r, sub, self.channel, PREEMPT_CILP) == OK
        tok = bytearray(4)
        assert r.control(self.channel, WORK_SUBMIT_TOKEN, tok) == OK
        self.token = struct.unpack("<I", tok)[0]
        if schedule:
            assert self.schedule(True) == OK

    def sibling(self, index: int) -> tuple[int, int]:
        """Another channel in this one's group, on its ring memory, with USERD of its own (`index`
        1 to 127): (status, handle)."""
        userd = self.USERD + 512 * index
        params = channel_params(self.gpu_va, self.entries, self.hmem, userd, self.ctxshare)
        return self.r.alloc(self.r.client, self.tsg, CHANNEL, params)

    def _map(self, parent: int, hmem: int, length: int) -> mmap.mmap:
        fd = self.r.open_gpu()
        self.fds.append(fd)
        status, _ = self.r.map_memory(parent, hmem, 0, length, fd)
        assert status == OK, hex(status)
        return mmap.mmap(fd, length, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)

    def schedule(self, enable: bool) -> int:
        params = bytearray(schedule_size())
        params[0] = int(enable)
        return self.r.control(self.tsg, TSG_SCHEDULE, params)

    def preempt(self, wait: bool = True, timeout_us: int | None = None) -> int:
        params = bytearray(
            struct.pack("<BBxxI", int(wait), timeout_us is not None, timeout_us or 0)
        )
        return self.r.control(self.tsg, PREEMPT, params)

    def push(self, *entries: int) -> None:
        for e in entries:
            store(self.mem, 8 * self.put, e, 8)
            self.put = (self.put + 1) % self.entries

    def publish(self) -> None:
        store(self.mem, self.USERD + GP_PUT, self.put)

    def ring(self) -> None:
        store(self.doorbell, DOORBELL, self.token)

    def submit(self, *entries: int) -> None:
        self.push(*entries)
        self.publish()
        self.ring()

    def gp_get(self) -> int:
        return int(struct.unpack_from("<I", self.mem, self.USERD + GP_GET)[0])

    def word(self, offset: int) -> int:
        """The u32 at `offset` of the ring's memory (where a semaphore release writes)."""
        return int(struct.unpack_from("<I", self.mem, offset)[0])

    def close(self) -> None:
        self.mem.close()
        self.doorbell.close()
        for fd in self.fds:
            os.close(fd)


# nvidia-uvm (kmod/nvrm/nvrm_uvm.h): raw command numbers, sizeof(params) copies, rmStatus last
UVM_INITIALIZE, UVM_DEINITIALIZE = 0x30000001, 0x30000002
UVM_REGISTER_GPU, UVM_UNREGISTER_GPU, UVM_PAGEABLE_MEM_ACCESS, UVM_MM_INITIALIZE = 37, 38, 39, 75
UVM_FLAGS_DISABLE_HMM, UVM_FLAGS_MULTI_PROCESS = 1, 2
BUSY_RETRY = 0x03
GPU_UUID_NOT_FOUND = 0x12
ILLEGAL_ACTION = 0x16
IN_USE = 0x17
INVALID_STATE = 0x40
PAGE_TABLE_NOT_AVAIL = 0x5D
WARN_NOTHING_TO_DO = 0x10006


# Commands whose rmStatus is followed by padding to 8 bytes, and where it sits (UVM_FREE's, 34,
# moves with the version: its params' last u32 but one).
_UVM_STATUS_OFFSET = {0x30000001: 8, 65: 32, 66: 32, 73: 16, 74: 32, 27: 48}


def uvm_ioctl(fd: int, cmd: int, buf: bytearray) -> int:
    """A UVM ioctl; returns rmStatus (the last u32 of buf, or of its 8-byte-aligned part)."""
    fcntl.ioctl(fd, cmd, buf, True)
    off = len(buf) - 8 if cmd == 34 else _UVM_STATUS_OFFSET.get(cmd, len(buf) - 4)
    return int(struct.unpack_from("<I", buf, off)[0])


def uvm_initialize(fd: int, flags: int = 0) -> int:
    return uvm_ioctl(fd, UVM_INITIALIZE, bytearray(struct.pack("<QI4x", flags, 0)))


def uvm_mm_initialize(fd: int, uvm_fd: int) -> int:
    return uvm_ioctl(fd, UVM_MM_INITIALIZE, bytearray(struct.pack("<iI", uvm_fd, 0)))


def gpu_uuid_bytes(uuid: str) -> bytes:
    """The 16 raw bytes UVM names a GPU by, from "GPU-xxxxxxxx-xxxx-..."."""
    return bytes.fromhex(uuid.removeprefix("GPU-").replace("-", ""))


def uvm_register_gpu(fd: int, uuid: bytes, hclient: int = 0) -> tuple[int, bytearray]:
    """UVM_REGISTER_GPU (40 B); returns (rmStatus, the params as written back)."""
    buf = bytearray(uuid + struct.pack("<B3xiiIII", 0, 0, -1, hclient, 0, 0))
    return uvm_ioctl(fd, UVM_REGISTER_GPU, buf), buf


# External ranges and mappings (kmod/nvrm/nvrm_uvm.h)
UVM_REGISTER_GPU_VASPACE, UVM_UNREGISTER_GPU_VASPACE = 25, 26
UVM_MAP_EXTERNAL_ALLOCATION, UVM_FREE, UVM_UNMAP_EXTERNAL, UVM_CREATE_EXTERNAL_RANGE = (
    33,
    34,
    66,
    73,
)
UVM_ADDRESS_IN_USE = 0x68


ENGINE_GRAPHICS, ENGINE_COPY0 = 1, 9  # NV2080_ENGINE_TYPE_GRAPHICS, _COPY0
GR_GET_ENGINE_CONTEXT_PROPERTIES = 0x2080122D
GR_CTX_MAIN, GR_CTX_PM, GR_CTX_PATCH = 0x00, 0x09, 0x10  # NV0080 ..._ENGINE_ID_GRAPHICS(_PM/_PATCH)
CTXBUF_CHANNEL = 64 << 10  # a channel's 4 KiB instance block takes a 64 KiB pool chunk


def engine_object(r: Rm, hchannel: int, engine: int = ENGINE_GRAPHICS) -> int:
    """A compute object on a graphics channel, a copy object on a copy engine's. Its handle. On a
    Hopper RM puts a channel on a runlist with its first (or its group's, for channels made after
    it); until then the channel has no work-submit token, and UVM_REGISTER_CHANNEL, which asks for
    one, is NV_ERR_INVALID_STATE (an H200, session 34)."""
    status, h = r.alloc(r.client, hchannel, COMPUTE if engine == ENGINE_GRAPHICS else COPY)
    assert status == OK, hex(status)
    return h


def ctxshare_params(vaspace: int = 0) -> bytes:
    """NV_CTXSHARE_ALLOCATION_PARAMETERS (12 B) of a subcontext in the GPU VA space `vaspace`
    (0: the device's, whatever its group's)."""
    return struct.pack("<III", vaspace, 0, 0)


# NV_VASPACE_ALLOCATION_FLAGS_* (nvos.h): UVM manages its page tables; GPU faults are replayable
VASPACE_EXTERNALLY_OWNED, VASPACE_PAGE_FAULTING = 1 << 3, 1 << 6


def vaspace_params(flags: int = 0, va_base: int = 0) -> bytes:
    """NV_VASPACE_ALLOCATION_PARAMETERS (56 B from 580, 48 before; padded to 64)."""
    return struct.pack("<IIQQQIIQ16x", 0, flags, 0, 0, 0, 0, 0, va_base)


def group_params(engine: int = ENGINE_GRAPHICS, vaspace: int = 0) -> bytes:
    """NV_CHANNEL_GROUP_ALLOCATION_PARAMETERS (20 B) of a group on `engine`, in the GPU VA space
    `vaspace` (0: the device's)."""
    return struct.pack("<IIIIB3x", 0, 0, vaspace, engine, 0)


def gr_ctx_size(r: Rm, sub: int, engine_id: int) -> tuple[int, int]:
    """GR_GET_ENGINE_CONTEXT_PROPERTIES: (status, size) of one context buffer."""
    params = bytearray(struct.pack("<IIQIIIB3x", 0, 0, 0, engine_id, 0, 0, 0))
    status = r.control(sub, GR_GET_ENGINE_CONTEXT_PROPERTIES, params)
    return status, struct.unpack_from("<I", params, 24)[0]


def ctxbuf_contig(size: int) -> int:
    """What a contiguous buffer takes from RM's context-buffer pools (kmod/nvrm/nvrm_ctxbuf.c)."""
    for chunk in (64 << 10, 256 << 10, 4 << 20):
        if size <= chunk:
            return chunk
    return 512 << 20


def gr_group_bytes(r: Rm, sub: int) -> int:
    """What RM reserves for a graphics channel group, from the GPU's own sizes."""
    sizes = {}
    for engine_id in (GR_CTX_MAIN, GR_CTX_PATCH, GR_CTX_PM):
        status, sizes[engine_id] = gr_ctx_size(r, sub, engine_id)
        assert status == OK, hex(status)
    main = (sizes[GR_CTX_MAIN] + 4095) // 4096 * 4096 + 64 * 4096  # a header per subcontext
    return (
        ctxbuf_contig(main) + ctxbuf_contig(sizes[GR_CTX_PATCH]) + ctxbuf_contig(sizes[GR_CTX_PM])
    )


# NV2080_ENGINE_TYPE_* of falcon engines (cl2080_notification.h), and their falcons' engDesc:
# the NVOC class id << 8 | the instance (g_eng_desc_nvoc.h; kmod/nvrm/nvrm_ctxbuf.h)
ENGINE_NVDEC0, ENGINE_NVENC0, ENGINE_SEC2, ENGINE_NVJPEG0, ENGINE_OFA0 = (
    0x13,
    0x1B,
    0x26,
    0x2B,
    0x33,
)
ENGINE_NVDEC1 = 0x14  # nvsim lists an H200's falcons: NVDEC1-7, no NVDEC0
FALCON_CLASS = {
    ENGINE_NVDEC0: 0x8F99E1,  # OBJBSP
    ENGINE_NVENC0: 0xE97B6C,  # OBJMSENC
    ENGINE_SEC2: 0x28C408,  # OBJSEC2
    ENGINE_NVJPEG0: 0x2B3A54,  # OBJNVJPG
    ENGINE_OFA0: 0xDD7BAB,  # OBJOFA
}
GPU_GET_CONSTRUCTED_FALCON_INFO = 0x208001B0  # 550 on
CONSTRUCTED_FALCONS_MAX = 0x40


MC_GET_ARCH_INFO = 0x20801701
ARCH_TU100, ARCH_GH100 = 0x160, 0x180  # NV2080_CTRL_MC_ARCH_INFO_ARCHITECTURE_*


def architecture(r: Rm, sub: int) -> tuple[int, int]:
    """MC_GET_ARCH_INFO: (status, architecture)."""
    params = bytearray(16)
    status = r.control(sub, MC_GET_ARCH_INFO, params)
    return status, struct.unpack_from("<I", params, 0)[0]


def constructed_falcons(r: Rm, sub: int) -> tuple[int, dict[int, int]]:
    """GPU_GET_CONSTRUCTED_FALCON_INFO: (status, {engDesc: context buffer size})."""
    params = bytearray(4 + CONSTRUCTED_FALCONS_MAX * 20)
    status = r.control(sub, GPU_GET_CONSTRUCTED_FALCON_INFO, params)
    (count,) = struct.unpack_from("<I", params, 0)
    falcons = {}
    for i in range(min(count, CONSTRUCTED_FALCONS_MAX)):
        engdesc, _, size = struct.unpack_from("<III", params, 4 + 20 * i)
        falcons[engdesc] = size
    return status, falcons


def falcon_engdesc(engine: int, instance: int = 0) -> int:
    """The engDesc of the falcon that groups of `engine` (an instance 0 type) run on."""
    return FALCON_CLASS[engine] << 8 | instance


def falcon_of(engine: int) -> int | None:
    """The engDesc of the falcon a group of engine type `engine` runs on (NVDEC0-7, NVENC0-2,
    NVJPEG0-7, OFA0, SEC2; rmClientEngineTable, kmod/nvrm/nvrm_ctxbuf.c), or None."""
    for first, count in ((ENGINE_NVDEC0, 8), (ENGINE_NVENC0, 3), (ENGINE_NVJPEG0, 8)):
        if first <= engine < first + count:
            return falcon_engdesc(first, engine - first)
    return falcon_engdesc(engine) if engine in (ENGINE_OFA0, ENGINE_SEC2) else None


def falcon_group_bytes(r: Rm, sub: int, engine: int) -> int:
    """What RM reserves for a channel group of falcon `engine`: its buffer's pool chunk, a chunk
    even for an empty one; nothing where the GPU lists no falcon for it, but SEC2's 64 KiB."""
    status, falcons = constructed_falcons(r, sub)
    assert status == OK, hex(status)
    size = falcons.get(falcon_of(engine))
    taken = 0 if size is None else ctxbuf_contig(max(size, 1))
    return max(taken, 64 << 10) if engine == ENGINE_SEC2 else taken


def abi_at_least(version: tuple[int, ...]) -> bool:
    return tuple(int(x) for x in param("abi_version").split(".")) >= version


def uvm_map_external_gpus() -> int:
    """UVM_MAX_GPUS in UVM_MAP_EXTERNAL_ALLOCATION_PARAMS: 256 from 550.40.53, 32 before."""
    return 256 if abi_at_least((550, 40, 53)) else 32


def uvm_register_gpu_vaspace(fd: int, uuid: bytes, hclient: int, hvaspace: int) -> int:
    return uvm_ioctl(
        fd,
        UVM_REGISTER_GPU_VASPACE,
        bytearray(uuid + struct.pack("<iIII", -1, hclient, hvaspace, 0)),
    )


def uvm_create_range(fd: int, base: int, length: int) -> int:
    return uvm_ioctl(
        fd, UVM_CREATE_EXTERNAL_RANGE, bytearray(struct.pack("<QQI4x", base, length, 0))
    )


def uvm_map_external_params(
    base: int, length: int, offset: int, uuids: list[bytes], hclient: int, hmemory: int
) -> bytearray:
    gpus = uvm_map_external_gpus()
    buf = bytearray(24 + 36 * gpus + 24)
    struct.pack_into("<QQQ", buf, 0, base, length, offset)
    for i, uuid in enumerate(uuids):
        buf[24 + 36 * i : 24 + 36 * i + 16] = uuid
    struct.pack_into("<QiIII", buf, 24 + 36 * gpus, len(uuids), -1, hclient, hmemory, 0)
    return buf


def uvm_map_external(
    fd: int, base: int, length: int, offset: int, uuids: list[bytes], hclient: int, hmemory: int
) -> int:
    buf = uvm_map_external_params(base, length, offset, uuids, hclient, hmemory)
    return uvm_ioctl(fd, UVM_MAP_EXTERNAL_ALLOCATION, buf)


def uvm_unmap_external(fd: int, base: int, length: int, uuid: bytes) -> int:
    return uvm_ioctl(
        fd, UVM_UNMAP_EXTERNAL, bytearray(struct.pack("<QQ", base, length) + uuid + bytes(8))
    )


UVM_MAP_DYNAMIC_PARALLELISM_REGION, UVM_MAP_EXTERNAL_SPARSE = 65, 74


def uvm_map_sparse(fd: int, base: int, length: int, uuid: bytes) -> int:
    """UVM_MAP_EXTERNAL_SPARSE: page tables and sparse entries for a span of an external range."""
    params = bytearray(struct.pack("<QQ", base, length) + uuid + bytes(8))
    return uvm_ioctl(fd, UVM_MAP_EXTERNAL_SPARSE, params)


def uvm_map_dp_region(fd: int, base: int, length: int, uuid: bytes) -> int:
    """UVM_MAP_DYNAMIC_PARALLELISM_REGION: a range of its own, one GPU page."""
    params = bytearray(struct.pack("<QQ", base, length) + uuid + bytes(8))
    return uvm_ioctl(fd, UVM_MAP_DYNAMIC_PARALLELISM_REGION, params)


UVM_ALLOC_DEVICE_P2P = 78


def uvm_alloc_device_p2p(
    fd: int, base: int, length: int, offset: int, uuid: bytes, hclient: int, hmemory: int
) -> int:
    buf = bytearray(struct.pack("<QQQ", base, length, offset) + uuid)
    buf += struct.pack("<iIII", -1, hclient, hmemory, 0)
    return uvm_ioctl(fd, UVM_ALLOC_DEVICE_P2P, buf)


@contextlib.contextmanager
def nvsim_switch(name: str, on: bool) -> Iterator[None]:
    """One of nvsim's boolean parameters set (or cleared) for the duration."""
    knob = f"/sys/module/nvsim/parameters/{name}"
    old = Path(knob).read_text().strip()
    with open(knob, "w") as f:
        f.write("Y" if on else "N")
    try:
        yield
    finally:
        with open(knob, "w") as f:
            f.write(old)


def nvsim_fabric(on: bool = True) -> contextlib.AbstractContextManager[None]:
    """nvsim's GPUs on an NVLink fabric (NV_MEMORY_FABRIC works), or not, for the duration."""
    return nvsim_switch("fabric", on)


def fabric_params(
    size: int,
    hvidmem: int,
    offset: int = 0,
    page: int = 2 * 1024 * 1024,
    flags: int = 0,
    alignment: int = 0,
) -> bytes:
    """NV00F8_ALLOCATION_PARAMETERS in the layout of nvsim's ABI (40 B before 535, else 48 B)."""
    if abi_at_least((535,)):
        return struct.pack("<QQQI4xQII", alignment, size, page, flags, offset, hvidmem, 0)
    return struct.pack("<QQIIQII", alignment, size, page, flags, offset, hvidmem, 0)


def nvsim_p2pdma(on: bool = True) -> contextlib.AbstractContextManager[None]:
    """nvsim's GPUs with P2PDMA set up (or not) for the duration."""
    return nvsim_switch("p2pdma", on)


def uvm_free_params(base: int, length: int) -> bytearray:
    """UVM_FREE_PARAMS: through 580 the base and length of the range (24 B), from 590.44.01 the
    base alone (16 B; nvrm_uvm.h). rmStatus starts as a value UVM never answers: UVM writes it."""
    if abi_at_least((590,)):
        return bytearray(struct.pack("<QI4x", base, 0xFFFFFFFF))
    return bytearray(struct.pack("<QQI4x", base, length, 0xFFFFFFFF))


def uvm_free(fd: int, base: int, length: int) -> int:
    """UVM_FREE of the range at `base`, `length` bytes long."""
    return uvm_ioctl(fd, UVM_FREE, uvm_free_params(base, length))


UVM_REGISTER_CHANNEL, UVM_UNREGISTER_CHANNEL = 27, 28


def uvm_unregister_gpu(fd: int, uuid: bytes, cmd: int = UVM_UNREGISTER_GPU) -> int:
    """UVM_UNREGISTER_GPU, or UVM_UNREGISTER_GPU_VASPACE (`cmd`): the UUID, then rmStatus."""
    return uvm_ioctl(fd, cmd, bytearray(uuid + bytes(4)))


OTHER_DEVICE_FOUND = 0x5A
CHANNEL_VA = 0x7E0000000000  # where a channel's context buffers may go: any free 4 KiB-aligned VA


def uvm_register_channel_params(
    uuid: bytes, hclient: int, hchannel: int, base: int = CHANNEL_VA, length: int = 1 << 30
) -> bytearray:
    """UVM_REGISTER_CHANNEL_PARAMS (56 B): gpuUuid, rmCtrlFd, hClient, hChannel, base, length."""
    return bytearray(uuid + struct.pack("<iII4xQQI4x", -1, hclient, hchannel, base, length, 0))


def uvm_register_channel(fd: int, uuid: bytes, hclient: int, hchannel: int, **kw: int) -> int:
    params = uvm_register_channel_params(uuid, hclient, hchannel, **kw)
    return uvm_ioctl(fd, UVM_REGISTER_CHANNEL, params)


def uvm_unregister_channel(fd: int, uuid: bytes, hclient: int, hchannel: int) -> int:
    """UVM_UNREGISTER_CHANNEL: through 580 the GPU's UUID, then the pair (28 B); from 590.44.01
    the pair alone (12 B; nvrm_uvm.h)."""
    if abi_at_least((590,)):
        buf = bytearray(struct.pack("<III", hclient, hchannel, 0xFFFFFFFF))
    else:
        buf = bytearray(uuid + struct.pack("<III", hclient, hchannel, 0xFFFFFFFF))
    return uvm_ioctl(fd, UVM_UNREGISTER_CHANNEL, buf)


class UvmSpace:
    """A UVM VA space with the GPU registered and a GPU VA space of `r`'s device, as libcuda sets
    one up before it maps memory (reference section "How libcuda allocates memory")."""

    def __init__(self, r: Rm, dev: int, uvm_path: str = "/dev/nvidia-uvm") -> None:
        self.fd = os.open(uvm_path, os.O_RDWR)
        self.mm = mm_file(self.fd, uvm_path)
        self.uuid = gpu_uuid_bytes(param("gpu_uuid"))
        assert uvm_register_gpu(self.fd, self.uuid, r.client)[0] == OK
        # as libcuda 580 makes it: UVM manages it, and it faults, from 4 KiB
        flags = VASPACE_EXTERNALLY_OWNED | VASPACE_PAGE_FAULTING
        status, self.vaspace = r.alloc(r.client, dev, VASPACE, vaspace_params(flags, 0x1000))
        assert status == OK, hex(status)
        assert uvm_register_gpu_vaspace(self.fd, self.uuid, r.client, self.vaspace) == OK

    def map(self, base: int, length: int, hclient: int, hmemory: int, offset: int = 0) -> int:
        return uvm_map_external(self.fd, base, length, offset, [self.uuid], hclient, hmemory)

    def unmap(self, base: int, length: int) -> int:
        return uvm_unmap_external(self.fd, base, length, self.uuid)

    def close(self) -> None:
        os.close(self.fd)
        if self.mm >= 0:
            os.close(self.mm)
            self.mm = -1


def mm_file(fd: int, uvm_path: str = "/dev/nvidia-uvm") -> int:
    """UVM_INITIALIZE on `fd`, and from 535 a second file that claims its mm (UVM_MM_INITIALIZE),
    as libcuda does: a GPU VA space cannot be registered without it (NV_ERR_PAGE_TABLE_NOT_AVAIL
    on an H200, session 34). Returns the MM file, or -1 before 535."""
    assert uvm_initialize(fd) == OK
    if not abi_at_least((535,)):
        return -1
    mm = os.open(uvm_path, os.O_RDWR)
    assert uvm_mm_initialize(mm, fd) == OK
    return mm


def mapped(fd: int, length: int, offset: int = 0, flags: int = mmap.MAP_SHARED) -> mmap.mmap:
    """Python's mmap of an nvidia file (it keeps a dup() of fd while mapped)."""
    return mmap.mmap(fd, length, flags, mmap.PROT_READ | mmap.PROT_WRITE, offset=offset)


class LibcMapping:
    """A read-write shared mapping made with libc's mmap, which keeps no fd of its own.

    For tests that close every fd and need the VMA alone to hold the file.
    """

    _libc = ctypes.CDLL(None, use_errno=True)
    _libc.mmap.restype = ctypes.c_void_p
    _libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t] + [ctypes.c_int] * 3 + [ctypes.c_long]
    _libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

    def __init__(self, fd: int, length: int) -> None:
        prot, flags = mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_SHARED
        addr = self._libc.mmap(None, length, prot, flags, fd, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        self.addr: int = addr
        self.length = length

    def write(self, offset: int, data: bytes) -> None:
        ctypes.memmove(self.addr + offset, data, len(data))

    def read(self, offset: int, n: int) -> bytes:
        return ctypes.string_at(self.addr + offset, n)

    def unmap(self) -> None:
        assert self._libc.munmap(self.addr, self.length) == 0
