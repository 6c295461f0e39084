#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The whole guest suite, run inside the test VM by `make test` (scripts/test.sh -> scripts/vm.sh).
# Results go to $QGPU_TEST_RESULTS (JUnit XML / TAP), which scripts/summarize.py counts.
# Exit: 0 all passed, 1 some test failed, anything else: the suite itself broke.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
# The qgpuctl under test is this tree's, also for .venv/bin/qgpuctl, whose editable install may
# point at another checkout (tests/guest/conftest.py makes sure of it for every subprocess too).
export PYTHONPATH="$top${PYTHONPATH:+:$PYTHONPATH}"
results=${QGPU_TEST_RESULTS:-build/test-results}
mkdir -p "$results"
# No guest test uses hypothesis, and its pytest plugin's import took 22 s of each run here.
.venv/bin/python -m pytest tests/guest -p no:cacheprovider -p no:hypothesispytest -q -rfE \
	--junitxml="$results/guest-pytest.xml"
