"""qgpu's compute scheduler: policies, classes, knobs, channel-group controls and the doorbell gate.

Behaviour only, never timing thresholds (the VM is slow and shared): what is held has its channels
disabled (nvsim's engine file, the ground truth), a held doorbell ring waits, everything finishes,
nothing hangs or leaks, and the kernel log stays clean. bench/bench_sched.py measures the shares.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import struct
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import rm
from kernel import PROJECT
from qgpu_sysfs import create, gpu_dir, inst_dir, read, remove, write
from rm import Channel, Rm

from qgpuctl.backends.netlink import QgpuEventSocket

LOAD = PROJECT / "build" / "bin" / "nvsim-load"
ENGINE = Path("/proc/driver/nvsim/gpu0/engine")
NVSIM = Path("/sys/module/nvsim/parameters")


def engine_lines(kind: str) -> list[dict[str, int]]:
    """The engine file's lines of one kind ("tsg", "chan"), as {field: value}."""
    out = []
    for line in ENGINE.read_text().splitlines():
        w = line.split()
        if w[0] == kind:
            out.append({k: int(v, 0) for k, v in zip(w[::2], w[1::2], strict=True)})
    return out


def engine_tsgs() -> list[dict[str, int]]:
    return engine_lines("tsg")


def tsg_of(r: Rm, handle: int) -> dict[str, int]:
    (t,) = [t for t in engine_tsgs() if t["client"] == r.client and t["handle"] == handle]
    return t


def engine_chans() -> list[dict[str, int]]:
    return engine_lines("chan")


def held(ch: Channel) -> bool:
    """qgpu holds a channel with FIFO_DISABLE_CHANNELS: the engine may not schedule it."""
    (c,) = [c for c in engine_chans() if c["chan"] == ch.token]
    return c["enabled"] == 0


def token_held(token: int) -> bool:
    """The channel of this work-submit token is disabled: held, as held() says of a Channel."""
    (c,) = [c for c in engine_chans() if c["chan"] == token]
    return c["enabled"] == 0


def channel_under(r: Rm, dev: int, parent: int, ctxshare: bool = True) -> tuple[int, int]:
    """A channel of `r`'s under `parent` (a group, a copy of one, or a device), with its ring and
    USERD in memory of its own and an engine object: (its handle, its work-submit token). In a
    group whose channels name a subcontext it needs one too (`ctxshare`)."""
    cs = 0
    if ctxshare:
        status, cs = r.alloc(r.client, parent, rm.CTXSHARE, rm.ctxshare_params())
        assert status == rm.OK, hex(status)
    status, hmem, _, gpu_va = r.memory(rm.VIDMEM, dev, Channel.MEM)
    assert status == rm.OK, hex(status)
    engine = 0 if ctxshare else rm.ENGINE_GRAPHICS
    params = rm.channel_params(gpu_va, 16, hmem, Channel.USERD, cs, engine=engine)
    status, chan = r.alloc(r.client, parent, rm.CHANNEL, params)
    assert status == rm.OK, hex(status)
    rm.engine_object(r, chan)
    tok = bytearray(4)
    assert r.control(chan, rm.WORK_SUBMIT_TOKEN, tok) == rm.OK
    return chan, int(struct.unpack("<I", tok)[0])


def wait_for(cond: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def knob(name: str) -> str:
    return read(gpu_dir() / name)


def set_knob(name: str, value: str) -> None:
    write(gpu_dir() / name, value + "\n")


def iknob(inst: str, name: str) -> str:
    return read(inst_dir(inst) / name)


def set_iknob(inst: str, name: str, value: str) -> None:
    write(inst_dir(inst) / name, value + "\n")


def refused(fn: Callable[..., None], *args: str) -> int:
    try:
        fn(*args)
    except OSError as e:
        return e.errno or 0
    return 0


LOADS: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def best_effort() -> Iterator[None]:
    """Every test starts and ends under best-effort with the default timeslice and period.

    Loads a failed test left behind are killed and reaped: running on, they would skew the next
    tests, and an unreaped Popen warns when collected, which fails whatever test is running then.
    """
    set_knob("policy", "best-effort")
    yield
    while LOADS:
        p = LOADS.pop()
        if p.poll() is None:
            p.kill()
        p.communicate()
    set_knob("policy", "best-effort")
    set_knob("timeslice_us", "1024")
    set_knob("period_us", "10000")


# Small memory limits: the GPU's limits must fit its memory (overcommit is off by default).
MEM = "mem=128M"


def with_mem(line: str) -> str:
    return line if "mem=" in line else f"{line} {MEM}"


@contextmanager
def instances(*lines: str) -> Iterator[list[str]]:
    names = [line.split()[0] for line in lines]
    made = []
    try:
        for line in lines:
            create(with_mem(line))
            made.append(line.split()[0])
        yield [f"/dev/qgpu/{n}" for n in names]
    finally:
        for n in made:
            if inst_dir(n).exists():
                remove(n, force=True)


def load(dev: str, seconds: float, kernel_us: int = 1000) -> subprocess.Popen[str]:
    p = subprocess.Popen(
        [str(LOAD), "run", "--dev", dev, "--seconds", str(seconds), "--kernel-us", str(kernel_us)]
        + ["--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    LOADS.append(p)
    return p


def finished(p: subprocess.Popen[str], timeout: float = 300) -> dict[str, Any]:
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def channel(dev: str) -> tuple[Rm, Channel]:
    r = Rm(dev=dev)
    d, s = r.device()
    return r, Channel(r, d, s)


def test_gpu_knobs_validate() -> None:
    assert knob("policy") == "best-effort"
    for p in ("fixed-share", "burst-share", "best-effort"):
        set_knob("policy", p)
        assert knob("policy") == p
    for bad in ("fixed", "", "best-effort extra", "FIXED-SHARE"):
        assert refused(set_knob, "policy", bad) == errno.EINVAL, bad
    set_knob("timeslice_us", "2000")
    assert knob("timeslice_us") == "2000"
    for bad in ("0", "-1", "abc", "60000001", "1.5"):
        assert refused(set_knob, "timeslice_us", bad) == errno.EINVAL, bad
    assert knob("period_us") == "10000"
    try:
        for good in ("1000", "1000000", "20000"):
            set_knob("period_us", good)
            assert knob("period_us") == good
        for bad in ("999", "1000001", "0", "-5", "abc", "", "1e4"):
            assert refused(set_knob, "period_us", bad) == errno.EINVAL, bad
        assert knob("period_us") == "20000", "a refused write changed the knob"
    finally:
        set_knob("period_us", "10000")
    assert 0 <= int(knob("utilization")) <= 100


def test_instance_knobs_validate_and_guarantees_stay_within_100() -> None:
    with instances("ka core=60 class=online", "kb core=40 class=offline"):
        assert iknob("kb", "class") == "offline"
        set_iknob("kb", "class", "online")
        assert iknob("kb", "class") == "online"
        for bad in ("batch", "", "1"):
            assert refused(set_iknob, "kb", "class", bad) == errno.EINVAL, bad
        for bad in ("0", "101", "-5", "x", "50%"):
            assert refused(set_iknob, "ka", "core", bad) == errno.EINVAL, bad
        for f in ("gpu_time_ns", "throttled_ns", "preemptions"):
            assert int(iknob("ka", f)) >= 0
        assert 0.0 <= float(iknob("ka", "share")) <= 100.0

        set_knob("policy", "fixed-share")
        assert refused(set_iknob, "ka", "core", "61") == errno.EINVAL
        assert iknob("ka", "core") == "60"
        assert refused(create, with_mem("kc core=1")) == errno.EINVAL
        assert not inst_dir("kc").exists()
        set_iknob("ka", "core", "30")
        create(with_mem("kc core=30"))
        remove("kc")
        set_knob("policy", "best-effort")
        set_iknob("ka", "core", "100")  # no guarantee under best-effort: no sum
        assert refused(set_knob, "policy", "burst-share") == errno.EINVAL
        assert refused(set_knob, "policy", "fixed-share") == errno.EINVAL
        assert knob("policy") == "best-effort"


def held_while_online_works(on: str, is_held: Callable[[], bool]) -> None:
    """Not held; held once the online instance `on` has work; released once that is done."""
    assert not is_held()
    p = load(on, 3)
    assert wait_for(is_held)
    finished(p)
    assert wait_for(lambda: not is_held())


def test_a_channel_under_a_copy_of_its_group_is_held_with_its_instance() -> None:
    """A tenant may copy its channel group into a second client of its own (RM_DUP_OBJECT) and
    make channels under the copy: on the GPU they are channels of the same group. qgpu holds each
    channel of a held instance, so these are held and released with it like the others."""
    with instances("offc core=50 class=offline", "onc core=50 class=online") as (off, on):
        r, ch = channel(off)
        r2 = Rm(dev=off)
        try:
            dev2, _ = r2.device()
            status, copy = r2.dup(dev2, r.client, ch.tsg)
            assert status == rm.OK, hex(status)
            _, token = channel_under(r2, dev2, copy)

            def other_held() -> bool:
                return token_held(token)

            assert ch.schedule(True) == rm.OK  # the group's channels, this one too
            assert not other_held()
            p = load(on, 3)
            assert wait_for(lambda: held(ch) and other_held())
            finished(p)
            assert wait_for(lambda: not held(ch) and not other_held())
        finally:
            ch.close()
            r2.close()
            r.close()


@pytest.mark.parametrize("how", ["dup", "import"])
def test_a_group_lives_on_in_its_copy(how: str) -> None:
    """RM keeps a channel group while any handle names it (kchangrpapiCopyConstruct_IMPL()): a
    tenant may copy its group into a second client (RM_DUP_OBJECT, or an export to an fd and an
    import from it), make a channel under the copy and free the group's own handle. The group is
    still on the GPU, and qgpu still has hold of it: the GPU's `timeslice_us` reaches it, its
    channel is held and released with the instance, and qgpu's duplicate goes with the copy."""
    with instances("offg core=50 class=offline", "ong core=50 class=online") as (off, on):
        r, ch = channel(off)
        r2 = Rm(dev=off)
        export = os.open(f"{off}/nvidiactl", os.O_RDWR)
        try:
            dev2, _ = r2.device()
            if how == "dup":
                status, copy = r2.dup(dev2, r.client, ch.tsg)
            else:
                assert r.export_object(ch.tsg, export) == rm.OK
                status, copy = r2.import_object(export, dev2)
            assert status == rm.OK, hex(status)
            _, token = channel_under(r2, dev2, copy)
            (group,) = [c["tsg"] for c in engine_chans() if c["chan"] == token]

            def timeslice() -> int:
                (t,) = [t for t in engine_tsgs() if t["tsg"] == group]
                return t["timeslice_us"]

            def other_held() -> bool:
                return token_held(token)

            assert r.free(ch.tsg) == rm.OK  # the group's own handle, and the channel under it
            assert [c["chan"] for c in engine_chans() if c["tsg"] == group] == [token]
            params = bytearray(rm.schedule_size())
            params[0] = 1
            assert r2.control(copy, rm.TSG_SCHEDULE, params) == rm.OK
            assert timeslice() == 1024
            set_knob("timeslice_us", "2000")
            assert timeslice() == 2000
            held_while_online_works(on, other_held)
        finally:
            os.close(export)
            ch.close()
            r2.close()
            r.close()
    # the duplicate went with the copy: nothing holds the group any more
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_a_tenant_cannot_make_its_group_real_time() -> None:
    """A real-time channel group preempts every group that is not and runs first (NVA06C
    MAKE_REALTIME, open to any client): past every policy and every other instance. qgpu refuses
    it with RM's status for a privilege, forwards nothing, and tells the operator."""
    from qgpu_netlink import next_event

    with instances("rt core=50") as (d,):
        r, c = channel(d)
        sock = QgpuEventSocket()
        try:
            for want in (1, 0):
                assert r.control(c.tsg, rm.MAKE_REALTIME, bytearray([want])) == (
                    rm.INSUFFICIENT_PERMISSIONS
                )
                got = next_event(sock, "refused")
                assert (got.instance, got.pid) == ("rt", os.getpid())
                assert "MAKE_REALTIME" in (got.detail or "")
        finally:
            sock.close()
            c.close()
            r.close()


def test_a_tenants_compute_context_is_preempted_at_an_instruction_though_it_never_asks() -> None:
    """RM makes a context WFI (an H200, session 37; libcuda asks for CILP itself), and a WFI
    context running a long kernel keeps the engine from every other. qgpu sets CILP on the context
    of each compute object a tenant makes: in a group (named, as libcuda names it), under a device
    (the channel named), and where the tenant has no subdevice to ask through."""
    with instances("cilp core=50") as (d,):
        r, r2 = Rm(dev=d), Rm(dev=d)
        try:
            dev, sub = r.device()
            ch = Channel(r, dev, sub, cilp=False)
            assert tsg_of(r, ch.tsg)["compute_preemption"] == rm.PREEMPT_CILP
            assert rm.compute_preemption(r, sub, ch.channel) == (rm.OK, rm.PREEMPT_CILP)
            lone, _ = channel_under(r, dev, dev, ctxshare=False)
            assert rm.compute_preemption(r, sub, lone) == (rm.OK, rm.PREEMPT_CILP)
            # a client with no subdevice: qgpu asks through one of its own making, then frees it
            status, dev2 = r2.alloc(r2.client, r2.client, rm.DEVICE, struct.pack("<I52x", 0))
            assert status == rm.OK, hex(status)
            status, tsg2 = r2.alloc(r2.client, dev2, rm.TSG, rm.group_params())
            assert status == rm.OK, hex(status)
            channel_under(r2, dev2, tsg2)
            assert tsg_of(r2, tsg2)["compute_preemption"] == rm.PREEMPT_CILP
            status, _ = r2.alloc(r2.client, dev2, rm.SUBDEVICE, struct.pack("<I", 0))
            assert status == rm.OK, hex(status)
            ch.close()
        finally:
            r.close()
            r2.close()


def test_a_tenant_may_not_ask_for_a_compute_preemption_other_than_cilp() -> None:
    """WFI and CTA wait for a kernel (or its thread blocks) to end before the context leaves the
    engine; qgpu refuses them, and a GR_CTXSW_PREEMPTION_BIND that sets a compute mode, with RM's
    status for a privilege, tells the operator, and changes nothing. CILP, or the graphics mode
    alone, goes through."""
    from qgpu_netlink import next_event

    with instances("mode core=50") as (d,):
        r, c = channel(d)
        other = Rm(dev=d)
        sock = QgpuEventSocket()
        try:
            for mode in (rm.PREEMPT_WFI, rm.PREEMPT_CTA):
                for target in (c.channel, c.tsg):
                    assert rm.set_compute_preemption(r, c.sub, target, mode) == (
                        rm.INSUFFICIENT_PERMISSIONS
                    )
                    got = next_event(sock, "refused")
                    assert (got.instance, got.pid) == ("mode", os.getpid())
                    assert "CILP" in (got.detail or "")
            assert tsg_of(r, c.tsg)["compute_preemption"] == rm.PREEMPT_CILP
            # a BIND of preemption buffers may not set a compute mode; one for graphics goes on
            bind = bytearray(112 if rm.abi_at_least((565,)) else 104)
            struct.pack_into("<III", bind, 0, 1, r.client, c.channel)
            assert r.control(c.sub, rm.GR_PREEMPTION_BIND, bind) == rm.INSUFFICIENT_PERMISSIONS
            assert "BIND" in (next_event(sock, "refused").detail or "")
            struct.pack_into("<I", bind, 0, 2)
            assert r.control(c.sub, rm.GR_PREEMPTION_BIND, bind) == rm.NOT_SUPPORTED  # nvsim's
            assert rm.set_compute_preemption(r, c.sub, c.tsg, rm.PREEMPT_CILP) == rm.OK
            assert rm.set_compute_preemption(r, c.sub, c.tsg, rm.PREEMPT_WFI, flags=2) == rm.OK
            assert r.control(c.sub, rm.GR_SET_PREEMPTION_MODE, bytearray(24)) == (
                rm.INVALID_PARAM_STRUCT
            )
            # a client of another file is not the caller's to name
            _, other_sub = other.device()
            params = bytearray(struct.pack("<IIIIIIQ", 1, c.channel, 0, 2, 0, 0, 0))
            assert r.control(other_sub, rm.GR_SET_PREEMPTION_MODE, params, other.client) == (
                rm.INVALID_CLIENT
            )
            assert tsg_of(r, c.tsg)["compute_preemption"] == rm.PREEMPT_CILP
        finally:
            sock.close()
            c.close()
            other.close()
            r.close()


def test_holding_a_tenant_that_never_asked_for_cilp_leaves_its_context_alive() -> None:
    """An offline tenant runs a long kernel in a context it left as RM made it. Online work holds
    it: with the context WFI the hold could not switch it out, and after the context-switch
    timeout RM killed it (an H200: Xid 109). qgpu made it CILP, so it leaves the engine, lives,
    and runs on once released."""
    with instances("offw core=50 class=offline", "onw core=50 class=online") as (off, on):
        r = Rm(dev=off)
        try:
            dev, sub = r.device()
            ch = Channel(r, dev, sub, cilp=False)
            ch.submit(rm.kernel(120_000_000))
            assert wait_for(lambda: tsg_of(r, ch.tsg)["busy_ns"] > 0)
            held_while_online_works(on, lambda: held(ch))
            (line,) = [c for c in engine_chans() if c["chan"] == ch.token]
            assert line["errored"] == 0, "the held context was killed"
            busy = tsg_of(r, ch.tsg)["busy_ns"]
            assert wait_for(lambda: tsg_of(r, ch.tsg)["busy_ns"] > busy)
            ch.close()
        finally:
            r.close()


def test_a_copy_made_while_its_source_goes_is_still_held() -> None:
    """A copy of a group made through one client while another file frees the group's own
    handle: RM made the copy before the free, so the group lives on in it, but qgpu may see the
    free before it sees the copy, with nothing left of its hold on the group. It then takes hold
    of the group through the copy: each group left on the GPU gets the GPU's `timeslice_us`.
    (With the module before, about one copy in 30 went unheld.)"""
    with instances("race core=50") as (d,):
        r, r2 = Rm(dev=d), Rm(dev=d)
        try:
            dev, _ = r.device()
            dev2, _ = r2.device()
            copies, unheld = 0, []
            for _ in range(150):
                status, group = r.alloc(r.client, dev, rm.TSG, rm.group_params())
                assert status == rm.OK, hex(status)
                go = threading.Event()

                def free_it(group: int = group, go: threading.Event = go) -> None:
                    go.wait()
                    r.free(group)

                free = threading.Thread(target=free_it)
                free.start()
                go.set()  # the free and the copy go together
                status, copy = r2.dup(dev2, r.client, group)
                free.join()
                if status != rm.OK:
                    continue  # RM freed the group first
                copies += 1
                us = 2000 + 1000 * (copies % 2)  # a change of the knob every time
                set_knob("timeslice_us", str(us))
                (t,) = [t for t in engine_tsgs() if t["pid"] == os.getpid()]
                if t["timeslice_us"] != us:
                    unheld.append(t)
                assert r2.free(copy) == rm.OK
            assert copies > 0
            assert unheld == []
        finally:
            r2.close()
            r.close()
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_a_channel_under_a_device_is_held_with_its_instance() -> None:
    """A channel made directly under a device is in a group of its own that RM made and no handle
    names, so qgpu has no duplicate of that group; it holds the channel itself, as it holds every
    channel of a held instance."""
    with instances("offd core=50 class=offline", "ond core=50 class=online") as (off, on):
        r = Rm(dev=off)
        try:
            dev, _ = r.device()
            lone, token = channel_under(r, dev, dev, ctxshare=False)

            def lone_held() -> bool:
                return token_held(token)

            params = bytearray(rm.schedule_size())
            params[0] = 1
            assert r.control(lone, rm.CHANNEL_SCHEDULE, params) == rm.OK
            held_while_online_works(on, lone_held)
        finally:
            r.close()
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_online_work_holds_offline_channel_groups() -> None:
    with instances("off core=50 class=offline", "on core=50 class=online") as (off, on):
        r, ch = channel(off)
        try:
            ch.submit(rm.kernel(100))
            assert wait_for(lambda: ch.gp_get() == 1)
            assert not held(ch)
            p = load(on, 3)
            # online work arrived: the offline channels are disabled
            assert wait_for(lambda: held(ch))
            # the tenant scheduling it again is undone while it is held
            assert ch.schedule(True) == rm.OK
            assert held(ch) or p.poll() is not None
            finished(p)
            # online is idle again: offline is back
            assert wait_for(lambda: not held(ch))
            assert int(iknob("on", "gpu_time_ns")) > 0
        finally:
            ch.close()
            r.close()
    # the duplicates went with the tenants' groups
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


TRACE = Path("/proc/driver/nvsim/gpu0/trace")


def trace_next_seq() -> int:
    return int(TRACE.read_text().split()[3])


def fifo_calls_since(seq: int) -> list[tuple[str, int]]:
    """nvsim's FIFO_DISABLE_CHANNELS calls from trace entry `seq` on: (kind, channels listed)."""
    calls = []
    for line in TRACE.read_text().splitlines()[1:]:
        w = line.split()
        if int(w[0]) >= seq and w[2] in ("fifo_disable", "fifo_enable"):
            calls.append((w[2], int(w[8])))
    return calls


def test_one_call_holds_every_offline_instance() -> None:
    """Online work holds all offline instances with one FIFO_DISABLE_CHANNELS, not one each,
    and its end releases them with one.

    On a GSP-based GPU every call is a round trip to the firmware (about 0.5 ms on an H200,
    modelled by nvsim), so holding instances one call at a time would keep the last offline
    instance on the engine for one round trip per instance before it.
    """
    lines = [f"boff{i} core=25 class=offline" for i in range(3)] + ["bon core=25 class=online"]
    with instances(*lines) as devs:
        opened = [channel(dev) for dev in devs[:3]]
        try:
            for _, ch in opened:
                ch.submit(rm.kernel(100))
            for _, ch in opened:
                assert wait_for(lambda ch=ch: ch.gp_get() == 1)
                assert not held(ch)
            seq = trace_next_seq()
            p = load(devs[3], 3)
            assert wait_for(lambda: all(held(ch) for _, ch in opened))
            finished(p)
            assert wait_for(lambda: not any(held(ch) for _, ch in opened))
            # every hold and every release since went out as one call for all three
            calls = fifo_calls_since(seq)
            assert {kind for kind, _ in calls} == {"fifo_disable", "fifo_enable"}, calls
            assert all(n == len(opened) for _, n in calls), calls
        finally:
            for r, ch in opened:
                ch.close()
                r.close()


def test_control_us_is_what_the_scheduler_calls_take() -> None:
    """`control_us` shows how long the scheduler's FIFO_DISABLE_CHANNELS calls take on the GPU:
    on a GSP-based GPU that is CPU time spun for each call, two a switch. nvsim spins each call
    for its modelled time, at least fifo_enable_us, so after a hold and a release the average
    is at least that. Read-only."""
    floor = min(int((NVSIM / p).read_text()) for p in ("fifo_enable_us", "fifo_disable_us"))
    assert floor > 0, "nvsim's call cost model is off: nothing to compare with"
    with instances("coff core=50 class=offline", "con core=50 class=online") as devs:
        r, ch = channel(devs[0])
        try:
            ch.submit(rm.kernel(100))
            assert wait_for(lambda: ch.gp_get() == 1)
            p = load(devs[1], 2)
            assert wait_for(lambda: held(ch))
            finished(p)
            assert wait_for(lambda: not held(ch))
            assert int(knob("control_us")) >= floor
        finally:
            ch.close()
            r.close()
    assert refused(set_knob, "control_us", "0") in (errno.EACCES, errno.EIO, errno.EPERM)


def test_a_held_tenant_cannot_enable_its_own_channels() -> None:
    """qgpu holds with FIFO_DISABLE_CHANNELS; the tenant's own enables wait for its release."""
    with instances("off core=50 class=offline", "on core=50 class=online") as (off, on):
        r, ch = channel(off)
        mine = Channel(r, ch.dev, ch.sub)
        try:
            ch.submit(rm.kernel(100))
            assert wait_for(lambda: ch.gp_get() == 1)
            # the tenant disables one of its channels itself: qgpu's release leaves it so
            own = rm.disable_channels_params([(r.client, mine.channel)])
            assert r.control(ch.sub, rm.FIFO_DISABLE_CHANNELS, own) == rm.OK
            assert held(mine)
            p = load(on, 4)
            assert wait_for(lambda: held(ch))
            enable = rm.disable_channels_params([(r.client, ch.channel)], disable=False)
            assert r.control(ch.sub, rm.FIFO_DISABLE_CHANNELS, enable) == rm.OK
            assert held(ch) or p.poll() is not None, "the tenant's enable undid the hold"
            assert ch.schedule(True) == rm.OK
            assert held(ch) or p.poll() is not None, "the group's GPFIFO_SCHEDULE(1) undid it"
            sched = bytearray(rm.schedule_size())
            sched[0] = 1
            assert r.control(ch.channel, rm.CHANNEL_SCHEDULE, sched) == rm.OK
            assert held(ch) or p.poll() is not None, "the channel's GPFIFO_SCHEDULE(1) undid it"
            finished(p)
            assert wait_for(lambda: not held(ch))
            assert held(mine), "qgpu's release enabled a channel its tenant had disabled"
        finally:
            mine.close()
            ch.close()
            r.close()
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_busy_offline_is_preempted_and_throttled() -> None:
    with instances("boff core=50 class=offline", "bon core=50 class=online") as (off, on):
        poff = load(off, 6)
        assert wait_for(lambda: int(iknob("boff", "gpu_time_ns")) > 0)
        pon = load(on, 2)
        assert wait_for(lambda: int(iknob("boff", "preemptions")) >= 1)
        finished(pon)
        assert finished(poff)["kernels"] > 0
        assert int(iknob("boff", "throttled_ns")) > 0


def test_work_queued_without_a_ring_is_activity() -> None:
    """An instance whose rings qgpu did not see but whose kernels wait is busy, not idle.

    A ring makes an instance active only for the next 50 ms of GPU time it is allowed; an engine
    slower than that (TCG on a loaded host, a round robin of many groups) left a busy offline
    instance counted idle, so holding it for online work was neither a preemption nor throttling.
    With doorbell_required=N the engine takes GP_PUT without a ring, which makes the case exact:
    qgpu sees these kernels only in the channel's USERD. Three of them: the host has already
    taken the running one and the next (GP_GET is past them, gp_get_ahead=1, as on an H200), so
    only the third still shows as queued. A lone long kernel is invisible there once it runs.
    """
    write(NVSIM / "doorbell_required", "N")
    try:
        with instances("qoff core=50 class=offline", "qon core=50 class=online") as (off, on):
            r, ch = channel(off)
            try:
                ch.push(*[rm.kernel(20_000_000)] * 3)
                ch.publish()
                assert wait_for(lambda: tsg_of(r, ch.tsg)["busy_ns"] > 0)
                assert wait_for(lambda: int(iknob("qoff", "gpu_time_ns")) > 0), "counted idle"
                p = load(on, 2)
                assert wait_for(lambda: int(iknob("qoff", "preemptions")) >= 1)
                assert held(ch) or p.poll() is not None
                finished(p)
                assert int(iknob("qoff", "throttled_ns")) > 0
            finally:
                ch.close()
                r.close()
    finally:
        write(NVSIM / "doorbell_required", "Y")
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def fork_ring(ch: Channel) -> int:
    """A child that rings ch's doorbell (through the inherited mapping) and exits 0."""
    pid = os.fork()
    if pid == 0:
        try:
            ch.push(rm.kernel(100))
            ch.publish()
            ch.ring()
        finally:
            os._exit(0)
    return pid


REAPED: set[int] = set()


def exited(pid: int) -> bool:
    if pid not in REAPED and os.waitpid(pid, os.WNOHANG)[0] == pid:
        REAPED.add(pid)
    return pid in REAPED


def waiting_at_doorbell(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/wchan").read_text() == "qgpu_sched_ring"
    except OSError:
        return False


def test_a_held_ring_waits_until_its_instance_may_run() -> None:
    with instances("goff core=50 class=offline", "gon core=50 class=online") as (off, on):
        r, ch = channel(off)
        p = load(on, 30)
        try:
            assert wait_for(lambda: held(ch))
            child = fork_ring(ch)
            assert wait_for(lambda: waiting_at_doorbell(child) or exited(child))
            assert not exited(child), "a held instance's ring went through"
            assert int(iknob("goff", "throttled_ns")) > 0
        finally:
            p.send_signal(signal.SIGKILL)
            p.communicate(timeout=60)
        # no online work any more: the offline instance may run, its ring goes through
        assert wait_for(lambda: exited(child), 60)
        assert wait_for(lambda: ch.gp_get() == 1)
        ch.close()
        r.close()


def test_process_exit_while_held_at_the_doorbell() -> None:
    with instances("xoff core=50 class=offline", "xon core=50 class=online") as (off, on):
        r, ch = channel(off)
        p = load(on, 20)
        try:
            assert wait_for(lambda: held(ch))
            child = fork_ring(ch)
            time.sleep(0.3)
            os.kill(child, signal.SIGKILL)
            assert wait_for(lambda: exited(child), 60)
        finally:
            p.send_signal(signal.SIGKILL)
            p.communicate(timeout=60)
            ch.close()
            r.close()
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_instance_removal_while_scheduled() -> None:
    with instances("roff core=50 class=offline", "ron core=50 class=online") as (off, on):
        r, ch = channel(off)
        p = load(on, 20)
        try:
            assert wait_for(lambda: held(ch))
            child = fork_ring(ch)
            time.sleep(0.3)
            remove("roff", force=True)  # the gate opens: the ring goes through
            assert wait_for(lambda: exited(child), 60)
            remove("ron", force=True)  # its load's later calls fail; kill it
        finally:
            p.send_signal(signal.SIGKILL)
            p.communicate(timeout=60)
            ch.close()
            r.close()
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_policy_core_and_class_changes_under_load() -> None:
    with instances("pa core=30 class=online", "pb core=70 class=online") as (a, b):
        pa, pb = load(a, 4, 100), load(b, 4, 5000)
        steps = [
            ("policy", "fixed-share"),
            ("core", "10"),
            ("policy", "burst-share"),
            ("class", "offline"),
            ("timeslice_us", "500"),
            ("class", "online"),
            ("core", "30"),
            ("policy", "best-effort"),
            ("policy", "fixed-share"),
        ]
        for what, value in steps:
            time.sleep(0.3)
            if what in ("policy", "timeslice_us"):
                set_knob(what, value)
            else:
                set_iknob("pa", what, value)
        ra, rb = finished(pa), finished(pb)
        assert ra["kernels"] > 0 and rb["kernels"] > 0
        assert int(iknob("pa", "gpu_time_ns")) > 0 and int(iknob("pb", "gpu_time_ns")) > 0


def alarm(signum: int, frame: object) -> None:
    raise TimeoutError("no event within the deadline")


def test_policy_change_event() -> None:
    sock = QgpuEventSocket()  # subscribed once this returns
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(60)
    try:
        set_knob("policy", "burst-share")
        got = next(e for e in sock.events() if e.event == "policy_change")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        sock.close()
    assert (got.gpu, got.instance, got.detail) == (0, None, "best-effort -> burst-share")


@pytest.mark.parametrize("effective", ["Y", "N"])
def test_controls_inert_still_schedules(effective: str) -> None:
    """qgpu tells from GP_GET whether its holds take effect, and says so in `controls`."""
    write(NVSIM / "controls_effective", effective)
    try:
        assert knob("controls") == "effective"
        assert refused(set_knob, "controls", "inert") in (errno.EACCES, errno.EPERM)
        with instances("ia core=30", "ib core=70") as (a, b):
            set_knob("policy", "fixed-share")
            pa, pb = load(a, 2), load(b, 2)
            if effective == "N":
                assert wait_for(lambda: knob("controls") == "inert")
            else:
                time.sleep(1.0)
                assert knob("controls") == "effective"
            assert finished(pa)["kernels"] > 0 and finished(pb)["kernels"] > 0
        assert wait_for(lambda: not engine_tsgs()), engine_tsgs()
        # the verdict lasts as long as the channel groups it was made on
        set_knob("policy", "best-effort")  # a knob write has the scheduler look again at once
        assert wait_for(lambda: knob("controls") == "effective")
    finally:
        write(NVSIM / "controls_effective", "Y")


@pytest.mark.parametrize("writeback", ["Y", "N"])
def test_gp_get_says_whether_the_gpu_writes_it_back(writeback: str) -> None:
    """Without USERD writeback (Blackwell) qgpu sees no progress, and says so in `gp_get`."""
    write(NVSIM / "userd_writeback", writeback)
    try:
        assert knob("gp_get") == "unknown"
        assert refused(set_knob, "gp_get", "moves") in (errno.EACCES, errno.EPERM)
        with instances("wa core=30", "wb core=70") as (a, _):
            set_knob("policy", "fixed-share")
            # 100 us kernels: the load's GP_PUT goes round the 1024-entry ring in about 50 ms
            p = load(a, 2, kernel_us=100)
            want = "moves" if writeback == "Y" else "still"
            assert wait_for(lambda: knob("gp_get") == want), knob("gp_get")
            assert finished(p)["kernels"] > 0
        # the verdict lasts as long as the channel groups it was made on
        assert wait_for(lambda: not engine_tsgs()), engine_tsgs()
        set_knob("policy", "best-effort")  # a knob write has the scheduler look again at once
        assert wait_for(lambda: knob("gp_get") == "unknown")
    finally:
        write(NVSIM / "userd_writeback", "Y")


@contextmanager
def relaxed_burst_share(a: str, b: str) -> Iterator[tuple[Rm, Channel]]:
    """Burst-share with instance `a` at 50 % running two busy groups and an idle one (the tenant's
    Channel, yielded), `b` at 20 % running one: 2/4 and 1/4 of the round robin are enough, so
    nobody is held. The loads outlast the test (killed at its end): one that ends would change
    whether the round robin suffices, and hold `b` whatever the tenant set."""
    set_knob("policy", "burst-share")
    r, c = channel(f"/dev/qgpu/{a}")
    procs = [load(f"/dev/qgpu/{n}", 60) for n in (a, a, b)]
    try:
        assert wait_for(lambda: sum(t["busy_ns"] > 0 for t in engine_tsgs()) == 3, 60)
        time.sleep(0.5)
        never_held(a, b)
        yield r, c
    finally:
        for p in procs:
            p.kill()
            p.communicate()
        c.close()
        r.close()


def never_held(*names: str) -> list[str]:
    """Over a second, no channel is disabled and no instance of `names` preempted."""
    held = [iknob(n, "preemptions") for n in names]
    for _ in range(50):
        chans = engine_chans()
        assert len(chans) == 4 and all(c["enabled"] == 1 for c in chans), chans
        time.sleep(0.02)
    assert [iknob(n, "preemptions") for n in names] == held
    return held


@pytest.mark.parametrize("through", ["group", "channel"])
def test_burst_share_leaves_a_round_robin_that_suffices_alone(through: str) -> None:
    """Burst-share holds nothing while the engine's round robin gives everyone its guarantee.

    Once the tenant sets an interleave level of its own on one of its groups the turns may no
    longer be equal: qgpu schedules the shares itself again, and the 20 % instance is held once it
    has had its budget in a period. The level is set through the group, or through its channel
    (NVA06F), which sets its group's.
    """
    with instances("ra core=50", "rb core=20"), relaxed_burst_share("ra", "rb") as (r, c):
        cmd, handle = rm.SET_INTERLEAVE, c.tsg
        if through == "channel":
            cmd, handle = rm.CHANNEL_SET_INTERLEAVE, c.channel
        held = iknob("rb", "preemptions")
        assert r.control(handle, cmd, bytearray(struct.pack("<I", rm.INTERLEAVE_HIGH))) == rm.OK
        assert wait_for(lambda: int(iknob("rb", "preemptions")) > int(held), 10)
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


@pytest.mark.parametrize("through", ["group", "copy"])
def test_a_tenants_timeslice_gives_way_to_the_gpus(through: str) -> None:
    """libcuda sets a timeslice (2048 us) on each context's graphics group. qgpu forwards a
    tenant's SET_TIMESLICE, then sets the GPU's `timeslice_us` on the group again, whether the
    tenant named the group's own handle or a copy of it in a second client (RM_DUP_OBJECT): the
    turns stay equal, and burst-share goes on leaving alone a round robin that suffices."""
    with instances("ta core=50", "tb core=20"), relaxed_burst_share("ta", "tb") as (r, c):
        target, handle = r, c.tsg
        if through == "copy":
            target = Rm(dev="/dev/qgpu/ta")
            dev2, _ = target.device()
            status, handle = target.dup(dev2, r.client, c.tsg)
            assert status == rm.OK, hex(status)
        try:
            params = bytearray(struct.pack("<Q", 7000))
            assert target.control(handle, rm.SET_TIMESLICE, params) == rm.OK
            assert tsg_of(r, c.tsg)["timeslice_us"] == int(knob("timeslice_us"))
            never_held("ta", "tb")
        finally:
            if target is not r:
                target.close()
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()


def test_64_instances_smoke() -> None:
    names = [f"s{i:02d} core=1 class={'online' if i % 2 else 'offline'}" for i in range(64)]
    with instances(*names) as devs:
        procs = [load(d, 1, 1000) for d in devs]
        time.sleep(0.5)
        set_knob("policy", "burst-share")
        time.sleep(0.5)
        set_knob("policy", "fixed-share")
        set_knob("policy", "best-effort")
        for p in procs:
            assert finished(p, 600)["kernels"] > 0
        assert sum(int(iknob(n.split()[0], "gpu_time_ns")) for n in names) > 0
    assert wait_for(lambda: not engine_tsgs()), engine_tsgs()
