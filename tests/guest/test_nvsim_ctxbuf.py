"""nvsim's context buffers (kmod/nvsim/nvsim_fifo.c, DOC: context buffers): from 535 a channel
group of the graphics engine takes its context buffers, and every channel its instance block's
pool chunk, from the framebuffer that memory allocations are served from, until the group's last
copy and the channel go; a copy-engine group takes none, and a falcon engine's group (a video or
JPEG decoder, optical flow) its falcon's context buffer (kmod/nvsim/nvsim_falcon.c). The sizes come
from GR_GET_ENGINE_CONTEXT_PROPERTIES and, from 550, GPU_GET_CONSTRUCTED_FALCON_INFO, as in RM. A
Turing (the ``architecture`` parameter) takes them from RM's reserved heap, not the framebuffer."""

from __future__ import annotations

import struct

import pytest
import rm
from kernel import reload_modules
from rm import Rm

KIB, MIB = 1 << 10, 1 << 20


def test_the_gpu_reports_its_context_buffer_sizes() -> None:
    r = Rm()
    try:
        _, sub = r.device()
        sizes = [rm.gr_ctx_size(r, sub, i) for i in (rm.GR_CTX_MAIN, rm.GR_CTX_PATCH, rm.GR_CTX_PM)]
        assert [s for s, _ in sizes] == [rm.OK] * 3
        assert all(size > 0 for _, size in sizes)
        assert rm.gr_ctx_size(r, sub, 0x0C)[0] == rm.NOT_SUPPORTED  # a buffer nvsim lacks (SPILL)
        assert rm.gr_ctx_size(r, sub, 0x1F)[0] == rm.INVALID_ARGUMENT  # past the ids' count
        # bInfoPopulated: the caller's size is a floor
        params = bytearray(struct.pack("<IIQIIIB3x", 0, 0, 0, rm.GR_CTX_MAIN, 0, 1 << 30, 1))
        assert r.control(sub, rm.GR_GET_ENGINE_CONTEXT_PROPERTIES, params) == rm.OK
        assert struct.unpack_from("<II", params, 20) == (4096, 1 << 30)
        # 8 MiB and 64 KiB a graphics group: a 4 MiB chunk each for main and PM, 64 KiB for patch
        assert rm.gr_group_bytes(r, sub) == 8 * MIB + 64 * KIB
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
        # an H100's: seven video decoders, seven JPEG decoders, one optical flow engine
        decoders = [rm.falcon_engdesc(rm.ENGINE_NVDEC0, i) for i in range(7)]
        jpeg = [rm.falcon_engdesc(rm.ENGINE_NVJPEG0, i) for i in range(7)]
        assert sorted(falcons) == sorted([*decoders, *jpeg, rm.falcon_engdesc(rm.ENGINE_OFA0)])
        assert all(size > 0 for size in falcons.values())
        assert rm.falcon_engdesc(rm.ENGINE_NVENC0) not in falcons  # no encoder
    finally:
        r.close()


def test_falcon_engine_groups_take_their_falcons_context_buffer() -> None:
    r = Rm()
    try:
        dev, sub = r.device()
        free = r.fb_free_bytes(sub)
        taken = 0
        groups = []
        for engine in (rm.ENGINE_NVDEC0, rm.ENGINE_NVJPEG0, rm.ENGINE_OFA0, rm.ENGINE_SEC2):
            status, h = r.alloc(r.client, dev, rm.TSG, rm.group_params(engine))
            assert status == rm.OK, hex(status)
            groups.append(h)
            taken += rm.falcon_group_bytes(r, sub, engine)
            assert r.fb_free_bytes(sub) == free - taken, hex(engine)
        # a decoder's takes a 256 KiB chunk, a JPEG decoder's 64 KiB, SEC2's kernel RM's 64 KiB
        assert taken == 256 * KIB + 64 * KIB + 256 * KIB + 64 * KIB
        status, enc = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_NVENC0))
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == free - taken  # an engine the GPU lists no falcon for
        for h in [*groups, enc]:
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
        status, _ = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_NVDEC0))
        assert status == rm.OK, hex(status)
        assert r.fb_free_bytes(sub) == free - 256 * KIB
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
