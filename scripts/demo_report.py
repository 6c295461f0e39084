#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The achieved-shares part of `make demo`: a table on stdout and a bar chart (PNG).

Input (written by scripts/demo-guest.sh into DIR):

* ``busy-before.txt``, ``busy-after.txt``: /proc/driver/nvsim/gpu<N>/busy around the run,
  nvsim's ground truth of GPU time per process (``gpu_busy_ns N`` then ``pid P busy_ns N ...``);
* ``procs-<instance>.txt``: the instance's ``processes`` file read while the workloads ran
  (``PID COMM`` lines), which maps each process to its instance;
* ``run-<instance>.json``: what ``nvsim-load run --json`` reported for it.

The instances' guarantees (``core``) and classes are read from qgpu's sysfs. Output: the table,
``DIR/shares.json`` and ``DIR/shares.png``. Standard library only: the PNG is written by hand
(zlib + struct) with a 5x7 bitmap font, since the guest has no plotting library.
"""

from __future__ import annotations

import argparse
import json
import re
import struct
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

SYSFS = Path("/sys/class/qgpu")


# --- the numbers -----------------------------------------------------------------------------


def parse_busy(text: str) -> tuple[int, dict[int, int]]:
    """(GPU busy ns, busy ns per pid) from an nvsim ``busy`` file."""
    gpu = 0
    per_pid: dict[int, int] = {}
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "gpu_busy_ns":
            gpu = int(words[1])
        elif len(words) >= 4 and words[0] == "pid" and words[2] == "busy_ns":
            per_pid[int(words[1])] = int(words[3])
    return gpu, per_pid


def parse_processes(text: str) -> list[int]:
    """PIDs of a qgpu instance's ``processes`` file (``PID COMM`` lines)."""
    return [int(m[1]) for m in re.finditer(r"^\s*(\d+)\s", text + "\n", re.MULTILINE)]


@dataclass(frozen=True)
class Share:
    instance: str
    klass: str
    core: int | None
    pids: tuple[int, ...]
    busy_ns: int
    kernels: int | None
    share: float  # percent of the GPU's busy time in the window
    of_wall: float | None  # percent of the window's wall time


def shares(
    directory: Path, instances: list[str], gpu: int, seconds: float | None
) -> tuple[list[Share], int]:
    gpu_before, before = parse_busy((directory / "busy-before.txt").read_text())
    gpu_after, after = parse_busy((directory / "busy-after.txt").read_text())
    gpu_busy = gpu_after - gpu_before
    out = []
    for name in instances:
        pids = tuple(parse_processes((directory / f"procs-{name}.txt").read_text()))
        busy = sum(after.get(p, 0) - before.get(p, 0) for p in pids)
        run_file = directory / f"run-{name}.json"
        kernels = None
        if run_file.exists() and run_file.read_text().strip():
            kernels = int(json.loads(run_file.read_text())["kernels"])
        inst = SYSFS / f"gpu{gpu}" / "instances" / name
        core_text = _read(inst / "core")
        out.append(
            Share(
                instance=name,
                klass=_read(inst / "class") or "-",
                core=int(core_text) if core_text and core_text.isdigit() else None,
                pids=pids,
                busy_ns=busy,
                kernels=kernels,
                share=100.0 * busy / gpu_busy if gpu_busy else 0.0,
                of_wall=100.0 * busy / (seconds * 1e9) if seconds else None,
            )
        )
    return out, gpu_busy


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def table(rows: list[Share], gpu_busy: int) -> str:
    head = (
        "instance",
        "class",
        "guaranteed",
        "pids",
        "kernels",
        "gpu time",
        "of the run",
        "of the busy time",
    )
    lines = [head]
    for r in rows:
        lines.append(
            (
                r.instance,
                r.klass,
                "-" if r.core is None else f"{r.core}%",
                " ".join(map(str, r.pids)) or "-",
                "-" if r.kernels is None else str(r.kernels),
                f"{r.busy_ns / 1e9:.2f} s",
                "-" if r.of_wall is None else f"{r.of_wall:.1f}%",
                f"{r.share:.1f}%",
            )
        )
    run = sum(r.of_wall for r in rows if r.of_wall is not None)
    lines.append(("(gpu)", "", "", "", "", f"{gpu_busy / 1e9:.2f} s", f"{run:.1f}%", "100.0%"))
    widths = [max(len(row[i]) for row in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in lines
    )


# --- a PNG bar chart, by hand ------------------------------------------------------------------

# 5x7 glyphs (HD44780 style), one byte per row, bit 4 = leftmost column.
FONT: dict[str, tuple[int, ...]] = {
    "0": (0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E),
    "1": (0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E),
    "2": (0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F),
    "3": (0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E),
    "4": (0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02),
    "5": (0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E),
    "6": (0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E),
    "7": (0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08),
    "8": (0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E),
    "9": (0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C),
    "A": (0x0E, 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11),
    "B": (0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E),
    "C": (0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E),
    "D": (0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C),
    "E": (0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F),
    "F": (0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10),
    "G": (0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F),
    "H": (0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11),
    "I": (0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E),
    "J": (0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C),
    "K": (0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11),
    "L": (0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F),
    "M": (0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11),
    "N": (0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11),
    "O": (0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E),
    "P": (0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10),
    "Q": (0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D),
    "R": (0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11),
    "S": (0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E),
    "T": (0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04),
    "U": (0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E),
    "V": (0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04),
    "W": (0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A),
    "X": (0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11),
    "Y": (0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04),
    "Z": (0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F),
    "%": (0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03),
    ".": (0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C),
    ",": (0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08),
    "-": (0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00),
    "_": (0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F),
    ":": (0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00),
    ";": (0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x04, 0x08),
    "(": (0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02),
    ")": (0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08),
    "/": (0x00, 0x01, 0x02, 0x04, 0x08, 0x10, 0x00),
    "=": (0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00),
    " ": (0x00,) * 7,
}

Color = tuple[int, int, int]
WHITE: Color = (255, 255, 255)
BLACK: Color = (30, 30, 30)
GRID: Color = (220, 220, 220)
GREY: Color = (170, 170, 170)
BLUE: Color = (31, 119, 180)


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width = width
        self.height = height
        self.pixels = bytearray(WHITE * (width * height))

    def rect(self, x0: int, y0: int, x1: int, y1: int, color: Color) -> None:
        """Fill [x0, x1) x [y0, y1), clipped to the canvas."""
        x0, x1 = max(0, min(x0, x1)), min(self.width, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.height, max(y0, y1))
        row = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            start = (y * self.width + x0) * 3
            self.pixels[start : start + len(row)] = row

    def text(self, x: int, y: int, text: str, color: Color = BLACK, scale: int = 2) -> None:
        for i, ch in enumerate(text.upper()):
            glyph = FONT.get(ch, FONT[" "])
            for row, bits in enumerate(glyph):
                for col in range(5):
                    if bits & (0x10 >> col):
                        px = x + (i * 6 + col) * scale
                        py = y + row * scale
                        self.rect(px, py, px + scale, py + scale, color)

    @staticmethod
    def text_width(text: str, scale: int = 2) -> int:
        return max(0, len(text) * 6 - 1) * scale

    def png(self) -> bytes:
        stride = self.width * 3
        raw = b"".join(
            b"\x00" + bytes(self.pixels[y * stride : (y + 1) * stride]) for y in range(self.height)
        )

        def chunk(tag: bytes, data: bytes) -> bytes:
            crc = zlib.crc32(tag + data) & 0xFFFFFFFF
            return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def bar_chart(rows: list[Share], title: str, note: str) -> bytes:
    """Guaranteed (grey) next to achieved (colour) share per instance, 0-100%."""
    width, height = 760, 420
    left, right, top, bottom = 70, 20, 70, 80
    c = Canvas(width, height)
    c.text(left, 16, title, BLACK, 2)
    c.text(left, 40, note, GREY, 1)
    plot_h = height - top - bottom

    def y_of(pct: float) -> int:
        return top + plot_h - round(plot_h * min(pct, 100.0) / 100.0)

    for pct in range(0, 101, 25):
        y = y_of(pct)
        c.rect(left, y, width - right, y + 1, GRID if pct else BLACK)
        label = f"{pct}%"
        c.text(left - 8 - Canvas.text_width(label), y - 7, label, BLACK, 2)
    groups = max(1, len(rows))
    slot = (width - left - right) // groups
    bar = min(60, slot // 3)
    for i, r in enumerate(rows):
        x = left + i * slot + (slot - 2 * bar - 6) // 2
        if r.core is not None:
            c.rect(x, y_of(r.core), x + bar, y_of(0), GREY)
            label = f"{r.core}%"
            c.text(x + (bar - Canvas.text_width(label, 1)) // 2, y_of(r.core) - 10, label, GREY, 1)
        xa = x + bar + 6
        c.rect(xa, y_of(r.share), xa + bar, y_of(0), BLUE)
        label = f"{r.share:.1f}%"
        c.text(xa + (bar - Canvas.text_width(label, 1)) // 2, y_of(r.share) - 10, label, BLACK, 1)
        name = r.instance
        c.text(left + i * slot + (slot - Canvas.text_width(name)) // 2, y_of(0) + 10, name)
        klass = f"({r.klass})"
        cx = left + i * slot + (slot - Canvas.text_width(klass, 1)) // 2
        c.text(cx, y_of(0) + 30, klass, GREY, 1)
    ly = height - 24
    c.rect(left, ly, left + 14, ly + 14, GREY)
    c.text(left + 20, ly + 1, "guaranteed (core)", BLACK, 2)
    lx = left + 20 + Canvas.text_width("guaranteed (core)") + 30
    c.rect(lx, ly, lx + 14, ly + 14, BLUE)
    c.text(lx + 20, ly + 1, "achieved (nvsim gpu time)", BLACK, 2)
    return c.png()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--gpu", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=None, help="length of the run")
    parser.add_argument("--note", default="")
    parser.add_argument("instances", nargs="+")
    args = parser.parse_args(argv)
    rows, gpu_busy = shares(args.dir, args.instances, args.gpu, args.seconds)
    print(table(rows, gpu_busy))
    data = {
        "gpu_busy_ns": gpu_busy,
        "instances": [
            {
                "instance": r.instance,
                "class": r.klass,
                "core": r.core,
                "pids": list(r.pids),
                "kernels": r.kernels,
                "busy_ns": r.busy_ns,
                "share": round(r.share, 2),
                "of_wall": None if r.of_wall is None else round(r.of_wall, 2),
            }
            for r in rows
        ],
    }
    (args.dir / "shares.json").write_text(json.dumps(data, indent=2) + "\n")
    png = args.dir / "shares.png"
    png.write_bytes(bar_chart(rows, "qgpu demo: GPU share per instance", args.note))
    print(f"\nwrote {png} and {args.dir / 'shares.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
