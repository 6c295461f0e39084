"""The channels and channel groups an instance holds, counted and bounded (kmod/qgpu_channels.c,
DOC: channels): past ``channels_max`` an RM_ALLOC of either gets NV_ERR_NO_FREE_FIFOS, RM's own
answer when its channel ids run out, and is not forwarded; other instances are not bound by it;
the count goes down with whatever frees the objects, process death included."""

from __future__ import annotations

import errno
import os
import struct
from pathlib import Path

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
from rm import Channel, Rm


def group(r: Rm, dev: int) -> tuple[int, int]:
    """A channel group (KEPLER_CHANNEL_GROUP_A) on the graphics engine: (status, handle)."""
    return r.alloc(r.client, dev, rm.TSG, struct.pack("<IIIIB3x", 0, 0, 0, 1, 0))


def test_the_channels_knob_and_create_key() -> None:
    assert "channels" in read(gpu_dir(0) / "create_keys").split()
    with instance("chk", opts="mem=64M") as d:
        k = inst_dir("chk")
        assert (read(k / "channels_max"), count("chk", "channels")) == ("max", 0)
        assert os.stat(k / "channels_max").st_mode & 0o777 == 0o644
        assert os.stat(k / "channels").st_mode & 0o777 == 0o444
        write(k / "channels_max", "24\n")
        assert read(k / "channels_max") == "24"
        for bad in ("0", "65537", "-1", "4k", "MAX", "\n", "24 24", "0x10"):
            assert errno_of_write(k / "channels_max", bad) == errno.EINVAL, bad
            assert read(k / "channels_max") == "24"
        write(k / "channels_max", "max")
        assert read(k / "channels_max") == "max"
        a = Rm(dev=d)
        try:
            dev, sub = a.device()
            ch = Channel(a, dev, sub, schedule=False)
            assert group(a, dev)[0] == rm.OK
            assert count("chk", "channels") == 3
            assert instance_count("chk", "channels") == 3
            # below what the instance holds: refused, nothing changes; at it: taken
            assert errno_of_write(k / "channels_max", "2") == errno.EBUSY
            assert read(k / "channels_max") == "max"
            write(k / "channels_max", "3")
            assert read(k / "channels_max") == "3"
            ch.close()
        finally:
            a.close()
        wait_count("chk", "channels", 0)
    with instance("chk2", opts="mem=64M channels=7"):
        assert read(inst_dir("chk2") / "channels_max") == "7"
    for bad in ("channels=0", "channels=max channels=4", "channels=many"):
        assert errno_of_write(gpu_dir(0) / "create", f"chk3 mem=8M {bad}") == errno.EINVAL
        assert not inst_dir("chk3").exists()


def test_channels_max_bounds_its_instance_alone(seal_mode: str) -> None:
    from qgpu_netlink import next_event

    from qgpuctl.backends.netlink import QgpuEventSocket

    with instance("chb", opts="mem=64M channels=5") as d, instance("cho", opts="mem=64M") as o:
        sock = QgpuEventSocket()
        a, b = Rm(dev=d), Rm(dev=o)
        chans: list[Channel] = []
        try:
            dev, sub = a.device()
            chans.append(Channel(a, dev, sub, schedule=False))  # a group and a channel
            groups = [group(a, dev) for _ in range(3)]
            assert [s for s, _ in groups] == [rm.OK] * 3
            assert count("chb", "channels") == 5
            # past the bound: a group, and a channel in a group that exists, as RM out of ids
            assert group(a, dev)[0] == rm.NO_FREE_FIFOS
            ch = chans[0]
            params = rm.channel_params(ch.gpu_va, 256, ch.hmem, ch.USERD, ch.ctxshare)
            assert a.alloc(a.client, ch.tsg, rm.CHANNEL, params)[0] == rm.NO_FREE_FIFOS
            assert count("chb", "channels") == 5
            x = Rm(dev=d, xfer=True)  # wrapped in IOCTL_XFER_CMD: the same bound
            try:
                assert group(x, x.device()[0])[0] == rm.NO_FREE_FIFOS
            finally:
                x.close()
            ev = next_event(sock, "refused")
            assert (ev.instance, ev.gpu, ev.pid) == ("chb", 0, os.getpid())
            assert "channels_max" in ev.detail
            # the other instance makes its channels meanwhile
            devb, subb = b.device()
            chans.append(Channel(b, devb, subb, schedule=False))
            assert group(b, devb)[0] == rm.OK
            assert (count("cho", "channels"), count("chb", "channels")) == (3, 5)
            # a free gives its count back; a group's free takes its channels with it
            assert a.free(groups[0][1]) == rm.OK
            assert count("chb", "channels") == 4
            assert group(a, dev)[0] == rm.OK
            assert a.free(ch.tsg) == rm.OK
            assert count("chb", "channels") == 3
            assert a.free(dev) == rm.OK  # the device: every group under it
            assert count("chb", "channels") == 0
        finally:
            for c in chans:
                c.close()
            a.close()
            b.close()
            sock.close()
        wait_count("cho", "channels", 0)


def test_a_killed_process_gives_its_channels_back() -> None:
    with instance("chkill", opts="mem=64M channels=8") as d:

        def hold() -> None:
            t = Rm(dev=d)
            dev, sub = t.device()
            Channel(t, dev, sub)  # mapped and scheduled, as a CUDA context's are
            group(t, dev)

        with killed_after(hold):
            assert count("chkill", "channels") == 3
        wait_count("chkill", "channels", 0)


def channel(r: Rm, dev: int) -> int:
    """A channel group with one channel in it, as a CUDA stream's; the first status not OK."""
    status, tsg = group(r, dev)
    if status != rm.OK:
        return status
    status, share = r.alloc(r.client, tsg, rm.CTXSHARE, bytes(12))
    assert status == rm.OK, hex(status)
    status, hmem, _, va = r.memory(rm.VIDMEM, dev, Channel.MEM)
    assert status == rm.OK, hex(status)
    params = rm.channel_params(va, 256, hmem, Channel.USERD, share)
    return r.alloc(r.client, tsg, rm.CHANNEL, params)[0]


def test_a_bound_keeps_the_gpus_channel_ids_for_the_others() -> None:
    """Without a bound one instance takes the GPU's every channel id and the other's next channel
    fails; bounded, it stops at its bound and the other gets its channels. nvsim is given 8 ids
    (channel_ids) so that running out takes 8 channels, not a runlist's 2048."""
    ids = Path("/sys/module/nvsim/parameters/channel_ids")
    old = read(ids)
    write(ids, "8")
    try:
        # a channel here is a group's context buffers (8 MiB in nvsim), a channel, ring memory
        with instance("chg", opts="mem=128M") as d, instance("chv", opts="mem=64M") as v:
            greedy, other = Rm(dev=d), Rm(dev=v)
            try:
                odev, _ = other.device()
                dev, _ = greedy.device()
                assert [channel(greedy, dev) for _ in range(8)] == [rm.OK] * 8
                assert channel(other, odev) == rm.NO_FREE_FIFOS  # from the GPU: none left
                assert greedy.free(dev) == rm.OK
                write(inst_dir("chg") / "channels_max", "8")  # 4 groups with a channel each
                dev, _ = greedy.device()
                assert [channel(greedy, dev) for _ in range(5)] == [rm.OK] * 4 + [rm.NO_FREE_FIFOS]
                assert count("chg", "channels") == 8
                assert [channel(other, odev) for _ in range(4)] == [rm.OK] * 4
                assert count("chv", "channels") == 9  # and the group whose channel the GPU refused
            finally:
                greedy.close()
                other.close()
    finally:
        write(ids, old)


def test_a_groups_copies_hold_its_count_until_the_last_goes(seal_mode: str) -> None:
    """RM keeps a channel group, and its id, until its last copy goes: a copy in another client of
    the instance, or an export fd, keeps the count after the group's own handle is freed, and
    copies of one group count once. Counted by handle, copying a group and freeing the original
    held ids past the bound."""
    with instance("chd", opts="mem=64M channels=2") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        try:
            dev, _ = a.device()
            bdev, _ = b.device()
            status, g = a.alloc(a.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
            assert status == rm.OK, hex(status)
            status, copy = b.dup(bdev, a.client, g)
            assert status == rm.OK, hex(status)
            assert count("chd", "channels") == 1  # one group, two handles
            assert a.free(g) == rm.OK
            assert count("chd", "channels") == 1  # the copy holds it
            status, g2 = a.alloc(a.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
            assert status == rm.OK, hex(status)
            status, copy2 = b.dup(bdev, a.client, g2)
            assert status == rm.OK, hex(status)
            assert a.free(g2) == rm.OK
            assert count("chd", "channels") == 2
            assert group(a, dev)[0] == rm.NO_FREE_FIFOS  # past the bound
            assert b.free(copy) == rm.OK
            assert count("chd", "channels") == 1
            status, g3 = group(a, dev)
            assert status == rm.OK, hex(status)
            # an export fd holds a group as a copy does
            e = os.open(f"{d}/nvidiactl", os.O_RDWR)
            try:
                assert a.export_object(g3, e) == rm.OK
                assert a.free(g3) == rm.OK
                assert count("chd", "channels") == 2
            finally:
                os.close(e)
            wait_count("chd", "channels", 1)
        finally:
            a.close()
            b.close()
        wait_count("chd", "channels", 0)
