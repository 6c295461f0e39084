#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The whole suite (run by `make test`, after `make build`). Stages, each writing TAP or JUnit XML into
# the results directory:
#   lint   checkpatch, sparse, kernel-doc, ruff, mypy               -> lint.tap
#   unit   the user-space C test binary of pure kernel-side logic   -> unit-c.tap
#   host   pytest tests/host (qgpuctl; harness and DKMS tests boot/build for real) -> host-pytest.xml
#   guest  ONE boot of the test VM with nvsim and qgpu loaded, running tests/guest/run.sh
#          (guest C tests and pytest)                              -> guest-*.xml/tap, guest-boot.tap
# then prints the per-stage counts and, last, one line: "N passed, N failed".
#
# Environment (for the harness's own tests): QGPU_TEST_STAGES (default "lint unit host guest"),
# QGPU_TEST_RESULTS (default build/test-results), QGPU_GUEST_SUITE (default tests/guest/run.sh),
# QGPU_GUEST_TIMEOUT (seconds, default 1500).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
stages=${QGPU_TEST_STAGES:-lint unit host guest}
results=${QGPU_TEST_RESULTS:-$top/build/test-results}
guest_suite=${QGPU_GUEST_SUITE:-tests/guest/run.sh}
rm -rf "$results"
mkdir -p "$results"
start=$SECONDS

banner() { printf '\n==== %s ====\n' "$*"; }

# A stage that could not produce its own results still counts, as one failed test.
stage_failed() {
	printf '1..1\nnot ok 1 - %s\n' "$2" >"$results/$1"
}

for stage in $stages; do
	case "$stage" in
	lint)
		banner "lint"
		scripts/lint.sh --tap "$results/lint.tap"
		[ -s "$results/lint.tap" ] || stage_failed lint.tap "lint: did not run"
		;;
	unit)
		banner "unit: C tests of pure kernel-side logic (host)"
		build/bin/qgpu-unit-tests | tee "$results/unit-c.tap"
		[ "${PIPESTATUS[0]}" -le 1 ] && [ -s "$results/unit-c.tap" ] ||
			stage_failed unit-c-run.tap "unit: build/bin/qgpu-unit-tests did not run"
		;;
	host)
		banner "host: pytest tests/host"
		.venv/bin/python -m pytest tests/host -p no:cacheprovider -q -rfE \
			--junitxml="$results/host-pytest.xml"
		rc=$?
		[ $rc -le 1 ] && [ -s "$results/host-pytest.xml" ] ||
			stage_failed host-run.tap "host: pytest did not complete (exit $rc)"
		;;
	guest)
		banner "guest: one VM boot, nvsim + qgpu loaded, whole guest suite"
		# pytest rewrites each test module's asserts when it imports it, and under the guest's
		# emulation that took 50 s of every run (collection: 96 s, 46 s with the rewritten
		# modules cached). Collecting the guest tests here, without their conftest (which ends
		# any run outside the VM), leaves the rewritten modules in tests/guest/__pycache__; the
		# guest's pytest reads them, checking each against its source. Only a speed-up: a module
		# that cannot be imported here (some read nvsim's parameters) is rewritten in the guest.
		PYTHONDONTWRITEBYTECODE='' .venv/bin/python -m pytest tests/guest --collect-only -q \
			--noconftest -p no:cacheprovider >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		QGPU_TEST_RESULTS=$results scripts/vm.sh --timeout "${QGPU_GUEST_TIMEOUT:-1500}" -- \
			bash -c "$guest_suite"
		rc=$?
		# 0 and 1 are the suite's own verdicts (its failures are counted from its results);
		# anything else means the VM, a module or the kernel failed.
		if [ $rc -le 1 ]; then
			printf '1..1\nok 1 - guest: VM booted, modules loaded, suite ran, kernel log clean\n' \
				>"$results/guest-boot.tap"
		else
			stage_failed guest-boot.tap "guest: VM run failed (vm.sh exit $rc; see its output above)"
		fi
		;;
	*)
		stage_failed "unknown-$stage.tap" "unknown stage '$stage'"
		;;
	esac
done

banner "summary ($((SECONDS - start)) s)"
python3 scripts/summarize.py "$results"
