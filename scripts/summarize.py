#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Count the results of every test stage and print one closing line, "N passed, N failed".

Reads TAP (*.tap) and JUnit XML (*.xml) files from a results directory. Exits 1 when anything
failed or was skipped, when a file cannot be parsed, or when no test ran at all: a suite that ran
nothing has not passed.
Standard library only, so it runs before and without the project's virtualenv.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

TAP_LINE = re.compile(r"^(not ok|ok)\b(.*)$")


def count_tap(path: Path) -> tuple[int, int, int, list[str]]:
    passed = failed = skipped = 0
    failures = []
    for line in path.read_text(errors="replace").splitlines():
        m = TAP_LINE.match(line)
        if not m:
            continue
        if m.group(1) == "not ok":
            failed += 1
            failures.append(m.group(2).strip(" -"))
        elif "# SKIP" in m.group(2):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failures


def count_junit(path: Path) -> tuple[int, int, int, list[str]]:
    root = ET.parse(path).getroot()
    passed = failed = skipped = 0
    failures = []
    for case in root.iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
            failures.append(name)
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, failures


def main(argv: list[str]) -> int:
    results = Path(argv[1]) if len(argv) > 1 else Path("build/test-results")
    total = [0, 0, 0]
    bad = False
    for path in sorted(results.glob("*")):
        try:
            if path.suffix == ".tap":
                p, f, s, failures = count_tap(path)
            elif path.suffix == ".xml":
                p, f, s, failures = count_junit(path)
            else:
                continue
        except (OSError, ET.ParseError) as exc:
            print(f"{path.name}: unreadable ({exc})")
            bad = True
            continue
        print(f"{path.name:24} {p:5} passed {f:5} failed {s:5} skipped")
        for name in failures:
            print(f"    FAILED {name}")
        total[0] += p
        total[1] += f
        total[2] += s
    if sum(total) == 0:
        print("no test ran")
        bad = True
    line = f"{total[0]} passed, {total[1]} failed"
    if total[2]:
        line += f", {total[2]} skipped"
    print(line)
    return 1 if bad or total[1] or total[2] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
