"""A handle another file frees and makes again while a copy of it is in flight.

qgpu looks up the charge of the handle a duplicate names, then RM duplicates whatever the handle
names by then. Where the client's handles may have changed meanwhile (a call that makes an object
in it was in flight or began: RM_ALLOC, a duplicate into it, an import), the copy gets a charge of
its own for what RM says it made (kmod/qgpu_mem.c, qgpu_mem_dup_end()). Remade by a duplicate, a
handle once went unseen: a copy could keep 1 MiB of the GPU's memory while charged 64 KiB."""

from __future__ import annotations

import threading
import time

import rm
from churn import churning
from qgpu_sysfs import mem_current as current
from racing import two_files
from test_qgpu_memlimit import wait_current

KIB, MIB = 1 << 10, 1 << 20
ROUNDS = 150  # the window is hit by about one copy in ten (sealed, module before)


def test_a_copy_of_a_handle_remade_by_duplicates_is_charged_what_rm_copied() -> None:
    """Round after round, one file makes a 1 MiB and a 64 KiB allocation and, in a thread,
    duplicates each in turn into one handle and frees it, while another file copies that handle
    once. Then the allocations are freed, and RM keeps only what the copy names. In every round
    the instance must be charged at least what RM keeps for the copy. Sealed (the default), a copy
    is RM's duplicate of qgpu's request; on the module before, 7 of 89 and 12 of 97 copies in 200
    rounds were charged 0 while RM kept 1 MiB. Unsealed, qgpu's own duplicate through its kernel
    client missed the window in as many rounds."""
    handle = 0x5D5D
    with two_files("hr", "mem=4G") as f:
        r1, r2 = f.r1, f.r2
        lock = threading.Lock()
        pair: list[int] = []  # the round's allocations, while the thread may swap them

        def swap() -> None:
            with lock:
                srcs = list(pair)
                for src in srcs:
                    if r1.dup(f.dev1, r1.client, src, handle)[0] == rm.OK:
                        r1.free(handle)
            if not srcs:
                time.sleep(0.001)

        short, copies = [], 0
        with churning(swap):
            for _ in range(ROUNDS):
                charged0, free0 = current("hr"), f.direct.fb_free_bytes(f.sub)
                status, big, _ = r1.vidmem(f.dev1, MIB)
                assert status == rm.OK, hex(status)
                status, small, _ = r1.vidmem(f.dev1, 64 * KIB)
                assert status == rm.OK, hex(status)
                with lock:
                    pair[:] = [big, small]
                status = rm.NO_MEMORY
                for _ in range(20):  # until one copy is made
                    status, copy = r2.dup(f.dev2, r1.client, handle)
                    if status == rm.OK:
                        break
                with lock:
                    pair.clear()  # the thread's step is over: the handle is free
                assert r1.free(big) == rm.OK
                assert r1.free(small) == rm.OK
                if status != rm.OK:
                    continue
                copies += 1
                held = free0 - f.direct.fb_free_bytes(f.sub)
                charged = current("hr") - charged0
                if charged < held:
                    short.append((charged, held))
                assert r2.free(copy) == rm.OK
        assert copies, "no copy was made"
        assert not short, f"{len(short)} of {copies} copies charged less than RM keeps: {short}"
        f.close_files()
        assert wait_current("hr", 0) == 0
