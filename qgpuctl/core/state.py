"""The kernel's state, read fresh into plain dataclasses.

qgpuctl keeps no state of its own: every command starts by reading the sysfs
tree through :func:`read_state`, so what it shows and plans from is what the
kernel holds right now. Attributes an older module lacks read as None and are
shown as "-", never as an error.
"""

from __future__ import annotations

import errno
from dataclasses import dataclass, field
from typing import Protocol

from qgpuctl.backends import schema as k
from qgpuctl.core.units import format_size, parse_size
from qgpuctl.errors import KernelInterfaceError, SizeError, UsageError


class SysfsReader(Protocol):
    def read_optional(self, rel: str) -> str | None: ...
    def listdir(self, rel: str = "") -> list[str]: ...
    def exists(self, rel: str) -> bool: ...
    def writable(self, rel: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Process:
    pid: int
    comm: str


@dataclass(frozen=True, slots=True)
class InstanceState:
    """One vGPU instance; None means the module does not publish that attribute."""

    name: str
    gpu_minor: int
    mem_max: int | None  # bytes; None = unlimited ("max") or unknown, see mem_unlimited
    mem_unlimited: bool
    core: int | None
    klass: str | None
    mem_current: int | None = None
    mem_peak: int | None = None
    events: int | None = None
    managed: str | None = None  # allow|refuse; None: the module has no managed knob
    dmabuf: str | None = None  # allow|refuse; None: the module has no dmabuf knob
    channels_max: str | None = None  # max|N; None: the module has no channels_max knob
    channels: int | None = None  # channels and channel groups held
    rm_objects_max: str | None = None  # max|N; None: the module has no rm_objects_max knob
    rm_objects: int | None = None  # RM objects held
    sysmem_max: str | None = None  # bytes|max; None: the module has no sysmem_max knob
    sysmem_current: int | None = None  # system memory charged, bytes
    sysmem_peak: int | None = None
    mapped_max: str | None = None  # bytes|max; None: the module has no mapped_max knob
    mapped_current: int | None = None  # GPU address space its RM mappings span, bytes
    processes: tuple[Process, ...] = ()
    gpu_time_ns: int | None = None
    throttled_ns: int | None = None
    preemptions: int | None = None
    share: float | None = None
    # Of k.INST_SETTABLE, the knobs this module lets qgpuctl change live.
    settable: frozenset[str] = frozenset(k.INST_SETTABLE)

    @property
    def mem_text(self) -> str | None:
        """The limit as the kernel and the policy file spell it (``4G``, ``max``)."""
        if self.mem_unlimited:
            return "max"
        return None if self.mem_max is None else format_size(self.mem_max)

    @property
    def managed_mode(self) -> str:
        """What it does with managed memory; a module without the knob allows it."""
        return self.managed or k.WITHOUT_KNOB

    @property
    def dmabuf_mode(self) -> str:
        """What it does with dma-buf exports; a module without the knob forwards them."""
        return self.dmabuf or k.WITHOUT_KNOB

    @property
    def channels_bound(self) -> str:
        """Its bound on channels; a module without the knob bounds nothing (max)."""
        return self.channels_max or k.CHANNELS_DEFAULT

    @property
    def sysmem_limit(self) -> int | None:
        """Its system-memory limit in bytes; None: none (max, or a module without the knob)."""
        return _int(self.sysmem_max)

    @property
    def sysmem_text(self) -> str | None:
        """The system-memory limit as the kernel and the policy file spell it; None: no knob."""
        return _size_text(self.sysmem_max)

    @property
    def mapped_limit(self) -> int | None:
        """Its bound on mapped GPU address space in bytes; None: none (max, or no knob)."""
        return _int(self.mapped_max)

    @property
    def mapped_text(self) -> str | None:
        """The mapping bound as the kernel and the policy file spell it; None: no knob."""
        return _size_text(self.mapped_max)

    @property
    def rm_objects_bound(self) -> str:
        """Its bound on RM objects; a module without the knob bounds nothing (max)."""
        return self.rm_objects_max or k.RM_OBJECTS_DEFAULT


@dataclass(frozen=True, slots=True)
class GpuState:
    """One physical GPU as qgpu sees it."""

    minor: int
    index: int
    name: str | None
    uuid: str | None
    memory: int | None
    driver_version: str | None
    driver_supported: bool | None
    gpu_id: str | None
    policy: str | None
    timeslice_us: int | None
    period_us: int | None
    overcommit: bool | None
    utilization: int | None
    unknown_escapes: str | None
    available_instances: int | None
    instances: tuple[InstanceState, ...] = field(default=())
    # The keys create takes after NAME; None: an older module that does not list them.
    create_keys: frozenset[str] | None = None
    # Of k.GPU_SETTABLE, the knobs this module has and lets qgpuctl write.
    settable: frozenset[str] = frozenset(k.GPU_SETTABLE)
    # Whether held channel groups were seen to keep running (effective|inert), and whether the
    # GPU writes GP_GET back at all (unknown|moves|still); None: a module without them.
    controls: str | None = None
    gp_get: str | None = None
    # How long the scheduler's control calls take (us, 0 before the first); None: older module.
    control_us: int | None = None
    # The NUMA node the GPU's memory is onlined as, -1 for none; None: unknown or an older module.
    numa_node: int | None = None

    @property
    def label(self) -> str:
        """How messages name the GPU: by index, as nvidia-smi does."""
        return f"GPU {self.index}"

    @property
    def core_used(self) -> int:
        return sum(inst.core or 0 for inst in self.instances)

    @property
    def core_free(self) -> int:
        """Guaranteed core share not yet promised to an instance (percent)."""
        return max(0, k.CORE_MAX - self.core_used)

    @property
    def mem_committed(self) -> int | None:
        """Sum of the memory limits; an unlimited instance counts as the whole GPU."""
        if self.memory is None:
            return None
        return sum(
            self.memory if inst.mem_unlimited or inst.mem_max is None else inst.mem_max
            for inst in self.instances
        )

    @property
    def mem_free(self) -> int | None:
        committed = self.mem_committed
        if committed is None or self.memory is None:
            return None
        return max(0, self.memory - committed)

    def create_takes(self, key: str) -> bool:
        """Whether this module's ``create`` takes ``key`` (its ``create_keys`` lists it)."""
        return self.create_keys is not None and key in self.create_keys

    def instance(self, name: str) -> InstanceState | None:
        for inst in self.instances:
            if inst.name == name:
                return inst
        return None


@dataclass(frozen=True, slots=True)
class State:
    gpus: tuple[GpuState, ...]

    def find_instance(self, name: str) -> tuple[GpuState, InstanceState] | None:
        for gpu in self.gpus:
            inst = gpu.instance(name)
            if inst is not None:
                return gpu, inst
        return None

    @property
    def instances(self) -> list[tuple[GpuState, InstanceState]]:
        return [(gpu, inst) for gpu in self.gpus for inst in gpu.instances]

    def instance_knob_settable(self, attr: str) -> bool | None:
        """Whether the module lets qgpuctl write instance knob ``attr``, None if nothing shows it.

        For a knob that an older module's ``create`` has no key for (``managed``): a new
        instance gets it by a write after create, so whether that write can succeed is judged
        beforehand from the instances that exist (one module made them all). With no instance
        there is nothing to judge from, and the write after create is the test (undone if
        refused).
        """
        instances = self.instances
        if not instances:
            return None
        return all(attr in inst.settable for _, inst in instances)


def _int(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text, 10)
    except ValueError:
        return None


def _size_text(knob: str | None) -> str | None:
    """A size knob (bytes|max) as the kernel and the policy file spell it; None: no knob."""
    if knob is None:
        return None
    size = _int(knob)
    return "max" if size is None else format_size(size)


def _float(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _bool01(text: str | None) -> bool | None:
    return None if text not in ("0", "1") else text == "1"


def _processes(text: str | None) -> tuple[Process, ...]:
    if not text:
        return ()
    out = []
    for line in text.splitlines():
        pid, _, comm = line.strip().partition(" ")
        if pid.isdigit():
            out.append(Process(int(pid), comm.strip()))
    return tuple(out)


def read_instance(sysfs: SysfsReader, minor: int, name: str) -> InstanceState:
    base = k.instance_dir(minor, name)

    def attr(a: str) -> str | None:
        return sysfs.read_optional(f"{base}/{a}")

    mem_text = attr(k.INST_MEM_MAX)
    mem_max: int | None = None
    unlimited = False
    if mem_text is not None:
        try:
            mem_max = parse_size(mem_text)
            unlimited = mem_max is None
        except SizeError:
            mem_max = None
    return InstanceState(
        name=name,
        gpu_minor=minor,
        mem_max=mem_max,
        mem_unlimited=unlimited,
        core=_int(attr(k.INST_CORE)),
        klass=attr(k.INST_CLASS),
        mem_current=_int(attr(k.INST_MEM_CURRENT)),
        mem_peak=_int(attr(k.INST_MEM_PEAK)),
        events=_int(attr(k.INST_EVENTS)),
        managed=attr(k.INST_MANAGED),
        dmabuf=attr(k.INST_DMABUF),
        channels_max=attr(k.INST_CHANNELS_MAX),
        channels=_int(attr(k.INST_CHANNELS)),
        rm_objects_max=attr(k.INST_RM_OBJECTS_MAX),
        rm_objects=_int(attr(k.INST_RM_OBJECTS)),
        sysmem_max=attr(k.INST_SYSMEM_MAX),
        sysmem_current=_int(attr(k.INST_SYSMEM_CURRENT)),
        sysmem_peak=_int(attr(k.INST_SYSMEM_PEAK)),
        mapped_max=attr(k.INST_MAPPED_MAX),
        mapped_current=_int(attr(k.INST_MAPPED_CURRENT)),
        processes=_processes(attr(k.INST_PROCESSES)),
        gpu_time_ns=_int(attr(k.INST_GPU_TIME)),
        throttled_ns=_int(attr(k.INST_THROTTLED)),
        preemptions=_int(attr(k.INST_PREEMPTIONS)),
        share=_float(attr(k.INST_SHARE)),
        settable=frozenset(a for a in k.INST_SETTABLE if sysfs.writable(f"{base}/{a}")),
    )


def _listdir_optional(sysfs: SysfsReader, rel: str) -> list[str]:
    try:
        return sysfs.listdir(rel)
    except KernelInterfaceError as exc:
        if exc.errno == errno.ENOENT:
            return []
        raise


def read_gpu(sysfs: SysfsReader, minor: int) -> GpuState:
    base = k.gpu_dir(minor)

    def attr(a: str) -> str | None:
        return sysfs.read_optional(f"{base}/{a}")

    names = _listdir_optional(sysfs, f"{base}/{k.GPU_INSTANCES}")
    index = _int(attr(k.GPU_INDEX))
    create_keys = attr(k.GPU_CREATE_KEYS)
    return GpuState(
        minor=minor,
        index=minor if index is None else index,
        name=attr(k.GPU_NAME),
        uuid=attr(k.GPU_UUID),
        memory=_int(attr(k.GPU_MEMORY)),
        driver_version=attr(k.GPU_DRIVER_VERSION),
        driver_supported=_bool01(attr(k.GPU_DRIVER_SUPPORTED)),
        gpu_id=attr(k.GPU_ID),
        policy=attr(k.GPU_POLICY),
        timeslice_us=_int(attr(k.GPU_TIMESLICE)),
        period_us=_int(attr(k.GPU_PERIOD)),
        overcommit=_bool01(attr(k.GPU_OVERCOMMIT)),
        utilization=_int(attr(k.GPU_UTILIZATION)),
        unknown_escapes=attr(k.GPU_UNKNOWN_ESCAPES),
        available_instances=_int(attr(k.GPU_AVAILABLE)),
        instances=tuple(read_instance(sysfs, minor, name) for name in names),
        create_keys=None if create_keys is None else frozenset(create_keys.split()),
        settable=frozenset(a for a in k.GPU_SETTABLE if sysfs.writable(f"{base}/{a}")),
        controls=attr(k.GPU_CONTROLS),
        gp_get=attr(k.GPU_GP_GET),
        control_us=_int(attr(k.GPU_CONTROL_US)),
        numa_node=_int(attr(k.GPU_NUMA_NODE)),
    )


def gpu_minors(sysfs: SysfsReader) -> list[int]:
    """Backend minors of the GPUs qgpu manages; raises if the module is not there."""
    if not sysfs.exists(k.CLASS_DIR):
        raise KernelInterfaceError(
            k.CLASS_DIR,
            None,
            errno.ENOENT,
            detail="is the qgpu module loaded? (modprobe qgpu; qgpuctl doctor)",
        )
    minors = []
    for entry in sysfs.listdir(k.CLASS_DIR):
        match = k.GPU_DIR_RE.fullmatch(entry)
        if match:
            minors.append(int(match["minor"]))
    return sorted(minors)


def read_state(sysfs: SysfsReader) -> State:
    """Everything qgpuctl shows or plans from, in GPU index order."""
    gpus = [read_gpu(sysfs, minor) for minor in gpu_minors(sysfs)]
    return State(gpus=tuple(sorted(gpus, key=lambda g: (g.index, g.minor))))


def resolve_gpu(state: State, ref: str) -> GpuState:
    """A GPU named on the command line by index or UUID."""
    for gpu in state.gpus:
        if ref.isdigit() and gpu.index == int(ref):
            return gpu
        if gpu.uuid is not None and gpu.uuid.lower() == ref.lower():
            return gpu
    known = ", ".join(str(g.index) for g in state.gpus) or "none"
    raise UsageError(f"no GPU {ref!r} (GPU indexes: {known}; a UUID also works)")
