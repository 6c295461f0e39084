#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: run every benchmark in bench/ in ONE boot of the test VM, so the things each compares
# (through qgpu vs direct) are measured side by side in the same run; then the scheduling latencies
# once more in a one-vCPU guest (below). Results: build/bench/*.json.
# Benchmarks are measurements, never pass/fail tests (see bench/README.md).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
mapfile -t benches < <(find bench -maxdepth 1 -name 'bench_*.py' | sort)
if [ ${#benches[@]} -eq 0 ]; then
	echo "bench.sh: no benchmarks are defined yet (bench/bench_*.py)"
	exit 0
fi
mkdir -p build/bench
rc=0
QGPU_BENCH_RESULTS=$top/build/bench scripts/vm.sh --timeout 1800 -- \
	bash -c 'rc=0; for b in "$@"; do .venv/bin/python "$b" || rc=1; done; exit $rc' bench "${benches[@]}" ||
	rc=$?
# The latency scenarios again in a one-vCPU guest (build/bench/sched_latency_1cpu.json): with two
# vCPUs on the two shared host cores the host preempts a vCPU for milliseconds, and that tail was
# in every latency measured (docs/design/compute-scheduling.md, "Latency and the guest's vCPUs").
QGPU_BENCH_RESULTS=$top/build/bench QGPU_BENCH_NAME=sched_latency_1cpu \
	QGPU_BENCH_SCENARIOS=idle_reaction,online_offline,burst_wake QGPU_BENCH_USERD=Y \
	scripts/vm.sh --smp 1 --timeout 1800 -- .venv/bin/python bench/bench_sched.py || rc=$?
exit $rc
