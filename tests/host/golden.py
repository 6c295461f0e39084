"""Golden files: compare output with tests/host/golden/NAME, or rewrite them.

Regenerate after an intended change of output with::

    QGPU_UPDATE_GOLDEN=1 PYTHONPATH=$PWD .venv/bin/python -m pytest tests/host -k golden

and review the diff (``git diff tests/host/golden``) before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN_DIR = Path(__file__).parent / "golden"


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN_DIR / name
    if os.environ.get("QGPU_UPDATE_GOLDEN"):
        path.write_text(actual)
        return
    assert path.exists(), f"{path} missing; run with QGPU_UPDATE_GOLDEN=1 to create it"
    expected = path.read_text()
    assert actual == expected, f"output differs from {path} (QGPU_UPDATE_GOLDEN=1 rewrites it)"
