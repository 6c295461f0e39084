"""The video memory RM takes for a channel group's context buffers and a channel's instance block
is charged to the instance (kmod/qgpu_ctxbuf.c, DOC: context buffers): a graphics group what the
GPU's sizes make it, a falcon engine's group (a video or JPEG decoder, optical flow) its falcon's
buffer, a channel its 64 KiB chunk, a copy-engine group nothing; past ``mem_max`` the
RM_ALLOC fails with NV_ERR_NO_MEMORY and RM allocates nothing; the charge goes with the group's
last copy and the channel, process death included. Forwarded uncharged, a tenant could hold
8 MiB of the GPU's memory a group past its limit."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import rm
from churn import churning
from ctxbuf_digest import h200, probe
from holder import killed_after
from kernel import reload_modules
from qgpu_sysfs import count, inst_dir, instance, read, wait_count
from qgpu_sysfs import mem_current as current
from racing import two_files
from rm import Channel, Rm
from test_qgpu_memlimit import wait_current

KIB, MIB = 1 << 10, 1 << 20


def real_free() -> int:
    """nvsim's own free framebuffer, as its real device reports it."""
    r = Rm()
    try:
        return r.fb_free_bytes(r.device()[1])
    finally:
        r.close()


def test_channel_groups_and_channels_are_charged_what_rm_takes_for_them(seal_mode: str) -> None:
    with instance("cb", opts="mem=32M") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        try:
            dev, sub = a.device()
            bdev, _ = b.device()
            group = rm.gr_group_bytes(a, sub)  # the GPU's sizes, through the instance
            status, gr = a.alloc(a.client, dev, rm.TSG, rm.group_params())
            assert status == rm.OK, hex(status)
            assert current("cb") == group
            status, ce = a.alloc(a.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
            assert status == rm.OK, hex(status)
            assert current("cb") == group  # a copy engine's group reserves nothing
            ch = Channel(a, dev, sub, schedule=False)  # a group, its memory, a channel
            assert current("cb") == 2 * group + ch.MEM + rm.CTXBUF_CHANNEL
            # a copy in another client of the instance keeps the group's charge
            status, copy = b.dup(bdev, a.client, ch.tsg)
            assert status == rm.OK, hex(status)
            assert a.free(ch.channel) == rm.OK
            assert a.free(ch.tsg) == rm.OK
            assert current("cb") == 2 * group + ch.MEM
            assert b.free(copy) == rm.OK
            assert current("cb") == group + ch.MEM
            # freeing the device frees its groups, and what they held
            assert a.free(dev) == rm.OK
            assert current("cb") == 0
            ch.close()
        finally:
            a.close()
            b.close()
        assert wait_current("cb", 0) == 0


def test_a_group_past_the_limit_is_refused_and_rm_takes_nothing(seal_mode: str) -> None:
    with instance("cbl", opts="mem=32M") as d, instance("cbo", opts="mem=32M") as o:
        a, b = Rm(dev=d), Rm(dev=o)
        try:
            dev, sub = a.device()
            devb, _ = b.device()
            group = rm.gr_group_bytes(a, sub)
            status, h, _ = a.vidmem(dev, 32 * MIB - group + 64 * KIB, rm.ATTR_PAGE_BIG)
            assert status == rm.OK, hex(status)
            events, free = read(inst_dir("cbl") / "events"), real_free()
            assert a.alloc(a.client, dev, rm.TSG, rm.group_params())[0] == rm.NO_MEMORY
            assert real_free() == free  # RM reserved nothing
            assert int(read(inst_dir("cbl") / "events")) == int(events) + 1
            # a copy engine's group reserves nothing, and fits
            status, ce = a.alloc(a.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
            assert status == rm.OK, hex(status)
            assert current("cbl") == 32 * MIB - group + 64 * KIB
            # the other instance makes its groups meanwhile
            assert b.alloc(b.client, devb, rm.TSG, rm.group_params())[0] == rm.OK
            assert a.free(h) == rm.OK
            assert a.alloc(a.client, dev, rm.TSG, rm.group_params())[0] == rm.OK
            assert current("cbl") == group
        finally:
            a.close()
            b.close()
        assert wait_current("cbl", 0) == 0


def more_channels(ch: Channel, n: int, first: int = 1) -> list[int]:
    """`n` more channels in `ch`'s group, on its ring memory, each with USERD of its own."""
    made = []
    for i in range(first, first + n):
        status, h = ch.sibling(i)
        assert status == rm.OK, hex(status)
        made.append(h)
    return made


@contextmanager
def one_channel(name: str) -> Iterator[tuple[Rm, int, int, Channel]]:
    """An instance of 32 MiB whose client holds a graphics group with one channel: the client, a
    graphics group's bytes, nvsim's free framebuffer before the group, and the channel."""
    with instance(name, opts="mem=32M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            group, free = rm.gr_group_bytes(r, sub), real_free()
            ch = Channel(r, dev, sub, schedule=False)
            try:
                yield r, group, free, ch
            finally:
                ch.close()  # its mappings would keep the module in use
        finally:
            r.close()
        assert wait_current(name, 0) == 0


def test_a_groups_channel_pool_keeps_its_chunks_charged_while_it_has_a_channel(
    seal_mode: str,
) -> None:
    """A channel that goes leaves its instance block's chunk in its group's pool, for the
    group's next channel, while the group has another channel; the pool takes one more only when
    none of its chunks is free, and gives them all back when its last channel goes. Charged only
    while each channel lived, a group that once held three channels and now holds one kept
    128 KiB past the limit."""
    chunk = rm.CTXBUF_CHANNEL
    with one_channel("cbp") as (r, group, free, ch):
        assert current("cbp") == group + ch.MEM + chunk == free - real_free()
        two = more_channels(ch, 2)
        assert current("cbp") == group + ch.MEM + 3 * chunk == free - real_free()
        for h in two:
            assert r.free(h) == rm.OK
        # the pool keeps both chunks: RM holds them, and the instance is charged them
        assert current("cbp") == group + ch.MEM + 3 * chunk == free - real_free()
        # the next two channels take those chunks; a third takes one more
        three = more_channels(ch, 2)
        assert current("cbp") == group + ch.MEM + 3 * chunk == free - real_free()
        three += more_channels(ch, 1, first=3)
        assert current("cbp") == group + ch.MEM + 4 * chunk == free - real_free()
        # the last channel's going gives them all back
        for h in (*three, ch.channel):
            assert r.free(h) == rm.OK
        assert current("cbp") == group + ch.MEM == free - real_free()
        more_channels(ch, 1)  # the pool starts again
        assert current("cbp") == group + ch.MEM + chunk == free - real_free()
        assert r.free(ch.tsg) == rm.OK  # the group, and its channel
        assert current("cbp") == ch.MEM == free - real_free()


def test_a_free_chunk_of_a_groups_pool_serves_at_the_limit(seal_mode: str) -> None:
    """A channel made in a group whose pool holds a free chunk takes nothing more, at the limit
    too; one more chunk past the limit is refused and RM takes nothing."""
    chunk = rm.CTXBUF_CHANNEL
    with one_channel("cbpl") as (r, group, free0, ch):
        (h,) = more_channels(ch, 1)
        assert r.free(h) == rm.OK  # its chunk stays in the pool, charged
        status, filler, _ = r.vidmem(ch.dev, 32 * MIB - current("cbpl"), rm.ATTR_PAGE_BIG)
        assert status == rm.OK, hex(status)
        assert current("cbpl") == 32 * MIB
        events, free = int(read(inst_dir("cbpl") / "events")), real_free()
        more_channels(ch, 1)
        assert (current("cbpl"), real_free()) == (32 * MIB, free)
        assert ch.sibling(2)[0] == rm.NO_MEMORY
        assert real_free() == free  # RM reserved nothing
        assert int(read(inst_dir("cbpl") / "events")) == events + 1
        assert r.free(filler) == rm.OK
        more_channels(ch, 1, first=2)  # three channels: one more chunk, under the limit
        assert current("cbpl") == group + ch.MEM + 3 * chunk == free0 - real_free()


def test_a_channel_in_a_copy_of_a_group_joins_the_group(seal_mode: str) -> None:
    """A channel made under a copy of a group in another file's client joins the group, as in
    RM, and draws from its pool. qgpu, which had not read the copy's class, charged it as a
    channel under a device: a group's buffers more than RM took."""
    with instance("cbc", opts="mem=32M") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        try:
            dev, sub = a.device()
            bdev, _ = b.device()
            group, free = rm.gr_group_bytes(a, sub), real_free()
            status, tsg = a.alloc(a.client, dev, rm.TSG, rm.group_params())
            assert status == rm.OK, hex(status)
            status, copy = b.dup(bdev, a.client, tsg)
            assert status == rm.OK, hex(status)
            status, hmem, _, gpu_va = b.memory(rm.VIDMEM, bdev, Channel.MEM)
            assert status == rm.OK, hex(status)
            params = rm.channel_params(gpu_va, 16, hmem, Channel.USERD)
            status, chan = b.alloc(b.client, copy, rm.CHANNEL, params)
            assert status == rm.OK, hex(status)
            held = group + Channel.MEM + rm.CTXBUF_CHANNEL
            assert current("cbc") == held == free - real_free()
            assert a.free(tsg) == rm.OK  # the copy keeps the group, and its channel
            assert current("cbc") == held == free - real_free()
            assert b.free(chan) == rm.OK
            assert current("cbc") == group + Channel.MEM == free - real_free()
        finally:
            a.close()
            b.close()
        assert wait_current("cbc", 0) == 0


def test_a_killed_process_leaves_no_context_buffer_charge() -> None:
    with instance("cbk", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            group = rm.gr_group_bytes(r, r.device()[1])
        finally:
            r.close()

        def hold() -> None:
            t = Rm(dev=d)
            dev, sub = t.device()
            Channel(t, dev, sub)  # mapped and scheduled, as a CUDA context's are
            t.alloc(t.client, dev, rm.TSG, rm.group_params())

        with killed_after(hold):
            assert current("cbk") == 2 * group + Channel.MEM + rm.CTXBUF_CHANNEL
        assert wait_current("cbk", 0) == 0


def test_copies_of_groups_racing_another_files_alloc_and_free_stay_counted() -> None:
    """A copy made through one file of a channel group another file makes and frees meanwhile.

    The group's charge may not be in the mirror yet, or may have gone with a free just after RM
    made the copy. Whatever the interleaving, the instance is never charged less than the
    framebuffer RM holds for its groups, nor counts fewer groups than RM keeps."""
    handle = 0x5A5A
    with two_files("cbr", "mem=4G") as f:
        r1, r2 = f.r1, f.r2
        free0 = f.direct.fb_free_bytes(f.sub)

        def alloc_free() -> None:
            if r1.alloc(r1.client, f.dev1, rm.TSG, rm.group_params(), handle)[0] == rm.OK:
                r1.free(handle)

        copies = []
        with churning(alloc_free):
            for _ in range(300):
                status, copy = r2.dup(f.dev2, r1.client, handle)
                if status == rm.OK:
                    copies.append(copy)
        assert copies, "no copy was made"
        r1.free(handle)
        held = free0 - f.direct.fb_free_bytes(f.sub)
        groups = held // rm.gr_group_bytes(f.direct, f.sub)  # what RM keeps for the copies
        assert 0 < groups <= len(copies)
        assert current("cbr") >= held, (current("cbr"), held, len(copies))
        assert count("cbr", "channels") >= groups, (count("cbr", "channels"), groups)
        f.close_files()
        assert wait_current("cbr", 0) == 0
        wait_count("cbr", "channels", 0)


def test_an_instance_is_charged_what_an_h200_took_step_by_step(seal_mode: str) -> None:
    """scripts/ctxbuf_probe.py through an instance, where the framebuffer's free space is the
    limit less the charge: every group, channel (refused ones too) and video-memory allocation is
    charged, step by step, what an H200 took for it, and nothing once the probe has exited."""
    with instance("cbh", opts="mem=1G") as d:
        assert probe(d) == h200()
        assert wait_current("cbh", 0) == 0
        wait_count("cbh", "channels", 0)


FALCON_ENGINES = (rm.ENGINE_NVDEC1, rm.ENGINE_NVJPEG0, rm.ENGINE_OFA0, rm.ENGINE_SEC2)


def test_falcon_engine_groups_are_charged_their_falcons_buffer(seal_mode: str) -> None:
    with instance("cbf", opts="mem=32M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            free, charged, groups = real_free(), 0, []
            for engine in FALCON_ENGINES:
                status, h = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
                assert status == rm.OK, hex(status)
                groups.append(h)
                charged += rm.falcon_group_bytes(r, sub, engine)  # the GPU's list, through qgpu
                assert current("cbf") == charged, hex(engine)
                assert real_free() == free - charged  # what RM took
            assert charged == 4 * 64 * KIB  # the H200's: a 64 KiB chunk each
            # an engine the GPU lists no falcon for reserves nothing
            for engine in (rm.ENGINE_NVENC0, rm.ENGINE_NVDEC0):
                status, h = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
                assert status == rm.OK, hex(status)
                groups.append(h)
                assert current("cbf") == charged
                assert real_free() == free - charged
            for h in groups:
                assert r.free(h) == rm.OK
            assert current("cbf") == 0
            assert count("cbf", "channels") == 0
        finally:
            r.close()
        assert wait_current("cbf", 0) == 0


def test_a_falcon_group_past_the_limit_is_refused_and_rm_takes_nothing(seal_mode: str) -> None:
    """Uncharged, a tenant made video decoders' groups in a loop, each holding a 64 KiB chunk of
    the GPU's memory past its limit."""
    with instance("cbfl", opts="mem=32M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            status, h, _ = r.vidmem(dev, 32 * MIB - 128 * KIB, rm.ATTR_PAGE_BIG)
            assert status == rm.OK, hex(status)
            # a video decoder's and a JPEG decoder's 64 KiB fit; the third group does not
            for engine in (rm.ENGINE_NVDEC1, rm.ENGINE_NVJPEG0):
                status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
                assert status == rm.OK, hex(status)
            events, free = int(read(inst_dir("cbfl") / "events")), real_free()
            status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_NVDEC1))
            assert status == rm.NO_MEMORY, hex(status)
            assert real_free() == free  # RM reserved nothing
            assert int(read(inst_dir("cbfl") / "events")) == events + 1
            assert current("cbfl") == 32 * MIB
            assert r.free(h) == rm.OK
        finally:
            r.close()
        assert wait_current("cbfl", 0) == 0


@pytest.mark.usefixtures("default_modules")
def test_before_550_a_falcon_group_is_charged_the_least_it_takes() -> None:
    """535-545 reserve a falcon's buffer but do not list the falcons to a client: qgpu charges
    each such group one 64 KiB chunk, the least it can take."""
    reload_modules("abi_version=545.29.06")
    with instance("cbf5", opts="mem=32M") as d:
        r = Rm(dev=d)
        try:
            dev, _ = r.device()
            for engine, charged in ((rm.ENGINE_NVJPEG0, 64 * KIB), (rm.ENGINE_NVDEC1, 128 * KIB)):
                status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
                assert status == rm.OK, hex(status)
                assert current("cbf5") == charged
        finally:
            r.close()
        assert wait_current("cbf5", 0) == 0


@pytest.mark.usefixtures("default_modules")
def test_on_a_turing_groups_and_channels_are_counted_but_not_charged() -> None:
    """A Turing takes their buffers from RM's reserved heap, not from the memory the instances
    share (nvrm_ctxbuf_pools_on()): charging them would refuse a tenant memory it could have."""
    reload_modules("architecture=0x160")
    with instance("cbt", opts="mem=32M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            free = real_free()
            for engine in (rm.ENGINE_GRAPHICS, rm.ENGINE_NVDEC0):
                status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
                assert status == rm.OK, hex(status)
            ch = Channel(r, dev, sub, schedule=False)
            try:
                assert current("cbt") == ch.MEM == free - real_free()
                assert count("cbt", "channels") == 4  # two groups, the channel and its group
            finally:
                ch.close()  # its mappings would keep the module in use
        finally:
            r.close()
        assert wait_current("cbt", 0) == 0
