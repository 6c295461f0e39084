"""scripts/demo_report.py: the demo's shares table and its hand-written PNG."""

from __future__ import annotations

import importlib.util
import json
import struct
import sys
import zlib
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "demo_report.py"


@pytest.fixture(scope="module")
def report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo_report", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["demo_report"] = module
    spec.loader.exec_module(module)
    return module


def decode_png(data: bytes) -> tuple[int, int, bytes]:
    """(width, height, raw scanlines) of an 8-bit RGB PNG, checking every chunk's CRC."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        tag, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])
        assert crc == zlib.crc32(tag + body) & 0xFFFFFFFF, tag
        chunks.append((tag, body))
        pos += 12 + length
    assert [t for t, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    width, height, depth, colour, _, _, _ = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour) == (8, 2)
    return width, height, zlib.decompress(chunks[1][1])


def test_busy_and_processes_parsing(report: ModuleType) -> None:
    gpu, per_pid = report.parse_busy(
        "gpu_busy_ns 900\npid 10 busy_ns 300 kernels 3\npid 0 busy_ns 5 kernels 1\n"
    )
    assert gpu == 900 and per_pid == {10: 300, 0: 5}
    assert report.parse_processes("10 nvsim-load\n11 my prog\n") == [10, 11]
    assert report.parse_processes("") == []


def test_report_from_files(
    report: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "busy-before.txt").write_text("gpu_busy_ns 1000\npid 7 busy_ns 1000 kernels 1\n")
    (tmp_path / "busy-after.txt").write_text(
        "gpu_busy_ns 3001000\npid 7 busy_ns 1000 kernels 1\n"
        "pid 10 busy_ns 2000000 kernels 2\npid 11 busy_ns 1000000 kernels 1\n"
    )
    (tmp_path / "procs-a.txt").write_text("10 nvsim-load\n")
    (tmp_path / "procs-b.txt").write_text("11 nvsim-load\n")
    (tmp_path / "run-a.json").write_text('{"kernels": 2}\n')
    assert report.main(["--dir", str(tmp_path), "--seconds", "1", "a", "b"]) == 0
    out = capsys.readouterr().out
    assert "66.7%" in out and "33.3%" in out
    data = json.loads((tmp_path / "shares.json").read_text())
    assert [(i["instance"], i["share"], i["kernels"]) for i in data["instances"]] == [
        ("a", 66.67, 2),
        ("b", 33.33, None),
    ]
    width, height, raw = decode_png((tmp_path / "shares.png").read_bytes())
    assert len(raw) == height * (1 + 3 * width)
    # Something was drawn besides the white background.
    assert raw.count(b"\xff") < len(raw) * 0.98


def test_every_label_character_has_a_glyph(report: ModuleType) -> None:
    assert all(len(rows) == 7 and all(0 <= r < 32 for r in rows) for rows in report.FONT.values())
    text = (
        "qgpu demo: GPU share per instance guaranteed (core) achieved (nvsim gpu time) 0123456789%"
    )
    assert set(text.upper()) <= set(report.FONT)
