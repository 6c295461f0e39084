"""A tenant process for kill tests: it makes what it is to hold, then waits for SIGKILL."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def killed_after(setup: Callable[[], object]) -> Iterator[None]:
    """Fork a process that runs `setup` and then waits; yield once it has, and kill it (SIGKILL)
    and reap it when the block ends, so what it held must go with its exit alone."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            setup()
            os.write(w, b"x")
            signal.pause()
        finally:
            os._exit(1)
    try:
        assert os.read(r, 1) == b"x"
        yield
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(r)
        os.close(w)
