"""A background thread that repeats one step, for tests of calls that race it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def churning(step: Callable[[], object]) -> Iterator[None]:
    """Run `step` over and over in a thread until the block ends; the thread is joined then,
    so the block's own checks after it see no step in flight."""
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            step()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
