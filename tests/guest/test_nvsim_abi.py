"""nvsim speaks the RM ioctl ABI the way the real driver does: escapes on success and failure paths.

The harness loads nvsim with its defaults (one GPU, 16 GiB, driver ABI 580.95.05).
"""

from __future__ import annotations

import errno
import os
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from kernel import insmod, is_loaded, reload_modules, rmmod
from rm import Rm


@pytest.fixture
def proc() -> Iterator[Rm]:
    r = Rm()
    yield r
    r.close()


def test_check_version_query_strict_relaxed_and_mismatch() -> None:
    fd = os.open("/dev/nvidiactl", os.O_RDWR)
    version = rm.param("abi_version")
    try:
        for cmd, sent in ((ord("2"), ""), (0, version), (ord("1"), version.split(".")[0] + ".1.1")):
            buf = bytearray(struct.pack("<II64s", cmd, 0, sent.encode()))
            rm.ioctl(fd, rm.CHECK_VERSION_STR, buf)
            assert struct.unpack_from("<I", buf, 4)[0] == 1  # RECOGNIZED
            if cmd == ord("2"):
                assert buf[8:].split(b"\0")[0].decode() == version
        buf = bytearray(struct.pack("<II64s", 0, 0, b"1.0"))
        assert rm.refused(fd, rm.CHECK_VERSION_STR, buf) == errno.EINVAL
        assert buf[8:].split(b"\0")[0].decode() == version  # the driver's version, written back
        assert rm.refused(fd, rm.CHECK_VERSION_STR, bytearray(71)) == errno.EINVAL
    finally:
        os.close(fd)


@pytest.mark.usefixtures("default_modules")
def test_check_version_has_no_query_in_525() -> None:
    """nv-ioctl.h, 525.x: '2' is NV_RM_API_VERSION_CMD_OVERRIDE, which succeeds and writes no
    version (osapi.c); QUERY takes the same number from 530.30.02."""
    reload_modules("abi_version=525.60.13")
    fd = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        buf = bytearray(struct.pack("<II64s", ord("2"), 0, b""))
        rm.ioctl(fd, rm.CHECK_VERSION_STR, buf)
        assert struct.unpack_from("<I", buf, 4)[0] == 1  # RECOGNIZED
        assert buf[8:] == bytes(64)  # nothing written
        buf = bytearray(struct.pack("<II64s", ord("1"), 0, b"525."))
        rm.ioctl(fd, rm.CHECK_VERSION_STR, buf)  # RELAXED: the branch matches
    finally:
        os.close(fd)


def test_card_info_lists_the_gpu_and_checks_size_and_device() -> None:
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    gpu = os.open("/dev/nvidia0", os.O_RDWR)
    try:
        buf = bytearray(72 * 32)
        rm.ioctl(ctl, rm.CARD_INFO, buf)
        assert buf[0] == 1  # valid
        assert struct.unpack_from("<Q", buf, 48)[0] == rm.fb_bytes()
        assert struct.unpack_from("<I", buf, 56)[0] == 0  # minor
        assert buf[72] == 0  # the second slot is empty
        assert rm.refused(ctl, rm.CARD_INFO, bytearray(71)) == errno.EINVAL
        assert rm.refused(gpu, rm.CARD_INFO, bytearray(72)) == errno.EINVAL
    finally:
        os.close(gpu)
        os.close(ctl)


def test_register_fd_needs_a_real_ctl_fd_once() -> None:
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    gpu = os.open("/dev/nvidia0", os.O_RDWR)
    other = os.open("/dev/nvidia0", os.O_RDWR)
    null = os.open("/dev/null", os.O_RDWR)
    try:
        for bad in (null, other, 9999):
            buf = bytearray(struct.pack("<i", bad))
            assert rm.refused(gpu, rm.REGISTER_FD, buf) == errno.EINVAL
        assert rm.refused(ctl, rm.REGISTER_FD, bytearray(struct.pack("<i", ctl))) == errno.EINVAL
        rm.ioctl(gpu, rm.REGISTER_FD, bytearray(struct.pack("<i", ctl)))
        assert rm.refused(gpu, rm.REGISTER_FD, bytearray(struct.pack("<i", ctl))) == errno.EINVAL
    finally:
        for fd in (null, other, gpu, ctl):
            os.close(fd)


@pytest.mark.usefixtures("default_modules")
def test_attach_gpus_holds_each_gpu_until_the_file_closes() -> None:
    """As nv.c: each non-zero id is taken once per file until it closes; a second call on the
    file, a GPU file, or an id that is no GPU is -EINVAL, and a failed call holds nothing."""
    reload_modules("num_gpus=2")
    ctl = [os.open("/dev/nvidiactl", os.O_RDWR) for _ in range(4)]
    gpu = os.open("/dev/nvidia0", os.O_RDWR)
    try:
        ids = [card[0] for card in rm.card_info(ctl[0])]
        assert len(ids) == 2 and rm.attached_refs(0) == rm.attached_refs(1) == 0
        rm.ioctl(ctl[0], rm.ATTACH_GPUS, bytearray(struct.pack("<III", ids[0], 0, ids[1])))
        assert (rm.attached_refs(0), rm.attached_refs(1)) == (1, 1)
        again = bytearray(struct.pack("<I", ids[0]))
        assert rm.refused(ctl[0], rm.ATTACH_GPUS, again) == errno.EINVAL
        assert rm.refused(gpu, rm.ATTACH_GPUS, bytearray(again)) == errno.EINVAL
        assert rm.refused(ctl[1], rm.ATTACH_GPUS, bytearray(6)) == errno.EINVAL
        # The first id was taken before the second was found to be no GPU: let go again.
        bad = bytearray(struct.pack("<II", ids[1], 0xFFFFFFFF))
        assert rm.refused(ctl[1], rm.ATTACH_GPUS, bad) == errno.EINVAL
        assert (rm.attached_refs(0), rm.attached_refs(1)) == (1, 1)
        # ...and the file may attach afterwards, its record gone with the failure.
        rm.ioctl(ctl[1], rm.ATTACH_GPUS, bytearray(struct.pack("<I", ids[1])))
        rm.ioctl(ctl[2], rm.ATTACH_GPUS, bytearray(struct.pack("<I", 0)))
        assert (rm.attached_refs(0), rm.attached_refs(1)) == (1, 2)
        os.close(ctl.pop(0))
        assert (rm.attached_refs(0), rm.attached_refs(1)) == (0, 1)
    finally:
        for fd in (*ctl, gpu):
            os.close(fd)
    assert rm.attached_refs(0) == rm.attached_refs(1) == 0


@pytest.mark.usefixtures("default_modules")
def test_sys_params_memory_block_size_sticks_once_set() -> None:
    """As nv.c: the first non-zero size is the driver's until it is unloaded (nvsim alone here:
    qgpu sets it when it loads); another size is -EBUSY, a wrong size or a GPU file -EINVAL."""
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            assert rmmod(name).returncode == 0
    assert insmod("nvsim").returncode == 0
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    gpu = os.open("/dev/nvidia0", os.O_RDWR)
    try:
        for size in (0, 128 << 20, 128 << 20):  # 0 leaves it unset
            rm.ioctl(ctl, rm.SYS_PARAMS, bytearray(struct.pack("<Q", size)))
        for size in (1 << 30, 0):
            buf = bytearray(struct.pack("<Q", size))
            assert rm.refused(ctl, rm.SYS_PARAMS, buf) == errno.EBUSY
        assert rm.refused(ctl, rm.SYS_PARAMS, bytearray(7)) == errno.EINVAL
        assert (
            rm.refused(gpu, rm.SYS_PARAMS, bytearray(struct.pack("<Q", 128 << 20))) == errno.EINVAL
        )
    finally:
        os.close(gpu)
        os.close(ctl)


def numa_info(gpu: int) -> tuple[int, int, int, int, int]:
    """NUMA_INFO on /dev/nvidia<gpu>: nid, status, memblock_size, numa_mem_addr, numa_mem_size."""
    fd = os.open(f"/dev/nvidia{gpu}", os.O_RDWR)
    try:
        buf = bytearray(rm.numa_info_size())
        rm.ioctl(fd, rm.NUMA_INFO, buf)
        return struct.unpack_from("<iiQQQ", buf)
    finally:
        os.close(fd)


@pytest.mark.usefixtures("default_modules")
def test_numa_info_says_whether_gpu_memory_is_a_node() -> None:
    """By default no GPU's memory is a NUMA node (an H200 with 580 answered so); numa_node=N
    makes GPU i's memory node N + i, as on a coherent platform. The memory block size is the
    one SYS_PARAMS set (qgpu sets it at load)."""
    kernel = int(Path("/sys/devices/system/memory/block_size_bytes").read_text(), 16)
    assert numa_info(0) == (-1, 0, kernel, 0, 0)
    reload_modules("num_gpus=2", "numa_node=2")
    for gpu in (0, 1):
        nid, status, memblock, addr, size = numa_info(gpu)
        assert (nid, status, memblock, size) == (2 + gpu, 3, kernel, rm.fb_bytes()), gpu
        assert addr
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        assert rm.refused(ctl, rm.NUMA_INFO, bytearray(rm.numa_info_size())) == errno.EINVAL
    finally:
        os.close(ctl)
    gpu_fd = os.open("/dev/nvidia0", os.O_RDWR)
    try:
        assert rm.refused(gpu_fd, rm.NUMA_INFO, bytearray(rm.numa_info_size() - 8)) == errno.EINVAL
    finally:
        os.close(gpu_fd)


def test_unknown_escape_and_wrong_device_are_refused() -> None:
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    gpu = os.open("/dev/nvidia0", os.O_RDWR)
    try:
        assert rm.refused(ctl, 0x7F, bytearray(16)) == errno.EINVAL
        assert rm.refused(gpu, rm.RM_ALLOC, bytearray(48)) == errno.EINVAL  # ctl-only
        assert rm.refused(ctl, rm.RM_ALLOC, bytearray(40)) == errno.EINVAL  # neither NVOS21 nor 64
        assert rm.refused(ctl, rm.RM_FREE, bytearray(20)) == errno.EINVAL
    finally:
        os.close(gpu)
        os.close(ctl)


def test_xfer_rejects_bad_outer_and_inner_sizes() -> None:
    ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    try:
        assert rm.refused(ctl, rm.XFER, bytearray(24)) == errno.EINVAL
        inner = bytearray(rm.XFER_S.pack(rm.RM_ALLOC, 16385, 0))
        assert rm.refused(ctl, rm.XFER, inner) == errno.EINVAL
    finally:
        os.close(ctl)


def test_root_client_through_nvos21_and_nvos64(any_path: Rm) -> None:
    assert any_path.client & 0xFFF00000 == 0xC1D00000
    buf = bytearray(rm.NVOS21.pack(0, 0, 0, rm.ROOT_CLIENT, 0, 0, 0xFFFFFFFF))
    any_path.call(any_path.ctl, rm.RM_ALLOC, buf)
    status, handle = rm.NVOS21.unpack(buf)[6], rm.NVOS21.unpack(buf)[2]
    assert status == rm.OK
    assert handle not in (0, any_path.client)


def test_a_client_handle_in_use_is_refused_and_its_client_kept() -> None:
    """A client asked for under another client's handle is NV_ERR_INSERT_DUPLICATE_NAME, and the
    other client, its objects and its memory stay; closing its file then frees them all.
    (nvsim used to drop the other client from its table here, leaking what it held.)"""
    watcher = Rm()
    _, wsub = watcher.device()
    try:
        owner, other = Rm(), Rm()
        dev, sub = owner.device()
        assert owner.vidmem(dev, 1 << 30)[0] == rm.OK
        for r in (owner, other):
            assert r.alloc(0, 0, rm.ROOT_CLIENT, hnew=owner.client)[0] == (rm.INSERT_DUPLICATE_NAME)
        assert owner.fb_info(sub, rm.FB_TOTAL_RAM_SIZE) == [rm.fb_bytes() >> 10]
        assert owner.vidmem(dev, 1 << 30)[0] == rm.OK
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes() - (2 << 30)
        other.close()
        owner.close()
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes()
    finally:
        watcher.close()


def test_device_needs_a_gpu_file_open_in_the_process() -> None:
    r = Rm(gpu=None)
    try:
        status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
        assert status == rm.INSUFFICIENT_PERMISSIONS
        gpu = os.open("/dev/nvidia0", os.O_RDWR)
        try:
            status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
            assert status == rm.OK
        finally:
            os.close(gpu)
        status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 1))
        assert status == rm.INVALID_ARGUMENT  # no second GPU
    finally:
        r.close()


def test_object_rules(any_path: Rm) -> None:
    r = any_path
    dev, sub = r.device()
    assert r.alloc(r.client, r.client, rm.SUBDEVICE, struct.pack("<I", 0))[0] == (
        rm.INVALID_OBJECT_PARENT
    )
    assert r.alloc(r.client, 0x1234, rm.SUBDEVICE, struct.pack("<I", 0))[0] == (
        rm.INVALID_OBJECT_PARENT
    )
    assert r.alloc(r.client, dev, 0xBEEF)[0] == rm.INVALID_CLASS
    assert r.alloc(r.client, dev, rm.SUBDEVICE, struct.pack("<I", 0), hnew=sub)[0] == (
        rm.INSERT_DUPLICATE_NAME
    )
    assert r.free(sub) == rm.OK
    # a handle the client no longer has: NV_OK, nothing changes (resserv's compatibility mode;
    # an H200 answered a second free so, session 37)
    assert r.free(sub) == rm.OK


def test_a_client_is_bound_to_its_ctl_file(proc: Rm) -> None:
    dev, sub = proc.device()
    other = Rm()
    try:
        params = bytearray(rm.fb_info_v2_size())
        assert other.control(sub, rm.FB_GET_INFO_V2, params, hclient=proc.client) == (
            rm.INVALID_CLIENT
        )
        status, _ = other.alloc(proc.client, dev, rm.SUBDEVICE, struct.pack("<I", 0))
        assert status == rm.INVALID_CLIENT
        buf = bytearray(rm.NVOS00.pack(proc.client, 0, proc.client, 0))
        rm.ioctl(other.ctl, rm.RM_FREE, buf)
        assert rm.NVOS00.unpack(buf)[3] == rm.INVALID_CLIENT
    finally:
        other.close()
    assert proc.fb_info(sub, rm.FB_TOTAL_RAM_SIZE) == [rm.fb_bytes() >> 10]


def test_controls_check_params_size_and_class(proc: Rm) -> None:
    dev, sub = proc.device()
    assert proc.control(sub, rm.FB_GET_INFO_V2, bytearray(436)) == rm.INVALID_PARAM_STRUCT
    assert proc.control(dev, rm.FB_GET_INFO_V2, bytearray(1028)) == rm.NOT_SUPPORTED
    assert proc.control(sub, 0x2080FFFF, bytearray(8)) == rm.NOT_SUPPORTED
    name = bytearray(132)
    assert proc.control(sub, rm.GPU_GET_NAME_STRING, name) == rm.OK
    assert name[4:].split(b"\0")[0].decode() == rm.param("gpu_name")
    gid = bytearray(268)
    assert proc.control(sub, rm.GPU_GET_GID_INFO, gid) == rm.OK
    assert gid[12:].split(b"\0")[0].decode() == rm.param("gpu_uuid")


def test_gpu_id_maps_to_its_device_instance(proc: Rm) -> None:
    cards = bytearray(72 * 32)
    rm.ioctl(proc.ctl, rm.CARD_INFO, cards)
    gpu_id = struct.unpack_from("<I", cards, 16)[0]
    info = bytearray(struct.pack("<I28x", gpu_id))
    assert proc.control(proc.client, rm.GPU_GET_ID_INFO_V2, info) == rm.OK
    assert struct.unpack_from("<I", info, 8)[0] == 0  # deviceInstance
    bad = bytearray(struct.pack("<I28x", gpu_id + 1))
    assert proc.control(proc.client, rm.GPU_GET_ID_INFO_V2, bad) == rm.INVALID_ARGUMENT


def test_framebuffer_exact_fit_then_no_memory(any_path: Rm) -> None:
    r = any_path
    dev, sub = r.device()
    total = rm.fb_bytes()
    assert r.fb_free_bytes(sub) == total
    status, h, size = r.vidmem(dev, total - (1 << 20), rm.ATTR_PAGE_BIG)
    assert (status, size) == (rm.OK, total - (1 << 20))
    status, h2, size = r.vidmem(sub, 1 << 20)
    assert status == rm.OK
    assert r.fb_free_bytes(sub) == 0
    status, _, _ = r.vidmem(dev, 4096)
    assert status == rm.NO_MEMORY
    assert r.free(h) == rm.OK
    assert r.fb_free_bytes(sub) == total - (1 << 20)


def test_vidmem_rounding_and_rejections(proc: Rm) -> None:
    dev, sub = proc.device()
    status, _, size = proc.vidmem(dev, 1000)  # default page size: 64 KiB
    assert (status, size) == (rm.OK, 64 << 10)
    status, _, size = proc.vidmem(dev, 1000, attr=1 << 23)  # PAGE_SIZE 4KB
    assert (status, size) == (rm.OK, 4 << 10)
    assert proc.vidmem(dev, 0)[0] == rm.INVALID_ARGUMENT
    assert proc.vidmem(dev, 4096, attr=1 << 25)[0] == rm.INVALID_ARGUMENT  # LOCATION PCI
    assert proc.vidmem(dev, rm.fb_bytes() + 4096)[0] == rm.NO_MEMORY


def test_sysmem_rejections(proc: Rm) -> None:
    """0x3E is RM's system memory: placed in video memory (LOCATION VIDMEM, 0) or virtual it is
    NV_ERR_INVALID_ARGUMENT (sysmemConstruct_IMPL()), it is whole pages, and it takes no
    framebuffer."""
    dev, sub = proc.device()
    free = proc.fb_free_bytes(sub)
    assert proc.memory(rm.SYSMEM, dev, 4096)[0] == rm.INVALID_ARGUMENT
    params = bytearray(rm.MEM_PARAMS_SIZE)
    struct.pack_into("<III", params, 0, proc.client, 0, 1 << 19)  # flags VIRTUAL
    struct.pack_into("<I", params, 24, rm.ATTR_LOCATION_PCI)
    struct.pack_into("<Q", params, 64, 4096)
    assert proc.alloc(proc.client, dev, rm.SYSMEM, bytes(params))[0] == rm.INVALID_ARGUMENT
    status, _, size, _ = proc.memory(rm.SYSMEM, dev, 1000, rm.ATTR_LOCATION_PCI | 1 << 23)
    assert (status, size) == (rm.OK, 4 << 10)
    # the default page size is whole 4 KiB pages too, as RM allocated libcuda's (580, an H200)
    status, _, size, _ = proc.memory(rm.SYSMEM, dev, 6202384, rm.ATTR_LOCATION_PCI)
    assert (status, size) == (rm.OK, 6205440)
    assert proc.fb_free_bytes(sub) == free


def test_freeing_a_device_or_closing_the_file_frees_everything() -> None:
    watcher = Rm()
    _, wsub = watcher.device()
    try:
        r = Rm()
        dev, sub = r.device()
        for _ in range(3):
            assert r.vidmem(dev, 1 << 30)[0] == rm.OK
        assert r.vidmem(sub, 1 << 30)[0] == rm.OK
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes() - (4 << 30)
        assert r.free(dev) == rm.OK
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes()

        dev, _ = r.device()
        assert r.vidmem(dev, 2 << 30)[0] == rm.OK
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes() - (2 << 30)
        r.close()
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes()
    finally:
        watcher.close()


def test_a_killed_process_leaves_nothing_behind() -> None:
    watcher = Rm()
    _, wsub = watcher.device()
    try:
        pid = os.fork()
        if pid == 0:  # the child allocates and is killed before it frees anything
            r = Rm()
            dev, _ = r.device()
            r.vidmem(dev, 3 << 30)
            os.kill(os.getpid(), 9)
        os.waitpid(pid, 0)
        assert watcher.fb_free_bytes(wsub) == rm.fb_bytes()
    finally:
        watcher.close()
