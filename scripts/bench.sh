#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# `make bench`: run every benchmark in bench/ in ONE boot of the test VM, so the things each compares
# (through qgpu vs direct) are measured side by side in the same run. Results: build/bench/*.json.
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
QGPU_BENCH_RESULTS=$top/build/bench exec scripts/vm.sh --timeout 1800 -- \
	bash -c 'rc=0; for b in "$@"; do .venv/bin/python "$b" || rc=1; done; exit $rc' bench "${benches[@]}"
