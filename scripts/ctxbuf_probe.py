#!/usr/bin/env python3
"""What RM takes from the framebuffer for channel groups and channels, step by step, as a digest.

Run on a machine with an NVIDIA GPU (``--abi`` the driver's version, /sys/module/nvidia/version),
it records what the real driver does; its output on an H200 is the fixture
tests/unit/c/fixtures/nvidia-580-h200-ctxbuf.digest. Run in the guest against nvsim (no
``--abi``), or through a qgpu instance (``--dev /dev/qgpu/NAME``, where the framebuffer's free
space is the instance's limit less its charge), the same steps must give the same digest:
tests/guest/test_nvsim_ctxbuf.py and test_qgpu_ctxbuf.py compare them.

Each step is measured by FB_GET_INFO_V2's heap free (KiB) before and after. Digest lines (one
space between fields; numbers decimal unless named hex):
  # ...                               comments
  arch HEX                            MC_GET_ARCH_INFO's architecture
  falcon ENGDESC ATTR SIZE ASL BASE   one GET_CONSTRUCTED_FALCON_INFO entry (hex)
  grctx ID STATUS SIZE ALIGN          GR_GET_ENGINE_CONTEXT_PROPERTIES of one engine id (ID,
                                      STATUS hex)
  step LABEL STATUS TAKEN             a step: RM's status (hex; "-" for frees, all NV_OK), and the
                                      bytes the framebuffer's free space went down by
  timeslice US                        a new group's GET_TIMESLICE

Usage: ctxbuf_probe.py [--abi VERSION] [--dev DIR] > DIGEST
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "guest"))
import rm  # noqa: E402

ENGINE_COPY0, ENGINE_NVDEC1, ENGINE_NVJPEG1, ENGINE_NVENC0 = 0x09, 0x14, 0x2C, 0x1B
RING_BYTES = 0x40000  # the channels' rings and USERDs, allocated before any step
USERD = 0x10000
GROUP_CHANNELS_MAX = 128  # NV_RAMRL_ENTRY_TSG_LENGTH_MAX (kmod/nvrm/nvrm_ctxbuf.h)
GR_CTX_ENGINE_ID_COUNT = 0x1A  # 550 on (kmod/nvrm/nvrm_abi.h)


class Probe:
    def __init__(self, dev: str) -> None:
        self.devdir = dev
        self.r = rm.Rm(gpu=0, dev=dev)
        self.dev, self.sub = self.r.device(0)
        self.lines: list[str] = []
        status, self.ring, _, self.ring_va = self.r.memory(rm.VIDMEM, self.dev, RING_BYTES)
        assert status == rm.OK, hex(status)

    def free_kib(self) -> int:
        return self.r.fb_info(self.sub, rm.FB_HEAP_FREE)[0]

    def step(self, label: str, fn: Callable[[], int | None]) -> int | None:
        """Run fn (returning an RM status, or None for frees) and record what it took."""
        before = self.free_kib()
        status = fn()
        taken = (before - self.free_kib()) * 1024
        self.lines.append(f"step {label} {'-' if status is None else f'{status:x}'} {taken}")
        return status

    def freed(self, label: str, *handles: int) -> None:
        """A step that frees `handles` (RM_FREE of each must succeed)."""
        self.step(label, lambda: self.free(*handles))

    def alloc(self, parent: int, hclass: int, params: bytes | None = None) -> tuple[int, int]:
        return self.r.alloc(self.r.client, parent, hclass, params)

    def free(self, *handles: int) -> None:
        for h in handles:
            status = self.r.free(h)
            assert status == rm.OK, hex(status)

    def group(self, label: str, engine: int, vaspace: int = 0) -> int:
        """A step making a group on `engine` in `vaspace` (0: the device's); its handle."""
        status, h = 0, 0
        params = rm.group_params(engine, vaspace)

        def make() -> int:
            nonlocal status, h
            status, h = self.alloc(self.dev, rm.TSG, params)
            return status

        self.step(f"{label}:group", make)
        assert status == rm.OK, hex(status)
        return h

    def channel(self, label: str, group: int, index: int, engine: int) -> int | None:
        """A channel in `group` with USERD slot `index`; its handle, or None where RM refused."""
        result: list[int] = []

        def make() -> int:
            status, h = self.alloc(group, rm.CHANNEL, self.channel_params(index, engine))
            result.append(h if status == rm.OK else 0)
            return status

        self.step(label, make)
        return result[0] or None

    def info(self) -> None:
        status, arch = rm.architecture(self.r, self.sub)
        assert status == rm.OK, hex(status)
        self.lines.append(f"arch {arch:x}")
        params = bytearray(4 + rm.CONSTRUCTED_FALCONS_MAX * 20)
        status = self.r.control(self.sub, rm.GPU_GET_CONSTRUCTED_FALCON_INFO, params)
        assert status == rm.OK, hex(status)
        (count,) = struct.unpack_from("<I", params, 0)
        for i in range(min(count, rm.CONSTRUCTED_FALCONS_MAX)):
            fields = struct.unpack_from("<5I", params, 4 + 20 * i)
            self.lines.append("falcon " + " ".join(f"{x:x}" for x in fields))
        for engine_id in range(GR_CTX_ENGINE_ID_COUNT):
            p = bytearray(struct.pack("<IIQIIIB3x", 0, 0, 0, engine_id, 0, 0, 0))
            status = self.r.control(self.sub, rm.GR_GET_ENGINE_CONTEXT_PROPERTIES, p)
            align, size = struct.unpack_from("<II", p, 20)
            self.lines.append(f"grctx {engine_id:x} {status:x} {size} {align}")

    def video_memory(self) -> None:
        for size in (4 << 10, 64 << 10, 1 << 20, 2 << 20, 3 << 20):
            self.freed(f"vidmem-{size}:free", self.vidmem(size))

    def vidmem(self, size: int) -> int:
        """A step allocating `size` bytes of video memory; its handle."""
        result: list[int] = []

        def make() -> int:
            status, h, _ = self.r.vidmem(self.dev, size)
            result.append(h)
            return status

        assert self.step(f"vidmem-{size}", make) == rm.OK
        return result[0]

    def graphics_pool(self, label: str, channels: int) -> None:
        """A graphics group's channels: each a chunk, kept by the pool until the last goes."""
        g = self.group(label, rm.ENGINE_GRAPHICS)
        made = [
            self.channel(f"{label}:channel-{i + 1}", g, i, rm.ENGINE_GRAPHICS)
            for i in range(channels)
        ]
        handles = [h for h in made if h]
        assert len(handles) == channels
        self.step(f"{label}:compute", lambda: self.alloc(handles[0], rm.COMPUTE)[0])
        if channels >= 4:
            self.freed(f"{label}:free-2-channels", *handles[1:3])
            again = [self.channel(f"{label}:again-{i}", g, 100 + i, 0) for i in range(2)]
            handles = [handles[0], *handles[3:], *[h for h in again if h]]
            self.freed(f"{label}:free-all-but-one", *handles[1:])
        self.freed(f"{label}:free-last-channel", handles[0])
        self.freed(f"{label}:free-group", g)

    def engines(self) -> None:
        """Groups of other engines, and a channel of an engine not its group's."""
        for label, engine in (("copy0", ENGINE_COPY0), ("nvdec1", ENGINE_NVDEC1)):
            g = self.group(label, engine)
            a = self.channel(f"{label}:channel", g, 1, engine)
            b = self.channel(f"{label}:channel-engine-0", g, 2, 0)
            self.freed(f"{label}:free-channels", *[h for h in (a, b) if h])
            self.freed(f"{label}:free-group", g)
        for label, engine, channel_engine in (
            ("copy0-gr", ENGINE_COPY0, rm.ENGINE_GRAPHICS),
            ("gr-copy0", rm.ENGINE_GRAPHICS, ENGINE_COPY0),
        ):
            g = self.group(label, engine)
            h = self.channel(f"{label}:channel", g, 1, channel_engine)
            if h:
                self.freed(f"{label}:free-channel", h)
            self.freed(f"{label}:free-group", g)
        made: list[int] = []

        def no_engine() -> int:  # a group must name its engine
            status, h = self.alloc(self.dev, rm.TSG, rm.group_params(0))
            made.extend([h] if status == rm.OK else [])
            return status

        self.step("engine-0:group", no_engine)
        self.free(*made)
        for label, engine in (
            ("nvdec0", rm.ENGINE_NVDEC0),
            ("nvjpeg0", rm.ENGINE_NVJPEG0),
            ("nvjpeg1", ENGINE_NVJPEG1),
            ("ofa0", rm.ENGINE_OFA0),
            ("nvenc0", ENGINE_NVENC0),
            ("sec2", rm.ENGINE_SEC2),
        ):
            g = self.group(label, engine)
            self.freed(f"{label}:free-group", g)

    def refusals(self) -> None:
        """Channels RM refuses after reserving their chunk: the chunk stays in the pool."""
        g = self.group("refused", rm.ENGINE_GRAPHICS)
        first = self.channel("refused:channel-1", g, 1, rm.ENGINE_GRAPHICS)
        wrong = [self.channel(f"refused:wrong-engine-{i - 1}", g, i, ENGINE_COPY0) for i in (2, 3)]
        second = self.channel("refused:channel-2", g, 4, rm.ENGINE_GRAPHICS)
        # what RM should have refused goes with the second channel, so the digest shows it
        self.freed("refused:free-channel-2", *[h for h in (second, *wrong) if h])
        self.freed("refused:free-channel-1", *[h for h in (first,) if h])
        self.freed("refused:free-group", g)
        g = self.group("full", rm.ENGINE_GRAPHICS)
        handles: list[int] = []

        def fill() -> int:
            for i in range(GROUP_CHANNELS_MAX):
                status, h = self.alloc(g, rm.CHANNEL, self.channel_params(i))
                if status != rm.OK:
                    return status
                handles.append(h)
            return rm.OK

        self.step("full:128-channels", fill)
        for n in (129, 130):
            h = self.channel(f"full:channel-{n}", g, n - 1, 0)
            handles += [h] if h else []
        self.freed("full:free-all-but-one", *handles[1:])
        self.freed("full:free-last-channel", handles[0])
        self.freed("full:free-group", g)

    def channel_params(self, index: int, engine: int = 0) -> bytes:
        """NV_CHANNEL_ALLOC_PARAMS with USERD slot `index` and engineType `engine` (0: the
        group's)."""
        userd = USERD + 512 * index
        return rm.channel_params(self.ring_va, 256, self.ring, userd, engine=engine)

    def many_groups(self) -> None:
        groups: list[int] = []

        def make() -> int:
            for _ in range(8):
                status, h = self.alloc(self.dev, rm.TSG, rm.group_params(rm.ENGINE_GRAPHICS))
                if status != rm.OK:
                    return status
                groups.append(h)
            return rm.OK

        self.step("8-groups", make)
        self.freed("8-groups:free", *groups)
        g = self.alloc(self.dev, rm.TSG, rm.group_params(rm.ENGINE_GRAPHICS))[1]
        p = bytearray(8)
        assert self.r.control(g, rm.GET_TIMESLICE, p) == rm.OK
        self.lines.append(f"timeslice {struct.unpack('<Q', p)[0]}")
        self.free(g)

    def uvm(self, uuid: bytes) -> None:
        """A channel UVM registers keeps its group and its instance block after the tenant frees
        them, until UVM lets go; UVM's letting go does not release the group's pool."""
        fd = os.open(f"{self.devdir}/nvidia-uvm", os.O_RDWR)
        mm = os.open(f"{self.devdir}/nvidia-uvm", os.O_RDWR)
        try:
            assert rm.uvm_initialize(fd) == rm.OK
            # as libcuda 580 sets up its VA space: the mm on a second file, a GPU VA space that
            # is externally owned and faults (flags 0x48), from 4 KiB
            self.lines.append(f"uvm mm-initialize {rm.uvm_mm_initialize(mm, fd):x}")
            status = rm.uvm_register_gpu(fd, uuid, self.r.client)[0]
            self.lines.append(f"uvm register-gpu {status:x}")
            flags = rm.VASPACE_EXTERNALLY_OWNED | rm.VASPACE_PAGE_FAULTING
            status, vaspace = self.alloc(self.dev, rm.VASPACE, rm.vaspace_params(flags, 0x1000))
            self.lines.append(f"uvm vaspace {status:x}")
            status = rm.uvm_register_gpu_vaspace(fd, uuid, self.r.client, vaspace)
            self.lines.append(f"uvm register-gpu-vaspace {status:x}")
            g = self.group("uvm", rm.ENGINE_GRAPHICS, vaspace)  # UVM's GPU VA space
            a = self.channel("uvm:channel-1", g, 1, rm.ENGINE_GRAPHICS)
            b = self.channel("uvm:channel-2", g, 2, rm.ENGINE_GRAPHICS)
            # RM retains a channel for UVM with its work submit token, which a channel has once
            # its compute object is made (NV_ERR_INVALID_STATE before, on an H200)
            self.step("uvm:compute", lambda: self.alloc(a or 0, rm.COMPUTE)[0])
            self.step(
                "uvm:register",
                lambda: rm.uvm_register_channel(fd, uuid, self.r.client, a or 0),
            )
            self.freed("uvm:free-channels", *[h for h in (a, b) if h])
            self.step(
                "uvm:unregister",
                lambda: rm.uvm_unregister_channel(fd, uuid, self.r.client, a or 0),
            )
            self.freed("uvm:free-group", g)
        finally:
            os.close(fd)
            os.close(mm)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--abi", help="the real driver's version (omit under nvsim)")
    ap.add_argument("--dev", default="/dev", help="where nvidiactl and nvidia0 are")
    ap.add_argument("--header", default="", help="a comment line to put first")
    ap.add_argument(
        "--uvm",
        metavar="UUID",
        help="also register a channel with nvidia-uvm (the GPU's UUID, GPU-...; nvsim: its own)",
    )
    args = ap.parse_args()
    if args.abi:
        rm.param = lambda name: {"abi_version": args.abi}[name]
    p = Probe(args.dev)
    if args.header:
        p.lines.append(f"# {args.header}")
    p.info()
    p.video_memory()
    p.graphics_pool("gr-a", 20)
    p.graphics_pool("gr-b", 1)
    p.engines()
    p.refusals()
    p.many_groups()
    if args.uvm:
        print("\n".join(p.lines), flush=True)
        p.lines = []
        p.uvm(rm.gpu_uuid_bytes(rm.param("gpu_uuid") if args.uvm == "nvsim" else args.uvm))
    print("\n".join(p.lines))


if __name__ == "__main__":
    main()
