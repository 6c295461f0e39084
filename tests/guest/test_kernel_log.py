"""The suite's own reader of the kernel log (kernel.KernelLog), on which every test's check that
the kernel stayed quiet (conftest.kernel_log_stays_clean) depends."""

from __future__ import annotations

import os

from kernel import KernelLog


def _log(text: str) -> None:
    # <6>: info, below the console's level, so vm.sh's check of the console never sees it
    with open("/dev/kmsg", "w") as kmsg:
        kmsg.write(f"<6>{text}\n")


def test_each_record_is_read_once_in_order_and_only_after_opening() -> None:
    token = f"kernel-log-test-{os.getpid()}"
    _log(f"{token} before")
    with KernelLog() as log:
        _log(f"{token} one")
        _log(f"{token} two")
        ours = [line for line in log.read() if token in line]
        assert ours == [f"{token} one", f"{token} two"]
        assert [line for line in log.read() if token in line] == []
        _log(f"{token} three")
        assert [line for line in log.read() if token in line] == [f"{token} three"]
