"""A hostile tenant's random RM calls: whatever a container sends through its instance's nodes,
the kernel logs no WARN, oops or BUG (the autouse fixture), the other instance's tenant runs on,
and once the processes are gone (exit or kill -9) nothing of theirs is left: no charge, channel,
RM object or OS event on the instance, no video memory or OS event in the driver.

Each process runs a seeded sequence (printed on failure, so a run can be replayed): allocations
of real and random classes with random parameters, frees, duplicates, controls qgpu decodes and
random ones, VID_HEAP_CONTROL, OS events, mappings, raw escapes and IOCTL_XFER_CMD wrappers with
random sizes and pointers, and channels with work on the engine. Each call goes direct or
XFER-wrapped at random. Handles are drawn from what the process made, its neighbours' likely
handles, and random numbers.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import random
import signal
import struct
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import rm
from qgpu_sysfs import count, inst_dir, instance, instance_count, mem_current, remove
from rm import Channel, Rm, abi_at_least

# QGPU_FUZZ_SEED and QGPU_FUZZ_OPS replay a failure or search longer; the suite runs fixed seeds
SEED = int(os.environ.get("QGPU_FUZZ_SEED", "2026"))
OPS = int(os.environ.get("QGPU_FUZZ_OPS", "400"))
# QGPU_FUZZ_SKIP: calls to leave out (Tenant method names, comma-separated), to narrow a failure
SKIP = set(os.environ.get("QGPU_FUZZ_SKIP", "").split(","))
# Controls qgpu decodes or rewrites, and a few it passes through
CONTROLS = [
    rm.FB_GET_INFO,
    rm.FB_GET_INFO_V2,
    rm.GPU_GET_INFO_V2,
    rm.GPU_GET_CACHED_INFO,
    rm.GPU_GET_NAME_STRING,
    rm.GPU_GET_GID_INFO,
    rm.GPU_GET_ID_INFO_V2,
    rm.GET_HANDLE_INFO,
    rm.EXPORT_OBJECT_TO_FD,
    rm.IMPORT_OBJECT_FROM_FD,
    rm.CREATE_EXPORT_OBJECT_FD,
    rm.EXPORT_OBJECTS_TO_FD,
    rm.IMPORT_OBJECTS_FROM_FD,
    rm.GPU_GET_PIDS,
    rm.GPU_GET_PID_INFO,
    rm.TSG_SCHEDULE,
    rm.SET_TIMESLICE,
    rm.GET_TIMESLICE,
    rm.CHANNEL_SCHEDULE,
    rm.WORK_SUBMIT_TOKEN,
    rm.FIFO_DISABLE_CHANNELS,
]
CLASSES = [
    rm.ROOT_CLIENT,
    rm.DEVICE,
    rm.SUBDEVICE,
    rm.VIDMEM,
    rm.SYSMEM,
    rm.OS_EVENT,
    rm.TSG,
    rm.CTXSHARE,
    rm.CHANNEL,
    rm.COMPUTE,
    rm.VASPACE,
    rm.USERMODE,
    rm.MEMORY_VIRTUAL_0070,
]
ESCAPES = [
    rm.RM_FREE,
    rm.RM_CONTROL,
    rm.RM_ALLOC,
    rm.RM_MAP_MEMORY,
    rm.RM_UNMAP_MEMORY,
    rm.RM_ALLOC_MEMORY,
    rm.RM_DUP_OBJECT,
    rm.RM_VID_HEAP_CONTROL,
    rm.RM_GET_EVENT_DATA,
    rm.RM_SHARE,
    rm.RM_UPDATE_DEVICE_MAPPING_INFO,
    rm.RM_MAP_MEMORY_DMA,
    rm.RM_UNMAP_MEMORY_DMA,
    rm.CARD_INFO,
    rm.ATTACH_GPUS,
    rm.SYS_PARAMS,
    rm.NUMA_INFO,
    rm.ALLOC_OS_EVENT,
    rm.FREE_OS_EVENT,
]
# mostly small, so that the instance's limit leaves room for channels; now and then past it
SIZES = [0, 1, 4096, 4096, 65536, 65536, 1 << 20, 1 << 20, 40 << 20, 1 << 40, (1 << 64) - 1]


# The parent each class is made under, mostly: a call with a plausible parent gets deeper
PARENTS = {
    rm.DEVICE: "client",
    rm.SUBDEVICE: rm.DEVICE,
    rm.VIDMEM: rm.DEVICE,
    rm.SYSMEM: rm.DEVICE,
    rm.MEMORY_VIRTUAL_0070: rm.DEVICE,
    rm.VIRTMEM: rm.DEVICE,
    rm.VASPACE: rm.DEVICE,
    rm.TSG: rm.DEVICE,
    rm.CTXSHARE: rm.TSG,
    rm.CHANNEL: rm.TSG,
    rm.COMPUTE: rm.CHANNEL,
    rm.USERMODE: rm.SUBDEVICE,
    rm.OS_EVENT: rm.SUBDEVICE,
}


SCRATCH = 1 << 20
# More than any class's allocation parameters (NV_MEMORY_ALLOCATION_PARAMS 128 B, a channel's 368)
PARAMS_ROOM = 4096


def scratch() -> int:
    """Memory whose address may land in a pointer field: the driver reads and writes it at
    whatever size a call claims. An inaccessible page follows it, so that a call past its end
    faults in the kernel's copy (EFAULT) instead of overwriting this process's own heap."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, *[ctypes.c_int] * 3, ctypes.c_long]
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    rw = mmap.PROT_READ | mmap.PROT_WRITE
    addr = libc.mmap(
        None, SCRATCH + mmap.PAGESIZE, rw, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0
    )
    assert addr not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
    assert libc.mprotect(addr + SCRATCH, mmap.PAGESIZE, 0) == 0, ctypes.get_errno()  # PROT_NONE
    return int(addr)


class Tenant:
    """One fuzzing process's state: its RM session, what it made, and its random source."""

    def __init__(self, dev: str, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.r = Rm(dev=dev)
        self.made: dict[int, int] = {}  # handle -> class, what RM said it made
        self.parent: dict[int, int] = {}  # handle -> the parent it was made under
        self.channels: list[Channel] = []
        self.mapped: list[int] = []  # GPU addresses RM_MAP_MEMORY_DMA wrote back
        self.scratch = scratch()
        self.device()

    def device(self) -> None:
        """A device and subdevice, as every CUDA process has (again, after a free took them)."""
        for hclass, params in ((rm.DEVICE, struct.pack("<I52x", 0)), (rm.SUBDEVICE, bytes(4))):
            parent = self.of(PARENTS[hclass])
            self.keep(*self.r.alloc(self.r.client, parent, hclass, params), hclass, parent)

    def of(self, hclass: int | str) -> int:
        """A handle of @hclass this process made (its client for "client"), else the client."""
        have = [h for h, c in self.made.items() if c == hclass]
        return self.rnd.choice(have) if have else self.r.client

    def handle(self, hclass: int | str | None = None) -> int:
        rnd = self.rnd
        pick = rnd.random()
        if hclass is not None and pick < 0.6:
            return self.of(hclass)
        if pick < 0.8:
            return rnd.choice([self.r.client, *self.made])
        if pick < 0.9:
            return 0xC1D00000 | rnd.randrange(8)  # RM's first client handles: a neighbour's
        return rnd.getrandbits(32)

    def pointer(self) -> int:
        return self.rnd.choice([0, 1, 0xFFFF888000000000, self.rnd.getrandbits(64), self.scratch])

    def blob(self, most: int = 512) -> bytes:
        n = self.rnd.choice([0, 4, 8, 16, 64, 128, self.rnd.randrange(most + 1)])
        return self.rnd.randbytes(n)

    def keep(self, status: int, handle: int, hclass: int, parent: int) -> None:
        if status == rm.OK and handle:
            self.made[handle] = hclass
            self.parent[handle] = parent

    def vidmem(self) -> None:
        attr = self.rnd.choice([0, rm.ATTR_LOCATION_PCI, self.rnd.getrandbits(32)])
        parent = self.handle(rm.DEVICE)
        status, h, _ = self.r.vidmem(parent, self.rnd.choice(SIZES), attr)
        self.keep(status, h, rm.VIDMEM, parent)

    def alloc(self) -> None:
        rnd = self.rnd
        hclass = rnd.choice([*CLASSES, rnd.getrandbits(32)])
        # RM reads and writes back the class's own parameter size, whatever the blob's: zeros
        # after it keep RM's write inside this process's buffer (a short one let RM overwrite
        # the process's heap, and it died in the garbage collector)
        params = None if rnd.random() < 0.2 else self.blob().ljust(PARAMS_ROOM, b"\0")
        hnew = rnd.choice([0, 0, rnd.getrandbits(32), self.handle()])
        root = self.r.client if rnd.random() < 0.8 else self.handle()
        parent = self.handle(PARENTS.get(hclass))
        self.keep(*self.r.alloc(root, parent, hclass, params, hnew), hclass, parent)

    def free(self) -> None:
        h = self.handle()
        if h in (self.r.client, self.of(rm.DEVICE)) and self.rnd.random() < 0.9:
            return  # now and then the whole client or device, then a new one
        if self.r.free(h, self.rnd.choice([0, self.handle()])) == rm.OK:
            # its children went with it; later calls on them get RM's errors, which is fine
            self.made.pop(h, None)

    def renew(self) -> None:
        """A new client after something freed this one (a free, a VID_HEAP_CONTROL FREE, a raw
        escape), and a device and subdevice when it has none."""
        self.r.call = rm.ioctl
        if self.r.free(0xDEAD0000) == rm.INVALID_CLIENT:
            status, self.r.client = self.r.alloc(0, 0, rm.ROOT_CLIENT)
            assert status == rm.OK, hex(status)
            self.made.clear()
        for h, c in list(self.made.items()):
            info = bytearray(rm.fb_info_v2_size())
            if c == rm.SUBDEVICE and self.r.control(h, rm.FB_GET_INFO_V2, info) != rm.OK:
                del self.made[h]  # its device went
        if self.of(rm.SUBDEVICE) == self.r.client:
            self.device()

    def dup(self) -> None:
        rnd = self.rnd
        src = self.r.client if rnd.random() < 0.7 else self.handle()
        flags = rnd.choice([0, 1, rnd.getrandbits(32)])
        hnew = rnd.choice([0, rnd.getrandbits(32)])
        parent = self.handle(rm.DEVICE)
        status, h = self.r.dup(parent, src, self.handle(), hnew, flags)
        self.keep(status, h, -1, parent)

    def control(self) -> None:
        rnd = self.rnd
        cmd = rnd.choice([*CONTROLS, rnd.getrandbits(32)])
        params = bytearray(self.blob(4096))
        hclient = 0 if rnd.random() < 0.8 else self.handle()
        target = rnd.choice([rm.SUBDEVICE, rm.DEVICE, "client", rm.TSG, rm.CHANNEL])
        self.r.control(self.handle(target), cmd, params, hclient)

    def vid_heap(self) -> None:
        rnd = self.rnd
        function = rnd.choice(
            [rm.NVOS32_ALLOC_SIZE, rm.NVOS32_FREE, rm.NVOS32_INFO, rnd.randrange(32)]
        )
        parent = self.handle(rm.DEVICE)
        buf = self.r.vid_heap(
            function,
            parent,
            hmemory=rnd.choice([0, self.handle()]),
            flags=rnd.choice([0, 1, rnd.getrandbits(32)]),
            attr=rnd.choice([0, rnd.getrandbits(32)]),
            attr2=rnd.choice([0, rnd.getrandbits(32)]),
            size=rnd.choice(SIZES),
        )
        status, hmemory = struct.unpack_from("<I", buf, 20)[0], struct.unpack_from("<I", buf, 44)[0]
        if function == rm.NVOS32_ALLOC_SIZE:
            self.keep(status, hmemory, rm.VIDMEM, parent)

    def os_event(self) -> None:
        rnd = self.rnd
        nr = rnd.choice([rm.ALLOC_OS_EVENT, rm.FREE_OS_EVENT])
        fd = rnd.choice([self.r.ctl, self.r.gpu_fd, 0xFFFFFFFF, rnd.randrange(64)])
        self.r.os_event(nr, fd, rnd.choice([0, self.handle()]), rnd.choice([None, self.r.gpu_fd]))

    def map(self) -> None:
        rnd = self.rnd
        fd = rnd.choice([self.r.gpu_fd, self.r.ctl, -1, rnd.randrange(64)])
        length = rnd.choice([0, 4096, 65536, rnd.getrandbits(64)])
        hmemory = self.handle(rnd.choice([rm.VIDMEM, rm.USERMODE]))
        self.r.map_memory(self.handle(rm.DEVICE), hmemory, rnd.choice([0, 4096]), length, fd)

    def virtual(self) -> None:
        """A range of GPU addresses to map into: mostly lazy, else RM maps it all up front."""
        parent = self.handle(rm.DEVICE)
        size = self.rnd.choice([64 << 20, 1 << 30, 4096, self.rnd.getrandbits(64)])
        flags = self.rnd.choice([0, rm.ALLOC_FLAGS_LAZY, rm.ALLOC_FLAGS_LAZY])
        status, h, _, _ = self.r.memory(rm.VIRTMEM, parent, size, flags=flags)
        self.keep(status, h, rm.VIRTMEM, parent)

    def dma(self) -> None:
        """RM_MAP_MEMORY_DMA anywhere, and RM_UNMAP_MEMORY_DMA of what was mapped, all of it or a
        span (cutting holes), near it, or of nothing."""
        rnd = self.rnd
        # mostly what it made, so that RM gets past the handles to the addresses
        mine = rnd.random() < 0.9
        pick = self.of if mine else self.handle
        dev, virt = pick(rm.DEVICE), pick(rm.VIRTMEM)
        near = rnd.choice(self.mapped) if self.mapped else rnd.getrandbits(48)
        delta = rnd.choice([0, 0, 4096, -4096, 1 << 20, 2 << 20, rnd.getrandbits(32)])
        at = (near + delta) % (1 << 64)
        if rnd.random() < 0.4:
            size = rnd.choice([0, 0, 4096, 1 << 20, rnd.getrandbits(64)])
            hmemory = pick(rm.VIDMEM)
            self.r.unmap_dma(dev, virt, at, size if abi_at_least((550,)) else 0, hmemory)
            return
        mem = pick(rnd.choice([rm.VIDMEM, rm.VIDMEM, rm.SYSMEM]))
        length = rnd.choice([0, 100, 4096, 4096, 65536, 1 << 20, 2 << 20, rnd.getrandbits(64)])
        offset = rnd.choice([0, 0, 512, 4096, rnd.getrandbits(64)])
        flags = rnd.choice([0, 0, rm.DMA_OFFSET_FIXED, rnd.getrandbits(32)])
        dma_offset = at if flags & rm.DMA_OFFSET_FIXED else rnd.choice([0, 4096, 3 << 20, at])
        status, va = self.r.map_dma(dev, virt, mem, length, dma_offset, offset, flags)
        if status == rm.OK:
            self.mapped.append(va)

    def raw(self) -> None:
        """An escape of a random size, full of random bytes and pointers, maybe XFER-wrapped."""
        rnd = self.rnd
        nr = rnd.choice([*ESCAPES, rnd.randrange(256)])
        buf = bytearray(self.blob(1024))
        for off in range(0, len(buf) - 7, 8):
            if rnd.random() < 0.3:
                struct.pack_into("<Q", buf, off, self.pointer())
        if nr in (rm.XFER,) or not buf:
            return
        call = rnd.choice([rm.ioctl, rm.ioctl_xfer])
        try:
            call(rnd.choice([self.r.ctl, self.r.gpu_fd]), nr, buf)
        except OSError:
            pass

    def xfer(self) -> None:
        """IOCTL_XFER_CMD whose inner size and pointer are the tenant's to lie about."""
        rnd = self.rnd
        inner = rnd.choice([*ESCAPES, rm.XFER, rnd.randrange(256)])
        size = rnd.choice([0, 8, 48, 4096, 1 << 20, 0xFFFFFFFF, rnd.getrandbits(32)])
        outer = bytearray(rm.XFER_S.pack(inner, size, self.pointer()))
        try:
            rm.ioctl(self.r.ctl, rm.XFER, outer)
        except OSError:
            pass

    def channel(self) -> None:
        """A channel with work on the engine, kept or closed at random."""
        if self.channels and self.rnd.random() < 0.5:
            self.channels.pop(self.rnd.randrange(len(self.channels))).close()
            return
        sub = self.of(rm.SUBDEVICE)
        try:
            ch = Channel(self.r, self.parent.get(sub, 0), sub, schedule=self.rnd.random() < 0.8)
        except AssertionError:
            return  # an earlier call freed what it needs, or a bound said no
        ch.submit(rm.kernel(self.rnd.choice([50, 500, 2000])), rm.sem_release(4096, 1))
        self.channels.append(ch)

    def step(self) -> None:
        ops: list[Callable[[], None]] = [
            self.vidmem,
            self.alloc,
            self.alloc,
            self.free,
            self.dup,
            self.control,
            self.control,
            self.vid_heap,
            self.os_event,
            self.map,
            self.virtual,
            self.virtual,
            self.dma,
            self.dma,
            self.raw,
            self.xfer,
            self.channel,
        ]
        self.r.call = self.rnd.choice([rm.ioctl, rm.ioctl_xfer])
        op = self.rnd.choice(ops)
        if op.__name__ in SKIP:
            return
        try:
            op()
        except OSError:
            pass  # refused by the driver itself: as RM refuses it
        self.renew()


def fuzz(dev: str, seed: int) -> None:
    t = Tenant(dev, seed)
    for _ in range(OPS):
        t.step()


def spawn(dev: str, seed: int) -> int:
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            fuzz(dev, seed)
            code = 0
        except BaseException:
            traceback.print_exc()  # the test's captured output shows it
        finally:
            os._exit(code)
    return pid


def reap(pid: int, seconds: float) -> int | None:
    """The child's wait status, or None if it did not end in time (then it is killed)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def leftovers(name: str) -> dict[str, int]:
    return {
        "mem_current": mem_current(name),
        "sysmem_current": count(name, "sysmem_current"),
        "mapped_current": count(name, "mapped_current"),
        "channels": count(name, "channels"),
        "rm objects": instance_count(name, "rm objects"),
        "os events": instance_count(name, "os events"),
    }


def settled(what: Callable[[], object], want: object, seconds: float = 30) -> object:
    """what() once it equals want, or its last value after seconds (released files are reaped
    by a worker, and a mapping keeps the real file a moment)."""
    deadline = time.monotonic() + seconds
    got = what()
    while got != want and time.monotonic() < deadline:
        time.sleep(0.1)
        got = what()
    return got


def test_random_calls_leave_nothing_behind_and_spare_the_other_instance(seal_mode: str) -> None:
    # the driver's own view, from a process of the host's; closed while the fuzzers run, which
    # must not inherit a real node's fd
    host = Rm()
    fb_free = host.fb_free_bytes(host.device()[1])
    host.close()
    os_events = Path("/proc/driver/nvsim/os_events").read_text()
    dma_mappings = rm.dma_mappings()
    fuzzed = "mem=64M sysmem=64M channels=48 mapped=64M"
    with instance("fz-a", opts=fuzzed) as a, instance("fz-b", opts="mem=32M") as b:
        seeds = [SEED + k for k in range(4)]
        pids = [spawn(a, s) for s in seeds]
        killed = pids[-1]
        # the neighbour: its own allocations succeed while the fuzzers run
        n = Rm(dev=b)
        ndev, nsub = n.device()
        for _ in range(40):
            status, h, _ = n.vidmem(ndev, 1 << 20)
            assert status == rm.OK, f"seeds {seeds}: neighbour alloc {status:#x}"
            assert n.free(h) == rm.OK
        time.sleep(random.Random(SEED).uniform(0.5, 3))
        os.kill(killed, signal.SIGKILL)
        ends = {pid: reap(pid, 600) for pid in pids}
        hung = [s for s, pid in zip(seeds, pids, strict=True) if ends[pid] is None]
        assert not hung, f"seeds {hung} did not finish their {OPS} calls in 600 s"
        # the others ran every call: a fuzzer that died early (its own error) tested little
        failed = [s for s, pid in zip(seeds, pids, strict=True) if pid != killed and ends[pid]]
        assert not failed, f"seeds {failed}: the fuzzing process failed"
        # the neighbour still gets exactly its limit
        status, h, _ = n.vidmem(ndev, 32 << 20)
        assert status == rm.OK, f"seeds {seeds}: neighbour at its limit {status:#x}"
        assert n.vidmem(ndev, 4096)[0] == rm.NO_MEMORY
        assert n.free(h) == rm.OK
        n.close()
        zero = dict.fromkeys(leftovers("fz-b"), 0)
        assert settled(lambda: leftovers("fz-a"), zero) == zero, f"seeds {seeds}"
        assert settled(lambda: leftovers("fz-b"), zero) == zero, f"seeds {seeds}"
        # nothing open: an ordinary remove takes the instances
        remove("fz-a")
        remove("fz-b")
        assert not inst_dir("fz-a").exists() and not inst_dir("fz-b").exists()
    # nothing left in the driver either: its video memory, GPU mappings and OS events are as
    # before
    host = Rm()
    try:
        sub = host.device()[1]
        assert settled(lambda: host.fb_free_bytes(sub), fb_free) == fb_free, f"seeds {seeds}"
    finally:
        host.close()
    now = settled(lambda: Path("/proc/driver/nvsim/os_events").read_text(), os_events)
    assert now == os_events, f"seeds {seeds}"
    assert settled(rm.dma_mappings, dma_mappings) == dma_mappings, f"seeds {seeds}"
