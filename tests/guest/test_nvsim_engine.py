"""nvsim's simulated engine: channel groups, channels, controls, execution and its counters.

The engine's counters (/proc/driver/nvsim/gpu0/engine and busy) are the ground truth: tests assert
on them and on GP_GET, not on wall-clock thresholds (the VM is slow and shared), except generous
sanity bounds.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import struct
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import rm
from kernel import PROJECT, KernelLog, insmod, is_loaded, rmmod
from rm import Channel, Rm

BIN = PROJECT / "build" / "bin" / "nvsim-load"
PROC = Path("/proc/driver/nvsim/gpu0")
PARAMS = Path("/sys/module/nvsim/parameters")
MS = 1000  # us


def engine() -> dict[str, list[dict[str, int]]]:
    """The engine file: {"gpu": [header], "tsg": [...], "chan": [...]}, values as ints."""
    out: dict[str, list[dict[str, int]]] = {"gpu": [], "tsg": [], "chan": []}
    for line in (PROC / "engine").read_text().splitlines():
        words = line.split()
        out[words[0]].append({k: int(v, 0) for k, v in zip(words[::2], words[1::2], strict=True)})
    return out


def tsg_line(r: Rm, handle: int) -> dict[str, int]:
    (t,) = [t for t in engine()["tsg"] if t["client"] == r.client and t["handle"] == handle]
    return t


def chan_line(ch: Channel) -> dict[str, int]:
    (c,) = [c for c in engine()["chan"] if c["chan"] == ch.token]
    return c


def busy() -> tuple[int, dict[int, dict[str, int]]]:
    lines = (PROC / "busy").read_text().splitlines()
    total = int(lines[0].split()[1])
    procs = {}
    for line in lines[1:]:
        w = line.split()
        procs[int(w[1])] = {"busy_ns": int(w[3]), "kernels": int(w[5])}
    return total, procs


def wait_for(cond: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


def settled(ch: Channel, quiet: float = 0.5) -> tuple[int, int]:
    """(GP_GET, busy_ns of its TSG) once a preemption at the granularity has surely landed."""
    time.sleep(quiet)
    return ch.gp_get(), tsg_line(ch.r, ch.tsg)["busy_ns"]


@pytest.fixture
def params() -> Iterator[Callable[[str, str], None]]:
    """Set engine parameters at runtime; restored afterwards."""
    saved: dict[str, str] = {}

    def set_param(name: str, value: str) -> None:
        saved.setdefault(name, (PARAMS / name).read_text().strip())
        (PARAMS / name).write_text(value)

    yield set_param
    for name, value in saved.items():
        (PARAMS / name).write_text(value)


@pytest.fixture
def proc() -> Iterator[tuple[Rm, int, int]]:
    r = Rm()
    dev, sub = r.device()
    yield r, dev, sub
    r.close()


@pytest.fixture
def chan(proc: tuple[Rm, int, int]) -> Iterator[Channel]:
    ch = Channel(*proc)
    yield ch
    ch.close()


def test_alloc_validation(proc: tuple[Rm, int, int]) -> None:
    r, dev, sub = proc
    c = r.client
    assert r.alloc(c, sub, rm.TSG, bytes(20))[0] == rm.INVALID_OBJECT_PARENT
    assert r.alloc(c, dev, rm.CTXSHARE, bytes(12))[0] == rm.INVALID_OBJECT_PARENT
    # a group names its engine, which picks its runlist (0 is none: refused from Ampere on)
    assert r.alloc(c, dev, rm.TSG, bytes(20))[0] == rm.INVALID_ARGUMENT
    status, tsg = r.alloc(c, dev, rm.TSG, rm.group_params())
    assert status == rm.OK
    status, mem, _, va = r.memory(rm.VIDMEM, dev, 0x20000)
    assert status == rm.OK
    good = rm.channel_params(va, 64, mem, 0x10000)
    for params, want in (
        (rm.channel_params(va, 3, mem, 0x10000), rm.INVALID_ARGUMENT),  # not a power of two
        (rm.channel_params(va, 1, mem, 0x10000), rm.INVALID_ARGUMENT),
        (rm.channel_params(va, 1 << 21, mem, 0x10000), rm.INVALID_ARGUMENT),
        (rm.channel_params(va + 0x20000, 64, mem, 0x10000), rm.INVALID_ARGUMENT),  # no memory
        (rm.channel_params(va + 0x1FF00, 64, mem, 0x10000), rm.INVALID_ARGUMENT),  # past its end
        (rm.channel_params(va, 64, tsg, 0x10000), rm.INVALID_OBJECT_HANDLE),  # USERD not memory
        (rm.channel_params(va, 64, mem, 0x20000), rm.INVALID_ARGUMENT),  # USERD out of range
        (rm.channel_params(va, 64, mem, 0x10004), rm.INVALID_ARGUMENT),  # USERD misaligned
        (rm.channel_params(va, 64, mem, 0x10000, ctxshare=tsg), rm.INVALID_OBJECT_HANDLE),
    ):
        assert r.alloc(c, tsg, rm.CHANNEL, params)[0] == want, params[:80].hex()
    assert r.alloc(c, tsg, rm.CHANNEL)[0] == rm.INVALID_ARGUMENT  # no params
    assert r.alloc(c, sub, rm.CHANNEL, good)[0] == rm.INVALID_OBJECT_PARENT

    # Another process's memory at the same address is not this client's.
    other = Rm()
    try:
        odev, _ = other.device()
        status, omem, _, ova = other.memory(rm.VIDMEM, odev, 0x20000)
        assert status == rm.OK
        assert r.alloc(c, tsg, rm.CHANNEL, rm.channel_params(ova, 64, mem, 0x10000))[0] == (
            rm.INVALID_ARGUMENT
        )
        assert r.alloc(c, tsg, rm.CHANNEL, rm.channel_params(va, 64, omem, 0x10000))[0] == (
            rm.INVALID_OBJECT_HANDLE
        )
    finally:
        other.close()

    status, ch = r.alloc(c, tsg, rm.CHANNEL, good)
    assert status == rm.OK
    assert r.alloc(c, ch, rm.COMPUTE)[0] == rm.OK
    assert r.alloc(c, tsg, rm.COMPUTE)[0] == rm.INVALID_OBJECT_PARENT
    # A channel directly under the device gets an implicit TSG of its own, named by its handle.
    status, mem2, _, va2 = r.memory(rm.VIDMEM, dev, 0x20000)
    status, lone = r.alloc(c, dev, rm.CHANNEL, rm.channel_params(va2, 64, mem2, 0x10000))
    assert status == rm.OK
    assert tsg_line(r, lone)["channels"] == 1
    assert tsg_line(r, lone)["runlist"] == 0
    assert tsg_line(r, tsg)["channels"] == 1
    # The channel keeps its ring and USERD: freeing the memory handle does not break it.
    assert r.free(mem) == rm.OK
    assert tsg_line(r, tsg)["channels"] == 1
    assert r.free(tsg) == rm.OK
    assert [t for t in engine()["tsg"] if t["client"] == c and t["handle"] == tsg] == []


def test_controls_check_size_class_and_arguments(chan: Channel) -> None:
    r, ch = chan.r, chan
    assert r.control(ch.tsg, rm.TSG_SCHEDULE, bytearray(rm.schedule_size() + 1)) == (
        rm.INVALID_PARAM_STRUCT
    )
    assert r.control(ch.tsg, rm.SET_TIMESLICE, bytearray(4)) == rm.INVALID_PARAM_STRUCT
    assert r.control(ch.channel, rm.SET_TIMESLICE, bytearray(8)) == rm.NOT_SUPPORTED
    assert r.control(ch.tsg, rm.WORK_SUBMIT_TOKEN, bytearray(4)) == rm.NOT_SUPPORTED
    assert ch.preempt(timeout_us=1_000_001) == rm.INVALID_ARGUMENT

    ts = bytearray(8)
    assert r.control(ch.tsg, rm.GET_TIMESLICE, ts) == rm.OK
    assert struct.unpack("<Q", ts)[0] == int((PARAMS / "default_timeslice_us").read_text())
    assert r.control(ch.tsg, rm.SET_TIMESLICE, bytearray(struct.pack("<Q", 2500))) == rm.OK
    assert r.control(ch.tsg, rm.GET_TIMESLICE, ts) == rm.OK
    assert struct.unpack("<Q", ts)[0] == 2500
    assert tsg_line(r, ch.tsg)["timeslice_us"] == 2500


def test_interleave_level_is_the_groups_through_the_group_or_a_channel(chan: Channel) -> None:
    """One level a group (kchangrpSetInterleaveLevel_IMPL()): MEDIUM for a new group, set through
    the group or any of its channels and read through the group; LOW, MEDIUM and HIGH only. A
    channel's GET is not exported (an H200 answered NV_ERR_NOT_SUPPORTED, session 37)."""
    r, ch = chan.r, chan

    def level(handle: int, cmd: int) -> int:
        p = bytearray(4)
        assert r.control(handle, cmd, p) == rm.OK
        return int(struct.unpack("<I", p)[0])

    def set_level(handle: int, cmd: int, value: int) -> int:
        return r.control(handle, cmd, bytearray(struct.pack("<I", value)))

    assert level(ch.tsg, rm.GET_INTERLEAVE) == rm.INTERLEAVE_MEDIUM
    assert r.control(ch.channel, rm.CHANNEL_GET_INTERLEAVE, bytearray(4)) == rm.NOT_SUPPORTED
    assert set_level(ch.channel, rm.CHANNEL_SET_INTERLEAVE, rm.INTERLEAVE_HIGH) == rm.OK
    assert level(ch.tsg, rm.GET_INTERLEAVE) == rm.INTERLEAVE_HIGH
    assert tsg_line(r, ch.tsg)["interleave"] == rm.INTERLEAVE_HIGH
    assert set_level(ch.tsg, rm.SET_INTERLEAVE, rm.INTERLEAVE_LOW) == rm.OK
    assert level(ch.tsg, rm.GET_INTERLEAVE) == rm.INTERLEAVE_LOW
    assert set_level(ch.tsg, rm.SET_INTERLEAVE, 3) == rm.INVALID_ARGUMENT
    assert set_level(ch.channel, rm.CHANNEL_SET_INTERLEAVE, 3) == rm.INVALID_ARGUMENT
    assert level(ch.tsg, rm.GET_INTERLEAVE) == rm.INTERLEAVE_LOW  # a refusal changes nothing
    assert r.control(ch.tsg, rm.SET_INTERLEAVE, bytearray(8)) == rm.INVALID_PARAM_STRUCT
    assert r.control(ch.channel, rm.SET_INTERLEAVE, bytearray(4)) == rm.NOT_SUPPORTED
    assert r.control(ch.tsg, rm.CHANNEL_SET_INTERLEAVE, bytearray(4)) == rm.NOT_SUPPORTED


def test_compute_preemption_is_the_contexts_and_wfi_until_set(proc: tuple[Rm, int, int]) -> None:
    """GR_SET_CTXSW_PREEMPTION_MODE / GR_GET_CTXSW_MODES on the subdevice, naming a channel or a
    channel group of its client (libcuda names its group): one mode per context, every channel of
    a group reads it, WFI for a new one (an H200 with GSP 580.159.04, session 37)."""
    r, dev, sub = proc
    ch = Channel(r, dev, sub, cilp=False)
    other = Rm()
    try:
        status, sibling = ch.sibling(1)
        assert status == rm.OK
        assert rm.compute_preemption(r, sub, ch.channel) == (rm.OK, rm.PREEMPT_WFI)
        assert tsg_line(r, ch.tsg)["compute_preemption"] == rm.PREEMPT_WFI
        assert rm.set_compute_preemption(r, sub, sibling, rm.PREEMPT_CTA) == rm.OK
        assert rm.compute_preemption(r, sub, ch.channel) == (rm.OK, rm.PREEMPT_CTA)
        assert rm.set_compute_preemption(r, sub, ch.tsg, rm.PREEMPT_CILP) == rm.OK
        assert rm.compute_preemption(r, sub, sibling) == (rm.OK, rm.PREEMPT_CILP)
        assert tsg_line(r, ch.tsg)["compute_preemption"] == rm.PREEMPT_CILP
        # refusals change nothing; without the compute flag the mode is left alone
        assert rm.set_compute_preemption(r, sub, ch.channel, 3) == rm.INVALID_ARGUMENT
        assert rm.set_compute_preemption(r, sub, ch.channel, rm.PREEMPT_WFI, flags=0) == rm.OK
        for bad in (ch.hmem, 0xBAD):
            assert rm.set_compute_preemption(r, sub, bad, rm.PREEMPT_WFI) == rm.INVALID_CHANNEL
            assert rm.compute_preemption(r, sub, bad)[0] == rm.INVALID_CHANNEL
        # the channel is looked up in the subdevice's client, not in any other
        _, other_sub = other.device()
        assert rm.compute_preemption(other, other_sub, ch.channel)[0] == rm.INVALID_CHANNEL
        assert rm.compute_preemption(r, sub, ch.channel) == (rm.OK, rm.PREEMPT_CILP)
    finally:
        other.close()
        ch.close()


@pytest.mark.parametrize("mode", ["wfi", "cilp"])
def test_the_round_robin_leaves_a_wfi_context_on_the_engine_until_its_kernel_ends(
    proc: tuple[Rm, int, int], mode: str
) -> None:
    """An H200 could not switch out a WFI context running a kernel: another busy process got
    nothing while it ran (session 37). With CILP the two share the engine."""
    r, dev, sub = proc
    hog = Channel(r, dev, sub, cilp=mode == "cilp")
    other = Channel(r, dev, sub)
    try:
        hog.submit(rm.kernel(60_000 * MS))
        assert wait_for(lambda: tsg_line(r, hog.tsg)["busy_ns"] > 0)
        other.submit(*[rm.kernel(MS)] * 50)
        if mode == "cilp":
            assert wait_for(lambda: tsg_line(r, other.tsg)["busy_ns"] > 0)
        else:
            time.sleep(1)
            assert tsg_line(r, other.tsg)["busy_ns"] == 0
            assert tsg_line(r, hog.tsg)["kernels"] == 0, "the 60 s kernel ended"
    finally:
        hog.close()
        assert r.free(hog.tsg) == rm.OK
    assert wait_for(lambda: tsg_line(r, other.tsg)["kernels"] == 50)
    other.close()


def test_a_preempt_that_cannot_switch_a_wfi_context_out_kills_it(
    proc: tuple[Rm, int, int], params: Callable[[str, str], None]
) -> None:
    """FIFO_DISABLE_CHANNELS on a WFI context running a kernel: the call waits, and after the
    context-switch timeout the context is killed (an H200: Xid 109 CTX SWITCH TIMEOUT 2.7-4.3 s
    after the call, which then returned NV_OK; the process's next synchronize failed)."""
    r, dev, sub = proc
    params("ctxsw_timeout_ms", "200")
    hog = Channel(r, dev, sub, cilp=False)
    try:
        hog.submit(rm.kernel(60_000 * MS), rm.kernel(MS))
        assert wait_for(lambda: tsg_line(r, hog.tsg)["busy_ns"] > 0)
        off = rm.disable_channels_params([(r.client, hog.channel)])
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, off) == rm.OK
        line = chan_line(hog)
        assert line["errored"] == 1 and line["errors"] == 1
        assert tsg_line(r, hog.tsg)["kernels"] == 0
        on = rm.disable_channels_params([(r.client, hog.channel)], disable=False)
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, on) == rm.OK
        time.sleep(0.3)
        assert tsg_line(r, hog.tsg)["kernels"] == 0, "a killed context ran on"
    finally:
        hog.close()


def test_real_time_and_a_runlist_restart_take_a_privileged_client(chan: Channel) -> None:
    """NVOC calls MAKE_REALTIME and RESTART_RUNLIST non-privileged, yet an H200 with GSP 580.159.04
    refused both to a client of uid nobody (session 37); root's MAKE_REALTIME was NV_OK and its
    RESTART_RUNLIST, on an idle channel, NV_ERR_INVALID_STATE."""
    r, ch = chan.r, chan
    for on in (1, 0):
        assert r.control(ch.tsg, rm.MAKE_REALTIME, bytearray([on])) == rm.OK
        assert tsg_line(r, ch.tsg)["realtime"] == on
    assert r.control(ch.channel, rm.RESTART_RUNLIST, bytearray(2)) == rm.INVALID_STATE
    rd, wr = os.pipe()
    pid = os.fork()
    if pid == 0:  # a process without CAP_SYS_ADMIN makes a client of its own
        try:
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            u = Rm()
            c = Channel(u, *u.device())
            got = [
                u.control(c.tsg, rm.MAKE_REALTIME, bytearray([1])),
                u.control(c.channel, rm.RESTART_RUNLIST, bytearray(2)),
            ]
            os.write(wr, json.dumps(got).encode())
        except BaseException as e:  # reported to the parent, which fails
            os.write(wr, json.dumps(repr(e)).encode())
        finally:
            os._exit(0)
    os.close(wr)
    os.waitpid(pid, 0)
    with os.fdopen(rd) as f:
        got = json.load(f)
    assert got == [rm.INSUFFICIENT_PERMISSIONS] * 2


def test_fifo_disable_channels_checks_its_list(proc: tuple[Rm, int, int]) -> None:
    r, dev, sub = proc
    ch = Channel(r, dev, sub)
    other = Rm()
    try:
        odev, osub = other.device()
        och = Channel(other, odev, osub)
        p = rm.disable_channels_params([(r.client, ch.channel)])
        struct.pack_into("<I", p, 4, 65)
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, p) == rm.INVALID_ARGUMENT
        p = rm.disable_channels_params([(r.client, ch.channel)])
        struct.pack_into("<Q", p, 16, 0x1000)  # pRunlistPreemptEvent: kernel callers only
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, p) == rm.INVALID_ARGUMENT
        assert r.control(
            sub, rm.FIFO_DISABLE_CHANNELS, rm.disable_channels_params([(r.client, ch.tsg)])
        ) == (rm.INVALID_CHANNEL)
        both = rm.disable_channels_params([(r.client, ch.channel), (0xC1D0BAD0, och.channel)])
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, both) == rm.INVALID_CLIENT
        assert chan_line(ch)["enabled"] == 1, "a refused list changes nothing"
        # Another client's channels may be named, as on GSP 580 (measured on an H200).
        foreign = rm.disable_channels_params([(other.client, och.channel)])
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, foreign) == rm.OK
        assert chan_line(och)["enabled"] == 0
        foreign = rm.disable_channels_params([(other.client, och.channel)], disable=False)
        assert r.control(sub, rm.FIFO_DISABLE_CHANNELS, foreign) == rm.OK
        assert chan_line(och)["enabled"] == 1
        assert (
            r.control(
                sub, rm.FIFO_DISABLE_CHANNELS, rm.disable_channels_params([(r.client, ch.channel)])
            )
            == rm.OK
        )
        assert chan_line(ch)["enabled"] == 0
        och.close()
    finally:
        other.close()
        ch.close()


def test_tokens_are_unique(proc: tuple[Rm, int, int]) -> None:
    r, dev, sub = proc
    chans = [Channel(r, dev, sub, schedule=False) for _ in range(3)]
    other = Rm()
    try:
        odev, osub = other.device()
        chans.append(Channel(other, odev, osub, schedule=False))
        tokens = [c.token for c in chans]
        assert len(set(tokens)) == len(tokens) and 0 not in tokens
    finally:
        for c in chans:
            c.close()
        other.close()


def test_work_runs_gp_get_advances_and_busy_time_is_exact(chan: Channel) -> None:
    total_before, _ = busy()
    chan.submit(
        *[rm.kernel(2 * MS)] * 5, rm.kernel(0, rm.OP_NOP), rm.kernel(1 * MS, rm.OP_KERNEL_NOTIFY)
    )
    # the engine file's GP_GET counts completions (USERD's passes what the host fetched)
    assert wait_for(lambda: chan_line(chan)["gp_get"] == 7), f"GP_GET {chan_line(chan)}"
    assert chan.gp_get() == 7
    t = tsg_line(chan.r, chan.tsg)
    assert t["kernels"] == 6
    assert t["busy_ns"] == 11_000_000  # exactly the GPU time the entries encode
    c = chan_line(chan)
    assert (c["gp_get"], c["gp_put"], c["busy_ns"], c["errors"]) == (7, 7, 11_000_000, 0)
    total, procs = busy()
    assert total - total_before >= 11_000_000
    assert procs[os.getpid()]["busy_ns"] >= 11_000_000

    # An entry nvsim does not know RCs the channel: it stops at the entry, errors counted.
    with KernelLog() as log:
        chan.submit(0x77 << 56, rm.kernel(1 * MS))
        assert wait_for(lambda: chan_line(chan)["errored"] == 1)
        c = chan_line(chan)
        assert (c["gp_get"], c["errors"]) == (7, 1)
        assert any("bad GPFIFO entry" in line for line in log.read())


SEM = 0x8000  # a word of the channel's memory between the ring and USERD


def test_semaphore_release_writes_after_the_work_before_it(chan: Channel) -> None:
    chan.submit(rm.kernel(2000 * MS), rm.sem_release(SEM, 0x1234))
    assert wait_for(
        lambda: (
            chan_line(chan)["gp_get"] == 0
            and tsg_line(chan.r, chan.tsg)["tsg"] == engine()["gpu"][0]["running"]
        )
    )
    assert chan.word(SEM) == 0  # the kernel of 2 s runs: nothing released yet
    assert wait_for(lambda: chan.word(SEM) == 0x1234)
    c = chan_line(chan)
    assert (c["gp_get"], c["kernels"], c["errors"]) == (2, 1, 0)


@pytest.mark.parametrize("offset", [SEM + 2, Channel.MEM - 2, Channel.MEM, 0xFFFFFC])
def test_semaphore_release_outside_its_memory_rcs_the_channel(chan: Channel, offset: int) -> None:
    chan.submit(rm.kernel(1 * MS), rm.sem_release(offset, 0x55AA), rm.kernel(1 * MS))
    assert wait_for(lambda: chan_line(chan)["errored"] == 1)
    c = chan_line(chan)
    assert (c["gp_get"], c["kernels"], c["errors"]) == (1, 1, 1)
    assert chan.mem.find(struct.pack("<I", 0x55AA), 8 * chan.entries) == -1  # past the ring


def test_without_userd_writeback_only_releases_say_what_ran(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    params("userd_writeback", "N")
    chan.submit(
        rm.kernel(1 * MS), rm.sem_release(SEM, 1), rm.kernel(1 * MS), rm.sem_release(SEM, 2)
    )
    assert wait_for(lambda: chan.word(SEM) == 2)
    assert chan_line(chan)["gp_get"] == 4  # the engine ran all four...
    assert chan.gp_get() == 0  # ...and USERD's GP_GET says nothing, as on Blackwell
    params("userd_writeback", "Y")
    chan.submit(rm.kernel(1 * MS))
    assert wait_for(lambda: chan.gp_get() == 5)


def test_userd_writeback_on_a_timer_writes_gp_get_late(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    params("userd_writeback_us", "10000000")  # 10 s, as a Volta-to-Hopper timer, only longer
    chan.submit(rm.kernel(1 * MS))
    assert wait_for(lambda: chan_line(chan)["gp_get"] == 1)
    assert chan.gp_get() == 0  # done, not yet written back
    assert wait_for(lambda: chan.gp_get() == 1, timeout=60)
    params("userd_writeback_us", "0")
    chan.submit(rm.kernel(1 * MS))
    assert wait_for(lambda: chan.gp_get() == 2)


def test_run_tracks_its_kernels_without_userd_writeback(
    params: Callable[[str, str], None],
) -> None:
    params("userd_writeback", "N")
    p = run_load(1, 1000)
    r = finished(p)
    assert r["kernels"] > 0 and r["busy_ns"] == r["kernels"] * 1_000_000
    _, procs = busy()
    assert procs[p.pid]["kernels"] == r["kernels"]


def test_doorbell_required(chan: Channel, params: Callable[[str, str], None]) -> None:
    chan.push(rm.kernel(1 * MS))
    chan.publish()  # GP_PUT written, no doorbell: the engine does not see it
    time.sleep(0.5)
    assert chan.gp_get() == 0
    chan.ring()
    assert wait_for(lambda: chan.gp_get() == 1)

    params("doorbell_required", "N")
    chan.push(rm.kernel(1 * MS), rm.kernel(1 * MS))
    chan.publish()
    assert wait_for(lambda: chan.gp_get() == 3), "GP_PUT not polled with doorbell_required=N"
    # GP_GET passes an entry when the host fetches it (gp_get_ahead): completion is the count
    assert wait_for(lambda: tsg_line(chan.r, chan.tsg)["kernels"] == 3)


def test_two_channels_ringing_back_to_back_both_progress(proc: tuple[Rm, int, int]) -> None:
    """Stores to one doorbell page in a tight loop coalesce between a write fault and the
    re-protect; every channel of the ringing process still sees its GP_PUT."""
    a, b = Channel(*proc), Channel(*proc)
    try:
        rounds = 200
        for _ in range(rounds):
            a.push(rm.kernel(10))
            a.publish()
            rm.store(a.doorbell, rm.DOORBELL, a.token)
            b.push(rm.kernel(10))
            b.publish()
            rm.store(a.doorbell, rm.DOORBELL, b.token)  # the same page
        assert wait_for(
            lambda: chan_line(a)["gp_get"] == rounds and chan_line(b)["gp_get"] == rounds
        ), (chan_line(a), chan_line(b))
        assert (a.gp_get(), b.gp_get()) == (rounds, rounds)
        assert tsg_line(a.r, a.tsg)["kernels"] == rounds
        assert tsg_line(b.r, b.tsg)["kernels"] == rounds
    finally:
        a.close()
        b.close()


def long_work(ch: Channel, n: int = 200, us: int = 10 * MS) -> None:
    """n kernels of us each, and wait until they are running."""
    ch.submit(*[rm.kernel(us)] * n)
    assert wait_for(lambda: tsg_line(ch.r, ch.tsg)["busy_ns"] > 0)


def test_gp_get_passes_what_the_host_fetched(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    """USERD's GP_GET passes the running kernel and the next, as on an H200 (gp_get_ahead=1)."""
    chan.submit(*[rm.kernel(10 * MS)] * 3)
    assert wait_for(lambda: chan_line(chan)["gp_get"] >= 1)  # the first completed...
    line = chan_line(chan)
    if line["gp_get"] == 1:  # ...the second runs: the host has taken the third too
        assert chan.gp_get() == 3
    assert wait_for(lambda: chan_line(chan)["gp_get"] == 3)
    assert chan.gp_get() == 3
    params("gp_get_ahead", "0")
    busy = tsg_line(chan.r, chan.tsg)["busy_ns"]
    chan.submit(rm.kernel(2000 * MS))
    assert wait_for(lambda: tsg_line(chan.r, chan.tsg)["busy_ns"] > busy)
    assert chan.gp_get() == 3, "gp_get_ahead=0: GP_GET passes an entry only when it completes"
    params("gp_get_ahead", "1")
    chan.submit(rm.kernel(1))  # a doorbell while a kernel runs: the host takes it at once
    assert wait_for(lambda: chan.gp_get() == 5)
    assert chan_line(chan)["gp_get"] == 3, "the long kernel is still running"


def test_schedule_disable_is_inert_and_does_not_undo_disable_channels(chan: Channel) -> None:
    """As measured on an H200 with GSP 580.159.04 (kmod/nvsim/README.md, schedule_off_effective)."""
    long_work(chan)
    assert chan.schedule(False) == rm.OK
    assert tsg_line(chan.r, chan.tsg)["runlist"] == 1
    first = chan.gp_get()
    assert wait_for(lambda: chan.gp_get() > first), "GPFIFO_SCHEDULE(0) stopped the work"
    r = chan.r
    off = rm.disable_channels_params([(r.client, chan.channel)])
    assert r.control(chan.sub, rm.FIFO_DISABLE_CHANNELS, off) == rm.OK
    held = settled(chan)
    assert chan.schedule(True) == rm.OK
    assert chan_line(chan)["enabled"] == 0, "the group's GPFIFO_SCHEDULE(1) enabled the channel"
    assert settled(chan) == held
    on = rm.disable_channels_params([(r.client, chan.channel)], disable=False)
    assert r.control(chan.sub, rm.FIFO_DISABLE_CHANNELS, on) == rm.OK
    assert wait_for(lambda: chan.gp_get() > held[0])


def test_schedule_disable_stops_work_and_enable_restarts_it(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    params("schedule_off_effective", "Y")
    long_work(chan)
    assert chan.schedule(False) == rm.OK
    assert tsg_line(chan.r, chan.tsg)["runlist"] == 0
    first = settled(chan)
    assert settled(chan) == first, "work went on after GPFIFO_SCHEDULE(0)"
    assert chan.schedule(True) == rm.OK
    assert wait_for(lambda: tsg_line(chan.r, chan.tsg)["busy_ns"] > first[1])
    assert wait_for(lambda: chan.gp_get() > first[0])


def test_controls_effective_n_makes_disable_inert(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    params("controls_effective", "N")
    long_work(chan)
    assert chan.schedule(False) == rm.OK
    ts = bytearray(struct.pack("<Q", 77))
    assert chan.r.control(chan.tsg, rm.SET_TIMESLICE, ts) == rm.OK
    assert chan.r.control(chan.tsg, rm.GET_TIMESLICE, ts) == rm.OK
    assert struct.unpack("<Q", ts)[0] == 77  # read back, but not used
    t = tsg_line(chan.r, chan.tsg)
    assert t["runlist"] == 1 and t["timeslice_us"] != 77
    before = tsg_line(chan.r, chan.tsg)["busy_ns"]
    assert wait_for(lambda: tsg_line(chan.r, chan.tsg)["busy_ns"] > before + 20_000_000)


def test_preempt_is_counted_and_work_resumes(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    long_work(chan)
    assert chan.preempt(wait=True) == rm.OK
    t = tsg_line(chan.r, chan.tsg)
    assert t["preemptions"] >= 1
    assert wait_for(lambda: tsg_line(chan.r, chan.tsg)["busy_ns"] > t["busy_ns"])
    assert chan.preempt(wait=False) == rm.OK
    # A TSG off the runlist is preempted at once. GPFIFO_SCHEDULE(0) takes it off only where it
    # is effective (an H200's is not): without, the TSG kept running, and the 1 ms timeout below
    # held only when the guest's engine thread got a CPU in time (a full-suite run timed out).
    params("schedule_off_effective", "Y")
    assert chan.schedule(False) == rm.OK
    settled(chan)
    assert tsg_line(chan.r, chan.tsg)["runlist"] == 0
    assert chan.preempt(wait=True, timeout_us=1000) == rm.OK


def test_fifo_disable_channels_stops_and_enable_resumes(chan: Channel) -> None:
    r = chan.r
    long_work(chan)
    off = rm.disable_channels_params([(r.client, chan.channel)])
    assert r.control(chan.sub, rm.FIFO_DISABLE_CHANNELS, off) == rm.OK
    first = settled(chan)
    assert settled(chan) == first, "a disabled channel kept running"
    on = rm.disable_channels_params([(r.client, chan.channel)], disable=False)
    assert r.control(chan.sub, rm.FIFO_DISABLE_CHANNELS, on) == rm.OK
    assert wait_for(lambda: chan.gp_get() > first[0])


# A kernel client on a user's TSG: how qgpu's scheduler acts (tests/harness/kclient)

KCLIENT = Path("/sys/module/qgpu_kclient_test/parameters")


def kernel_tsg_op(op: str) -> dict[str, int]:
    """Issue one control on the kernel client's dup; returns its op_result as ints."""
    (KCLIENT / "tsg_op").write_text(op)
    words = (KCLIENT / "op_result").read_text().split()
    return {k: int(v, 0) for k, v in (w.split("=") for w in words)}


def test_kernel_dup_of_a_tsg_schedules_and_times_it(
    chan: Channel, params: Callable[[str, str], None]
) -> None:
    params("schedule_off_effective", "Y")  # the headers' model; inert by default, as measured
    r = chan.r
    tsg_id = tsg_line(r, chan.tsg)["tsg"]
    loaded = insmod("qgpu_kclient_test", f"hclient={r.client}", f"hobject={chan.tsg}", "keep=1")
    assert loaded.returncode == 0, loaded.stderr
    try:
        res = Path(KCLIENT / "result").read_text()
        assert "dup=0x0" in res, res
        assert kernel_tsg_op("get_timeslice") == {"status": 0, "timeslice_us": 1024}
        assert kernel_tsg_op("timeslice 5000")["status"] == rm.OK
        ts = bytearray(8)
        assert r.control(chan.tsg, rm.GET_TIMESLICE, ts) == rm.OK
        assert struct.unpack("<Q", ts)[0] == 5000  # one TSG behind both handles
        assert tsg_line(r, chan.tsg)["timeslice_us"] == 5000

        # The kernel takes the user's work off the runlist and puts it back.
        long_work(chan)
        assert kernel_tsg_op("schedule 0")["status"] == rm.OK
        assert tsg_line(r, chan.tsg)["runlist"] == 0
        first = settled(chan)
        assert settled(chan) == first, "work went on after the kernel's GPFIFO_SCHEDULE(0)"
        assert kernel_tsg_op("schedule 1")["status"] == rm.OK
        assert wait_for(lambda: tsg_line(r, chan.tsg)["busy_ns"] > first[1])
        assert wait_for(lambda: chan.gp_get() > first[0])

        # The user frees its TSG handle: its channels go with it (they are its children), the
        # TSG resource lives on behind the kernel's dup, idle, still controllable.
        assert r.free(chan.tsg) == rm.OK
        (t,) = [t for t in engine()["tsg"] if t["tsg"] == tsg_id]
        assert t["channels"] == 0
        assert not [c for c in engine()["chan"] if c["tsg"] == tsg_id]
        assert engine()["gpu"][0]["running"] != tsg_id
        assert kernel_tsg_op("get_timeslice") == {"status": 0, "timeslice_us": 5000}
        assert kernel_tsg_op("schedule 0")["status"] == rm.OK
        assert kernel_tsg_op("schedule 1")["status"] == rm.OK
    finally:
        assert rmmod("qgpu_kclient_test").returncode == 0
    # The kernel client's dup was the last handle: the TSG is gone.
    assert not [t for t in engine()["tsg"] if t["tsg"] == tsg_id]


def run_load(seconds: float, kernel_us: int, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(BIN), "run", "--seconds", str(seconds), "--kernel-us", str(kernel_us), "--json"]
        + list(extra),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(p: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def test_run_reports_its_kernels() -> None:
    _, before = busy()
    p = run_load(1, 1000)
    pid = p.pid
    r = finished(p)
    assert r["kernels"] > 0 and r["busy_ns"] == r["kernels"] * 1_000_000
    _, after = busy()
    assert after[pid]["kernels"] == r["kernels"]
    assert after[pid]["busy_ns"] == r["busy_ns"]
    assert pid not in before


def most_queued(p: subprocess.Popen[str]) -> int:
    """The most entries seen between GP_GET and GP_PUT of p's channels while it runs."""
    most = 0
    while p.poll() is None:
        e = engine()
        tsgs = {t["tsg"] for t in e["tsg"] if t["pid"] == p.pid}
        for c in e["chan"]:
            if c["tsg"] in tsgs:
                most = max(most, (c["gp_put"] - c["gp_get"]) % 1024)
        time.sleep(0.01)
    return most


@pytest.mark.parametrize(("queued_us", "at_most"), [(4000, 4), (None, 50)])
def test_run_keeps_queued_what_queued_us_says(queued_us: int | None, at_most: int) -> None:
    extra = ("--queued-us", str(queued_us)) if queued_us else ()
    p = run_load(1, 1000, *extra)
    most = (most_queued(p) + 1) // 2  # a kernel and its semaphore release each
    r = finished(p)
    assert r["queued_us"] == (queued_us or 50_000)
    # topped up to the whole depth once a quarter has completed, never beyond it
    assert at_most * 3 // 4 <= most <= at_most, most


def test_two_processes_share_the_gpu_about_equally() -> None:
    a, b = run_load(4, 1000), run_load(4, 1000)
    ra, rb = finished(a), finished(b)
    _, procs = busy()
    ba, bb = procs[a.pid]["busy_ns"], procs[b.pid]["busy_ns"]
    assert 0.6 <= ba / bb <= 1.6, (ba, bb, ra, rb)


def test_kill_mid_run_leaves_nothing_behind() -> None:
    p = run_load(60, 1000)
    try:
        assert wait_for(
            lambda: any(t["pid"] == p.pid and t["busy_ns"] > 0 for t in engine()["tsg"])
        )
    finally:
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=60)
    assert wait_for(lambda: not engine()["tsg"]), engine()
    assert engine()["chan"] == []
    assert engine()["gpu"][0]["running"] == -1
    r = Rm()
    try:
        _, sub = r.device()
        assert r.fb_free_bytes(sub) == int(rm.param("fb_mib")) << 20
    finally:
        r.close()


@pytest.mark.usefixtures("default_modules")
def test_module_unloads_after_work() -> None:
    finished(run_load(0.5, 1000))
    for name in ("qgpu", "nvsim"):
        if is_loaded(name):
            r = rmmod(name)
            assert r.returncode == 0, r.stderr
    assert not PROC.exists()


def test_fifo_call_costs_are_bounded(params: Callable[[str, str], None]) -> None:
    """The modelled cost of a FIFO_DISABLE_CHANNELS call (nvsim spins that long under its RM lock)
    takes 0..100000 us; more is refused with EINVAL and leaves the value as it was."""
    for name in ("fifo_disable_us", "fifo_enable_us", "fifo_channel_us"):
        before = (PARAMS / name).read_text().strip()
        with pytest.raises(OSError) as err:
            (PARAMS / name).write_text("100001")
        assert err.value.errno == errno.EINVAL
        assert (PARAMS / name).read_text().strip() == before
        params(name, "0")
        assert (PARAMS / name).read_text().strip() == "0"
        params(name, "100000")
        assert (PARAMS / name).read_text().strip() == "100000"
