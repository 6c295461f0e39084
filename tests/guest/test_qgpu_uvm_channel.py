"""A channel nvidia-uvm retains keeps its charge and its ``channels`` count
(kmod/qgpu_uvm_channel.c, DOC: UVM channel registrations): UVM_REGISTER_CHANNEL has RM keep the
channel's group, id and instance block past the tenant's RM_FREE, until UVM_UNREGISTER_CHANNEL, the
GPU VA space's or GPU's unregistration, or the VA space's end. Counted by handle, a tenant could
make, register and free channel groups past ``mem_max`` and ``channels_max`` with one VA-space file
open."""

from __future__ import annotations

import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import rm
from holder import killed_after
from qgpu_sysfs import count, instance, wait_count
from qgpu_sysfs import mem_current as current
from rm import Channel, Rm, UvmSpace
from test_qgpu_clients import exited_within, fork_call, stalled_device_alloc
from test_qgpu_ctxbuf import real_free
from test_qgpu_memlimit import wait_current

MIB = 1 << 20


def register(s: UvmSpace, r: Rm, hchannel: int, **kw: int) -> int:
    return rm.uvm_register_channel(s.fd, s.uuid, r.client, hchannel, **kw)


def ring(r: Rm, dev: int) -> tuple[int, int]:
    """Memory for channels' rings and USERD (Channel.MEM bytes): (handle, GPU address)."""
    status, hmem, _, gpu_va = r.memory(rm.VIDMEM, dev, Channel.MEM)
    assert status == rm.OK, hex(status)
    return hmem, gpu_va


def channel_in(r: Rm, group: int, mem: tuple[int, int], handle: int = 0) -> tuple[int, int]:
    """A channel in `group` on the ring memory `mem` (from ring()): (status, handle)."""
    params = rm.channel_params(mem[1], 16, mem[0], 0x1000, engine=0)  # the group's
    return r.alloc(r.client, group, rm.CHANNEL, params, handle)


@pytest.mark.parametrize("how", ["unregister", "gpu_vaspace", "close"])
def test_a_registered_channel_stays_charged_until_uvm_lets_it_go(seal_mode: str, how: str) -> None:
    with instance("uc", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            group = rm.gr_group_bytes(r, sub)
            s = UvmSpace(r, dev, f"{d}/nvidia-uvm")
            ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
            assert register(s, r, ch.channel) == rm.OK
            assert current("uc") == group + ch.MEM + rm.CTXBUF_CHANNEL
            assert count("uc", "channels") == 2
            for h in (ch.channel, ch.tsg, ch.hmem):
                assert r.free(h) == rm.OK
            # what RM keeps for UVM: the group's buffers, the channel's block, both ids
            assert current("uc") == group + rm.CTXBUF_CHANNEL
            assert count("uc", "channels") == 2
            if how == "unregister":
                assert rm.uvm_unregister_channel(s.fd, s.uuid, r.client, ch.channel) == rm.OK
            elif how == "gpu_vaspace":
                unreg = rm.UVM_UNREGISTER_GPU_VASPACE
                assert rm.uvm_unregister_gpu(s.fd, s.uuid, unreg) == rm.OK
            else:
                s.close()
            assert wait_current("uc", 0) == 0
            wait_count("uc", "channels", 0)
            if how != "close":
                s.close()
            ch.close()
        finally:
            r.close()


def test_a_kept_channels_group_pool_stays_charged_until_the_group_goes(seal_mode: str) -> None:
    """UVM's letting go of a channel frees its instance block into its group's pool without
    releasing the pool (uvm_channel_retainer.c): with the group's channels gone first, the
    pool's chunks stay with the group, and charged, until the group goes."""
    with instance("ucp", opts="mem=64M") as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            group, free0 = rm.gr_group_bytes(r, sub), real_free()
            s = UvmSpace(r, dev, f"{d}/nvidia-uvm")
            ch = Channel(r, dev, sub, schedule=False, vaspace=s.vaspace)
            try:
                status, other = ch.sibling(1)
                assert status == rm.OK, hex(status)
                assert register(s, r, ch.channel) == rm.OK
                held = group + ch.MEM + 2 * rm.CTXBUF_CHANNEL
                assert current("ucp") == held == free0 - real_free()
                assert (r.free(ch.channel), r.free(other)) == (rm.OK, rm.OK)
                assert current("ucp") == held == free0 - real_free()
                assert rm.uvm_unregister_channel(s.fd, s.uuid, r.client, ch.channel) == rm.OK
                # a group with no channel, and the two chunks of its pool
                assert current("ucp") == held == free0 - real_free()
                assert r.free(ch.tsg) == rm.OK
                assert current("ucp") == ch.MEM == free0 - real_free()
            finally:
                ch.close()  # its mappings would keep the module in use
                s.close()
        finally:
            r.close()
        assert wait_current("ucp", 0) == 0


# the random test's steps, a channel twice as likely as the others
STEPS = (
    "group",
    "copy",
    "channel",
    "channel",
    "free_channel",
    "free_group",
    "register",
    "unregister",
)


def test_random_groups_channels_copies_and_registrations_are_charged_what_rm_holds() -> None:
    """Random steps: graphics and copy-engine groups made, copied into a second client and freed;
    channels made in them or in their copies, and freed; channels registered with UVM and let go.
    At every step the instance is charged what nvsim holds for it, pools included, and nothing
    once the VA space and the clients close."""
    rnd, free0 = random.Random(33), real_free()
    with instance("ucq", opts="mem=64M") as d:
        a, b = Rm(dev=d), Rm(dev=d)
        try:
            devs = {a: a.device()[0], b: b.device()[0]}
            s = UvmSpace(a, devs[a], f"{d}/nvidia-uvm")
            try:
                mems = {r: ring(r, dev) for r, dev in devs.items()}
                groups: list[tuple[Rm, int]] = []  # groups of a, and their copies in b
                engines: dict[tuple[Rm, int], int] = {}  # each one's engine
                chans: list[tuple[Rm, int, int]] = []  # (client, channel, its group's handle)
                registered: list[int] = []  # a's channels UVM holds
                done: set[str] = set()  # the kinds of step that changed something
                for step in range(160):
                    op = rnd.choice(STEPS)
                    if op == "group":
                        engine = rnd.choice((rm.ENGINE_GRAPHICS, rm.ENGINE_COPY0))
                        params = rm.group_params(engine, s.vaspace)  # in UVM's VA space
                        status, h = a.alloc(a.client, devs[a], rm.TSG, params)
                        assert status in (rm.OK, rm.NO_MEMORY), hex(status)
                        if status == rm.OK:
                            groups.append((a, h))
                            engines[(a, h)] = engine
                            done.add(op)
                    elif op == "copy" and groups:
                        r, g = rnd.choice(groups)
                        if r is a:
                            status, h = b.dup(devs[b], a.client, g)
                            assert status == rm.OK, hex(status)
                            groups.append((b, h))
                            engines[(b, h)] = engines[(a, g)]
                            done.add(op)
                    elif op == "channel" and groups:
                        r, g = rnd.choice(groups)
                        status, h = channel_in(r, g, mems[r])
                        assert status in (rm.OK, rm.NO_MEMORY), hex(status)
                        if status == rm.OK:
                            rm.engine_object(r, h, engines[(r, g)])  # for its token
                            chans.append((r, h, g))
                            done.add("channel in a copy" if r is b else op)
                    elif op == "free_channel" and chans:
                        r, h, g = chans.pop(rnd.randrange(len(chans)))
                        assert r.free(h) == rm.OK
                        done.add(op)
                    elif op == "free_group" and groups:
                        r, g = groups.pop(rnd.randrange(len(groups)))
                        assert r.free(g) == rm.OK  # and the channels made under this handle
                        chans = [c for c in chans if (c[0], c[2]) != (r, g)]
                        done.add(op)
                    elif op == "register":
                        mine = [h for r, h, _ in chans if r is a and h not in registered]
                        if mine:
                            h = rnd.choice(mine)
                            assert register(s, a, h) == rm.OK
                            registered.append(h)
                            done.add(op)
                    elif op == "unregister" and registered:
                        h = registered.pop(rnd.randrange(len(registered)))
                        assert rm.uvm_unregister_channel(s.fd, s.uuid, a.client, h) == rm.OK
                        done.add(op)
                    assert current("ucq") == free0 - real_free(), (step, op)
                assert done == {*STEPS, "channel in a copy"}
            finally:
                s.close()
        finally:
            a.close()
            b.close()
        assert wait_current("ucq", 0) == 0
    assert real_free() == free0


@dataclass
class Tenant:
    """A tenant of an instance (its node directory `node`): its client and device, a UVM VA space
    of the device, memory for its channels' rings (from ring()), and what a graphics group takes
    on the GPU."""

    node: str
    r: Rm
    dev: int
    s: UvmSpace
    mem: tuple[int, int]
    group: int


@contextmanager
def tenant(name: str, opts: str) -> Iterator[Tenant]:
    """An instance and a Tenant of it; the tenant closes its VA space itself (the tests check
    what that lets go)."""
    with instance(name, opts=opts) as d:
        r = Rm(dev=d)
        try:
            dev, sub = r.device()
            s = UvmSpace(r, dev, f"{d}/nvidia-uvm")
            yield Tenant(d, r, dev, s, ring(r, dev), rm.gr_group_bytes(r, sub))
        finally:
            r.close()


def register_and_free(t: Tenant, engine: int, rounds: int, **kw: int) -> tuple[int, int]:
    """Up to `rounds` times: a group on `engine` and a channel in it made, the channel registered
    and the group freed (its channel with it). Returns (rounds made, the status that stopped
    them, or OK)."""
    for made in range(rounds):
        status, tsg = t.r.alloc(t.r.client, t.dev, rm.TSG, rm.group_params(engine, t.s.vaspace))
        if status != rm.OK:
            return made, status
        status, chan = channel_in(t.r, tsg, t.mem)
        assert status == rm.OK, hex(status)
        rm.engine_object(t.r, chan, engine)  # for its token
        assert register(t.s, t.r, chan, **kw) == rm.OK
        assert t.r.free(tsg) == rm.OK
    return rounds, rm.OK


def test_registering_and_freeing_groups_stops_at_mem_max() -> None:
    """The way past the limit: a graphics group and a channel made, registered and freed, in a
    loop. Each round leaves RM holding the group's buffers; the instance is charged them, and
    the next group past its limit is refused, so what RM holds stays within ``mem_max``."""
    free0 = real_free()
    with tenant("ucm", "mem=32M") as t:
        made, status = register_and_free(t, rm.ENGINE_GRAPHICS, 8)
        assert status == rm.NO_MEMORY, hex(status)
        held = free0 - real_free()
        assert made == (32 * MIB - Channel.MEM) // (t.group + rm.CTXBUF_CHANNEL)
        assert held == current("ucm") <= 32 * MIB
        t.s.close()
        assert wait_current("ucm", Channel.MEM) == Channel.MEM


def test_registering_and_freeing_groups_stops_at_channels_max() -> None:
    """Copy-engine groups take no memory, but each registered channel keeps its id and its
    group's: they count against ``channels_max`` until UVM lets go."""
    with tenant("ucc", "mem=64M channels=4") as t:
        # a copy engine's channel has nothing to map: no span
        made, status = register_and_free(t, rm.ENGINE_COPY0, 4, base=0, length=0)
        assert (made, status) == (2, rm.NO_FREE_FIFOS)  # past channels_max
        assert count("ucc", "channels") == 4
        t.s.close()
        wait_count("ucc", "channels", 0)


def test_a_killed_process_leaves_no_registered_channel_charged() -> None:
    with instance("uck", opts="mem=64M") as d:

        def hold() -> None:
            t = Rm(dev=d)
            dev, sub = t.device()
            s = UvmSpace(t, dev, f"{d}/nvidia-uvm")
            ch = Channel(t, dev, sub, schedule=False, vaspace=s.vaspace)
            assert register(s, t, ch.channel) == rm.OK
            assert t.free(ch.tsg) == rm.OK

        with killed_after(hold):
            assert current("uck") > 0
            assert count("uck", "channels") == 2
        assert wait_current("uck", 0) == 0
        wait_count("uck", "channels", 0)


def waits_for_the_instances_turn(tid: int) -> bool:
    """Whether thread `tid` of this process sleeps on a mutex (qgpu's params_seal, taken where
    a registration is forwarded: in qgpu_uvm_channel_register, or qgpu_clients_uvm before it)."""
    wchan = Path(f"/proc/self/task/{tid}/wchan").read_text()
    return wchan in ("qgpu_uvm_channel_register", "qgpu_clients_uvm") or "mutex" in wchan


def test_a_channel_swapped_while_its_registration_waits_is_charged_the_most_it_can_be() -> None:
    """The registration looks the handle up, a copy engine's channel, then waits for the
    instance's turn behind a call stalled in RM's copy of its parameters. Meanwhile the tenant
    frees that channel and makes a graphics group's under the same handle, which is what UVM then
    retains. The mirror's charge was the other channel's; qgpu sees that the client made an object
    meanwhile and charges the most a channel and its group can be, its group's pool's most
    included. After the tenant frees every handle, what RM keeps for UVM is not more than the
    instance is charged."""
    handle = 0x5C5C
    stalled_r, stalled_w = os.pipe()
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    free0 = real_free()
    with tenant("ucr", "mem=1G") as t:
        r, s, mem = t.r, t.s, t.mem
        try:
            status, gr = r.alloc(r.client, t.dev, rm.TSG, rm.group_params(vaspace=s.vaspace))
            assert status == rm.OK, hex(status)
            status, first = channel_in(r, gr, mem)
            assert status == rm.OK, hex(status)
            rm.engine_object(r, first)  # gr's channels made after it are on its runlist
            ce_params = rm.group_params(rm.ENGINE_COPY0, s.vaspace)
            status, ce = r.alloc(r.client, t.dev, rm.TSG, ce_params)
            assert status == rm.OK, hex(status)
            assert channel_in(r, ce, mem, handle)[0] == rm.OK
            result: list[int] = []
            tid: list[int] = []

            def registers() -> None:
                tid.append(threading.get_native_id())
                result.append(register(s, r, handle))

            staller = fork_call(lambda: stalled_device_alloc(t.node, stalled_w, go_r, done_w))
            try:
                assert os.read(stalled_r, 1) == b"s"
                thread = threading.Thread(target=registers)
                thread.start()
                deadline = time.monotonic() + 60  # a bound on getting there, not a target
                while not (tid and waits_for_the_instances_turn(tid[0])):
                    assert not result, "it went through beside the stalled call"
                    assert time.monotonic() < deadline, "it never waited"
                    time.sleep(0.05)
                assert r.free(handle) == rm.OK
                assert channel_in(r, gr, mem, handle)[0] == rm.OK
            finally:
                os.write(go_w, b"g")
                assert exited_within(staller, 60.0)
            thread.join()
            assert result == [rm.OK]
            # the retained channel's group gets one more: three channels in all
            assert channel_in(r, gr, mem)[0] == rm.OK
            assert r.free(t.dev) == rm.OK  # every group, channel and memory of the tenant
            held = free0 - real_free()
            # what RM keeps for UVM: the group, and its pool's three chunks (the retained block
            # keeps the pool from being released)
            assert held == t.group + 3 * rm.CTXBUF_CHANNEL
            assert current("ucr") >= held, (current("ucr"), held)
            assert count("ucr", "channels") >= 2
            s.close()
            assert wait_current("ucr", 0) == 0
            wait_count("ucr", "channels", 0)
            assert real_free() == free0
        finally:
            for fd in (stalled_r, stalled_w, go_r, go_w, done_r, done_w):
                os.close(fd)
