"""An in-process emulation of qgpu.ko's sysfs interface, for host tests.

:class:`FakeKernel` is a real :class:`SysfsTree` over a plain directory whose
``_write_path``/``_read_path`` behave like the kernel's ``store()``/``show()``
as docs/kernel-interface.md specifies them: writing ``create`` makes an
instance directory (and its /dev nodes), ``remove`` deletes it, a refused
value raises the errno the kernel returns, read-only and write-only attributes
refuse the wrong direction with EACCES. Everything qgpuctl does above the
gateway (SysfsTree.write's originals, rollback) runs unchanged on top of it.
"""

from __future__ import annotations

import errno
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from qgpuctl.backends import schema as k
from qgpuctl.backends.sysfs import SysfsTree
from qgpuctl.core.units import parse_size
from qgpuctl.errors import KernelInterfaceError, SizeError

GIB = 2**30

GPU_RO = {
    k.GPU_AVAILABLE,
    k.GPU_INDEX,
    k.GPU_NAME,
    k.GPU_UUID,
    k.GPU_MEMORY,
    k.GPU_DRIVER_VERSION,
    k.GPU_DRIVER_SUPPORTED,
    k.GPU_ID,
    k.GPU_UTILIZATION,
}
INST_RO = {
    k.INST_MEM_CURRENT,
    k.INST_MEM_PEAK,
    k.INST_EVENTS,
    k.INST_PROCESSES,
    k.INST_GPU_TIME,
    k.INST_THROTTLED,
    k.INST_PREEMPTIONS,
    k.INST_SHARE,
    k.INST_CHANNELS,
    k.INST_RM_OBJECTS,
    k.INST_SYSMEM_CURRENT,
    k.INST_SYSMEM_PEAK,
    k.INST_MAPPED_CURRENT,
}
WRITE_ONLY = {k.GPU_CREATE, k.INST_REMOVE}
# What today's module lists in create_keys (docs/kernel-interface.md).
CREATE_KEYS = "mem core class managed dmabuf channels rm_objects sysmem mapped"
# The system-memory limit and its counters, which arrived with the create key sysmem.
SYSMEM_ATTRS = {k.INST_SYSMEM_MAX, k.INST_SYSMEM_CURRENT, k.INST_SYSMEM_PEAK}
# The bound on mapped GPU address space and its count, which arrived with the create key mapped.
MAPPED_ATTRS = {k.INST_MAPPED_MAX, k.INST_MAPPED_CURRENT}
KNOB_MODES = {k.INST_MANAGED: k.MANAGED_MODES, k.INST_DMABUF: k.DMABUF_MODES}
# The count bounds, by create key: the knob, the count it bounds, the most it takes.
BOUNDS = {
    k.CHANNELS_CREATE_KEY: (k.INST_CHANNELS_MAX, k.INST_CHANNELS, 65536),
    k.RM_OBJECTS_CREATE_KEY: (k.INST_RM_OBJECTS_MAX, k.INST_RM_OBJECTS, 16777216),
}
BOUND_KNOBS = {knob: (held, limit) for knob, held, limit in BOUNDS.values()}


@dataclass
class _Refusal(Exception):
    code: int


class FakeKernel(SysfsTree):
    """qgpu's sysfs tree, emulated. Build GPUs with :meth:`add_gpu`."""

    def __init__(self, root: Path, dev_root: Path | None = None) -> None:
        (root / k.CLASS_DIR).mkdir(parents=True, exist_ok=True)
        (root / k.MODULE_DIR).mkdir(parents=True, exist_ok=True)
        super().__init__(root)
        self.dev_root = dev_root
        self.writes: list[tuple[str, str]] = []
        self._fail: list[tuple[str, int]] = []
        # Instance attributes an older module does not have: create leaves them out.
        self.instance_lacks: set[str] = set()

    # --- building the scenario ---------------------------------------------

    def add_gpu(
        self,
        minor: int,
        *,
        index: int | None = None,
        name: str = "NVIDIA A100-SXM4-40GB",
        uuid: str | None = None,
        memory: int = 40 * GIB,
        driver: str = "550.54.15",
        supported: bool | None = True,
        policy: str = "best-effort",
        timeslice_us: int = 1024,
        period_us: int | None = 10000,
        overcommit: bool = False,
        max_instances: int = 16,
        utilization: int = 0,
        create_keys: str | None = CREATE_KEYS,
    ) -> None:
        """``create_keys``: what the module's create takes after NAME; None for an older
        module without the attribute (its create takes mem, core and class). A module whose
        create has no ``dmabuf`` key has no ``dmabuf`` knob either: they arrived together."""
        base = self.root / k.gpu_dir(minor)
        (base / k.GPU_INSTANCES).mkdir(parents=True)
        attrs: dict[str, object] = {
            k.GPU_CREATE: "",
            k.GPU_AVAILABLE: max_instances,
            k.GPU_INDEX: minor if index is None else index,
            k.GPU_NAME: name,
            k.GPU_UUID: uuid or f"GPU-{minor:08x}-0000-4000-8000-00000000000{minor}",
            k.GPU_MEMORY: memory,
            k.GPU_DRIVER_VERSION: driver,
            k.GPU_ID: f"0x{(minor + 1) << 8:x}",  # CARD_INFO gpu_id, hex as qgpu.ko emits it
            k.GPU_POLICY: policy,
            k.GPU_TIMESLICE: timeslice_us,
            k.GPU_OVERCOMMIT: int(overcommit),
            k.GPU_UTILIZATION: utilization,
            k.GPU_UNKNOWN_ESCAPES: "refuse",
            k.GPU_CONTROLS: "effective",
            k.GPU_GP_GET: "unknown",
            k.GPU_CONTROL_US: 0,
            k.GPU_NUMA_NODE: -1,
        }
        if period_us is not None:  # None: a module from before the knob
            attrs[k.GPU_PERIOD] = period_us
        if supported is not None:
            attrs[k.GPU_DRIVER_SUPPORTED] = int(supported)
        if create_keys is not None:
            attrs[k.GPU_CREATE_KEYS] = create_keys
        for attr, value in attrs.items():
            (base / attr).write_text(f"{value}\n" if value != "" else "")

    def use(
        self,
        name: str,
        *,
        mem_current: int | None = None,
        processes: list[tuple[int, str]] | None = None,
        share: float | None = None,
        events: int | None = None,
        preemptions: int | None = None,
        channels: int | None = None,
        rm_objects: int | None = None,
        sysmem_current: int | None = None,
        mapped_current: int | None = None,
    ) -> None:
        """Set the counters a running workload would move."""
        inst = self._instance_path(name)
        if mem_current is not None:
            (inst / k.INST_MEM_CURRENT).write_text(f"{mem_current}\n")
            (inst / k.INST_MEM_PEAK).write_text(f"{mem_current}\n")
        if processes is not None:
            (inst / k.INST_PROCESSES).write_text("".join(f"{p} {c}\n" for p, c in processes))
        if share is not None:
            (inst / k.INST_SHARE).write_text(f"{share}\n")
        if events is not None:
            (inst / k.INST_EVENTS).write_text(f"{events}\n")
        if preemptions is not None:
            (inst / k.INST_PREEMPTIONS).write_text(f"{preemptions}\n")
        if channels is not None:
            (inst / k.INST_CHANNELS).write_text(f"{channels}\n")
        if rm_objects is not None:
            (inst / k.INST_RM_OBJECTS).write_text(f"{rm_objects}\n")
        if sysmem_current is not None:
            (inst / k.INST_SYSMEM_CURRENT).write_text(f"{sysmem_current}\n")
            (inst / k.INST_SYSMEM_PEAK).write_text(f"{sysmem_current}\n")
        if mapped_current is not None:
            (inst / k.INST_MAPPED_CURRENT).write_text(f"{mapped_current}\n")

    def fail_next(self, rel_suffix: str, code: int) -> None:
        """The next write to a path ending in ``rel_suffix`` fails with ``code`` (once)."""
        self._fail.append((rel_suffix, code))

    def set_create_keys(self, minor: int, keys: str | None) -> None:
        """Emulate a module whose create takes ``keys``; None: one without ``create_keys``."""
        path = self._gpu(minor) / k.GPU_CREATE_KEYS
        if keys is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(f"{keys}\n")

    def remove_attr(self, rel: str) -> None:
        """Emulate an older module that lacks an attribute."""
        (self.root / rel).unlink()

    # --- kernel semantics -------------------------------------------------------

    def _read_path(self, path: Path) -> str:
        if path.name in WRITE_ONLY:
            raise KernelInterfaceError(path, None, errno.EACCES)
        return super()._read_path(path)

    def _write_path(self, path: Path, data: str) -> None:
        rel = path.relative_to(self.root).as_posix()
        for i, (suffix, code) in enumerate(self._fail):
            if rel.endswith(suffix):
                del self._fail[i]
                raise KernelInterfaceError(path, data, code)
        if not path.exists():
            raise KernelInterfaceError(path, data, errno.ENOENT)
        if path.is_dir():
            raise KernelInterfaceError(path, data, errno.EISDIR)
        try:
            self._store(rel, data.strip())
        except _Refusal as refusal:
            raise KernelInterfaceError(path, data, refusal.code) from None
        self.writes.append((rel, data))

    def _store(self, rel: str, value: str) -> None:
        parts = rel.split("/")
        # class/qgpu/gpuN/attr  or  class/qgpu/gpuN/instances/NAME/attr
        minor = int(parts[2][len(k.GPU_DIR_PREFIX) :])
        if len(parts) == 4:
            self._store_gpu(minor, parts[3], value)
        elif len(parts) == 6 and parts[3] == k.GPU_INSTANCES:
            self._store_instance(minor, parts[4], parts[5], value)
        else:  # pragma: no cover - nothing else is writable
            raise _Refusal(errno.EACCES)

    def _gpu(self, minor: int) -> Path:
        return self.root / k.gpu_dir(minor)

    def _get(self, path: Path) -> str:
        return path.read_text().strip()

    def _set(self, path: Path, value: object) -> None:
        path.write_text(f"{value}\n")

    def _instances(self, minor: int) -> list[Path]:
        return sorted(p for p in (self._gpu(minor) / k.GPU_INSTANCES).iterdir() if p.is_dir())

    def _all_names(self) -> set[str]:
        names = set()
        for gpu in (self.root / k.CLASS_DIR).iterdir():
            names |= {p.name for p in (gpu / k.GPU_INSTANCES).iterdir()}
        return names

    def _instance_path(self, name: str) -> Path:
        for gpu in (self.root / k.CLASS_DIR).iterdir():
            candidate = gpu / k.GPU_INSTANCES / name
            if candidate.is_dir():
                return candidate
        raise KeyError(name)

    def _core_used(self, minor: int, skip: str | None = None) -> int:
        return sum(
            int(self._get(p / k.INST_CORE)) for p in self._instances(minor) if p.name != skip
        )

    def _committed(self, minor: int, skip: str | None = None) -> int:
        memory = int(self._get(self._gpu(minor) / k.GPU_MEMORY))
        total = 0
        for p in self._instances(minor):
            if p.name == skip:
                continue
            text = self._get(p / k.INST_MEM_MAX)
            total += memory if text == "max" else int(text)
        return total

    def _mem_fits(self, minor: int, mem: int | None, skip: str | None = None) -> bool:
        gpu = self._gpu(minor)
        overcommit = gpu / k.GPU_OVERCOMMIT  # an older module without it: as if 0
        if overcommit.exists() and self._get(overcommit) == "1":
            return True
        memory = int(self._get(gpu / k.GPU_MEMORY))
        return self._committed(minor, skip) + (memory if mem is None else mem) <= memory

    def _guaranteed(self, minor: int) -> bool:
        policy = self._gpu(minor) / k.GPU_POLICY  # an older module without it: best-effort
        return policy.exists() and self._get(policy) in k.GUARANTEED_POLICIES

    @staticmethod
    def _size(value: str) -> int | None:
        try:
            return parse_size(value)
        except SizeError:
            raise _Refusal(errno.EINVAL) from None

    @classmethod
    def _limit(cls, value: str) -> int | None:
        """A limit as the module takes it (sysmem_max): a size, never 0; None for max."""
        size = cls._size(value)
        if size == 0:
            raise _Refusal(errno.EINVAL)
        return size

    @classmethod
    def _mapped(cls, value: str) -> int | None:
        """A mapping bound as the module takes it: a limit in whole 2 MiB regions, at most 512T."""
        size = cls._limit(value)
        if size is not None and (size % k.MAPPED_UNIT or size > k.MAPPED_MOST):
            raise _Refusal(errno.EINVAL)
        return size

    @staticmethod
    def _core(value: str) -> int:
        if not value.isdigit() or not k.CORE_MIN <= int(value) <= k.CORE_MAX:
            raise _Refusal(errno.EINVAL)
        return int(value)

    def _store_gpu(self, minor: int, attr: str, value: str) -> None:
        gpu = self._gpu(minor)
        if attr in GPU_RO:
            raise _Refusal(errno.EACCES)
        if attr == k.GPU_CREATE:
            self._create(minor, value)
        elif attr == k.GPU_POLICY:
            if value not in k.POLICIES:
                raise _Refusal(errno.EINVAL)
            if value in k.GUARANTEED_POLICIES and self._core_used(minor) > k.CORE_MAX:
                raise _Refusal(errno.EINVAL)
            self._set(gpu / attr, value)
        elif attr == k.GPU_TIMESLICE:
            if not value.isdigit() or int(value) < 1:
                raise _Refusal(errno.EINVAL)
            self._set(gpu / attr, int(value))
        elif attr == k.GPU_PERIOD:
            if not value.isdigit() or not k.PERIOD_MIN_US <= int(value) <= k.PERIOD_MAX_US:
                raise _Refusal(errno.EINVAL)
            self._set(gpu / attr, int(value))
        elif attr == k.GPU_OVERCOMMIT:
            if value not in ("0", "1"):
                raise _Refusal(errno.EINVAL)
            memory = int(self._get(gpu / k.GPU_MEMORY))
            if value == "0" and self._committed(minor) > memory:
                raise _Refusal(errno.EINVAL)
            self._set(gpu / attr, value)
        elif attr == k.GPU_UNKNOWN_ESCAPES:
            if value not in k.UNKNOWN_ESCAPES:
                raise _Refusal(errno.EINVAL)
            self._set(gpu / attr, value)
        else:  # pragma: no cover
            raise _Refusal(errno.EACCES)

    def _create(self, minor: int, line: str) -> None:
        gpu = self._gpu(minor)
        words = line.split()
        if not words or not k.KERNEL_NAME_RE.fullmatch(words[0]):
            raise _Refusal(errno.EINVAL)
        name = words[0]
        opts = {"mem": "max", "core": "100", "class": "online"}
        keys = gpu / k.GPU_CREATE_KEYS
        listed = self._get(keys).split() if keys.exists() else []
        for knob, default in k.CREATE_KNOB_DEFAULTS.items():
            if knob in listed:
                opts[knob] = default
        for key in (*BOUNDS, k.SYSMEM_CREATE_KEY, k.MAPPED_CREATE_KEY):
            if key in listed:
                opts[key] = k.UNBOUNDED
        given: set[str] = set()
        for word in words[1:]:
            key, sep, val = word.partition("=")
            if not sep or key not in opts or key in given:
                raise _Refusal(errno.EINVAL)
            given.add(key)
            opts[key] = val
        mem = self._size(opts["mem"])
        sysmem = self._limit(opts.get(k.SYSMEM_CREATE_KEY, k.UNBOUNDED))
        mapped = self._mapped(opts.get(k.MAPPED_CREATE_KEY, k.UNBOUNDED))
        if mem is not None and mem > int(self._get(gpu / k.GPU_MEMORY)):
            raise _Refusal(errno.EINVAL)  # a limit above the GPU's memory makes no sense
        core = self._core(opts["core"])
        if opts["class"] not in k.CLASSES:
            raise _Refusal(errno.EINVAL)
        for knob, default in k.CREATE_KNOB_DEFAULTS.items():
            if opts.get(knob, default) not in KNOB_MODES[knob]:
                raise _Refusal(errno.EINVAL)
        bounds = {
            knob: self._bound(opts.get(key, k.UNBOUNDED), limit)
            for key, (knob, _, limit) in BOUNDS.items()
        }
        supported = gpu / k.GPU_DRIVER_SUPPORTED
        if supported.exists() and self._get(supported) == "0":
            raise _Refusal(errno.EOPNOTSUPP)
        if name in self._all_names():
            raise _Refusal(errno.EINVAL)
        available = int(self._get(gpu / k.GPU_AVAILABLE))
        if available <= 0 or not self._mem_fits(minor, mem):
            raise _Refusal(errno.ENOSPC)
        if self._guaranteed(minor) and self._core_used(minor) + core > k.CORE_MAX:
            raise _Refusal(errno.EINVAL)
        inst = gpu / k.GPU_INSTANCES / name
        inst.mkdir()
        values: dict[str, object] = {
            k.INST_MEM_MAX: "max" if mem is None else mem,
            k.INST_MEM_CURRENT: 0,
            k.INST_MEM_PEAK: 0,
            k.INST_EVENTS: 0,
            k.INST_MANAGED: opts.get(k.INST_MANAGED, k.MANAGED_DEFAULT),
            k.INST_DMABUF: opts.get(k.INST_DMABUF, k.DMABUF_DEFAULT),
            **bounds,
            k.INST_CHANNELS: 0,
            k.INST_RM_OBJECTS: 0,
            k.INST_SYSMEM_MAX: "max" if sysmem is None else sysmem,
            k.INST_SYSMEM_CURRENT: 0,
            k.INST_SYSMEM_PEAK: 0,
            k.INST_MAPPED_MAX: "max" if mapped is None else mapped,
            k.INST_MAPPED_CURRENT: 0,
            k.INST_CORE: core,
            k.INST_CLASS: opts["class"],
            k.INST_GPU_TIME: 0,
            k.INST_THROTTLED: 0,
            k.INST_PREEMPTIONS: 0,
            k.INST_SHARE: 0,
        }
        # the knobs that arrived with their create keys
        lacks = self.instance_lacks | ({k.INST_DMABUF} - set(listed))
        for key, (knob, held, _) in BOUNDS.items():
            if key not in listed:
                lacks |= {knob, held}
        if k.SYSMEM_CREATE_KEY not in listed:
            lacks |= SYSMEM_ATTRS
        if k.MAPPED_CREATE_KEY not in listed:
            lacks |= MAPPED_ATTRS
        for attr, value in values.items():
            if attr not in lacks:
                self._set(inst / attr, value)
        (inst / k.INST_PROCESSES).write_text("")
        (inst / k.INST_REMOVE).write_text("")
        self._set(gpu / k.GPU_AVAILABLE, available - 1)
        if self.dev_root is not None:
            nodes = self.dev_root / k.DEV_DIR / name
            nodes.mkdir(parents=True)
            for node, _ in k.DEV_NODES:
                (nodes / node).write_text("")

    @staticmethod
    def _bound(value: str, limit: int) -> str:
        """A count bound as the module takes it: max, or 1..limit without a sign or suffix."""
        if value == k.UNBOUNDED:
            return value
        if not value.isdigit() or not 1 <= int(value) <= limit:
            raise _Refusal(errno.EINVAL)
        return str(int(value))

    def _store_instance(self, minor: int, name: str, attr: str, value: str) -> None:
        inst = self._gpu(minor) / k.GPU_INSTANCES / name
        if attr in INST_RO:
            raise _Refusal(errno.EACCES)
        if attr == k.INST_MEM_MAX:
            mem = self._size(value)
            current = int(self._get(inst / k.INST_MEM_CURRENT))
            if mem is not None and mem < current:
                raise _Refusal(errno.EBUSY)
            if not self._mem_fits(minor, mem, skip=name):
                raise _Refusal(errno.ENOSPC)
            self._set(inst / attr, "max" if mem is None else mem)
        elif attr == k.INST_CORE:
            core = self._core(value)
            if self._guaranteed(minor) and self._core_used(minor, skip=name) + core > k.CORE_MAX:
                raise _Refusal(errno.EINVAL)
            self._set(inst / attr, core)
        elif attr == k.INST_CLASS:
            if value not in k.CLASSES:
                raise _Refusal(errno.EINVAL)
            self._set(inst / attr, value)
        elif attr in KNOB_MODES:
            if value not in KNOB_MODES[attr]:
                raise _Refusal(errno.EINVAL)
            self._set(inst / attr, value)
        elif attr == k.INST_MAPPED_MAX:
            limit = self._mapped(value)
            if limit is not None and limit < int(self._get(inst / k.INST_MAPPED_CURRENT)):
                raise _Refusal(errno.EBUSY)
            self._set(inst / attr, "max" if limit is None else limit)
        elif attr == k.INST_SYSMEM_MAX:
            limit = self._limit(value)
            if limit is not None and limit < int(self._get(inst / k.INST_SYSMEM_CURRENT)):
                raise _Refusal(errno.EBUSY)
            self._set(inst / attr, "max" if limit is None else limit)
        elif attr in BOUND_KNOBS:
            held_attr, limit = BOUND_KNOBS[attr]
            bound = self._bound(value, limit)
            held = int(self._get(inst / held_attr))
            if bound != k.UNBOUNDED and int(bound) < held:
                raise _Refusal(errno.EBUSY)
            self._set(inst / attr, bound)
        elif attr == k.INST_REMOVE:
            if value not in (k.REMOVE_NORMAL, k.REMOVE_FORCE):
                raise _Refusal(errno.EINVAL)
            if self._get(inst / k.INST_PROCESSES) and value != k.REMOVE_FORCE:
                raise _Refusal(errno.EBUSY)
            shutil.rmtree(inst)
            gpu = self._gpu(minor)
            self._set(gpu / k.GPU_AVAILABLE, int(self._get(gpu / k.GPU_AVAILABLE)) + 1)
            if self.dev_root is not None:
                shutil.rmtree(self.dev_root / k.DEV_DIR / name, ignore_errors=True)
        else:  # pragma: no cover
            raise _Refusal(errno.EACCES)


def fs_snapshot(root: Path) -> dict[str, str]:
    """Every file under ``root`` with its content: compare before/after a rollback."""
    out = {}
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            out[p.relative_to(root).as_posix()] = p.read_text()
    return out
