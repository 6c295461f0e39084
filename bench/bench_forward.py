"""Forwarding cost: the same calls through a qgpu instance's nodes and straight to nvsim.

Runs inside the test VM (scripts/bench.sh). Each metric is measured both ways in the same run, in
alternating rounds, and reported as nanoseconds per call and as the ratio through-qgpu / direct.
The ratio uses the fastest round of each side: under software emulation, other load only ever
adds time, so the minimum is the cost itself; the medians are reported too.
Writes build/bench/forward.json (or $QGPU_BENCH_RESULTS/forward.json).
"""

from __future__ import annotations

import json
import mmap
import os
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "guest"))

import rm  # noqa: E402
from qgpu_sysfs import instance  # noqa: E402

ROUNDS = 7
CALLS = {
    "ioctl": 2000,
    "rm_control": 2000,
    "rm_alloc_free": 500,
    "device_alloc_free": 300,
    "open_close": 300,
    "mmap_munmap": 500,
    "uvm_mm_initialize": 200,
}
# Seconds without a UVM call after which qgpu's probe on fget is disarmed again (a second,
# kmod/qgpu_lend.c), and samples of the first MM_INITIALIZE after such a pause.
UVM_IDLE_S = 1.5
UVM_AFTER_IDLE_SAMPLES = 3


def per_call_ns(fn: Callable[[], None], n: int) -> float:
    start = time.perf_counter_ns()
    for _ in range(n):
        fn()
    return (time.perf_counter_ns() - start) / n


def measure(
    make: Callable[[str], tuple[Callable[[], None], Callable[[], None]]], n: int, inst: str
) -> dict[str, float]:
    runs: dict[str, list[float]] = {"direct": [], "qgpu": []}
    for _ in range(ROUNDS):
        for label, d in (("direct", "/dev"), ("qgpu", inst)):
            fn, done = make(d)
            try:
                runs[label].append(per_call_ns(fn, n))
            finally:
                done()
    direct, qgpu = min(runs["direct"]), min(runs["qgpu"])
    return {
        "direct_ns": round(direct),
        "qgpu_ns": round(qgpu),
        "ratio": round(qgpu / direct, 3),
        "direct_median_ns": round(statistics.median(runs["direct"])),
        "qgpu_median_ns": round(statistics.median(runs["qgpu"])),
        "calls_per_round": n,
        "rounds": ROUNDS,
    }


def passthrough_ioctl(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """SYS_PARAMS: an escape qgpu forwards unchanged after dispatching on its nr."""
    fd = os.open(f"{d}/nvidiactl", os.O_RDWR)
    buf = bytearray(8)
    return (lambda: rm.ioctl(fd, rm.SYS_PARAMS, buf)), (lambda: os.close(fd))


def rm_control(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """RM_CONTROL NV0000 CLIENT_GET_HANDLE_INFO: decoded, not answered by qgpu, forwarded
    sealed (through the probe on rm_ioctl, where it is placed)."""
    r = rm.Rm(dev=d)
    info = bytearray(struct.pack("<IIQ", r.client, 1, 0))

    def call() -> None:
        assert r.control(r.client, rm.GET_HANDLE_INFO, info) == rm.OK
        r.keep.clear()

    return call, r.close


def rm_alloc_free(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """RM_ALLOC of a subdevice (decoded, forwarded sealed: RM reads qgpu's copy) + RM_FREE."""
    r = rm.Rm(dev=d)
    status, dev = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
    assert status == rm.OK, hex(status)
    sub_params = struct.pack("<I", 0)

    def call() -> None:
        status, h = r.alloc(r.client, dev, rm.SUBDEVICE, sub_params)
        assert status == rm.OK, hex(status)
        r.free(h)
        r.keep.clear()

    return call, r.close


def device_alloc_free(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """RM_ALLOC of NV01_DEVICE_0 (qgpu answers the driver's GPU-file check) + RM_FREE."""
    r = rm.Rm(dev=d)

    def call() -> None:
        status, h = r.alloc(r.client, r.client, rm.DEVICE, struct.pack("<I52x", 0))
        assert status == rm.OK, hex(status)
        r.free(h)
        r.keep.clear()

    return call, r.close


def mmap_munmap(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    """mmap + munmap of 64 KiB of video memory; the real file takes the VMA through qgpu."""
    r = rm.Rm(dev=d)
    dev, _ = r.device()
    status, mem, _ = r.vidmem(dev, 64 * 1024)
    assert status == rm.OK, hex(status)
    fd = r.open_gpu()
    assert r.map_memory(dev, mem, 0, 64 * 1024, fd)[0] == rm.OK

    def call() -> None:
        mmap.mmap(fd, 64 * 1024, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE).close()

    def done() -> None:
        os.close(fd)
        r.close()

    return call, done


def mm_initialize_once(d: str) -> int:
    """A process's UVM start: a VA space, UVM_INITIALIZE, an MM file, UVM_MM_INITIALIZE naming
    the VA space (whose fd nvidia-uvm looks up itself; qgpu lends it), both closed again.
    Returns the MM_INITIALIZE's own time in ns."""
    va = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
    mm = os.open(f"{d}/nvidia-uvm", os.O_RDWR)
    try:
        assert rm.uvm_initialize(va) == rm.OK
        start = time.perf_counter_ns()
        assert rm.uvm_mm_initialize(mm, va) == rm.OK
        return time.perf_counter_ns() - start
    finally:
        os.close(mm)
        os.close(va)


def uvm_mm_initialize(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    def call() -> None:
        mm_initialize_once(d)

    return call, (lambda: None)


def mm_initialize_after_idle(inst: str) -> dict[str, object]:
    """The first MM_INITIALIZE after a pause, in us: through qgpu it arms the probe on fget."""
    runs: dict[str, list[float]] = {"direct": [], "qgpu": []}
    for _ in range(UVM_AFTER_IDLE_SAMPLES):
        for label, d in (("direct", "/dev"), ("qgpu", inst)):
            time.sleep(UVM_IDLE_S)
            runs[label].append(round(mm_initialize_once(d) / 1000, 1))
    return {
        "what": f"MM_INITIALIZE alone, {UVM_IDLE_S} s after the last UVM call",
        **{f"{label}_us": v for label, v in runs.items()},
    }


def open_close(d: str) -> tuple[Callable[[], None], Callable[[], None]]:
    path = f"{d}/nvidia0"
    return (lambda: os.close(os.open(path, os.O_RDWR))), (lambda: None)


def seal_status() -> str:
    """The module's seal: line ("nvsim:rm_ioctl (0 missed)", or "-" when forwards are unsealed)."""
    for line in Path("/proc/qgpu/status").read_text().splitlines():
        key, sep, value = line.partition(":")
        if sep and key == "seal":
            return value.strip()
    return "unknown"


def main() -> int:
    out_dir = Path(os.environ.get("QGPU_BENCH_RESULTS", "build/bench"))
    out_dir.mkdir(parents=True, exist_ok=True)
    with instance("bench") as inst:
        results: dict[str, object] = {
            "benchmark": "forward",
            "what": "ns per call through /dev/qgpu/bench vs /dev (nvsim), ratio = qgpu / direct",
            "seal": seal_status(),
            "ioctl_passthrough": measure(passthrough_ioctl, CALLS["ioctl"], inst),
            "rm_control": measure(rm_control, CALLS["rm_control"], inst),
            "rm_alloc_free": measure(rm_alloc_free, CALLS["rm_alloc_free"], inst),
            "device_alloc_free": measure(device_alloc_free, CALLS["device_alloc_free"], inst),
            "open_close": measure(open_close, CALLS["open_close"], inst),
            "mmap_munmap": measure(mmap_munmap, CALLS["mmap_munmap"], inst),
        }
        if rm.abi_at_least((535,)):  # UVM_MM_INITIALIZE exists from 535
            results["uvm_mm_initialize"] = measure(
                uvm_mm_initialize, CALLS["uvm_mm_initialize"], inst
            )
            results["uvm_mm_initialize_after_idle"] = mm_initialize_after_idle(inst)
    path = out_dir / "forward.json"
    path.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
