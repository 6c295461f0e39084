"""Compute-sharing accuracy: qgpu's policies measured against nvsim's engine counters.

Runs inside the test VM (scripts/bench.sh). Each scenario creates instances, starts `nvsim-load run`
in each, samples nvsim's per-process busy time (/proc/driver/nvsim/gpu0/busy, the ground truth)
every 100 ms, and reports each instance's achieved share over 1 s windows (after a 1 s warm-up)
against its target. Scenarios run under controls_effective=Y and =N. nvsim-load keeps 50 ms of
kernels queued, topped up by one doorbell ring; fixed_10_90_*_queued_10ms keep 10 ms: with the
controls inert, the work a ring submitted runs whole, and the 1 s share of a small instance moves
by about what one ring submits (docs/design/compute-scheduling.md). Writes
$QGPU_BENCH_RESULTS/sched.json ($QGPU_BENCH_NAME.json where set) and one PNG per scenario (share
over time, one line per instance).
Latency scenarios (burst_wake, online_offline) time QGPU_BENCH_PROBES probes each (default 100, so
p99 is the second worst); idle_reaction_nvsim / _qgpu time the same probe on an idle GPU, straight
to nvsim and through an idle instance: the emulated engine's own reaction, the floor under the rest.
scripts/bench.sh runs those again in a one-vCPU guest (QGPU_BENCH_NAME=sched_latency_1cpu): with
two vCPUs on the two shared host cores the host preempts a vCPU for milliseconds at a time, and
that, not qgpu, was the tail of every latency (docs/design/compute-scheduling.md).
inert_detect_* (controls_effective=N) time how soon fixed-share finds the controls inert, over
QGPU_BENCH_DETECT_TRIALS fresh starts each (default 10).
userd_blind_controls_effective_* run the share scenarios again with nvsim's userd_writeback=N:
GP_GET in USERD never moves, as on Blackwell (kmod/nvsim/README.md), so qgpu sees no progress.
The VM is emulated (TCG, 2 shared cores): the numbers are what this run measured, nothing more.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "guest"))

import rm  # noqa: E402
from qgpu_sysfs import create, gpu_dir, inst_dir, remove, write  # noqa: E402
from rm import Channel, Rm  # noqa: E402

TOP = Path(__file__).resolve().parents[1]
LOAD = TOP / "build" / "bin" / "nvsim-load"
BUSY = Path("/proc/driver/nvsim/gpu0/busy")
TRACE = Path("/proc/driver/nvsim/gpu0/trace")
NVSIM = Path("/sys/module/nvsim/parameters")
OUT = Path(os.environ.get("QGPU_BENCH_RESULTS", "build/bench"))
# Latency probes per scenario: with 100, p99 is the second worst (nearest rank), not the worst.
PROBES = int(os.environ.get("QGPU_BENCH_PROBES", "100"))
# Trials per inert-detection scenario (controls_effective=N only)
DETECT_TRIALS = int(os.environ.get("QGPU_BENCH_DETECT_TRIALS", "10"))
# The result's name: build/bench/<NAME>.json (scripts/bench.sh runs the latency scenarios again
# in a one-vCPU guest as sched_latency_1cpu).
NAME = os.environ.get("QGPU_BENCH_NAME", "sched")
SAMPLE_S = 0.1
# what nvsim-load keeps queued by default (its --queued-us): 50 ms of kernels
QUEUED_US = 50_000
# without USERD writeback only the share scenarios run again (not the latency ones)
BLIND_SCENARIOS = ("fixed_", "best_effort_", "burst_1000us")
SECONDS = 4.0
SUFFIX = ["Y"]
COLORS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189)]


def png(
    path: Path, series: list[list[float]], targets: list[float], w: int = 640, h: int = 240
) -> None:
    """A tiny PNG line plot: shares 0..100 % over samples; dashed target lines."""
    img = [[(255, 255, 255)] * w for _ in range(h)]

    def put(x: int, y: int, c: tuple[int, int, int]) -> None:
        if 0 <= x < w and 0 <= y < h:
            img[y][x] = c

    for pct in range(0, 101, 25):
        y = h - 1 - int(pct / 100 * (h - 1))
        for x in range(w):
            put(x, y, (225, 225, 225))
    n = max((len(s) for s in series), default=1)
    for k, (s, t) in enumerate(zip(series, targets, strict=True)):
        c = COLORS[k % len(COLORS)]
        ty = h - 1 - int(t / 100 * (h - 1))
        for x in range(0, w, 6):
            for d in range(3):
                put(x + d, ty, c)
        prev = None
        for i, v in enumerate(s):
            x = int(i * (w - 1) / max(n - 1, 1))
            y = h - 1 - int(max(0.0, min(v, 100.0)) / 100 * (h - 1))
            if prev:
                x0, y0 = prev
                steps = max(abs(x - x0), abs(y - y0), 1)
                for j in range(steps + 1):
                    put(x0 + (x - x0) * j // steps, y0 + (y - y0) * j // steps, c)
            prev = (x, y)
    raw = b"".join(b"\0" + bytes(v for px in row for v in px) for row in img)

    def chunk(tag: bytes, data: bytes) -> bytes:
        body = tag + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    head = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", head)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def busy_by_pid() -> dict[int, int]:
    out = {}
    for line in BUSY.read_text().splitlines()[1:]:
        w = line.split()
        out[int(w[1])] = int(w[3])
    return out


def load(
    dev: str, seconds: float, kernel_us: int, queued_us: int | None = None
) -> subprocess.Popen[str]:
    queued = ["--queued-us", str(queued_us)] if queued_us else []
    return subprocess.Popen(
        [str(LOAD), "run", "--dev", dev, "--seconds", str(seconds), "--kernel-us", str(kernel_us)]
        + queued,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def set_policy(p: str) -> None:
    write(gpu_dir() / "policy", p + "\n")


class Insts:
    def __init__(self, specs: list[tuple[str, int, str]]) -> None:
        self.names = [n for n, _, _ in specs]
        set_policy("best-effort")
        for n, core, cls in specs:
            # a small memory limit: the GPU's limits must fit its memory (no overcommit)
            create(f"{n} core={core} class={cls} mem=64M")

    def close(self) -> None:
        for n in self.names:
            if inst_dir(n).exists():
                remove(n, force=True)
        set_policy("best-effort")


def sample(pids: list[int], seconds: float) -> list[list[int]]:
    """busy_ns of each pid every SAMPLE_S for `seconds`."""
    rows = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        b = busy_by_pid()
        rows.append([b.get(p, 0) for p in pids] + [time.monotonic_ns()])
        time.sleep(SAMPLE_S)
    return rows


def shares(rows: list[list[int]], window: int) -> list[list[float]]:
    """Per-pid share (%) over windows of `window` samples, sliding by one sample."""
    out: list[list[float]] = [[] for _ in range(len(rows[0]) - 1)]
    for i in range(window, len(rows)):
        dt = rows[i][-1] - rows[i - window][-1]
        for k in range(len(out)):
            out[k].append(100.0 * (rows[i][k] - rows[i - window][k]) / dt)
    return out


def scenario(
    name: str,
    specs: list[tuple[str, int, str]],
    policy: str,
    kernel_us: int,
    busy: list[bool],
    queued_us: int | None = None,
) -> dict[str, Any]:
    insts = Insts(specs)
    try:
        set_policy(policy)
        procs = [
            load(f"/dev/qgpu/{n}", SECONDS, kernel_us, queued_us)
            for n, b in zip(insts.names, busy, strict=True)
            if b
        ]
        pids = [p.pid for p in procs]
        time.sleep(1.0)
        rows = sample(pids, SECONDS - 1.2)
        for p in procs:
            p.wait(timeout=600)
    finally:
        insts.close()
    per_s = shares(rows, int(1 / SAMPLE_S))
    busy_specs = [s for s, b in zip(specs, busy, strict=True) if b]
    res: dict[str, Any] = {
        "policy": policy,
        "kernel_us": kernel_us,
        "queued_us": queued_us or QUEUED_US,
        "instances": [],
    }
    for (n, core, cls), s in zip(busy_specs, per_s, strict=True):
        res["instances"].append(
            {
                "name": n,
                "core": core,
                "class": cls,
                "share_1s_windows": [round(v, 2) for v in s],
                "mean": round(statistics.mean(s), 2) if s else None,
                "min": round(min(s), 2) if s else None,
                "max": round(max(s), 2) if s else None,
            }
        )
    png(
        OUT / f"{NAME}_{name}_controls_{SUFFIX[0]}.png", per_s, [float(c) for _, c, _ in busy_specs]
    )
    return res


def fixed_share(
    name: str, specs: list[tuple[str, int, str]], kernel_us: int, queued_us: int | None = None
) -> dict[str, Any]:
    """Every instance busy under fixed-share; the worst 1 s window's distance from its core."""
    r = scenario(name, specs, "fixed-share", kernel_us, [True] * len(specs), queued_us)
    r["worst_error_pp"] = round(
        max(abs(v - i["core"]) for i in r["instances"] for v in i["share_1s_windows"]), 2
    )
    return r


def fixed(cores: list[int], kernel_us: int, queued_us: int | None = None) -> dict[str, Any]:
    specs = [(f"f{i}", c, "online") for i, c in enumerate(cores)]
    name = f"fixed_{'_'.join(map(str, cores))}_{kernel_us}us"
    if queued_us:
        name += f"_queued_{queued_us // 1000}ms"
    return fixed_share(name, specs, kernel_us, queued_us)


def fixed_mixed(kernel_us: int) -> dict[str, Any]:
    """The demo's policy: online 50 % and 30 %, offline 20 %, all busy, fixed-share."""
    specs = [("m0", 50, "online"), ("m1", 30, "online"), ("m2", 20, "offline")]
    return fixed_share(f"fixed_mixed_50_30_20_{kernel_us}us", specs, kernel_us)


def best_effort(n: int, kernel_us: int) -> dict[str, Any]:
    specs = [(f"b{i}", 100, "online") for i in range(n)]
    r = scenario(f"best_effort_{n}_{kernel_us}us", specs, "best-effort", kernel_us, [True] * n)
    r["worst_error_pp"] = round(
        max(abs(v - 100 / n) for i in r["instances"] for v in i["share_1s_windows"]), 2
    )
    return r


def load_alone(kernel_us: int) -> dict[str, Any]:
    """One busy instance, best-effort, nothing else: how much of the engine the load keeps busy."""
    return scenario(
        f"load_alone_{kernel_us}us", [("l0", 100, "online")], "best-effort", kernel_us, [True]
    )


def burst(kernel_us: int) -> dict[str, Any]:
    # alone (no other instance) vs with an idle 70 % neighbour under burst-share
    alone = scenario(
        f"burst_alone_{kernel_us}us", [("a", 30, "online")], "best-effort", kernel_us, [True]
    )
    lent = scenario(
        f"burst_lent_{kernel_us}us",
        [("a", 30, "online"), ("b", 70, "online")],
        "burst-share",
        kernel_us,
        [True, False],
    )
    ratio = lent["instances"][0]["mean"] / alone["instances"][0]["mean"]
    return {"alone": alone, "neighbour_idle": lent, "ratio_pct": round(100 * ratio, 2)}


Event = tuple[int, str, int]  # (ktime ns, kind, tgid) of nvsim's engine trace


def trace() -> list[Event]:
    """nvsim's engine trace (README "Trace"), sorted by time."""
    ev = []
    for line in TRACE.read_text().splitlines()[1:]:
        w = line.split()
        ev.append((int(w[1]), w[2], int(w[4])))
    return sorted(ev)


def engine_holder_at(ev: list[Event], pid: int, at: int) -> bool:
    """Was a TSG of `pid` on the engine at `at`, by the trace's on/off events?"""
    on = False
    for ns, kind, p in ev:
        if ns > at:
            break
        if p == pid and kind in ("on", "off"):
            on = kind == "on"
    return on


def first_after(ev: list[Event], kind: str, pid: int, at: int) -> int | None:
    for ns, k, p in ev:
        if ns >= at and k == kind and p == pid:
            return ns
    return None


PROBE_SEM = 0x8000  # a word of the probe channel's ring memory, past the ring, before USERD


class Probe:
    """One short kernel from this process: user-side and engine-side (nvsim trace) times."""

    def __init__(self, ch: Channel, n: int) -> None:
        self.ch, self.n = ch, n

    def run(self) -> tuple[int, float, list[Event]]:
        """Submit and spin until done; (t0: just before the doorbell store, ms done, trace).

        t0 is the ring's ground truth: nvsim's `ring` event is the time of its own fault
        handler, which runs after qgpu's doorbell gate (and so after a decision qgpu takes
        there).
        """
        # done when a semaphore release after the kernel lands: USERD's GP_GET passes an entry
        # when the host fetches it, before the kernel completes (nvsim's gp_get_ahead)
        self.n += 1
        self.ch.push(rm.kernel(100), rm.sem_release(PROBE_SEM, self.n))
        self.ch.publish()
        t0 = time.monotonic_ns()
        self.ch.ring()
        while self.ch.word(PROBE_SEM) != self.n:
            pass
        done = (time.monotonic_ns() - t0) / 1e6 - 0.1
        return t0, done, trace()


def probing_s(settle_s: float, pause_s: float) -> float:
    """How long a load must run to be busy through every probe of probes(): a probe takes well
    under a second, and a load that ended early turned the last probes into zeros (QGPU_BENCH_PROBES
    300 against a fixed 60 s load)."""
    return settle_s + PROBES * (pause_s + 1.0) + 10


def probes(dev: str, settle_s: float, pause_s: float) -> Iterator[tuple[int, float, list[Event]]]:
    """PROBES probes from this process through `dev`'s nodes, after `settle_s`, `pause_s` apart."""
    r = Rm(dev=dev)
    try:
        d, s = r.device()
        ch = Channel(r, d, s, entries=1024)
        try:
            probe = Probe(ch, 0)
            time.sleep(settle_s)
            for _ in range(PROBES):
                yield probe.run()
                time.sleep(pause_s)
        finally:
            ch.close()
    finally:
        r.close()


def wake(kernel_us: int) -> dict[str, Any]:
    """A busy, B (70 %) wakes with one short kernel: how long until B gets the engine."""
    insts = Insts([("wa", 30, "online"), ("wb", 70, "online")])
    lat, ring_to_on = [], []
    me = os.getpid()
    try:
        set_policy("burst-share")
        p = load("/dev/qgpu/wa", probing_s(1.0, 0.3), kernel_us)
        for t0, done, ev in probes("/dev/qgpu/wb", 1.0, 0.3):
            lat.append(done)
            on = first_after(ev, "on", me, t0)
            if on is not None:
                ring_to_on.append((on - t0) / 1e6)
        p.kill()
        p.wait()
    finally:
        insts.close()
    return {
        "engine_ring_to_on_ms": latency(
            "B's doorbell store -> B's TSG on the engine (nvsim trace)", ring_to_on
        ),
        "user_kernel_done_ms": latency(
            "user side: B's submit -> its 100 us kernel done, minus 100 us", lat
        ),
    }


def latency(what: str, lat: list[float]) -> dict[str, Any]:
    if not lat:
        return {"what": what, "n": 0}
    lat.sort()
    return {
        "what": what,
        "n": len(lat),
        "p50": round(lat[len(lat) // 2], 3),
        "p99": round(lat[math.ceil(len(lat) * 0.99) - 1], 3),  # nearest rank
        "max": round(lat[-1], 3),
    }


def last_off_before(ev: list[Event], pids: set[int], t0: int, until: int | None) -> int:
    """When the last TSG of `pids` left the engine between `t0` and `until` (`t0` if none did)."""
    last = t0
    for ns, kind, p in ev:
        if until is not None and ns > until:
            break
        if ns >= t0 and kind == "off" and p in pids:
            last = ns
    return last


def online_offline(kernel_us: int, offline: int = 1) -> dict[str, Any]:
    """Offline busy; online submits one 100 us kernel: when does offline leave the engine?

    Ground truth from nvsim's engine trace (README "Trace"), timed from just before the online
    process's doorbell store: the offline process's TSG leaving the engine (0 when it was not on
    it), the online TSG getting the engine (qgpu holds with FIFO_DISABLE_CHANNELS, which nvsim's
    trace records as calls, not per group: the group's going off the engine is what shows). Also
    the old measure: the online kernel's completion seen by polling a semaphore release after it,
    minus its 100 us (it adds nvsim's doorbell worker and this process's polling).
    With `offline` > 1 instances busy, the engine can pass from one offline group to another
    while qgpu holds them: offline_all_off_after_ring_ms is when the last offline group left the
    engine before the online one got it.
    """
    names = [("oon", 100 // (offline + 1), "online")]
    names += [(f"ooff{i}", 100 // (offline + 1), "offline") for i in range(offline)]
    insts = Insts(names)
    me = os.getpid()
    lat, off_lat, on_lat, all_off_lat = [], [], [], []
    on_engine = 0
    try:
        offs = [load(f"/dev/qgpu/ooff{i}", probing_s(1.0, 0.3), kernel_us) for i in range(offline)]
        pids = {p.pid for p in offs}
        for t0, done, ev in probes("/dev/qgpu/oon", 1.0, 0.3):
            lat.append(done)
            off: int | None = t0
            holder = [p for p in pids if engine_holder_at(ev, p, t0)]
            if holder:
                on_engine += 1
                off = first_after(ev, "off", holder[0], t0)
            if off is not None:
                off_lat.append((off - t0) / 1e6)
            on = first_after(ev, "on", me, t0)
            if on is not None:
                on_lat.append((on - t0) / 1e6)
                all_off_lat.append((last_off_before(ev, pids, t0, on) - t0) / 1e6)
        for p in offs:
            p.kill()
            p.wait()
        # throughput of online alone vs with offline co-located
        alone = run_rate("/dev/qgpu/oon", kernel_us)
        offs = [load(f"/dev/qgpu/ooff{i}", SECONDS + 4, kernel_us) for i in range(offline)]
        time.sleep(0.5)
        shared = run_rate("/dev/qgpu/oon", kernel_us)
        for p in offs:
            p.kill()
            p.wait()
    finally:
        insts.close()
    return {
        "offline_instances": offline,
        "offline_off_after_ring_ms": latency(
            "online doorbell store -> offline TSG off the engine (nvsim trace)", off_lat
        ),
        "offline_all_off_after_ring_ms": latency(
            "online doorbell store -> the last offline TSG off the engine before the online"
            " one got it (nvsim trace)",
            all_off_lat,
        ),
        "offline_on_engine_at_ring": on_engine,
        "online_on_after_ring_ms": latency(
            "online doorbell store -> online TSG on the engine (nvsim trace)", on_lat
        ),
        "online_kernel_done_ms": latency(
            "user side (old measure): online kernel completion seen by a semaphore release - 100us",
            lat,
        ),
        "online_kernels_per_s_alone": alone,
        "online_kernels_per_s_with_offline": shared,
        "online_throughput_ratio_pct": round(100 * shared / alone, 2) if alone else None,
    }


def idle_reaction(dev: str) -> dict[str, Any]:
    """The floor under every latency above: one short kernel on an idle GPU, no scheduling.

    Store -> this process's TSG on the engine, with nothing else running: what the emulated
    engine takes to react at all (nvsim's doorbell fault and worker, its engine thread), on
    nvsim's own node (`/dev`) or through an idle qgpu instance.
    """
    me = os.getpid()
    on_lat, lat = [], []
    insts = Insts([("idle", 50, "online")]) if dev != "/dev" else None
    try:
        for t0, done, ev in probes("/dev" if insts is None else "/dev/qgpu/idle", 0.5, 0.05):
            lat.append(done)
            on = first_after(ev, "on", me, t0)
            if on is not None:
                on_lat.append((on - t0) / 1e6)
    finally:
        if insts is not None:
            insts.close()
    return {
        "on_after_ring_ms": latency(
            "doorbell store -> TSG on the idle engine (nvsim trace)", on_lat
        ),
        "kernel_done_ms": latency("kernel completion seen by a semaphore release - 100us", lat),
    }


def run_rate(dev: str, kernel_us: int) -> float:
    out = subprocess.run(
        [
            str(LOAD),
            "run",
            "--dev",
            dev,
            "--seconds",
            str(SECONDS),
            "--kernel-us",
            str(kernel_us),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(json.loads(out)["kernels_per_s"])


def inert_detect(cores: list[int], kernel_us: int) -> dict[str, Any]:
    """Controls inert: how long after busy loads start fixed-share until qgpu's verdict.

    Until the GPU's `controls` reads `inert`, fixed-share acts as if holds took effect, and
    with inert controls that is the engine's round robin (50/50 for two busy instances). Each
    trial starts the loads on fresh instances (the verdict goes with the GPU's last channel
    group) and polls `controls` every 10 ms for up to 3 s.
    """
    times: list[float | None] = []
    for _ in range(DETECT_TRIALS):
        insts = Insts([(f"d{i}", c, "online") for i, c in enumerate(cores)])
        try:
            set_policy("fixed-share")
            procs = [load(f"/dev/qgpu/d{i}", 4, kernel_us) for i in range(len(cores))]
            t0, got = time.monotonic(), None
            while time.monotonic() - t0 < 3.0:
                if (gpu_dir() / "controls").read_text().strip() == "inert":
                    got = round(time.monotonic() - t0, 3)
                    break
                time.sleep(0.01)
            times.append(got)
            for p in procs:
                p.kill()
                p.wait()
        finally:
            insts.close()
    seen = sorted(t for t in times if t is not None)
    return {
        "trials": len(times),
        "not_within_3s": len(times) - len(seen),
        "median_s": round(statistics.median(seen), 3) if seen else None,
        "max_s": seen[-1] if seen else None,
        "seconds": times,
    }


def cpu_cost(
    cores: list[int], policy: str = "burst-share", period_us: int = 10_000
) -> dict[str, Any]:
    """Every instance busy under @policy and @period_us: the scheduler thread's CPU time and
    wake-ups.

    Also each instance's engine share over the same span (nvsim's busy counters), so that a
    cheap scheduler is seen to keep the guarantees too. The thread's CPU includes the controls'
    spinning, which nvsim models (fifo_*_us, as on the H200).
    """
    n = len(cores)
    tid = subprocess.run(
        ["pgrep", "-x", "qgpu-sched/0"], capture_output=True, text=True
    ).stdout.split()
    insts = Insts([(f"c{i:02d}", c, "online") for i, c in enumerate(cores)])
    try:
        set_policy(policy)
        write(gpu_dir() / "period_us", f"{period_us}\n")
        # starting 64 processes takes seconds in the guest: each runs until killed, and the
        # measurement starts once all of them have had work on the engine
        procs = [load(f"/dev/qgpu/c{i:02d}", 600, 1000) for i in range(n)]
        pids = [p.pid for p in procs]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not all(busy_by_pid().get(p) for p in pids):
            time.sleep(0.2)
        time.sleep(1)
        hz = os.sysconf("SC_CLK_TCK")

        def ticks() -> int:
            w = Path(f"/proc/{tid[0]}/stat").read_text().rsplit(")", 1)[1].split()
            return int(w[11]) + int(w[12])

        def sched() -> tuple[int, int]:
            # time on a CPU, from the scheduler's clock (ticks sample who runs at each tick),
            # and how many times it got a CPU (its wake-ups, about)
            w = Path(f"/proc/{tid[0]}/schedstat").read_text().split()
            return int(w[0]), int(w[2])

        t0, c0, (r0, s0), b0 = time.monotonic(), ticks(), sched(), busy_by_pid()
        time.sleep(2)
        t1, c1, (r1, s1), b1 = time.monotonic(), ticks(), sched(), busy_by_pid()
        ev = trace()
        for p in procs:
            p.kill()
        for p in procs:
            p.wait(timeout=600)
    finally:
        insts.close()
        write(gpu_dir() / "period_us", "10000\n")
    share = [100 * (b1.get(p, 0) - b0.get(p, 0)) / 1e9 / (t1 - t0) for p in pids]
    # FIFO_DISABLE_CHANNELS calls a second (each spins a CPU on a GSP GPU), where the trace
    # (the last 4096 engine events) still covers the span
    span = (int(t0 * 1e9), int(t1 * 1e9))
    calls = sum(1 for t, kind, _ in ev if kind.startswith("fifo_") and span[0] <= t < span[1])
    covered = bool(ev) and ev[0][0] <= span[0]
    return {
        "policy": policy,
        "period_us": period_us,
        "fifo_calls_per_s": round(calls / (t1 - t0), 1) if covered else None,
        "instances": n,
        "busy": sum(1 for p in pids if b1.get(p, 0) > b0.get(p, 0)),
        "cores": sorted(set(cores), reverse=True),
        "cpu_pct_of_one_core": round(100 * (r1 - r0) / 1e9 / (t1 - t0), 3),
        "cpu_pct_of_one_core_ticks": round(100 * (c1 - c0) / hz / (t1 - t0), 3),
        "thread_runs_per_s": round((s1 - s0) / (t1 - t0), 1),
        "share_pct_first": round(share[0], 2),
        "share_pct_others_mean": round(statistics.mean(share[1:]), 3) if n > 1 else None,
        "share_pct_others_min": round(min(share[1:]), 3) if n > 1 else None,
        "share_pct_others_max": round(max(share[1:]), 3) if n > 1 else None,
        # below the guarantee only: burst-share lends what others leave, so more is no error
        "worst_shortfall_pp": round(
            max(max(c - v, 0.0) for c, v in zip(cores, share, strict=True)), 3
        ),
        "engine_busy_pct": round(sum(share), 2),
    }


def scenarios() -> dict[str, Any]:
    """The suite, by name: each entry runs one scenario and returns its result."""
    r: dict[str, Any] = {}
    for k in (100, 5000):
        r[f"load_alone_{k}us"] = lambda k=k: load_alone(k)
    for k in (100, 5000):
        r[f"fixed_30_70_{k}us"] = lambda k=k: fixed([30, 70], k)
        r[f"fixed_10_90_{k}us"] = lambda k=k: fixed([10, 90], k)
        # with inert controls a ring's work runs whole: the error follows what one ring submits
        r[f"fixed_10_90_{k}us_queued_10ms"] = lambda k=k: fixed([10, 90], k, 10_000)
        r[f"fixed_5x20_{k}us"] = lambda k=k: fixed([20] * 5, k)
        r[f"fixed_mixed_50_30_20_{k}us"] = lambda k=k: fixed_mixed(k)
        r[f"best_effort_3_{k}us"] = lambda k=k: best_effort(3, k)
    r["burst_1000us"] = lambda: burst(1000)
    r["burst_wake_5000us"] = lambda: wake(5000)
    for k in (100, 5000):
        r[f"online_offline_{k}us"] = lambda k=k: online_offline(k)
    # several offline instances: held by one call or one each (nvsim models each call's cost)
    r["online_offline_3off_100us"] = lambda: online_offline(100, 3)
    r["idle_reaction_nvsim"] = lambda: idle_reaction("/dev")
    r["idle_reaction_qgpu"] = lambda: idle_reaction("qgpu")
    return r


def selected(all_names: list[str]) -> list[str]:
    """QGPU_BENCH_SCENARIOS: comma-separated names or prefixes (default: all)."""
    want = [w for w in os.environ.get("QGPU_BENCH_SCENARIOS", "").split(",") if w]
    if not want:
        return all_names
    return [n for n in all_names if any(n == w or n.startswith(w) for w in want)]


def suite(blind: bool = False) -> dict[str, Any]:
    todo = scenarios()
    names = selected(list(todo))
    if blind:
        names = [n for n in names if n.startswith(BLIND_SCENARIOS)]
    return {name: todo[name]() for name in names}


def nvsim_parameters() -> dict[str, str]:
    """nvsim's module parameters as the run starts: the model its numbers were measured under
    (kmod/nvsim/README.md), such as what a FIFO_DISABLE_CHANNELS costs (fifo_*_us). The scenarios
    set controls_effective and userd_writeback themselves; their names say which."""
    return {p.name: p.read_text().strip() for p in sorted(NVSIM.iterdir())}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "benchmark": NAME,
        "seconds_per_run": SECONDS,
        "guest_cpus": os.cpu_count(),
        "nvsim_parameters": nvsim_parameters(),
    }
    # QGPU_BENCH_CONTROLS: which controls_effective settings to run (default "Y,N")
    # QGPU_BENCH_USERD: with nvsim's USERD writeback (Y), and without it (N, as on Blackwell:
    # GP_GET in USERD never moves); N runs the share scenarios only (BLIND_SCENARIOS)
    for userd in os.environ.get("QGPU_BENCH_USERD", "Y,N").split(","):
        prefix = "" if userd == "Y" else "userd_blind_"
        for eff in os.environ.get("QGPU_BENCH_CONTROLS", "Y,N").split(","):
            write(NVSIM / "userd_writeback", userd)
            write(NVSIM / "controls_effective", eff)
            SUFFIX[0] = eff if userd == "Y" else f"{eff}_userd_blind"
            try:
                results[f"{prefix}controls_effective_{eff}"] = suite(blind=userd != "Y")
            finally:
                write(NVSIM / "controls_effective", "Y")
                write(NVSIM / "userd_writeback", "Y")
    # 64 instances of 1 %: the engine's round robin gives each 1/64, so nothing needs holding;
    # skewed: one of 37 % and 63 of 1 %, where the round robin's 1/64 is not enough and the
    # scheduler must switch windows; fixed-share 30/70: one switch (an enable and a disable) a
    # period, at the default period_us and at 50 ms
    cpu: dict[str, tuple[list[int], str, int]] = {
        "cpu_cost": ([1] * 64, "burst-share", 10_000),
        "cpu_cost_skewed": ([37] + [1] * 63, "burst-share", 10_000),
        "cpu_cost_fixed_30_70": ([30, 70], "fixed-share", 10_000),
        "cpu_cost_fixed_30_70_period_50ms": ([30, 70], "fixed-share", 50_000),
    }
    for name in selected(list(cpu)):
        results[name] = cpu_cost(*cpu[name])
    # how soon fixed-share finds held groups still running, with the controls inert
    detect = {
        f"inert_detect_{a}_{b}_{k}us": ([a, b], k)
        for a, b in ((30, 70), (10, 90))
        for k in (100, 5000)
    }
    for name in selected(list(detect)):
        write(NVSIM / "controls_effective", "N")
        try:
            results[name] = inert_detect(*detect[name])
        finally:
            write(NVSIM / "controls_effective", "Y")
    path = OUT / f"{NAME}.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
