"""Preflight checks behind ``qgpuctl doctor``: is everything in place for qgpu to work?

The checks only ask the backends questions, so they run unchanged against fake
trees in tests and against /sys, /dev and /etc on a host. Each says what to do
when it fails. ``warn`` means qgpu works but something is off; only ``fail``
makes doctor exit non-zero.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from qgpuctl.backends import schema as k
from qgpuctl.core.state import State
from qgpuctl.errors import KernelInterfaceError

MODULE_DIR = k.MODULE_DIR
NVIDIA_CTL = k.NVIDIA_CTL


class SysfsReader(Protocol):
    def path(self, *parts: str) -> Path: ...
    def exists(self, rel: str) -> bool: ...
    def read(self, rel: str) -> str: ...


class DevNodes(Protocol):
    def path(self, *parts: str) -> Path: ...
    def exists(self, name: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the doctor's report; ``detail`` says what to do when it is not ok."""

    name: str
    status: str  # ok | warn | fail
    detail: str

    @property
    def ok(self) -> bool:
        return self.status != "fail"


def _ok(name: str, detail: str) -> Check:
    return Check(name, "ok", detail)


def _fail(name: str, detail: str) -> Check:
    return Check(name, "fail", detail)


def _warn(name: str, detail: str) -> Check:
    return Check(name, "warn", detail)


def check_module(sysfs: SysfsReader) -> Check:
    """qgpu.ko is loaded iff the kernel published /sys/module/qgpu for it."""
    name = "qgpu module loaded"
    path = sysfs.path(MODULE_DIR)
    if not sysfs.exists(MODULE_DIR):
        return _fail(name, f"{path} missing; load it with `modprobe qgpu`")
    try:
        version = sysfs.read(k.MODULE_VERSION)
    except KernelInterfaceError:
        # Only modules with MODULE_VERSION() publish it; loaded is what matters.
        return _ok(name, str(path))
    return _ok(name, f"{path} (version {version})")


def check_nvidia_nodes(dev: DevNodes) -> Check:
    """qgpu forwards to the real driver's nodes, so they must exist before instances can work."""
    name = "NVIDIA driver nodes"
    path = dev.path(NVIDIA_CTL)
    if not dev.exists(NVIDIA_CTL):
        return _fail(name, f"{path} missing; is the NVIDIA driver (or nvsim) loaded?")
    return _ok(name, str(path))


def check_gpus(state: State | None, error: str | None) -> Check:
    name = "qgpu GPUs"
    if state is None:
        return _fail(name, error or "cannot read the qgpu sysfs tree")
    if not state.gpus:
        return _fail(name, "qgpu manages no GPU; is the NVIDIA driver loaded before qgpu?")
    listing = ", ".join(f"{g.index}: {g.name or '-'}" for g in state.gpus)
    return _ok(name, f"{len(state.gpus)} ({listing})")


def check_driver(state: State | None) -> Check:
    name = "backend driver supported"
    if state is None or not state.gpus:
        return _warn(name, "skipped: no GPU to check")
    bad = [g for g in state.gpus if g.driver_supported is False]
    if bad:
        versions = ", ".join(f"GPU {g.index}: {g.driver_version or '?'}" for g in bad)
        return _fail(name, f"qgpu does not support {versions}; instances cannot be created")
    unknown = [g for g in state.gpus if g.driver_supported is None]
    versions = ", ".join(sorted({g.driver_version or "?" for g in state.gpus}))
    if unknown:
        return _warn(name, f"driver {versions}; this module does not report whether it supports it")
    return _ok(name, f"driver {versions}")


def check_progress(state: State | None) -> Check:
    """Whether qgpu can see its channel groups' progress, which tells it if holds take effect."""
    name = "channel progress"
    if state is None or not state.gpus:
        return _warn(name, "skipped: no GPU to check")
    still = [g.label for g in state.gpus if g.gp_get == "still"]
    if still:
        return _warn(
            name,
            f"{', '.join(still)}: GP_GET is not written back (as on Blackwell), so qgpu cannot"
            " see whether held channel groups keep running; fixed-share holds only if the"
            " channel-group controls take effect",
        )
    seen = ", ".join(
        f"{g.label}: controls {g.controls or '?'}, GP_GET {g.gp_get or '?'}" for g in state.gpus
    )
    return _ok(name, seen)


# Above this part of a CPU per GPU, the doctor suggests a longer period for fixed-share.
CONTROL_CPU_WARN_PCT = 5.0


def check_control_cost(state: State | None) -> Check:
    """What switching costs a CPU. On a GSP-based GPU RM spins the calling CPU for each control
    call (``control_us``); fixed-share switches about once a period, an enable and a disable,
    so two busy fixed-share instances cost 2 * control_us / period_us of a CPU per GPU."""
    name = "scheduling controls' cost"
    if state is None or not state.gpus:
        return _warn(name, "skipped: no GPU to check")
    seen, costly = [], []
    for g in state.gpus:
        if g.control_us is None:
            seen.append(f"{g.label}: not reported")
            continue
        if not g.control_us or not g.period_us:
            seen.append(f"{g.label}: no control call yet")
            continue
        pct = 100.0 * 2 * g.control_us / g.period_us
        seen.append(f"{g.label}: {g.control_us} us a call")
        if g.policy == "fixed-share" and pct > CONTROL_CPU_WARN_PCT:
            # a period at which it is half the threshold, in whole 10 ms
            need = 2 * g.control_us * 100 / (CONTROL_CPU_WARN_PCT / 2)
            longer = min(-(-int(need) // 10_000) * 10_000, k.PERIOD_MAX_US)
            costly.append(
                f"{g.label}: a control call takes {g.control_us} us, so fixed-share switching"
                f" once a {g.period_us} us period spins about {pct:.0f} % of a CPU;"
                f" `qgpuctl policy set {g.index} fixed-share --period-us {longer}` makes it"
                f" {100.0 * 2 * g.control_us / longer:.1f} %"
            )
    if costly:
        return _warn(name, "; ".join(costly))
    return _ok(name, ", ".join(seen))


def check_numa(state: State | None) -> Check:
    """Whether a GPU's memory is a NUMA node of the host, as on coherent platforms (Grace Hopper
    and later): processes then take it with the kernel's page allocator, not through RM, and
    qgpu's limits do not cover it; cpuset.mems keeps a tenant off a node."""
    name = "GPU memory as NUMA node"
    if state is None or not state.gpus:
        return _warn(name, "skipped: no GPU to check")
    nodes = [
        f"{g.label}: node {g.numa_node}"
        for g in state.gpus
        if g.numa_node is not None and g.numa_node >= 0
    ]
    if nodes:
        return _warn(
            name,
            f"{', '.join(nodes)}: processes can take that memory with the kernel's page"
            " allocator (numactl, mbind, page migration), past qgpu's limits; keep tenants off"
            " it with their cgroup's cpuset.mems (docs/design/memory-limits.md, 'Coherent"
            " platforms')",
        )
    unknown = [g.label for g in state.gpus if g.numa_node is None]
    if unknown:
        return _ok(name, f"none seen; {', '.join(unknown)}: not reported by the module")
    return _ok(name, "none: every GPU's memory is RM's alone")


def check_udev_rules(find_rules: Callable[[], Path | None]) -> Check:
    name = "udev rules installed"
    path = find_rules()
    if path is None:
        return _warn(
            name,
            f"{k.UDEV_RULES_NAME} not found; nodes still appear (devtmpfs) but with default "
            "modes; run scripts/install-host.sh",
        )
    return _ok(name, str(path))


def check_instance_nodes(state: State | None, dev: DevNodes) -> Check:
    name = "instance device nodes"
    if state is None:
        return _warn(name, "skipped: cannot read the instances")
    missing = []
    total = 0
    for _, inst in state.instances:
        for node, _ in k.DEV_NODES:
            total += 1
            rel = f"{k.DEV_DIR}/{inst.name}/{node}"
            if not dev.exists(rel):
                missing.append(str(dev.path(rel)))
    if missing:
        return _fail(name, f"missing: {', '.join(missing)}; check udev / devtmpfs")
    if not state.instances:
        return _ok(name, "no instances")
    return _ok(name, f"{total} nodes of {len(state.instances)} instances present")


def check_isolation(state: State | None) -> Check:
    """Instances that let their tenants export video memory as dma-bufs (the ``dmabuf`` knob).

    The driver lets an exporter name any client's memory and keeps it past every handle: an
    instance at ``allow`` must be a trusted tenant's, and a module without the knob forwards
    every instance's exports.
    """
    name = "dma-buf exports refused"
    if state is None:
        return _warn(name, "skipped: cannot read the instances")
    if not state.instances:
        return _ok(name, "no instances")
    forwarded = [inst.name for _, inst in state.instances if inst.dmabuf is None]
    if forwarded:
        return _warn(
            name,
            "the qgpu module has no dmabuf knob: it forwards every export"
            f" ({', '.join(forwarded)}), so a tenant can keep memory past its limit and reach"
            " other instances' memory; load a qgpu module that has the knob",
        )
    allowed = [inst.name for _, inst in state.instances if inst.dmabuf_mode == "allow"]
    if allowed:
        return _warn(
            name,
            f"allowed on {', '.join(allowed)}: trusted tenants only (the driver lets an"
            " exporter name any instance's memory, and what a dma-buf holds is not charged)",
        )
    return _ok(name, f"refused on all {len(state.instances)} instances")


def check_channels(state: State | None) -> Check:
    """Instances that share a GPU without a bound on their channels (the ``channels_max`` knob).

    The GPU's channel ids (2048 a runlist) serve every tenant, and RM allocates each channel's
    memory itself, charged to no limit: an unbounded tenant can take them all, and the other
    instances' next CUDA contexts fail. An instance alone on its GPU hurts no one that way.
    """
    name = "channels bounded"
    if state is None:
        return _warn(name, "skipped: cannot read the instances")
    shared = [(gpu, inst) for gpu in state.gpus if len(gpu.instances) > 1 for inst in gpu.instances]
    if not shared:
        return _ok(name, "no GPU is shared")
    if any(inst.channels_max is None for _, inst in shared):
        return _warn(
            name,
            "the qgpu module has no channels_max knob: a tenant can take every channel id of a"
            " GPU it shares, and the memory RM allocates for them; load a qgpu module that has it",
        )
    unbounded = [
        f"{inst.name} (GPU {gpu.index})"
        for gpu, inst in shared
        if not inst.channels_max or inst.channels_max == k.CHANNELS_DEFAULT
    ]
    if unbounded:
        return _warn(
            name,
            f"unbounded on {', '.join(unbounded)}: one tenant can take every channel id of the GPU"
            " and the memory RM allocates for them, uncharged; give untrusted ones a bound"
            " (qgpuctl set NAME --channels N; a CUDA context holds 24)",
        )
    return _ok(name, f"bounded on all {len(shared)} instances that share a GPU")


def check_sysmem(state: State | None) -> Check:
    """Instances whose system memory is unlimited (the ``sysmem_max`` knob).

    The driver allocates a tenant's system memory (``NV01_MEMORY_SYSTEM``: libcuda's own buffers,
    ``cudaHostAlloc``) itself, pinned, and charges it to no memory cgroup: without a limit one
    tenant can take the host's memory, whether or not it shares its GPU.
    """
    name = "system memory limited"
    if state is None:
        return _warn(name, "skipped: cannot read the instances")
    if not state.instances:
        return _ok(name, "no instances")
    if any(inst.sysmem_max is None for _, inst in state.instances):
        return _warn(
            name,
            "the qgpu module has no sysmem_max knob: the system memory the driver pins for a"
            " tenant is charged to no limit and no memory cgroup; load a qgpu module that has it",
        )
    unlimited = [inst.name for _, inst in state.instances if inst.sysmem_limit is None]
    if unlimited:
        return _warn(
            name,
            f"unlimited on {', '.join(unlimited)}: the driver pins their system memory outside"
            " every memory cgroup, so one tenant can take the host's memory; give untrusted ones"
            " a limit (qgpuctl set NAME --sysmem SIZE; a CUDA context pins 70M, plus what its"
            " process allocates with cudaHostAlloc)",
        )
    return _ok(name, f"limited on all {len(state.instances)} instances")


def check_kernel_client(status: str | None) -> Check:
    """qgpu's own RM client in the driver, from the ``rm_client:`` line of /proc/qgpu/status.

    qgpu makes video-memory allocations, duplicates and frees on its tenants' behalf through it,
    so that RM never reads what a tenant's other threads can rewrite, and holds channel groups
    through it. Without one (a driver without the kernel interface, or a failed handshake, which
    the kernel log explains) qgpu forwards those calls: the memory limit then holds only against
    tenants that do not race their own calls, and the scheduler has only the doorbell gate.
    """
    name = "kernel RM client"
    if status is None:
        return _warn(name, f"cannot read /{k.PROC_STATUS}")
    for line in status.splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip() == k.PROC_RM_CLIENT:
            if value.strip() not in ("", "-"):
                return _ok(name, f"through {value.strip()}")
            return _warn(
                name,
                "none: qgpu forwards allocations, so a tenant that races its own calls can"
                " exceed its memory limit, and compute scheduling cannot hold channel groups;"
                " see the kernel log (dmesg | grep qgpu) for why",
            )
    return _warn(name, f"/{k.PROC_STATUS} has no {k.PROC_RM_CLIENT} line (an older module)")


def _status_value(status: str, key: str) -> str | None:
    """The value of a top-level ``key: value`` line of /proc/qgpu/status, or None."""
    for line in status.splitlines():
        name, sep, value = line.partition(":")
        if sep and name.strip() == key:
            return value.strip()
    return None


# The probes besides rm_ioctl's, in the order doctor names the first one missing, with what a
# tenant can do without it.
_SEAL_PROBES: tuple[tuple[str, str], ...] = (
    (
        k.PROC_SEAL_UVM,
        "UVM calls are not sealed: a tenant that races its own UVM mappings can keep memory"
        " mapped that qgpu no longer charges; see the kernel log (dmesg | grep 'UVM calls')",
    ),
    (
        k.PROC_SEAL_PARAMS,
        "the parameters behind forwarded calls are not sealed: a tenant that races its own"
        " call can name another tenant's RM client after qgpu checked it (an event on its"
        " objects, a device in its address space); see the kernel log"
        " (dmesg | grep 'parameters behind calls')",
    ),
    (
        k.PROC_SEAL_FD,
        "fd arguments are not lent: qgpu puts the real file in the tenant's fd table for the"
        " call, where another thread of the tenant can take it; see the kernel log"
        " (dmesg | grep 'fd arguments')",
    ),
    (
        k.PROC_SEAL_UVM_FD,
        "UVM fd arguments are not lent: qgpu puts the tenant's real UVM file in its fd table"
        " for UVM_MM_INITIALIZE, where another thread of the tenant can take it and make UVM"
        " calls past qgpu; see the kernel log (dmesg | grep 'UVM fd arguments')",
    ),
    (
        k.PROC_SEAL_GPU,
        "the GPU-file check is not answered: qgpu puts a real GPU file in the tenant's fd table"
        " while it allocates a device or registers a GPU with UVM, where another thread of the"
        " tenant can take it; see the kernel log (dmesg | grep 'GPU-file check')",
    ),
    (
        k.PROC_SEAL_ATTACH,
        "ATTACH_GPUS_TO_FD is not sealed: a tenant that races its own call can attach the"
        " host's other GPUs to its file, which keeps them open and out of reach of a GPU reset;"
        " see the kernel log (dmesg | grep ATTACH_GPUS_TO_FD)",
    ),
)


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def check_seal(status: str | None) -> Check:
    """Sealed forwarding, from the ``seal:``, ``seal_uvm:`` and ``seal_fd:`` lines of
    /proc/qgpu/status.

    With qgpu's probe on the driver's ``rm_ioctl``, RM runs every forwarded call qgpu decided
    about on qgpu's copy of its parameters; with its probes on UVM's handlers, so does UVM for
    the mappings qgpu keeps charged. Without it (a kernel without kprobes, a driver
    without the symbol), a tenant that rewrites a forwarded request after qgpu read it can make
    RM allocate video memory qgpu never charges. Misses mean the driver ran a sealed call
    without entering ``rm_ioctl``: qgpu's copy was not what RM read. With its probe on
    ``nv_get_file_private``, RM finds the real file behind an fd argument without qgpu putting
    it in the tenant's fd table, where another thread could take it; with its probe on
    ``fget``, so does nvidia-uvm for its own fd arguments; with its probe on
    ``nv_is_gpu_accessible``, RM's check that the caller holds a file of the GPU is answered
    without one; with its probe on ``os_memcpy_from_user``, RM reads the parameters qgpu checked
    for client handles (an event's parent, a device's VA-space share) from qgpu's copy; with its
    probe on ``nvidia_dev_get``, a tenant's ATTACH_GPUS_TO_FD takes only its instance's GPU.
    """
    name = "sealed forwarding"
    if status is None:
        return _warn(name, f"cannot read /{k.PROC_STATUS}")
    value = _status_value(status, k.PROC_SEAL)
    if value is None:
        return _warn(name, f"/{k.PROC_STATUS} has no {k.PROC_SEAL} line (an older module)")
    where, _, rest = value.partition(" ")
    missed = rest.strip("() ").split(" ")[0]
    if where in ("", "-"):
        return _warn(
            name,
            "none: RM reads forwarded requests from tenant memory, so a tenant that races its"
            " own calls can exceed its memory limit; see the kernel log"
            " (dmesg | grep 'not sealed')",
        )
    if missed not in ("", "0"):
        return _warn(
            name,
            f"through {where}, but {missed} calls missed it: the driver ran them outside"
            " rm_ioctl; report this with the driver version",
        )
    placed = [where]
    for key, missing in _SEAL_PROBES:
        probe = (_status_value(status, key) or "").partition(" ")[0]
        if probe in ("", "-"):
            return _warn(name, f"through {_listed(placed)}, but {missing}")
        placed.append(probe)
    attach_missed = (_status_value(status, k.PROC_SEAL_ATTACH) or "").partition("(")[2]
    attach_missed = attach_missed.split(" ")[0]
    if attach_missed not in ("", "0"):
        return _warn(
            name,
            f"through {_listed(placed)}, but {attach_missed} ATTACH_GPUS_TO_FD calls succeeded"
            " without entering nvidia_dev_get: if that grows with every CUDA process, the"
            " driver inlined it out of the probe's reach; report this with the driver version",
        )
    return _ok(name, f"through probes on {_listed(placed)}")


def check_cdi(
    state: State | None,
    specs: list[tuple[Path, Any]],
    wanted: Callable[[], dict[str, Any]],
) -> Check:
    """Some spec of kind qgpu.io/vgpu in the CDI dirs lists exactly the current instances."""
    name = "CDI spec current"
    ours = [(p, s) for p, s in specs if isinstance(s, dict) and s.get("kind") == k.CDI_KIND]
    has_instances = state is not None and bool(state.instances)
    if not ours:
        if has_instances:
            return _warn(
                name,
                f"no CDI spec for {k.CDI_KIND}; "
                "run `qgpuctl cdi generate --file /etc/cdi/qgpu.yaml`",
            )
        return _ok(name, "no instances, no spec")
    if state is None:
        return _warn(name, "cannot read the instances to compare")
    want = wanted()["devices"]
    stale = [str(p) for p, s in ours if s.get("devices") != want]
    if stale:
        return _fail(
            name,
            f"{', '.join(stale)} does not match the instances; "
            "rerun `qgpuctl cdi generate --file PATH`",
        )
    return _ok(name, ", ".join(str(p) for p, _ in ours))


def run_checks(sysfs: SysfsReader, dev: DevNodes) -> list[Check]:
    """The two checks that need nothing but the module and the driver."""
    return [check_module(sysfs), check_nvidia_nodes(dev)]
