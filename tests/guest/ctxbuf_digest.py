"""What an NVIDIA H200 took for channel groups and channels, step by step, and the same steps run
here: scripts/ctxbuf_probe.py's digests (tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest is
the H200's, GSP firmware 580.159.04, session 34)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest"


def h200(kind: str | None = None) -> list[str]:
    """The H200 digest's lines, comments left out; of one kind (``falcon``, ``step``...)."""
    lines = [line for line in H200.read_text().splitlines() if not line.startswith("#")]
    return [line for line in lines if kind is None or line.split()[0] == kind]


def probe(dev: str = "/dev") -> list[str]:
    """The probe's digest through the nodes in `dev` (a channel registered with UVM too),
    comments left out."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts/ctxbuf_probe.py"), "--dev", dev, "--uvm", "nvsim"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return [line for line in out.stdout.splitlines() if not line.startswith("#")]
