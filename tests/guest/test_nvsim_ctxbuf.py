"""nvsim's context buffers (kmod/nvsim/nvsim_fifo.c, DOC: context buffers): from 535 a channel
group of the graphics engine takes its context buffers, and every channel its instance block's
pool chunk, from the framebuffer that memory allocations are served from, until the group's last
copy and the channel go; a copy-engine group takes none, and a falcon engine's group (a video or
JPEG decoder, optical flow) its falcon's context buffer (kmod/nvsim/nvsim_falcon.c). The sizes come
from GR_GET_ENGINE_CONTEXT_PROPERTIES and, from 550, GPU_GET_CONSTRUCTED_FALCON_INFO, as in RM. A
Turing (the ``architecture`` parameter) takes them from RM's reserved heap, not the framebuffer.

The sizes, the falcon list and what each step takes are an NVIDIA H200's (GSP firmware 580.159.04):
scripts/ctxbuf_probe.py run here gives the digest it gave there."""

from __future__ import annotations

import struct

import pytest
import rm
from ctxbuf_digest import h200, probe
from kernel import reload_modules
from rm import Rm

KIB, MIB = 1 << 10, 1 << 20


def test_nvsim_takes_what_an_h200_took_step_by_step() -> None:
    """The probe's every line: the architecture, the falcon list, each GR buffer's status, size
    and alignment, what each allocation and free of groups, channels (of the wrong engine, past
    128) and video memory took, and a group's timeslice."""
    assert probe() == h200()


def test_the_gpu_reports_its_context_buffer_sizes() -> None:
    r = Rm()
    try:
        _, sub = r.device()
        sizes = [rm.gr_ctx_size(r, sub, i) for i in (rm.GR_CTX_MAIN, rm.GR_CTX_PATCH, rm.GR_CTX_PM)]
        assert [s for s, _ in sizes] == [rm.OK] * 3
        assert all(size > 0 for _, size in sizes)
        assert rm.gr_ctx_size(r, sub, 0x01)[0] == rm.NOT_SUPPORTED  # a buffer the H200 lacks
        assert rm.gr_ctx_size(r, sub, 0x1F)[0] == rm.INVALID_ARGUMENT  # past the ids' count
        # bInfoPopulated: the caller's size is a floor
        params = bytearray(struct.pack("<IIQIIIB3x", 0, 0, 0, rm.GR_CTX_MAIN, 0, 1 << 30, 1))
        assert r.control(sub, rm.GR_GET_ENGINE_CONTEXT_PROPERTIES, params) == rm.OK
        assert struct.unpack_from("<II", params, 20) == (4096, 1 << 30)
        # 4416 KiB a graphics group: a 4 MiB chunk for main, 256 KiB for PM, 64 KiB for patch
        assert rm.gr_group_bytes(r, sub) == 4 * MIB + 256 * KIB + 64 * KIB
    finally:
        r.close()


def test_groups_and_channels_take_framebuffer_until_they_go() -> None:
    r, other = Rm(), Rm()
    try:
        dev, sub = r.device()
        odev, _ = other.device()
        group = rm.gr_group_bytes(r, sub)
        free = r.fb_free_bytes(sub)
        status, gr = r.alloc(r.client, dev, rm.TSG, rm.group_params())
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == free - group
        status, ce = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == free - group  # a copy engine's group reserves nothing
        ch = rm.Channel(r, dev, sub, schedule=False)  # a group, 128 KiB of memory, a channel
        assert r.fb_free_bytes(sub) == free - 2 * group - ch.MEM - rm.CTXBUF_CHANNEL
        # a copy in another client keeps the group's buffers; its channel's go with the channel
        status, copy = other.dup(odev, r.client, ch.tsg)
        assert status == rm.OK, hex(status)
        assert r.free(ch.channel) == rm.OK
        assert r.free(ch.tsg) == rm.OK
        assert r.fb_free_bytes(sub) == free - 2 * group - ch.MEM
        assert other.free(copy) == rm.OK
        assert r.fb_free_bytes(sub) == free - group - ch.MEM
        assert (r.free(gr), r.free(ce)) == (rm.OK, rm.OK)
        ch.close()
        assert r.free(ch.hmem) == rm.OK
        assert r.fb_free_bytes(sub) == free
    finally:
        r.close()
        other.close()


def test_a_groups_channel_pool_keeps_chunks_while_it_has_a_channel() -> None:
    """A channel's chunk stays in its group's pool when the channel goes, and serves the group's
    next channel; the pool gives its chunks back when the last channel goes (ctxBufPoolRelease()).
    test_nvsim_uvm_channel.py has a channel UVM keeps."""
    chunk = rm.CTXBUF_CHANNEL
    r = Rm()
    try:
        dev, sub = r.device()
        group = rm.gr_group_bytes(r, sub)
        free = r.fb_free_bytes(sub)
        ch = rm.Channel(r, dev, sub, schedule=False)
        base = free - group - ch.MEM
        chans = []
        for i in (1, 2):
            status, h = ch.sibling(i)
            assert status == rm.OK, hex(status)
            chans.append(h)
        assert r.fb_free_bytes(sub) == base - 3 * chunk
        assert r.free(chans.pop()) == rm.OK
        assert r.fb_free_bytes(sub) == base - 3 * chunk  # kept in the pool
        status, again = ch.sibling(3)
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == base - 3 * chunk  # served from the pool
        for h in (again, *chans, ch.channel):
            assert r.free(h) == rm.OK
        assert r.fb_free_bytes(sub) == base  # the last channel went: all given back
        assert r.free(ch.tsg) == rm.OK
        ch.close()
        assert r.free(ch.hmem) == rm.OK
        assert r.fb_free_bytes(sub) == free
    finally:
        r.close()


def test_a_channel_refused_after_its_reservation_leaves_its_chunk_in_the_pool() -> None:
    """kchannelConstruct_IMPL() (580.142) reserves the channel's instance block in its group's
    pool before it checks the subcontext, the engine, the 128 channels and (through GSP) the ring
    and USERD: a refusal of any of these leaves the chunk in the pool while the group has another
    channel (an H200 kept it for the engine and the 129th, session 34), and a later channel is
    served from it. A channel naming hVASpace in a group is refused before, taking nothing."""
    chunk = rm.CTXBUF_CHANNEL
    r = Rm()
    try:
        dev, sub = r.device()
        ch = rm.Channel(r, dev, sub, schedule=False)  # its subcontext named, so all must name one
        base = r.fb_free_bytes(sub)

        def params(userd: int = ch.USERD + 512, **kw: int) -> bytes:
            kw.setdefault("ctxshare", ch.ctxshare)
            return rm.channel_params(ch.gpu_va, 16, ch.hmem, userd, engine=0, **kw)

        bad_ring = bytearray(params())
        bad_ring[16:20] = (3).to_bytes(4, "little")  # gpFifoEntries: not a power of two
        named_vaspace = bytearray(params(ctxshare=0))
        named_vaspace[28:32] = ch.ctxshare.to_bytes(4, "little")  # hVASpace, in a group
        for refused, want in (
            (bytes(bad_ring), rm.INVALID_ARGUMENT),
            (params(ctxshare=0xBAD), rm.OBJECT_NOT_FOUND),
            (params(ctxshare=ch.hmem), rm.INVALID_OBJECT_HANDLE),
            (params(ctxshare=0), rm.INVALID_ARGUMENT),  # none, where the group's name one
            (params(userd=ch.USERD + 4), rm.INVALID_ARGUMENT),
        ):
            assert r.alloc(r.client, ch.tsg, rm.CHANNEL, refused)[0] == want
            assert r.fb_free_bytes(sub) == base - chunk, hex(want)  # the one chunk, kept
        assert r.alloc(r.client, ch.tsg, rm.CHANNEL, bytes(named_vaspace))[0] == (
            rm.INVALID_ARGUMENT
        )
        status, other = r.alloc(r.client, dev, rm.TSG, rm.group_params())
        assert status == rm.OK, hex(status)
        status, cs = r.alloc(r.client, other, rm.CTXSHARE, rm.ctxshare_params())
        assert status == rm.OK, hex(status)
        assert r.alloc(r.client, ch.tsg, rm.CHANNEL, params(ctxshare=cs))[0] == (
            rm.INVALID_OBJECT_PARENT  # another group's
        )
        assert r.fb_free_bytes(sub) == base - chunk - rm.gr_group_bytes(r, sub)
        status, good = r.alloc(r.client, ch.tsg, rm.CHANNEL, params())
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == base - chunk - rm.gr_group_bytes(r, sub)  # from the pool
        assert r.free(other) == rm.OK
        for h in (good, ch.channel):
            assert r.free(h) == rm.OK
        assert r.fb_free_bytes(sub) == base + chunk  # the pool's two chunks went with the last
        ch.close()
    finally:
        r.close()


def test_a_group_the_framebuffer_cannot_hold_is_refused() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        group = rm.gr_group_bytes(r, sub)
        free = r.fb_free_bytes(sub)
        status, h, _ = r.vidmem(dev, free - group + 64 * KIB, rm.ATTR_PAGE_BIG)
        assert status == rm.OK, hex(status)
        assert r.alloc(r.client, dev, rm.TSG, rm.group_params())[0] == rm.NO_MEMORY
        assert r.fb_free_bytes(sub) == group - 64 * KIB  # nothing taken
        status, ce = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
        assert status == rm.OK, hex(status)
        assert r.free(h) == rm.OK
        assert r.fb_free_bytes(sub) == free
    finally:
        r.close()


def test_the_gpu_lists_its_falcon_engines() -> None:
    r = Rm()
    try:
        _, sub = r.device()
        status, falcons = rm.constructed_falcons(r, sub)
        assert status == rm.OK, hex(status)
        assert len(falcons) == 35
        # the H200's whole list, each falcon's attributes, address spaces and register base too
        params = bytearray(4 + rm.CONSTRUCTED_FALCONS_MAX * 20)
        assert r.control(sub, rm.GPU_GET_CONSTRUCTED_FALCON_INFO, params) == rm.OK
        got = [
            "falcon " + " ".join(f"{x:x}" for x in struct.unpack_from("<5I", params, 4 + 20 * i))
            for i in range(struct.unpack_from("<I", params, 0)[0])
        ]
        assert got == h200("falcon")
        # seven video decoders (1-7), seven JPEG decoders (0, 2-7), optical flow, no encoder
        decoders = [rm.falcon_engdesc(rm.ENGINE_NVDEC0, i) for i in range(1, 8)]
        jpeg = [rm.falcon_engdesc(rm.ENGINE_NVJPEG0, i) for i in (0, 2, 3, 4, 5, 6, 7)]
        assert set(decoders + jpeg + [rm.falcon_engdesc(rm.ENGINE_OFA0)]) <= set(falcons)
        assert rm.falcon_engdesc(rm.ENGINE_NVDEC0) not in falcons
        assert rm.falcon_engdesc(rm.ENGINE_NVENC0) not in falcons
    finally:
        r.close()


def test_falcon_engine_groups_take_their_falcons_context_buffer() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        free = r.fb_free_bytes(sub)
        taken = 0
        groups = []
        for engine in (rm.ENGINE_NVDEC1, rm.ENGINE_NVJPEG0, rm.ENGINE_OFA0, rm.ENGINE_SEC2):
            status, h = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
            assert status == rm.OK, hex(status)
            groups.append(h)
            taken += rm.falcon_group_bytes(r, sub, engine)
            assert r.fb_free_bytes(sub) == free - taken, hex(engine)
        # each falcon's 4 KiB buffer takes a 64 KiB chunk, SEC2's 64 KiB one chunk
        assert taken == 4 * 64 * KIB
        for engine in (rm.ENGINE_NVENC0, rm.ENGINE_NVDEC0):  # engines the GPU lists no falcon for
            status, h = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
            assert status == rm.OK, hex(status)
            groups.append(h)
            assert r.fb_free_bytes(sub) == free - taken
        for h in groups:
            assert r.free(h) == rm.OK
        assert r.fb_free_bytes(sub) == free
    finally:
        r.close()


@pytest.mark.usefixtures("default_modules")
def test_before_550_the_falcons_are_not_listed_but_their_groups_still_take_buffers() -> None:
    """GET_CONSTRUCTED_FALCON_INFO is public from 550.40.07; 535-545 reserve the buffer all the
    same (kchangrpapiConstruct_IMPL(), 535.43.02)."""
    reload_modules("abi_version=545.29.06")
    r = Rm()
    try:
        dev, sub = r.device()
        assert rm.constructed_falcons(r, sub)[0] == rm.NOT_SUPPORTED
        free = r.fb_free_bytes(sub)
        status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_NVDEC1))
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == free - 64 * KIB
    finally:
        r.close()


@pytest.mark.usefixtures("default_modules")
def test_a_turing_takes_nothing_from_the_framebuffer_for_groups_and_channels() -> None:
    """gpuIsCtxBufAllocInPmaSupported() is false for every Turing chip (535-595)."""
    r = Rm()
    try:
        assert rm.architecture(r, r.device()[1]) == (rm.OK, rm.ARCH_GH100)
    finally:
        r.close()
    reload_modules("architecture=0x160")
    r = Rm()
    try:
        dev, sub = r.device()
        assert rm.architecture(r, sub) == (rm.OK, rm.ARCH_TU100)
        free = r.fb_free_bytes(sub)
        for engine in (rm.ENGINE_GRAPHICS, rm.ENGINE_NVDEC0):
            status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
            assert status == rm.OK, hex(status)
        ch = rm.Channel(r, dev, sub, schedule=False)  # a group, 128 KiB of memory, a channel
        try:
            assert r.fb_free_bytes(sub) == free - ch.MEM
        finally:
            ch.close()  # its mappings would keep the module in use
    finally:
        r.close()
