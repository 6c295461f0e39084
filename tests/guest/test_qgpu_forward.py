"""qgpu forwarding: the RM flow through an instance's nodes behaves as it does on nvsim's own.

Every check runs the same calls directly against nvsim (/dev) and through an instance
(/dev/qgpu/NAME) and compares; the instance's GPU is always nvidia0 and CARD_INFO's GPU 0.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import functools
import json
import mmap
import os
import re
import select
import socket
import struct
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import rm
from kernel import PROJECT, dmesg, reload_modules
from qgpu_sysfs import gpu_dir, inst_dir, instance, read
from rm import Rm

LOAD = PROJECT / "build" / "bin" / "nvsim-load"


@pytest.fixture
def inst() -> Iterator[str]:
    with instance("fwd") as d:
        yield d


def errno_of(fn: object, *args: object) -> int:
    try:
        fn(*args)  # type: ignore[operator]
    except OSError as e:
        return e.errno
    return 0


def rm_flow(r: Rm) -> list[object]:
    """The libcuda-like bring-up and an allocation; returns every observable result."""
    out: list[object] = []
    cards = rm.card_info(r.ctl)
    out.append([(minor, fb) for _, minor, fb in cards])
    status, devinst = r.device_instance(cards[0][0])
    out.append((status, devinst))
    status, dev = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", devinst))
    out.append(status)
    status, sub = r.alloc(r.client, dev, rm.SUBDEVICE, struct.pack("<I", 0))
    out.append(status)
    out.append(r.fb_info(sub, rm.FB_TOTAL_RAM_SIZE, rm.FB_HEAP_FREE))
    status, h, size = r.vidmem(dev, 1000)
    out.append((status, size))
    out.append(r.fb_free_bytes(sub))
    out.append(r.vidmem(dev, rm.fb_bytes())[0])  # NO_MEMORY
    out.append(r.alloc(r.client, dev, 0xBEEF)[0])  # INVALID_CLASS
    out.append(r.free(h))
    out.append(r.free(h))  # double free
    out.append(r.fb_free_bytes(sub))
    return out


@pytest.mark.parametrize("xfer", [False, True], ids=["direct", "xfer"])
def test_rm_flow_gives_the_same_results(inst: str, xfer: bool) -> None:
    direct = Rm(xfer=xfer)
    try:
        expected = rm_flow(direct)
    finally:
        direct.close()
    proxied = Rm(xfer=xfer, dev=inst)
    try:
        assert rm_flow(proxied) == expected
    finally:
        proxied.close()


def test_memory_is_shared_with_the_driver(inst: str) -> None:
    watcher = Rm()
    _, wsub = watcher.device()
    r = Rm(dev=inst)
    try:
        dev, _ = r.device()
        assert r.vidmem(dev, 1 << 30)[0] == rm.OK
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes() - (1 << 30)
    finally:
        r.close()
    assert watcher.fb_free_bytes(wsub) == rm.fb_bytes()
    watcher.close()


KERNEL_MEMBLOCK = int(Path("/sys/devices/system/memory/block_size_bytes").read_text(), 16)


def memblock(size: int) -> bytearray:
    """SYS_PARAMS reporting `size` as the memory block size."""
    return bytearray(struct.pack("<Q", size))


def test_errors_are_the_drivers(inst: str) -> None:
    for d in ("/dev", inst):
        ctl = os.open(f"{d}/nvidiactl", os.O_RDWR)
        gpu = os.open(f"{d}/nvidia0", os.O_RDWR)
        try:
            assert errno_of(rm.ioctl, gpu, rm.CARD_INFO, bytearray(72)) == errno.EINVAL
            assert errno_of(rm.ioctl, ctl, rm.CARD_INFO, bytearray(71)) == errno.EINVAL
            assert errno_of(rm.ioctl, gpu, rm.RM_ALLOC, bytearray(48)) == errno.EINVAL
            assert errno_of(rm.ioctl, ctl, rm.RM_ALLOC, bytearray(40)) == errno.EINVAL
            assert errno_of(rm.ioctl, ctl, rm.XFER, bytearray(24)) == errno.EINVAL
            nested = bytearray(rm.XFER_S.pack(rm.XFER, 16, 0))
            assert errno_of(rm.ioctl, ctl, rm.XFER, nested) == errno.EINVAL
            big = bytearray(rm.XFER_S.pack(rm.RM_ALLOC, 16385, 0))
            assert errno_of(rm.ioctl, ctl, rm.XFER, big) == errno.EINVAL
            bad = bytearray(struct.pack("<II64s", 0, 0, b"1.0"))
            assert errno_of(rm.ioctl, ctl, rm.CHECK_VERSION_STR, bad) == errno.EINVAL
            query = bytearray(struct.pack("<II64s", ord("2"), 0, b""))
            rm.ioctl(ctl, rm.CHECK_VERSION_STR, query)
            assert query[8:].split(b"\0")[0].decode() == rm.param("abi_version")
            assert errno_of(rm.ioctl, ctl, rm.SYS_PARAMS, memblock(KERNEL_MEMBLOCK)) == 0
            assert errno_of(rm.ioctl, ctl, rm.SYS_PARAMS, bytearray(7)) == errno.EINVAL
        finally:
            os.close(gpu)
            os.close(ctl)


def test_a_tenant_cannot_tell_the_driver_another_memory_block_size(inst: str) -> None:
    """The driver keeps the first memory block size it is told, for every process, until it is
    unloaded. qgpu tells it the kernel's when it loads, as a CUDA process would, so a tenant
    that comes first with another size gets -EBUSY and changes nothing: the kernel's size is
    still the driver's (before, the tenant's size stuck and every CUDA process after it was
    answered -EBUSY)."""
    ctl = os.open(f"{inst}/nvidiactl", os.O_RDWR)
    real = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        for wrong in (KERNEL_MEMBLOCK * 2, 4096, 0):
            assert errno_of(rm.ioctl, ctl, rm.SYS_PARAMS, memblock(wrong)) == errno.EBUSY
        rm.ioctl(real, rm.SYS_PARAMS, memblock(KERNEL_MEMBLOCK))
        rm.ioctl(ctl, rm.SYS_PARAMS, memblock(KERNEL_MEMBLOCK))
    finally:
        os.close(real)
        os.close(ctl)


def test_device_needs_the_instance_gpu_open(inst: str) -> None:
    r = Rm(gpu=None, dev=inst)
    try:
        status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
        assert status == rm.INSUFFICIENT_PERMISSIONS
        real = os.open("/dev/nvidia0", os.O_RDWR)  # a real GPU file does not count for qgpu
        os.close(real)
        gpu = os.open(f"{inst}/nvidia0", os.O_RDWR)
        try:
            status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
            assert status == rm.OK
        finally:
            os.close(gpu)
    finally:
        r.close()


def backend_links() -> list[str]:
    """The fds of this process that are nvsim's own nodes (a proxy is /dev/qgpu/NAME/...)."""
    links = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # gone meanwhile, or listdir's own fd
            continue
        if link.startswith("/dev/nvidia"):
            links.append(link)
    return links


def test_no_backend_file_is_left_in_the_fd_table(inst: str) -> None:
    r = Rm(dev=inst)
    try:
        r.device()
        assert not backend_links()
    finally:
        r.close()


def test_a_sibling_thread_never_finds_a_backend_file_during_fd_calls(inst: str) -> None:
    """REGISTER_FD, RM_MAP_MEMORY and EXPORT_OBJECT_TO_FD carry an fd that RM resolves in the
    caller's fd table. Sealed, qgpu lends RM the real file behind the tenant's proxy under the
    proxy's own number (DOC: fd translation); it used to install the real file at a free fd for
    the call, where another thread of the tenant could take it (dup, or SCM_RIGHTS to a process
    that qgpu's check afterwards does not see) and reach RM past qgpu. Here a thread looks at the
    fd table throughout the calls: it must never find one of nvsim's own nodes in it."""
    assert "seal_fd: nvsim:nv_get_file_private" in Path("/proc/qgpu/status").read_text()
    r = Rm(dev=inst)
    seen: list[str] = []
    stop = threading.Event()

    def look() -> None:
        while not stop.is_set():
            seen.extend(backend_links())

    dev, _ = r.device()
    status, mem, _ = r.vidmem(dev, 64 * 1024)
    assert status == rm.OK
    looker = threading.Thread(target=look)
    looker.start()
    try:
        for _ in range(100):
            gpu = r.open_gpu()  # REGISTER_FD of the ctl fd
            status, address = r.map_memory(dev, mem, 0, 64 * 1024, gpu)  # the GPU fd
            assert status == rm.OK
            assert r.unmap_memory(dev, mem, address) == rm.OK
            os.close(gpu)
            export = os.open(f"{inst}/nvidiactl", os.O_RDWR)
            assert r.export_object(mem, export) == rm.OK  # the export fd, a ctl file
            os.close(export)
    finally:
        stop.set()
        looker.join()
        r.close()
    assert not seen, f"a backend file was in the tenant's fd table: {sorted(set(seen))}"


# userfaultfd (linux/userfaultfd.h): the syscall on x86-64, and its ioctls
NR_USERFAULTFD = 323
UFFDIO_API = 0xC018AA3F  # _IOWR(0xAA, 0x3F, struct uffdio_api), 24 B
UFFDIO_REGISTER = 0xC020AA00  # _IOWR(0xAA, 0x00, struct uffdio_register), 32 B
UFFDIO_COPY = 0xC028AA03  # _IOWR(0xAA, 0x03, struct uffdio_copy), 40 B
UFFD_API, UFFDIO_REGISTER_MODE_MISSING = 0xAA, 1


def stall_first_touch(addr: int, content: bytes, on_stall: Callable[[], None]) -> threading.Thread:
    """Make the first touch of the page at `addr` (mapped, not yet touched) wait on a userfaultfd
    of this process: a thread takes the fault, calls on_stall() while whoever touched it waits,
    then fills the page with `content`. Join the thread afterwards."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    uffd = libc.syscall(NR_USERFAULTFD, os.O_CLOEXEC)
    assert uffd >= 0, os.strerror(ctypes.get_errno())
    fcntl.ioctl(uffd, UFFDIO_API, bytearray(struct.pack("<QQQ", UFFD_API, 0, 0)), True)
    reg = bytearray(struct.pack("<QQQQ", addr, mmap.PAGESIZE, UFFDIO_REGISTER_MODE_MISSING, 0))
    fcntl.ioctl(uffd, UFFDIO_REGISTER, reg, True)
    source = ctypes.create_string_buffer(content.ljust(mmap.PAGESIZE, b"\0"), mmap.PAGESIZE)

    def on_fault() -> None:
        msg = os.read(uffd, 32)  # the fault: someone is reading the page
        fault = struct.unpack_from("<Q", msg, 16)[0] & ~(mmap.PAGESIZE - 1)
        on_stall()
        copy = struct.pack("<QQQQq", fault, ctypes.addressof(source), mmap.PAGESIZE, 0, 0)
        fcntl.ioctl(uffd, UFFDIO_COPY, bytearray(copy), True)
        os.close(uffd)

    handler = threading.Thread(target=on_fault)
    handler.start()
    return handler


def send_real_files(sock: socket.socket, paths: set[str]) -> None:
    """Send every file in this process's fd table whose path is one of `paths` over `sock`."""
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") in paths:
                socket.send_fds(sock, [b"f"], [int(name)])
        except OSError:
            continue


def take_gpu_file_during_device_alloc(inst: str, sock: socket.socket) -> None:
    """The hostile tenant: allocates a device whose parameters reach into a page that faults to its
    own userfaultfd, so RM's copy of them waits in the middle of the call, after qgpu prepared the
    GPU-file check. A thread then sends every real GPU file in the table to `sock` (a copy in
    flight, which qgpu's check of the table after the call cannot see), and only then lets the
    copy finish. The last message is b"done" and the allocation's RM status. The first 12 bytes
    (deviceId, hClientShare, hTargetClient: what qgpu reads before the call, DOC: client handles
    in parameters) sit at the end of a page that is there; the rest, which only RM reads, on the
    faulting one."""
    r = Rm(dev=inst)
    pages = mmap.mmap(-1, 2 * mmap.PAGESIZE)  # NV0080 params: all zero, deviceId 0
    base = ctypes.addressof(ctypes.c_char.from_buffer(pages))
    pages[0] = 0  # the first page is there before the call
    addr = base + mmap.PAGESIZE - 12
    handler = stall_first_touch(
        base + mmap.PAGESIZE, b"", lambda: send_real_files(sock, {"/dev/nvidia0"})
    )
    buf = bytearray(rm.NVOS64.pack(r.client, r.client, 0, rm.DEVICE, addr, 0, 0, 0, 0xFFFFFFFF))
    rm.ioctl(r.ctl, rm.RM_ALLOC, buf)
    handler.join()
    sock.send(b"done" + struct.pack("<I", rm.NVOS64.unpack(buf)[8]))


REAL_NODES = {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm"}
MIB = 1 << 20


def take_real_files_during_mm_initialize(inst: str, sock: socket.socket, name: str) -> None:
    """The hostile tenant: UVM_MM_INITIALIZE naming its proxy `name` ("nvidia-uvm": a VA space
    of its own, initialized; "nvidiactl") as uvmFd, which nvidia-uvm looks up with fget() itself.
    The parameters straddle two pages: uvmFd, which qgpu reads, at the end of the first, rmStatus
    at the start of one that faults to the tenant's userfaultfd, so nvidia-uvm's copy of them
    waits in the middle of the call while a thread sends every real node in the table to
    `sock`."""
    named = os.open(f"{inst}/{name}", os.O_RDWR)
    if name == "nvidia-uvm":
        assert rm.uvm_initialize(named) == rm.OK
    mm = os.open(f"{inst}/nvidia-uvm", os.O_RDWR)
    pages = mmap.mmap(-1, 2 * mmap.PAGESIZE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(pages))
    struct.pack_into("<i", pages, mmap.PAGESIZE - 4, named)
    handler = stall_first_touch(
        base + mmap.PAGESIZE,
        struct.pack("<I", rm.INVALID_ARGUMENT ^ 1),
        lambda: send_real_files(sock, REAL_NODES),
    )
    libc = ctypes.CDLL(None, use_errno=True)
    ret = libc.ioctl(
        mm, ctypes.c_ulong(rm.UVM_MM_INITIALIZE), ctypes.c_void_p(base + mmap.PAGESIZE - 4)
    )
    handler.join()
    assert ret == 0, os.strerror(ctypes.get_errno())
    sock.send(b"done" + pages[mmap.PAGESIZE : mmap.PAGESIZE + 4])


def files_taken_by(
    tenant: Callable[[str, socket.socket], None], inst: str
) -> tuple[list[int], int]:
    """Run `tenant` (take_gpu_file_during_device_alloc, take_real_files_during_mm_initialize) in
    a child: the files it sent, and the status of its call."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the tenant
        try:
            ours.close()
            tenant(inst, theirs)
        finally:
            os._exit(0)
    theirs.close()
    taken: list[int] = []
    try:
        ours.settimeout(120)
        while True:
            msg, fds, _, _ = socket.recv_fds(ours, 16, 4)
            taken += fds
            if msg.startswith(b"done"):
                return taken, struct.unpack_from("<I", msg, 4)[0]
    finally:
        os.waitpid(pid, 0)
        ours.close()


def probe_count(key: str) -> int:
    """What qgpu's probe on the /proc/qgpu/status line `key` (seal_fd, seal_uvm_fd, seal_gpu) has
    lent or answered so far; it must have missed nothing."""
    text = Path("/proc/qgpu/status").read_text()
    m = re.search(rf"^{key}: \S+ \(0 missed, (\d+) \w+\)$", text, re.M)
    assert m, text
    return int(m.group(1))


def test_no_gpu_file_is_in_the_tenants_table_during_the_gpu_check(seal_mode: str) -> None:
    """Allocating a device needs a real GPU file open in the caller (nv_is_gpu_accessible walks
    its fd table), and a tenant thread can send away whatever qgpu puts there meanwhile: a real
    nvidia0 takes the escapes only a GPU node takes straight to the driver. With the probe on
    nv_is_gpu_accessible, qgpu answers the check for the instance's GPU and puts nothing there.
    Without it (seal=0) it installs a file opened for the call, which must not be the backend of
    the tenant's own registered nvidia0 proxy (its registration and mapping contexts would let a
    doorbell be mapped past qgpu's gating): a file nobody registered takes REGISTER_FD."""
    before = probe_count("seal_gpu") if seal_mode == "sealed" else 0
    with instance("gpuchk") as d:
        taken, status = files_taken_by(take_gpu_file_during_device_alloc, d)
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        assert status == rm.OK
        if seal_mode == "sealed":
            assert taken == []
            assert probe_count("seal_gpu") > before
        else:
            assert [os.readlink(f"/proc/self/fd/{fd}") for fd in taken] == ["/dev/nvidia0"]
            rm.ioctl(taken[0], rm.REGISTER_FD, bytearray(struct.pack("<i", ctl)))  # unregistered
    finally:
        os.close(ctl)
        for fd in taken:
            os.close(fd)


def test_a_uvm_call_naming_a_control_proxy_puts_no_real_file_in_the_table() -> None:
    """nvidia-uvm takes only its own files as uvmFd. qgpu must not hand it, or leave in the
    tenant's fd table for the call, the real file behind a proxy of another kind: a real
    nvidiactl taken meanwhile reaches RM past qgpu. The driver's answer is the direct one."""
    if not rm.abi_at_least((535,)):
        pytest.skip("UVM_MM_INITIALIZE exists from 535")
    uvm = os.open("/dev/nvidia-uvm", os.O_RDWR)
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        direct = rm.uvm_mm_initialize(uvm, ctl)
    finally:
        os.close(ctl)
        os.close(uvm)
    with instance("mmctl") as d:
        taken, status = files_taken_by(
            functools.partial(take_real_files_during_mm_initialize, name="nvidiactl"), d
        )
    try:
        assert [os.readlink(f"/proc/self/fd/{fd}") for fd in taken] == []
        assert status == direct == rm.INVALID_ARGUMENT
    finally:
        for fd in taken:
            os.close(fd)


def test_the_va_space_file_of_mm_initialize_is_lent_not_installed(seal_mode: str) -> None:
    """UVM_MM_INITIALIZE names the tenant's VA space, whose real file nvidia-uvm looks up with
    fget() in the caller's fd table. A thread that takes it meanwhile holds a real nvidia-uvm
    file: UVM calls past qgpu's decoding (mappings qgpu keeps charged, managed memory). With the
    probe on fget, qgpu lends the file to that lookup and puts nothing in the table; with
    seal=0 it installs the file for the call, and the thread takes it."""
    if not rm.abi_at_least((535,)):
        pytest.skip("UVM_MM_INITIALIZE exists from 535")
    before = probe_count("seal_uvm_fd") if seal_mode == "sealed" else 0
    with instance("mmva") as d:
        taken, status = files_taken_by(
            functools.partial(take_real_files_during_mm_initialize, name="nvidia-uvm"), d
        )
    try:
        assert status == rm.OK
        paths = [os.readlink(f"/proc/self/fd/{fd}") for fd in taken]
        if seal_mode == "sealed":
            assert paths == []
            assert probe_count("seal_uvm_fd") == before + 1
        else:
            assert paths == ["/dev/nvidia-uvm"]
    finally:
        for fd in taken:
            os.close(fd)


def test_an_instances_uvm_proxy_is_no_file_of_rms(inst: str) -> None:
    """RM takes only its own control and GPU files as fd arguments. An instance's nvidia-uvm
    proxy named where RM wants a GPU file must be refused as the real nvidia-uvm is, not lent:
    RM would read the UVM file's private data as its own (nvsim warns)."""
    statuses = []
    for d in ("/dev", inst):
        r = Rm(dev=d)
        uvm = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
        try:
            dev, _ = r.device()
            status, mem, _ = r.vidmem(dev, MIB)
            assert status == rm.OK
            lent = probe_count("seal_fd")
            statuses.append(r.map_memory(dev, mem, 0, MIB, uvm)[0])
            assert probe_count("seal_fd") == lent
        finally:
            os.close(uvm)
            r.close()
    assert statuses == [rm.INVALID_ARGUMENT] * 2


@pytest.mark.parametrize("node", ["nvidiactl", "nvidia0", "nvidia-uvm"])
def test_mmap_poll_read_lseek_are_the_drivers(inst: str, node: str) -> None:
    results = []
    for d in ("/dev", inst):
        fd = os.open(f"{d}/{node}", os.O_RDWR | os.O_NONBLOCK)
        try:
            p = select.poll()
            p.register(fd)
            res: list[object] = [[ev for _, ev in p.poll(0)]]  # fds differ, events must not
            try:
                mmap.mmap(fd, 4096).close()
                res.append(0)
            except OSError as e:
                res.append(e.errno)
            res.append(errno_of(os.read, fd, 8))
            res.append(errno_of(os.lseek, fd, 0, os.SEEK_SET))
            results.append(res)
        finally:
            os.close(fd)
    assert results[0] == results[1]


def test_uvm_ioctls_reach_the_driver(inst: str) -> None:
    results = []
    for d in ("/dev", inst):
        fd = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
        try:
            init = bytearray(16)
            res = errno_of(fcntl.ioctl, fd, 0x30000001, init, True)
            results.append((res, bytes(init)))
        finally:
            os.close(fd)
    assert results[0] == results[1]


def test_uvm_mm_initialize_names_the_instances_va_space() -> None:
    """UVM_MM_INITIALIZE's uvmFd is resolved by nvidia-uvm itself (fget in uvm.c), not by RM: qgpu
    must put the real VA-space file behind the tenant's proxy where UVM looks, as for a direct
    call. Another instance's UVM proxy is refused."""
    if not rm.abi_at_least((535,)):
        pytest.skip("UVM_MM_INITIALIZE exists from 535")
    with instance("mma", opts="mem=64M") as a, instance("mmb", opts="mem=64M") as b:
        results = []
        for d in ("/dev", a):
            va, mm = os.open(f"{d}/nvidia-uvm", os.O_RDWR), os.open(f"{d}/nvidia-uvm", os.O_RDWR)
            try:
                assert rm.uvm_initialize(va) == rm.OK
                results.append((rm.uvm_mm_initialize(mm, va), rm.uvm_mm_initialize(mm, va)))
            finally:
                os.close(mm)
                os.close(va)
        assert results[0] == results[1] == (rm.OK, rm.IN_USE), results
        va = os.open(f"{b}/nvidia-uvm", os.O_RDWR)
        mm = os.open(f"{a}/nvidia-uvm", os.O_RDWR)
        try:
            assert rm.uvm_initialize(va) == rm.OK
            assert errno_of(rm.uvm_mm_initialize, mm, va) == errno.EINVAL
        finally:
            os.close(mm)
            os.close(va)


def test_concurrent_mm_initializes_all_find_their_own_va_space() -> None:
    """Processes that start together each lend their VA space to nvidia-uvm's fget() while the
    probe is armed and disarmed around them: every MM_INITIALIZE must find its own."""
    if not rm.abi_at_least((535,)):
        pytest.skip("UVM_MM_INITIALIZE exists from 535")
    before = probe_count("seal_uvm_fd")
    procs, rounds = 4, 10
    with instance("mmmany") as d:
        pids = []
        for _ in range(procs):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - one tenant process
                ok = 0
                try:
                    for _ in range(rounds):
                        va = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
                        mm = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
                        if rm.uvm_initialize(va) == rm.OK and rm.uvm_mm_initialize(mm, va) == rm.OK:
                            ok += 1
                        os.close(mm)
                        os.close(va)
                finally:
                    os._exit(0 if ok == rounds else 1)
            pids.append(pid)
        codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
    assert codes == [0] * procs
    assert probe_count("seal_uvm_fd") == before + procs * rounds


def nvsim_load(inst: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LOAD), "--dev", inst, *args], capture_output=True, text=True, check=False, timeout=120
    )


def test_nvsim_load_through_an_instance(inst: str) -> None:
    r = nvsim_load(inst, "info", "--json")
    assert r.returncode == 0, r.stderr
    i = json.loads(r.stdout)
    assert i["minor"] == 0
    assert i["uuid"] == rm.param("gpu_uuid")
    assert i["driver_version"] == rm.param("abi_version")
    assert i["fb_total_bytes"] == rm.fb_bytes()
    assert i["dmabuf"] is False  # the instance refuses exports (its default)
    a = nvsim_load(inst, "alloc", "64M", "--count", "2", "--json")
    assert a.returncode == 0, a.stderr
    assert json.loads(a.stdout)["succeeded"] == 2


@pytest.mark.usefixtures("default_modules")
def test_second_gpu_is_gpu_0_of_its_instance() -> None:
    reload_modules("num_gpus=2", "fb_mib=2048")
    assert read(gpu_dir(1) / "index") == "1"
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    direct_cards = rm.card_info(ctl)
    os.close(ctl)
    gpu1_id = direct_cards[1][0]
    with instance("on1", gpu=1) as d:
        r = Rm(dev=d)
        try:
            cards = rm.card_info(r.ctl)
            assert [(c[0], c[1]) for c in cards] == [(gpu1_id, 0)]
            status, devinst = r.device_instance(gpu1_id)
            assert (status, devinst) == (rm.OK, 1)
            status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 1))
            assert status == rm.OK
            # GPU 0 is not the instance's: its device cannot be allocated through it.
            status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
            assert status == rm.INSUFFICIENT_PERMISSIONS
            own = bytearray(struct.pack("<I", gpu1_id))
            rm.ioctl(r.ctl, rm.ATTACH_GPUS, own)
            other = bytearray(struct.pack("<II", gpu1_id, direct_cards[0][0]))
            assert errno_of(rm.ioctl, r.ctl, rm.ATTACH_GPUS, other) == errno.EINVAL
            # Nor can GPU 0 be registered with UVM through it (the same GPU-file check).
            uvm = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
            try:
                assert rm.uvm_initialize(uvm) == rm.OK
                uuid = [rm.gpu_uuid_bytes(read(gpu_dir(i) / "uuid")) for i in (0, 1)]
                assert rm.uvm_register_gpu(uvm, uuid[0])[0] == rm.INSUFFICIENT_PERMISSIONS
                assert rm.uvm_register_gpu(uvm, uuid[1])[0] == rm.OK
            finally:
                os.close(uvm)
        finally:
            r.close()
        info = nvsim_load(d, "info", "--json")
        assert info.returncode == 0, info.stderr
        i = json.loads(info.stdout)
        assert (i["minor"], i["device_instance"]) == (0, 1)
        assert i["fb_total_bytes"] == 2048 << 20


@pytest.mark.usefixtures("default_modules")
def test_each_gpu_says_whether_its_memory_is_a_numa_node() -> None:
    """qgpu asks NUMA_INFO of each GPU at load: -1 where its memory is no NUMA node, else the
    node, which the page allocator hands out past qgpu's limits (as on Grace Hopper)."""
    assert read(gpu_dir(0) / "numa_node") == "-1"
    reload_modules("num_gpus=2", "numa_node=1")
    assert [read(gpu_dir(i) / "numa_node") for i in (0, 1)] == ["1", "2"]
    assert any("its memory is NUMA node 1" in line for line in dmesg()[-20:])


GET_ATTACHED_IDS = 0x201  # NV0000_CTRL_CMD_GPU_GET_ATTACHED_IDS, ctrl0000gpu.h
GET_PROBED_IDS = 0x214  # NV0000_CTRL_CMD_GPU_GET_PROBED_IDS, ctrl0000gpu.h
INVALID_ID = 0xFFFFFFFF


def gpu_ids(
    r: Rm, cmd: int, size: int, hclient: int = 0, hobject: int = 0
) -> tuple[int, list[int], list[int]]:
    """(status, gpuIds, excludedGpuIds up to INVALID_ID) of an NV0000 id-list control."""
    buf = bytearray(b"\xaa" * size)
    status = r.control(hobject or hclient or r.client, cmd, buf, hclient=hclient)
    words = list(struct.unpack(f"<{size // 4}I", buf))

    def upto_invalid(ws: list[int]) -> list[int]:
        return ws[: ws.index(INVALID_ID)] if INVALID_ID in ws else ws

    return status, upto_invalid(words[:32]), upto_invalid(words[32:])


def probed_flags(r: Rm, size: int) -> list[int]:
    """GET_PROBED_IDS's gpuFlags[] (580+) as RM wrote them over the caller's 0xAA bytes."""
    buf = bytearray(b"\xaa" * size)
    assert r.control(r.client, GET_PROBED_IDS, buf) == rm.OK
    return list(struct.unpack_from("<32I", buf, 256))


@pytest.mark.usefixtures("default_modules")
def test_gpu_id_lists_name_only_the_instances_gpu() -> None:
    reload_modules("num_gpus=2")
    # ctrl0000gpu.h: 580.65.06 appended gpuFlags[32], one word per GPU listed
    probed, stale = (384, 256) if rm.abi_at_least((580,)) else (256, 384)
    direct = Rm(gpu=None)
    try:
        ids = [c[0] for c in rm.card_info(direct.ctl)]
        assert gpu_ids(direct, GET_ATTACHED_IDS, 128)[:2] == (rm.OK, ids)
        assert gpu_ids(direct, GET_PROBED_IDS, probed) == (rm.OK, ids, [])
        if probed == 384:
            assert probed_flags(direct, probed) == [0, 0] + [0xAAAAAAAA] * 30
    finally:
        direct.close()
    with instance("ids1", gpu=1) as d:
        r, other = Rm(gpu=None, dev=d), Rm(gpu=None, dev=d)
        try:
            assert gpu_ids(r, GET_ATTACHED_IDS, 128)[:2] == (rm.OK, [ids[1]])
            assert gpu_ids(r, GET_PROBED_IDS, probed) == (rm.OK, [ids[1]], [])
            if probed == 384:
                assert probed_flags(r, probed) == [0] + [0xAAAAAAAA] * 31
            # RM's statuses where RM would refuse, and nothing written: a params struct of
            # another size (the other version's too), a client of another file
            for size in (128, stale):
                status, words, _ = gpu_ids(r, GET_PROBED_IDS, size)
                assert (status, words) == (rm.INVALID_PARAM_STRUCT, [0xAAAAAAAA] * 32)
            status, words, _ = gpu_ids(r, GET_ATTACHED_IDS, 128, hclient=other.client)
            assert (status, words) == (rm.INVALID_CLIENT, [0xAAAAAAAA] * 32)
            # on an object that is not the client: left to RM, which has no such control there
            status, words, _ = gpu_ids(r, GET_ATTACHED_IDS, 128, hobject=0xCAFE0001)
            assert status != rm.OK and words == [0xAAAAAAAA] * 32
        finally:
            r.close()
            other.close()


@pytest.mark.usefixtures("default_modules")
def test_a_525_driver_is_known_by_its_version() -> None:
    """A 525 driver cannot be asked its version by CHECK_VERSION_STR (QUERY's '2' is OVERRIDE
    there, which writes nothing): qgpu asks the kernel-client handshake instead, so the GPU has
    its ABI, the kernel client is made and instances can be created."""
    reload_modules("abi_version=525.60.13")
    assert read(gpu_dir() / "driver_version") == "525.60.13"
    assert read(gpu_dir() / "driver_supported") == "1"
    status = Path("/proc/qgpu/status").read_text()
    assert "rm_client: nvsim_get_rm_ops" in status  # the handshake took the exact version
    with instance("v525", opts="mem=8M"):
        assert read(inst_dir("v525") / "mem_max") == str(8 << 20)


@pytest.mark.usefixtures("default_modules")
def test_older_abi_through_an_instance() -> None:
    reload_modules("abi_version=535.104.05")
    assert read(gpu_dir() / "driver_version") == "535.104.05"
    with instance("old") as d:
        for xfer in (False, True):
            direct = Rm(xfer=xfer)
            try:
                expected = rm_flow(direct)
            finally:
                direct.close()
            proxied = Rm(xfer=xfer, dev=d)
            try:
                assert rm_flow(proxied) == expected
            finally:
                proxied.close()
        a = nvsim_load(d, "alloc", "16M", "--json")
        assert a.returncode == 0, a.stderr
