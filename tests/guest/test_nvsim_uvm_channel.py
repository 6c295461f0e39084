"""nvsim's UVM_REGISTER_CHANNEL and UVM_UNREGISTER_CHANNEL (kmod/nvsim/nvsim_uvm_channel.c),
checked against the facts in kmod/nvrm/nvrm_uvm.h: the statuses in the real driver's order, and
that a registration holds the channel's group (its context buffers), its id and its instance
block after the tenant frees them, until UVM lets go."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import rm
from kernel import reload_modules
from rm import Channel, Rm, UvmSpace

GIB = 1 << 30


@pytest.fixture
def space() -> Iterator[tuple[Rm, int, int, UvmSpace]]:
    r = Rm()
    dev, sub = r.device()
    s = UvmSpace(r, dev)
    yield r, dev, sub, s
    s.close()
    r.close()


def register(s: UvmSpace, r: Rm, hchannel: int, **kw: int) -> int:
    return rm.uvm_register_channel(s.fd, s.uuid, r.client, hchannel, **kw)


def unregister(s: UvmSpace, r: Rm, hchannel: int) -> int:
    return rm.uvm_unregister_channel(s.fd, s.uuid, r.client, hchannel)


def test_register_channel_checks_in_the_real_order(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    r, dev, sub, s = space
    gr = Channel(r, dev, sub, schedule=False)
    status, ce_group = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0))
    assert status == rm.OK, hex(status)
    status, ce = r.alloc(
        r.client,
        ce_group,
        rm.CHANNEL,
        rm.channel_params(gr.gpu_va + 0x8000, 16, gr.hmem, 0x1000, engine=0),
    )
    assert status == rm.OK, hex(status)
    assert rm.uvm_register_channel(s.fd, bytes(16), r.client, gr.channel) == rm.INVALID_DEVICE
    assert rm.uvm_register_channel(s.fd, s.uuid, 0xC1D0BAD0, gr.channel) == rm.INVALID_CLIENT
    assert register(s, r, 0xBAD) == rm.INVALID_OBJECT_HANDLE
    assert register(s, r, gr.tsg) == rm.INVALID_OBJECT_HANDLE  # a group is not a channel
    # a graphics channel has context buffers to map: a span UVM can place them in
    assert register(s, r, gr.channel, base=0) == rm.INVALID_ADDRESS
    assert register(s, r, gr.channel, base=rm.CHANNEL_VA + 1) == rm.INVALID_ADDRESS
    assert register(s, r, gr.channel, length=0) == rm.INVALID_ADDRESS
    assert register(s, r, gr.channel, base=(1 << 57) - GIB // 2) == rm.OUT_OF_RANGE
    assert register(s, r, gr.channel) == rm.OK
    assert register(s, r, gr.channel) == rm.INVALID_CHANNEL  # the pair is registered
    # a copy engine's channel has none: the span is not looked at
    assert register(s, r, ce, base=0, length=0) == rm.OK
    assert unregister(s, r, 0xBAD) == rm.INVALID_CHANNEL
    assert unregister(s, r, gr.channel) == rm.OK
    assert unregister(s, r, gr.channel) == rm.INVALID_CHANNEL
    assert register(s, r, gr.channel) == rm.OK  # again, once unregistered
    gr.close()


def test_a_registered_channel_holds_its_group_and_block_after_the_tenants_free(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    """RM_FREE of the channel and its group succeeds; what RM's pools took for them stays taken
    until UVM_UNREGISTER_CHANNEL, which still finds the pair after the handles are gone."""
    r, dev, sub, s = space
    free0 = r.fb_free_bytes(sub)
    group = rm.gr_group_bytes(r, sub)
    ch = Channel(r, dev, sub, schedule=False)
    assert register(s, r, ch.channel) == rm.OK
    assert r.free(ch.channel) == rm.OK
    assert r.free(ch.tsg) == rm.OK
    assert r.free(ch.hmem) == rm.OK
    assert free0 - r.fb_free_bytes(sub) == group + rm.CTXBUF_CHANNEL
    assert unregister(s, r, ch.channel) == rm.OK
    assert r.fb_free_bytes(sub) == free0
    ch.close()


def test_a_kept_channel_holds_its_groups_pool_until_the_group_goes(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    """The instance block UVM keeps stays in its group's channel pool: the channels' going
    leaves the pool its chunks, and so does UVM's letting go, which frees the block without
    releasing the pool (uvm_channel_retainer.c); the group's going gives them back."""
    r, dev, sub, s = space
    free0, chunk = r.fb_free_bytes(sub), rm.CTXBUF_CHANNEL
    group = rm.gr_group_bytes(r, sub)
    ch = Channel(r, dev, sub, schedule=False)
    status, other = ch.sibling(1)
    assert status == rm.OK, hex(status)
    assert register(s, r, ch.channel) == rm.OK
    held = group + ch.MEM + 2 * chunk
    assert free0 - r.fb_free_bytes(sub) == held
    assert (r.free(ch.channel), r.free(other)) == (rm.OK, rm.OK)
    assert free0 - r.fb_free_bytes(sub) == held
    assert unregister(s, r, ch.channel) == rm.OK
    assert free0 - r.fb_free_bytes(sub) == held  # a group with no channel, and two chunks
    assert r.free(ch.tsg) == rm.OK
    assert free0 - r.fb_free_bytes(sub) == ch.MEM
    ch.close()
    assert r.free(ch.hmem) == rm.OK
    assert r.fb_free_bytes(sub) == free0


@pytest.mark.parametrize("how", ["gpu_vaspace", "gpu", "close"])
def test_uvm_lets_go_with_the_gpu_va_space_the_gpu_and_the_file(how: str) -> None:
    r = Rm()
    dev, sub = r.device()
    s = UvmSpace(r, dev)
    try:
        free0 = r.fb_free_bytes(sub)
        ch = Channel(r, dev, sub, schedule=False)
        assert register(s, r, ch.channel) == rm.OK
        assert r.free(dev) == rm.OK
        assert r.fb_free_bytes(r.device()[1]) < free0
        if how == "gpu_vaspace":
            assert rm.uvm_unregister_gpu(s.fd, s.uuid, rm.UVM_UNREGISTER_GPU_VASPACE) == rm.OK
        elif how == "gpu":
            assert rm.uvm_unregister_gpu(s.fd, s.uuid) == rm.OK
        else:
            s.close()
        assert r.fb_free_bytes(r.device()[1]) == free0
        ch.close()
    finally:
        if how != "close":
            s.close()
        r.close()


def test_a_retained_channel_keeps_its_id() -> None:
    """The GPU's channel ids (channel_ids) are shared by all: a freed channel UVM retains still
    takes one, and a new channel past them fails with NV_ERR_NO_FREE_FIFOS until UVM lets go."""
    ids = Path("/sys/module/nvsim/parameters/channel_ids")
    old = ids.read_text().strip()
    ids.write_text("1")
    r = Rm()
    try:
        dev, sub = r.device()
        s = UvmSpace(r, dev)
        first = Channel(r, dev, sub, schedule=False)
        assert register(s, r, first.channel) == rm.OK
        assert r.free(first.channel) == rm.OK
        status, tsg = r.alloc(r.client, dev, rm.TSG, rm.group_params())
        assert status == rm.OK, hex(status)
        params = rm.channel_params(first.gpu_va, 16, first.hmem, first.USERD)
        assert r.alloc(r.client, tsg, rm.CHANNEL, params)[0] == rm.NO_FREE_FIFOS
        assert unregister(s, r, first.channel) == rm.OK
        status, _ = r.alloc(r.client, tsg, rm.CHANNEL, params)
        assert status == rm.OK, hex(status)
        s.close()
        first.close()
    finally:
        r.close()
        ids.write_text(old)


@pytest.mark.usefixtures("default_modules")
@pytest.mark.parametrize("version", ["580.95.05", "595.45.04"])
def test_unregister_channel_in_each_layout(version: str) -> None:
    """UVM_UNREGISTER_CHANNEL_PARAMS carries the GPU's UUID through 580 (28 B) and the pair alone
    from 590.44.01 (12 B); uvm_unregister_channel() never reads the UUID."""
    reload_modules(f"abi_version={version}")
    r = Rm()
    dev, sub = r.device()
    s = UvmSpace(r, dev)
    try:
        ch = Channel(r, dev, sub, schedule=False)
        assert register(s, r, ch.channel) == rm.OK
        if not rm.abi_at_least((590,)):
            other = rm.uvm_unregister_channel(s.fd, bytes(16), r.client, ch.channel)
            assert other == rm.OK  # any UUID
            assert register(s, r, ch.channel) == rm.OK
        assert unregister(s, r, ch.channel) == rm.OK
        assert unregister(s, r, ch.channel) == rm.INVALID_CHANNEL
        ch.close()
    finally:
        s.close()
        r.close()
