#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every static check, one TAP line each: checkpatch (--strict), sparse (warnings are errors), kernel-doc,
# ruff (lint and format) and mypy (strict). With --tap FILE the TAP goes to FILE for the test summary.
# Exits non-zero if any check fails; each failure's output is printed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tap=/dev/null
[ "${1:-}" = "--tap" ] && tap=$2

kver=$(scripts/kver.sh) || exit 1
kdir=/lib/modules/$kver/build
kscripts=$(scripts/kscripts-dir.sh)
mapfile -t kfiles < <(git ls-files --cached --others --exclude-standard 'kmod/*.[ch]' 'tests/harness/crashmod/*.c' 'tests/harness/kclient/*.c')
pyfiles=(qgpuctl tests bench scripts)

n=0
failed=0
results=()
check() {
	local name=$1
	shift
	local out
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		results+=("ok $n - lint: $name")
		echo "lint: $name: ok"
	else
		failed=$((failed + 1))
		results+=("not ok $n - lint: $name")
		echo "lint: $name: FAILED"
		sed 's/^/    /' <<<"$out"
	fi
}

checkpatch() {
	# --no-tree: we are not in a kernel tree. FILE_PATH_CHANGES and the MAINTAINERS nag do not apply.
	"$kscripts/checkpatch.pl" --no-tree --strict --terse --show-types --quiet \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE -f "${kfiles[@]}"
}

sparse() {
	local d out rc=0
	for d in kmod kmod/nvsim; do
		# C=2: check every source, whether or not it needs recompiling.
		out=$(make -s -C "$kdir" M="$top/$d" C=2 CF="-Wsparse-error" \
			W=1 KCFLAGS=-Werror modules 2>&1 | grep -v '^Skipping BTF generation') || true
		if grep -qE 'warning|error' <<<"$out"; then
			echo "$out"
			rc=1
		fi
	done
	return $rc
}

kerneldoc() {
	local out
	out=$("$kscripts/kernel-doc" -none "${kfiles[@]}" 2>&1)
	[ -z "$out" ] || { echo "$out"; return 1; }
}

check checkpatch checkpatch
check sparse sparse
check kernel-doc kerneldoc
check "ruff check" .venv/bin/ruff check "${pyfiles[@]}"
check "ruff format" .venv/bin/ruff format --check "${pyfiles[@]}"
check mypy .venv/bin/mypy qgpuctl

{
	echo "1..$n"
	printf '%s\n' "${results[@]}"
} >"$tap"
[ $failed -eq 0 ]
