"""nvsim's UVM_REGISTER_CHANNEL and UVM_UNREGISTER_CHANNEL (kmod/nvsim/nvsim_uvm_channel.c),
checked against the facts in kmod/nvrm/nvrm_uvm.h: the statuses in the real driver's order, and
that a registration holds the channel's group (its context buffers), its id and its instance
block after the tenant frees them, until UVM lets go."""

from __future__ import annotations

import os
import struct
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
    gr = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
    status, ce_group = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0, s.vaspace))
    assert status == rm.OK, hex(status)
    status, ce = r.alloc(
        r.client,
        ce_group,
        rm.CHANNEL,
        rm.channel_params(gr.gpu_va + 0x8000, 16, gr.hmem, 0x1000, engine=0),
    )
    assert status == rm.OK, hex(status)
    rm.engine_object(r, ce, rm.ENGINE_COPY0)  # on its runlist
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


def channel_schedule(r: Rm, hchannel: int, enable: bool) -> int:
    """NVA06F GPFIFO_SCHEDULE of one channel."""
    params = bytearray(rm.schedule_size())
    params[0] = int(enable)
    return r.control(hchannel, rm.CHANNEL_SCHEDULE, params)


def test_uvm_retains_only_a_channel_of_the_va_space_it_registered(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    """nvGpuOpsVerifyChannel() compares the channel's VA space with the GPU VA space's: a channel
    in the device's default one is NV_ERR_INVALID_CHANNEL, as an H200 with GSP 580.159.04
    answered (session 34). A subcontext names its own VA space, 0 the device's, whatever its
    group's (kctxshareapiConstruct_IMPL()); a channel with none takes its group's."""
    r, dev, sub, s = space
    default = Channel(r, dev, sub, schedule=False)
    assert register(s, r, default.channel) == rm.INVALID_CHANNEL
    ours = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
    assert register(s, r, ours.channel) == rm.OK
    status, cs = r.alloc(r.client, ours.tsg, rm.CTXSHARE, rm.ctxshare_params(0))
    assert status == rm.OK, hex(status)
    params = rm.channel_params(ours.gpu_va, 16, ours.hmem, ours.USERD + 512, cs, engine=0)
    status, elsewhere = r.alloc(r.client, ours.tsg, rm.CHANNEL, params)
    assert status == rm.OK, hex(status)
    assert register(s, r, elsewhere) == rm.INVALID_CHANNEL
    status, legacy_group = r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=s.vaspace))
    assert status == rm.OK, hex(status)
    params = rm.channel_params(ours.gpu_va, 16, ours.hmem, ours.USERD + 1024, engine=0)
    status, legacy = r.alloc(r.client, legacy_group, rm.CHANNEL, params)
    assert status == rm.OK, hex(status)
    assert r.alloc(r.client, legacy, rm.COMPUTE)[0] == rm.OK
    assert register(s, r, legacy) == rm.OK
    default.close()
    ours.close()


def test_uvm_retains_a_channel_once_it_is_on_a_runlist(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    """RM asks for the channel's work-submit token, which a Hopper's channel has only on a
    runlist: its first engine object puts it and its group on one, and channels made in the group
    after that start on it; a GPFIFO_SCHEDULE of the group puts them all (kfifoRunlistSetId_GM107(),
    580.142). Before, UVM_REGISTER_CHANNEL is NV_ERR_INVALID_STATE, as on an H200 with GSP
    580.159.04 (session 34). The engine object takes no video memory."""
    r, dev, sub, s = space
    host = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)  # ring memory

    def channel_in(group: int, index: int) -> int:
        params = rm.channel_params(host.gpu_va, 16, host.hmem, host.USERD + 512 * index, engine=0)
        status, h = r.alloc(r.client, group, rm.CHANNEL, params)
        assert status == rm.OK, hex(status)
        return h

    status, tsg = r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=s.vaspace))
    assert status == rm.OK, hex(status)
    first, second = channel_in(tsg, 1), channel_in(tsg, 2)
    assert register(s, r, first) == rm.INVALID_STATE
    free0 = r.fb_free_bytes(sub)
    rm.engine_object(r, second)
    assert r.fb_free_bytes(sub) == free0
    assert register(s, r, first) == rm.INVALID_STATE  # made before its group's runlist
    assert register(s, r, channel_in(tsg, 3)) == rm.OK  # made after it
    assert register(s, r, second) == rm.OK
    rm.engine_object(r, first)
    assert register(s, r, first) == rm.OK
    status, ce_group = r.alloc(r.client, dev, rm.TSG, rm.group_params(rm.ENGINE_COPY0, s.vaspace))
    assert status == rm.OK, hex(status)
    ce = channel_in(ce_group, 4)
    assert register(s, r, ce, base=0, length=0) == rm.INVALID_STATE
    params = bytearray(rm.schedule_size())  # GPFIFO_SCHEDULE(0): a copy engine's needs no binding
    assert r.control(ce_group, rm.TSG_SCHEDULE, params) == rm.OK
    assert register(s, r, ce, base=0, length=0) == rm.OK
    host.close()


def test_a_channel_has_a_work_submit_token_once_it_is_on_a_runlist() -> None:
    """GPFIFO_GET_WORK_SUBMIT_TOKEN of a channel on no runlist yet is NV_ERR_INVALID_STATE
    (kfifoGenerateWorkSubmitTokenHal_GA100(), 525-595): a channel alone under its device gets
    one with its engine object or its own GPFIFO_SCHEDULE."""
    r = Rm()
    try:
        dev, sub = r.device()
        host = Channel(r, dev, sub, schedule=False)
        for index, start in ((1, "object"), (2, "schedule")):
            userd = host.USERD + 512 * index
            params = rm.channel_params(host.gpu_va, 16, host.hmem, userd)  # its own group
            status, ch = r.alloc(r.client, dev, rm.CHANNEL, params)
            assert status == rm.OK, hex(status)
            assert r.control(ch, rm.WORK_SUBMIT_TOKEN, bytearray(4)) == rm.INVALID_STATE
            if start == "object":
                rm.engine_object(r, ch)
            else:
                assert channel_schedule(r, ch, False) == rm.OK
            assert r.control(ch, rm.WORK_SUBMIT_TOKEN, bytearray(4)) == rm.OK
        host.close()
    finally:
        r.close()


def test_a_graphics_channel_in_uvms_va_space_is_scheduled_once_uvm_bound_it(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    """kchannelIsSchedulable_IMPL(): GPFIFO_SCHEDULE, on or off, of a graphics channel in a VA
    space UVM manages, or of its group, is NV_ERR_INVALID_STATE until UVM_REGISTER_CHANNEL has
    bound the channel (an H200 with GSP 580.159.04, session 34), for every channel of the group;
    binding is never undone. A channel in the device's VA space is scheduled as ever."""
    r, dev, sub, s = space
    ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
    status, sibling = ch.sibling(1)
    assert status == rm.OK, hex(status)
    assert (ch.schedule(True), ch.schedule(False)) == (rm.INVALID_STATE, rm.INVALID_STATE)
    assert channel_schedule(r, ch.channel, True) == rm.INVALID_STATE
    assert register(s, r, ch.channel) == rm.OK
    assert channel_schedule(r, ch.channel, True) == rm.OK
    assert channel_schedule(r, sibling, True) == rm.INVALID_STATE
    assert ch.schedule(True) == rm.INVALID_STATE  # its sibling is not bound
    assert r.free(sibling) == rm.OK
    assert ch.schedule(True) == rm.OK
    assert unregister(s, r, ch.channel) == rm.OK
    assert (ch.schedule(False), ch.schedule(True)) == (rm.OK, rm.OK)
    plain = Channel(r, dev, sub)  # schedules itself
    assert channel_schedule(r, plain.channel, True) == rm.OK
    ch.close()
    plain.close()


def test_uvm_takes_only_a_va_space_it_manages() -> None:
    """UVM_REGISTER_GPU_VASPACE of a VA space made without NV_VASPACE_ALLOCATION_FLAGS_IS_
    EXTERNALLY_OWNED is NV_ERR_INVALID_FLAGS (nvGpuOpsDupAddressSpace()). In one made with it RM
    builds no subcontext, a group's legacy ones included, before UVM has set its page directory
    (kctxshareInitCommon_IMPL(): NV_ERR_INVALID_STATE), nor after UVM let it go."""
    r = Rm()
    dev, sub = r.device()
    fd = os.open("/dev/nvidia-uvm", os.O_RDWR)
    mm = rm.mm_file(fd)
    try:
        uuid = rm.gpu_uuid_bytes(rm.param("gpu_uuid"))
        assert rm.uvm_register_gpu(fd, uuid, r.client)[0] == rm.OK
        status, plain = r.alloc(r.client, dev, rm.VASPACE, rm.vaspace_params())
        assert status == rm.OK, hex(status)
        assert rm.uvm_register_gpu_vaspace(fd, uuid, r.client, plain) == rm.INVALID_FLAGS
        flags = rm.VASPACE_EXTERNALLY_OWNED
        status, managed = r.alloc(r.client, dev, rm.VASPACE, rm.vaspace_params(flags))
        assert status == rm.OK, hex(status)
        status, tsg = r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=managed))
        assert status == rm.OK, hex(status)
        subcontext = rm.ctxshare_params(managed)
        assert r.alloc(r.client, tsg, rm.CTXSHARE, subcontext)[0] == rm.INVALID_STATE
        assert r.alloc(r.client, tsg, rm.CTXSHARE, rm.ctxshare_params(plain))[0] == rm.OK
        # a channel naming no subcontext has RM make the group's own, in the group's VA space
        status, legacy_group = r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=managed))
        assert status == rm.OK, hex(status)
        status, hmem, _, gpu_va = r.memory(rm.VIDMEM, dev, Channel.MEM)
        assert status == rm.OK, hex(status)
        legacy = rm.channel_params(gpu_va, 16, hmem, Channel.USERD, engine=0)
        assert r.alloc(r.client, legacy_group, rm.CHANNEL, legacy)[0] == rm.INVALID_STATE
        assert rm.uvm_register_gpu_vaspace(fd, uuid, r.client, managed) == rm.OK
        assert r.alloc(r.client, tsg, rm.CTXSHARE, subcontext)[0] == rm.OK
        assert r.alloc(r.client, legacy_group, rm.CHANNEL, legacy)[0] == rm.OK
        unreg = rm.UVM_UNREGISTER_GPU_VASPACE
        assert rm.uvm_unregister_gpu(fd, uuid, unreg) == rm.OK
        assert r.alloc(r.client, tsg, rm.CTXSHARE, subcontext)[0] == rm.INVALID_STATE
    finally:
        os.close(fd)
        if mm >= 0:
            os.close(mm)
        r.close()


@pytest.mark.usefixtures("default_modules")
def test_a_gpu_va_space_is_checked_in_rms_order() -> None:
    """UVM_REGISTER_GPU_VASPACE has RM duplicate the VA space (nvGpuOpsDupAddressSpace(),
    580.142): the client, the object, a VA space, of the GPU's device, UVM's duplicate (RM's share
    policy: only the process that owns the client), one UVM manages; each with its status."""
    reload_modules("num_gpus=2")
    r, r1 = Rm(), Rm(gpu=1)
    fd = os.open("/dev/nvidia-uvm", os.O_RDWR)
    mm = rm.mm_file(fd)
    ready_r, ready_w = os.pipe()
    done_r, done_w = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - another process, with a VA space of its own
        try:
            c = Rm()
            cdev, _ = c.device()
            managed = rm.vaspace_params(rm.VASPACE_EXTERNALLY_OWNED)
            status, cvas = c.alloc(c.client, cdev, rm.VASPACE, managed)
            os.write(ready_w, struct.pack("<III", status, c.client, cvas))
            os.read(done_r, 1)
        finally:
            os._exit(0)
    try:
        status, theirs, their_vas = struct.unpack("<III", os.read(ready_r, 12))
        assert status == rm.OK, hex(status)
        dev, _ = r.device()
        other_dev, _ = r1.device(1)
        uuid = rm.gpu_uuid_bytes(rm.param("gpu_uuid"))  # GPU 0's
        assert rm.uvm_register_gpu(fd, uuid, r.client)[0] == rm.OK
        managed = rm.vaspace_params(rm.VASPACE_EXTERNALLY_OWNED)
        status, elsewhere = r1.alloc(r1.client, other_dev, rm.VASPACE, managed)
        assert status == rm.OK, hex(status)
        status, plain = r.alloc(r.client, dev, rm.VASPACE, rm.vaspace_params())
        assert status == rm.OK, hex(status)
        for hclient, handle, want in (
            (0xC1D0BAD0, plain, rm.INVALID_CLIENT),
            (r.client, 0xBAD, rm.OBJECT_NOT_FOUND),
            (r.client, dev, rm.INVALID_OBJECT),
            (r1.client, elsewhere, rm.OTHER_DEVICE_FOUND),
            (theirs, their_vas, rm.INSUFFICIENT_PERMISSIONS),
            (r.client, plain, rm.INVALID_FLAGS),
        ):
            assert rm.uvm_register_gpu_vaspace(fd, uuid, hclient, handle) == want, hex(want)
    finally:
        os.write(done_w, b"d")
        os.waitpid(child, 0)
        for f in (ready_r, ready_w, done_r, done_w, fd, mm):
            if f >= 0:
                os.close(f)
        r.close()
        r1.close()


def test_va_space_handles_are_checked_where_rm_checks_them() -> None:
    """A group's or subcontext's hVASpace must name a VA space of the client
    (vaspaceGetByHandleOrDeviceDefault(): NV_ERR_OBJECT_NOT_FOUND, or NV_ERR_INVALID_OBJECT_HANDLE
    for another class); a channel names one only when it is alone, with no subcontext
    (kchannelConstruct_IMPL(): NV_ERR_INVALID_ARGUMENT). A duplicate names the same VA space."""
    r = Rm()
    dev, sub = r.device()
    try:
        assert r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=0xBAD))[0] == (
            rm.OBJECT_NOT_FOUND
        )
        assert r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=sub))[0] == (
            rm.INVALID_OBJECT_HANDLE
        )
        status, vas = r.alloc(r.client, dev, rm.VASPACE, rm.vaspace_params())
        assert status == rm.OK, hex(status)
        status, tsg = r.alloc(r.client, dev, rm.TSG, rm.group_params(vaspace=vas))
        assert status == rm.OK, hex(status)
        assert r.alloc(r.client, tsg, rm.CTXSHARE, rm.ctxshare_params(0xBAD))[0] == (
            rm.OBJECT_NOT_FOUND
        )
        status, copy = r.dup(dev, r.client, vas)
        assert status == rm.OK, hex(status)
        status, cs = r.alloc(r.client, tsg, rm.CTXSHARE, rm.ctxshare_params(copy))
        assert status == rm.OK, hex(status)
        status, hmem, _, gpu_va = r.memory(rm.VIDMEM, dev, Channel.MEM)
        assert status == rm.OK, hex(status)
        params = bytearray(rm.channel_params(gpu_va, 16, hmem, 0x1000, cs, engine=0))
        params[28:32] = vas.to_bytes(4, "little")  # hVASpace too
        assert r.alloc(r.client, tsg, rm.CHANNEL, bytes(params))[0] == rm.INVALID_ARGUMENT
        params[24:28] = bytes(4)  # no subcontext, but in a group
        assert r.alloc(r.client, tsg, rm.CHANNEL, bytes(params))[0] == rm.INVALID_ARGUMENT
        params[128:132] = rm.ENGINE_GRAPHICS.to_bytes(4, "little")
        status, alone = r.alloc(r.client, dev, rm.CHANNEL, bytes(params))  # its own group
        assert status == rm.OK, hex(status)
    finally:
        r.close()


def test_a_registered_channel_holds_its_group_and_block_after_the_tenants_free(
    space: tuple[Rm, int, int, UvmSpace],
) -> None:
    """RM_FREE of the channel and its group succeeds; what RM's pools took for them stays taken
    until UVM_UNREGISTER_CHANNEL, which still finds the pair after the handles are gone."""
    r, dev, sub, s = space
    free0 = r.fb_free_bytes(sub)
    group = rm.gr_group_bytes(r, sub)
    ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
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
    ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
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
        ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
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
        first = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
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
        ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
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
