#!/usr/bin/env python3
"""Turn a raw rmtrace JSON-lines trace into a digest the C unit tests read.

The raw traces come from an LD_PRELOAD shim (../shared/tools/rmtrace, extended to record the
parameters of RM_ALLOC before the call: an ``alloc_params_in`` line after the RM_ALLOC record)
run on a machine with an NVIDIA GPU. They are not committed; their digests are, under
tests/unit/c/fixtures/, so that the decoder is tested against what the real driver saw.

Digest lines (hex without 0x, fields separated by one space):
  # ...                                  comments; ``# mark LABEL`` where the program marked
  alloc CLASS NVOS_SIZE NVOS_HEX PARAMS_IN_HEX RM_SIZE
                                          a successful direct RM_ALLOC of memory (0x40, 0x3E): the
                                          NVOS21/64 bytes as passed (pointer included), the class
                                          parameters before the call, the size RM allocated
  object CLASS                            a successful RM_ALLOC of any other class
  fbinfo CMD INDEX...                     an FB_GET_INFO(_V2) call and the indices it asked for
  control CMD PARAMS_HEX                  a successful RM_CONTROL of one that decides how a
                                          context is scheduled (SCHED_CONTROLS), its parameters
                                          as the call wrote them back

Usage: rmtrace_digest.py TRACE.jsonl "HEADER LINE" > DIGEST
"""

from __future__ import annotations

import json
import struct
import sys

RM_ALLOC, RM_CONTROL = 0x2B, 0x2A
FB_GET_INFO_V2 = 0x20801303
# GPFIFO_SCHEDULE, SET_TIMESLICE, SET_INTERLEAVE_LEVEL and MAKE_REALTIME of a group; a channel's
# SET_INTERLEAVE_LEVEL and RESTART_RUNLIST; GR_SET_CTXSW_PREEMPTION_MODE, GR_CTXSW_PREEMPTION_BIND
SCHED_CONTROLS = {
    0xA06C0101,
    0xA06C0103,
    0xA06C0107,
    0xA06C0110,
    0xA06F0109,
    0xA06F0111,
    0x20801210,
    0x20801211,
}
MEMORY_CLASSES = {0x40, 0x3E}
SIZE_OFF = 64  # NV_MEMORY_ALLOCATION_PARAMS.size


def digest(path: str, header: str) -> list[str]:
    out = [f"# {header}"]
    pending: dict[str, str] | None = None
    for line in open(path, encoding="utf-8"):
        e = json.loads(line)
        if e.get("ev") == "mark":
            out.append(f"# mark {e['what']}")
            continue
        if e.get("ev") == "alloc_params_in":
            if pending is not None:
                pending["in"] = e["params"]
                out.append(" ".join(pending.values()))
            pending = None
            continue
        pending = None
        if "nr" not in e or e.get("ret") != 0 or "out" not in e:
            continue
        raw = bytes.fromhex(e["out"])
        if e["nr"] == RM_ALLOC and e["size"] in (32, 40, 48):
            status = struct.unpack_from("<I", raw, {32: 28, 40: 36, 48: 40}[e["size"]])[0]
            if status:
                continue
            hclass = struct.unpack_from("<I", raw, 12)[0]
            if hclass not in MEMORY_CLASSES or "alloc_params" not in e:
                out.append(f"object {hclass:x}")
                continue
            after = bytes.fromhex(e["alloc_params"])
            # the "in" field is filled from the alloc_params_in line that follows
            pending = {
                "kind": "alloc",
                "class": f"{hclass:x}",
                "size": str(e["size"]),
                "nvos": e["in"],
                "in": "",
                "rm_size": f"{struct.unpack_from('<Q', after, SIZE_OFF)[0]:x}",
            }
        elif e["nr"] == RM_CONTROL and e["size"] == 32:
            cmd = struct.unpack_from("<I", raw, 8)[0]
            params = bytes.fromhex(e.get("ctrl_params", ""))
            status = struct.unpack_from("<I", raw, 28)[0]
            if cmd in SCHED_CONTROLS and not status:
                out.append(f"control {cmd:x} {params.hex()}")
            if cmd == FB_GET_INFO_V2 and len(params) >= 4:
                n = struct.unpack_from("<I", params, 0)[0]
                idx = [struct.unpack_from("<I", params, 4 + 8 * i)[0] for i in range(n)]
                out.append(f"fbinfo {cmd:x} " + " ".join(f"{i:x}" for i in idx))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print("\n".join(digest(sys.argv[1], sys.argv[2])))
