"""Two ctl files of one instance, and the driver's own view beside them, for tests of a call
through one file that races calls through the other (the copies of a source another file makes
and frees)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from qgpu_sysfs import instance
from rm import Rm


@dataclass
class TwoFiles:
    """`r1` and `r2`, each with a device (`dev1`, `dev2`), on one instance; `direct`, a client
    straight on the driver, whose subdevice `sub` reads the GPU's real free memory."""

    direct: Rm
    sub: int
    r1: Rm
    dev1: int
    r2: Rm
    dev2: int

    def close_files(self) -> None:
        """Close both of the instance's files: what they held must go with them."""
        for r in (self.r2, self.r1):
            r.close()
            r.ctl = r.gpu_fd = -1


@contextmanager
def two_files(name: str, opts: str) -> Iterator[TwoFiles]:
    """An instance `name` created with `opts`, and TwoFiles on it; everything closed at the end."""
    direct = Rm()
    with instance(name, opts=opts) as d:
        r1, r2 = Rm(dev=d), Rm(dev=d)
        try:
            _, sub = direct.device()
            dev1, _ = r1.device()
            dev2, _ = r2.device()
            yield TwoFiles(direct, sub, r1, dev1, r2, dev2)
        finally:
            for r in (r2, r1, direct):
                r.close()
