"""qgpu isolation: a tenant reaches no other instance and no real node; kill -9 is clean."""

from __future__ import annotations

import errno
import os
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from qgpu_sysfs import instance, instances, remove
from rm import Channel, Rm


@pytest.fixture
def two() -> Iterator[tuple[str, str]]:
    # Two limits that fill the GPU exactly (no overcommit).
    half = f"mem={int(rm.param('fb_mib')) // 2}M"
    with instance("iso-a", opts=half) as a, instance("iso-b", opts=half) as b:
        yield a, b


def register(gpu_fd: int, ctl_fd: int) -> int:
    try:
        rm.ioctl(gpu_fd, rm.REGISTER_FD, bytearray(struct.pack("<i", ctl_fd)))
    except OSError as e:
        return e.errno
    return 0


def test_handles_of_one_instance_are_unusable_through_another(two: tuple[str, str]) -> None:
    a, b = two
    ra = Rm(dev=a)
    rb = Rm(dev=b)
    try:
        dev, sub = ra.device()
        params = bytearray(rm.fb_info_v2_size())
        assert rb.control(sub, rm.FB_GET_INFO_V2, params, hclient=ra.client) == rm.INVALID_CLIENT
        status, _ = rb.alloc(ra.client, dev, rm.SUBDEVICE, struct.pack("<I", 0))
        assert status == rm.INVALID_CLIENT
        buf = bytearray(rm.NVOS00.pack(ra.client, 0, ra.client, 0))
        rm.ioctl(rb.ctl, rm.RM_FREE, buf)
        assert rm.NVOS00.unpack(buf)[3] == rm.INVALID_CLIENT
        # a client of its own under the other's handle: refused, and the other's stays
        assert rb.alloc(0, 0, rm.ROOT_CLIENT, hnew=ra.client)[0] == rm.INSERT_DUPLICATE_NAME
        status, h, _ = ra.vidmem(dev, 1 << 20)
        assert status == rm.OK, hex(status)
        assert ra.free(h) == rm.OK
        assert ra.fb_info(sub, rm.FB_TOTAL_RAM_SIZE) == [rm.fb_bytes() // 2 >> 10]
    finally:
        rb.close()
        ra.close()


def chan_enabled(ch: Channel) -> int:
    """Whether nvsim's engine may schedule the channel (its engine file, the ground truth)."""
    for line in Path("/proc/driver/nvsim/gpu0/engine").read_text().splitlines():
        words = line.split()
        fields = dict(zip(words[::2], words[1::2], strict=True))
        if words[0] == "chan" and int(fields["chan"], 0) == ch.token:
            return int(fields["enabled"], 0)
    raise AssertionError(f"channel {ch.token} not in the engine file")


def test_fifo_disable_channels_reaches_only_the_tenants_own_clients(two: tuple[str, str]) -> None:
    a, b = two
    ra, rb, host = Rm(dev=a), Rm(dev=b), Rm()
    made: list[Channel] = []
    try:
        da, sa = ra.device()
        db, sb = rb.device()
        cha = Channel(ra, da, sa)
        made.append(cha)
        chb = Channel(rb, db, sb)
        made.append(chb)
        _, hsub = host.device()
        # RM takes any client's channels (measured on GSP 580): what a tenant must not reach.
        off = rm.disable_channels_params([(rb.client, chb.channel)])
        on = rm.disable_channels_params([(rb.client, chb.channel)], disable=False)
        assert host.control(hsub, rm.FIFO_DISABLE_CHANNELS, off) == rm.OK
        assert chan_enabled(chb) == 0
        assert host.control(hsub, rm.FIFO_DISABLE_CHANNELS, on) == rm.OK
        assert chan_enabled(chb) == 1
        # Through instance a, b's channel is out of reach, alone or among a's own.
        assert ra.control(sa, rm.FIFO_DISABLE_CHANNELS, off) == rm.INVALID_CLIENT
        both = [(ra.client, cha.channel), (rb.client, chb.channel)]
        assert (
            ra.control(sa, rm.FIFO_DISABLE_CHANNELS, rm.disable_channels_params(both))
            == rm.INVALID_CLIENT
        )
        assert (chan_enabled(cha), chan_enabled(chb)) == (1, 1), "a refused list changes nothing"
        # A kernel caller's preempt event is refused as RM refuses it to user callers.
        own = rm.disable_channels_params([(ra.client, cha.channel)])
        event = bytearray(own)
        struct.pack_into("<Q", event, 16, 0xFFFF888000000000)
        assert ra.control(sa, rm.FIFO_DISABLE_CHANNELS, event) == rm.INSUFFICIENT_PERMISSIONS
        assert ra.control(cha.tsg, rm.FIFO_DISABLE_CHANNELS, own) == rm.INVALID_OBJECT_HANDLE
        assert chan_enabled(cha) == 1
        # Its own channels a tenant disables and enables as before, XFER-wrapped too.
        assert ra.control(sa, rm.FIFO_DISABLE_CHANNELS, own) == rm.OK
        assert chan_enabled(cha) == 0
        xa = Rm(dev=a, xfer=True)
        try:
            _, xsub = xa.device()
            assert xa.control(xsub, rm.FIFO_DISABLE_CHANNELS, off) == rm.INVALID_CLIENT
        finally:
            xa.close()
        assert chan_enabled(chb) == 1
        own_on = rm.disable_channels_params([(ra.client, cha.channel)], disable=False)
        assert ra.control(sa, rm.FIFO_DISABLE_CHANNELS, own_on) == rm.OK
        assert chan_enabled(cha) == 1
    finally:
        for ch in made:
            ch.close()
        for r in (host, rb, ra):
            r.close()


def test_register_fd_only_takes_the_instances_own_ctl(two: tuple[str, str]) -> None:
    a, b = two
    ctl_a = os.open(f"{a}/nvidiactl", os.O_RDWR)
    ctl_b = os.open(f"{b}/nvidiactl", os.O_RDWR)
    real_ctl = os.open("/dev/nvidiactl", os.O_RDWR)
    gpu_a = os.open(f"{a}/nvidia0", os.O_RDWR)
    null = os.open("/dev/null", os.O_RDWR)
    try:
        assert register(gpu_a, real_ctl) == errno.EINVAL
        assert register(gpu_a, ctl_b) == errno.EINVAL
        assert register(gpu_a, null) == errno.EINVAL
        assert register(gpu_a, 9999) == errno.EINVAL
        assert register(gpu_a, ctl_a) == 0
        assert register(gpu_a, ctl_a) == errno.EINVAL  # once, as with the driver
    finally:
        for fd in (null, gpu_a, real_ctl, ctl_b, ctl_a):
            os.close(fd)


def test_xfer_register_fd_is_translated_too(two: tuple[str, str]) -> None:
    a, b = two
    ctl_a = os.open(f"{a}/nvidiactl", os.O_RDWR)
    ctl_b = os.open(f"{b}/nvidiactl", os.O_RDWR)
    gpu_a = os.open(f"{a}/nvidia0", os.O_RDWR)
    try:
        with pytest.raises(OSError) as exc:
            rm.ioctl_xfer(gpu_a, rm.REGISTER_FD, bytearray(struct.pack("<i", ctl_b)))
        assert exc.value.errno == errno.EINVAL
        buf = bytearray(struct.pack("<i", ctl_a))
        rm.ioctl_xfer(gpu_a, rm.REGISTER_FD, buf)
        assert struct.unpack("<i", buf)[0] == ctl_a  # the caller's own number comes back
    finally:
        for fd in (gpu_a, ctl_b, ctl_a):
            os.close(fd)


def test_map_memory_with_a_foreign_fd_never_reaches_the_driver(two: tuple[str, str]) -> None:
    a, b = two
    ra = Rm(dev=a)
    gpu_b = os.open(f"{b}/nvidia0", os.O_RDWR)
    real_gpu = os.open("/dev/nvidia0", os.O_RDWR)
    try:
        for fd in (gpu_b, real_gpu):
            params = bytearray(56)
            struct.pack_into("<III", params, 0, ra.client, 0, 0)
            struct.pack_into("<I", params, 40, 0xFFFFFFFF)
            struct.pack_into("<i", params, 48, fd)
            rm.ioctl(ra.ctl, 0x4E, params)  # RM_MAP_MEMORY
            assert struct.unpack_from("<I", params, 40)[0] == rm.INVALID_ARGUMENT
    finally:
        os.close(real_gpu)
        os.close(gpu_b)
        ra.close()


def test_another_instances_gpu_file_does_not_count(two: tuple[str, str]) -> None:
    a, b = two
    r = Rm(gpu=None, dev=a)
    gpu_b = os.open(f"{b}/nvidia0", os.O_RDWR)
    try:
        status, _ = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
        assert status == rm.INSUFFICIENT_PERMISSIONS
    finally:
        os.close(gpu_b)
        r.close()


def test_a_killed_tenant_leaves_nothing_behind() -> None:
    watcher = Rm()
    _, wsub = watcher.device()
    try:
        with instance("victim") as d:
            rfd, wfd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child allocates through the instance and is killed holding it
                os.close(rfd)
                r = Rm(dev=d)
                dev, _ = r.device()
                r.vidmem(dev, 3 << 30)
                uvm = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
                os.write(wfd, struct.pack("<i", uvm))
                os.kill(os.getpid(), 9)
            os.close(wfd)
            os.read(rfd, 4)
            os.close(rfd)
            os.waitpid(pid, 0)
            # The registered GPU file held the real ctl file a moment longer than the proxy:
            # qgpu lets RM's clients go when the last holder does (qgpu_rmtrack.c).
            deadline = time.monotonic() + 5
            while watcher.fb_free_bytes(wsub) != rm.fb_bytes() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert watcher.fb_free_bytes(wsub) == rm.fb_bytes()
            remove("victim")  # not busy any more
        assert instances() == []
    finally:
        watcher.close()
