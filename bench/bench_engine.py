"""nvsim's simulated engine: throughput, utilisation and fairness between processes.

Runs inside the test VM (scripts/bench.sh), all in one boot, about 15 s of work:
- one `nvsim-load run` with --kernel-us 100 and with 1000: kernels/s as the program reports it,
  and engine utilisation = GPU busy time (/proc/driver/nvsim/gpu0/busy, gpu_busy_ns) over the
  wall time of the run;
- two and four concurrent `nvsim-load run` processes (1000 us kernels): each one's busy time from
  the busy file, and the ratio max / min (1.0 is a perfectly even share).
Writes build/bench/engine.json (or $QGPU_BENCH_RESULTS/engine.json). A measurement, not a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

PROJECT = Path(__file__).resolve().parents[1]
LOAD = PROJECT / "build" / "bin" / "nvsim-load"
BUSY = Path("/proc/driver/nvsim/gpu0/busy")
SECONDS = 2.0


def busy() -> tuple[int, dict[int, int]]:
    """(gpu_busy_ns, {pid: busy_ns})"""
    lines = BUSY.read_text().splitlines()
    procs = {int(w[1]): int(w[3]) for w in (line.split() for line in lines[1:])}
    return int(lines[0].split()[1]), procs


def start(kernel_us: int, seconds: float = SECONDS) -> subprocess.Popen[str]:
    cmd = [str(LOAD), "run", "--seconds", str(seconds), "--kernel-us", str(kernel_us), "--json"]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(p: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = p.communicate(timeout=120)
    if p.returncode != 0:
        raise RuntimeError(f"nvsim-load run failed: {err.strip()}")
    result: dict[str, Any] = json.loads(out)
    return result


def single(kernel_us: int) -> dict[str, Any]:
    gpu0, _ = busy()
    t0 = time.monotonic()
    r = finish(start(kernel_us))
    wall = time.monotonic() - t0
    gpu1, _ = busy()
    return {
        "kernel_us": kernel_us,
        "kernels": r["kernels"],
        "kernels_per_s": round(r["kernels_per_s"], 1),
        "ideal_kernels_per_s": round(1e6 / kernel_us, 1),
        "utilisation": round((gpu1 - gpu0) / (wall * 1e9), 3),
        "elapsed_s": round(r["elapsed_s"], 3),
    }


def concurrent(n: int) -> dict[str, Any]:
    gpu0, _ = busy()
    t0 = time.monotonic()
    procs = [start(1000) for _ in range(n)]
    for p in procs:
        finish(p)
    wall = time.monotonic() - t0
    gpu1, per_pid = busy()
    shares = [per_pid.get(p.pid, 0) for p in procs]
    return {
        "processes": n,
        "busy_ns": shares,
        "ratio_max_min": round(max(shares) / max(min(shares), 1), 3),
        "utilisation": round((gpu1 - gpu0) / (wall * 1e9), 3),
    }


def main() -> int:
    out_dir = Path(os.environ.get("QGPU_BENCH_RESULTS", "build/bench"))
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {
        "benchmark": "engine",
        "what": "nvsim engine: kernels/s and utilisation of one nvsim-load run; busy-time "
        "share of 2 and 4 concurrent runs (ratio max/min, 1.0 = even)",
        "single": [single(100), single(1000)],
        "concurrent": [concurrent(2), concurrent(4)],
    }
    path = out_dir / "engine.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
