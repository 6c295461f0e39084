"""qgpu's generic-netlink events, read by qgpuctl's own listener and by `qgpuctl events`."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import threading
import time

from kernel import PROJECT
from qgpu_sysfs import create, remove

from qgpuctl.backends.netlink import QgpuEventSocket


def alarm(signum: int, frame: object) -> None:
    raise TimeoutError("no event within the deadline")


def test_instance_lifecycle_events() -> None:
    sock = QgpuEventSocket()  # subscribed once this returns
    # pyroute2 reads on the thread that made the socket: read here, act on another thread.
    actor = threading.Thread(target=lambda: (create("evt mem=1G"), remove("evt")))
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(60)
    try:
        actor.start()
        got = list(itertools.islice(sock.events(), 2))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        actor.join()
        sock.close()
    assert [(e.event, e.gpu, e.instance) for e in got] == [
        ("instance_create", 0, "evt"),
        ("instance_remove", 0, "evt"),
    ]
    assert got[0].size == 1 << 30
    assert got[0].timestamp_ns is not None and got[1].timestamp_ns is not None
    assert got[0].timestamp_ns <= got[1].timestamp_ns


def test_qgpuctl_events_prints_them() -> None:
    cli = subprocess.Popen(
        [str(PROJECT / ".venv/bin/qgpuctl"), "events", "--count", "1", "-o", "json"],
        # conftest puts this tree first on PYTHONPATH, which the child inherits
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The CLI subscribes at some point after it starts; create until it has seen one.
        deadline = time.monotonic() + 240  # the CLI's start-up is slow under emulation
        n = 0
        while cli.poll() is None and time.monotonic() < deadline:
            create(f"evt{n}")
            remove(f"evt{n}")
            n += 1
            time.sleep(0.5)
        out, err = cli.communicate(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
    assert cli.returncode == 0, err
    event = json.loads(out.splitlines()[0])
    assert event["event"] in ("instance_create", "instance_remove")
    assert event["instance"].startswith("evt")
