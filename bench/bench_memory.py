"""Memory accounting cost: video-memory alloc+free through a limited qgpu instance vs straight to
nvsim, with 1, 1 000 and 100 000 live allocations held (by the same process, in the same client).

Runs inside the test VM (scripts/bench.sh). Per live count, the direct and the qgpu side each hold
that many 4 KiB allocations, then alternate rounds of RM_ALLOC(0x40, 4 KiB) + RM_FREE pairs.
Reports ns per pair (median of the rounds) and the ratio qgpu / direct: the cost must not grow with
the live count (qgpu keeps no list it scans) and should stay near the direct cost. `ratio_min` is
the ratio of the fastest rounds: under software emulation on a shared host, other load only ever
adds time, so it is the steadier figure. Writes build/bench/memory.json (or
$QGPU_BENCH_RESULTS/memory.json).

`compiled` measures the same pairs from a compiled client, `nvsim-load churn` (C, as libcuda is),
which holds the live allocations in its own client: QGPU_BENCH_MEM_CHURN_PROCS processes per side
(default 3), direct and qgpu alternating, each timing QGPU_BENCH_MEM_ROUNDS rounds of
QGPU_BENCH_MEM_CHURN_PAIRS pairs (default 1 000). The Python rounds above pay the interpreter
between calls, which the emulator makes dearer for the path that touches more kernel memory
(docs/design/memory-limits.md, "Accounting cost"); the compiled rounds do not.

Knobs (environment): QGPU_BENCH_MEM_LIVE, the live counts, comma-separated (default 1,1000,100000);
QGPU_BENCH_MEM_ROUNDS, rounds per live count (default 30); QGPU_BENCH_MEM_PAIRS, pairs per round
(default 200). Many short rounds, direct and qgpu alternating: a burst of load on the shared host
then spoils a round or two of each side rather than the median (five rounds of 1 000 pairs swung
between 1.16x and 1.43x from one run to the next; docs/design/memory-limits.md).
"""

from __future__ import annotations

import ctypes
import json
import os
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "guest"))

import rm  # noqa: E402
from qgpu_sysfs import inst_dir, instance, read  # noqa: E402

ROUNDS = int(os.environ.get("QGPU_BENCH_MEM_ROUNDS", "30"))
PAIRS = int(os.environ.get("QGPU_BENCH_MEM_PAIRS", "200"))
LIVE = tuple(int(n) for n in os.environ.get("QGPU_BENCH_MEM_LIVE", "1,1000,100000").split(","))
CHURN_PROCS = int(os.environ.get("QGPU_BENCH_MEM_CHURN_PROCS", "3"))
CHURN_PAIRS = int(os.environ.get("QGPU_BENCH_MEM_CHURN_PAIRS", "1000"))
LOAD = Path(__file__).resolve().parents[1] / "build" / "bin" / "nvsim-load"
PAGE_4K = 1 << 23


class Side:
    """One process view (direct or through the instance) holding `live` allocations."""

    def __init__(self, d: str) -> None:
        self.r = rm.Rm(dev=d)
        self.dev, _ = self.r.device()
        params = bytearray(rm.MEM_PARAMS_SIZE)
        struct.pack_into("<I", params, 0, self.r.client)
        struct.pack_into("<I", params, 24, PAGE_4K)
        struct.pack_into("<Q", params, 64, 4096)
        self.params = ctypes.create_string_buffer(bytes(params), len(params))
        self.alloc_buf = bytearray(rm.NVOS64.size)
        self.free_buf = bytearray(rm.NVOS00.size)
        self.held: list[int] = []

    def alloc(self) -> int:
        rm.NVOS64.pack_into(
            self.alloc_buf,
            0,
            self.r.client,
            self.dev,
            0,
            rm.VIDMEM,
            ctypes.addressof(self.params),
            0,
            0,
            0,
            0xFFFFFFFF,
        )
        rm.ioctl(self.r.ctl, rm.RM_ALLOC, self.alloc_buf)
        f = rm.NVOS64.unpack(self.alloc_buf)
        assert f[8] == rm.OK, hex(f[8])
        return int(f[2])

    def free(self, h: int) -> None:
        rm.NVOS00.pack_into(self.free_buf, 0, self.r.client, 0, h, 0xFFFFFFFF)
        rm.ioctl(self.r.ctl, rm.RM_FREE, self.free_buf)
        assert rm.NVOS00.unpack(self.free_buf)[3] == rm.OK

    def hold(self, n: int) -> None:
        while len(self.held) < n:
            self.held.append(self.alloc())

    def pairs_ns(self, n: int) -> float:
        start = time.perf_counter_ns()
        for _ in range(n):
            self.free(self.alloc())
        return (time.perf_counter_ns() - start) / n

    def close(self) -> None:
        self.r.close()


def churn(dev: str, live: int) -> list[float]:
    """One `nvsim-load churn` process: ns per pair of each of its rounds."""
    r = subprocess.run(
        [str(LOAD), "churn", "4K", "--dev", dev, "--live", str(live), "--json"]
        + ["--count", str(CHURN_PAIRS), "--rounds", str(ROUNDS)],
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
    )
    if r.returncode:
        raise SystemExit(f"nvsim-load churn --dev {dev} failed: {r.stderr.strip()}")
    return [float(ns) for ns in json.loads(r.stdout)["ns_per_pair"]]


def compiled(inst: str) -> dict[str, object]:
    """Per live count: the compiled client's pairs, direct and through the instance."""
    out: dict[str, object] = {}
    for live in LIVE:
        runs: dict[str, list[float]] = {"direct": [], "qgpu": []}
        for _ in range(CHURN_PROCS):
            runs["direct"] += churn("/dev", live)
            runs["qgpu"] += churn(inst, live)
        d = statistics.median(runs["direct"])
        q = statistics.median(runs["qgpu"])
        out[str(live)] = {
            "direct_ns_per_alloc_free": round(d),
            "qgpu_ns_per_alloc_free": round(q),
            "ratio": round(q / d, 3),
            "ratio_min": round(min(runs["qgpu"]) / min(runs["direct"]), 3),
        }
    return out


def main() -> int:
    out_dir = Path(os.environ.get("QGPU_BENCH_RESULTS", "build/bench"))
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {"pairs_per_round": PAIRS, "rounds": ROUNDS, "live": {}}
    with instance("bench-mem", opts="mem=8G") as inst:
        direct, qgpu = Side("/dev"), Side(inst)
        try:
            for live in LIVE:
                direct.hold(live)
                qgpu.hold(live)
                runs: dict[str, list[float]] = {"direct": [], "qgpu": []}
                for _ in range(ROUNDS):
                    runs["direct"].append(direct.pairs_ns(PAIRS))
                    runs["qgpu"].append(qgpu.pairs_ns(PAIRS))
                d = statistics.median(runs["direct"])
                q = statistics.median(runs["qgpu"])
                results["live"][str(live)] = {  # type: ignore[index]
                    "direct_ns_per_alloc_free": round(d),
                    "qgpu_ns_per_alloc_free": round(q),
                    "ratio": round(q / d, 3),
                    "ratio_min": round(min(runs["qgpu"]) / min(runs["direct"]), 3),
                    "mem_current": int(read(inst_dir("bench-mem") / "mem_current")),
                }
        finally:
            direct.close()
            qgpu.close()
        results["compiled"] = {
            "processes_per_side": CHURN_PROCS,
            "pairs_per_round": CHURN_PAIRS,
            "live": compiled(inst),
        }
    path = out_dir / "memory.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
