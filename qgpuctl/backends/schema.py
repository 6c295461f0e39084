"""Every name of the kernel interface qgpuctl relies on, in one place.

This module is the Python side of ``docs/kernel-interface.md``: sysfs paths and
attribute names, device node names, and the generic-netlink family. Nothing else
in qgpuctl spells a kernel name, so a rename on the kernel side is a one-line
change here (and a grep of this file tells you everything qgpuctl touches).
"""

from __future__ import annotations

import re
from typing import Final

# --- sysfs -------------------------------------------------------------------

# Relative to the sysfs root (/sys, or $QGPU_SYSFS_ROOT in tests).
CLASS_DIR: Final = "class/qgpu"
MODULE_DIR: Final = "module/qgpu"
MODULE_VERSION: Final = "module/qgpu/version"

# gpu<N>, N = the backend driver's minor number of the physical GPU.
GPU_DIR_PREFIX: Final = "gpu"
GPU_DIR_RE: Final = re.compile(r"gpu(?P<minor>[0-9]+)")

# Per-GPU attributes.
# wo: "NAME [mem=SIZE] [core=PCT] [class=...] [managed=...] [dmabuf=...]"; managed= and dmabuf=
# only where create_keys lists them (an older module lacks one or both)
GPU_CREATE: Final = "create"
GPU_CREATE_KEYS: Final = "create_keys"  # ro: the keys create takes, space separated
GPU_AVAILABLE: Final = "available_instances"  # ro int
GPU_INSTANCES: Final = "instances"  # dir of instance dirs
GPU_INDEX: Final = "index"  # ro int
GPU_NAME: Final = "name"  # ro
GPU_UUID: Final = "uuid"  # ro
GPU_MEMORY: Final = "memory"  # ro bytes
GPU_DRIVER_VERSION: Final = "driver_version"  # ro
GPU_DRIVER_SUPPORTED: Final = "driver_supported"  # ro 0|1 (optional; see the doc)
GPU_ID: Final = "gpu_id"  # ro
GPU_POLICY: Final = "policy"  # rw best-effort|fixed-share|burst-share
GPU_TIMESLICE: Final = "timeslice_us"  # rw int
GPU_PERIOD: Final = "period_us"  # rw int, 1000..1000000 (optional: newer modules)
GPU_OVERCOMMIT: Final = "overcommit"  # rw 0|1
GPU_UTILIZATION: Final = "utilization"  # ro percent over the last second
GPU_UNKNOWN_ESCAPES: Final = "unknown_escapes"  # rw allow|refuse
GPU_CONTROLS: Final = "controls"  # ro effective|inert
GPU_GP_GET: Final = "gp_get"  # ro unknown|moves|still (optional: newer modules)
# ro: how long the scheduler's control calls take on the GPU, microseconds, 0 before the first; a
# switch is two (optional: newer modules)
GPU_CONTROL_US: Final = "control_us"
# ro: the NUMA node the GPU's memory is onlined as (coherent platforms), -1 for none, "unknown"
# where the driver did not say (optional: newer modules)
GPU_NUMA_NODE: Final = "numa_node"

# Per-instance attributes (gpu<N>/instances/<name>/...).
INST_MEM_MAX: Final = "mem_max"  # rw bytes|max
INST_MEM_CURRENT: Final = "mem_current"  # ro bytes
INST_MEM_PEAK: Final = "mem_peak"  # ro bytes
INST_EVENTS: Final = "events"  # ro int: OOM refusals, video and system memory
# rw bytes|max: the system memory RM allocates for the instance's processes, which no memory
# cgroup charges (optional: newer modules)
INST_SYSMEM_MAX: Final = "sysmem_max"
INST_SYSMEM_CURRENT: Final = "sysmem_current"  # ro bytes
INST_SYSMEM_PEAK: Final = "sysmem_peak"  # ro bytes
# rw bytes|max, a multiple of 2 MiB: the GPU address space the instance's RM mappings span, which
# costs RM records and page tables no limit charges (optional: newer modules)
INST_MAPPED_MAX: Final = "mapped_max"
INST_MAPPED_CURRENT: Final = "mapped_current"  # ro bytes, whole 2 MiB regions
INST_MANAGED: Final = "managed"  # rw allow|refuse: UVM managed memory (mmap of nvidia-uvm)
INST_DMABUF: Final = "dmabuf"  # rw allow|refuse: dma-buf exports (EXPORT_TO_DMABUF_FD)
# rw max|1..65536: the channels and channel groups the instance may hold (optional: newer modules)
INST_CHANNELS_MAX: Final = "channels_max"
INST_CHANNELS: Final = "channels"  # ro int: those it holds
# rw max|1..16777216: the RM objects the instance's processes may hold (optional: newer modules)
INST_RM_OBJECTS_MAX: Final = "rm_objects_max"
INST_RM_OBJECTS: Final = "rm_objects"  # ro int: those they hold
INST_CORE: Final = "core"  # rw 1..100
INST_CLASS: Final = "class"  # rw online|offline
INST_PROCESSES: Final = "processes"  # ro lines "PID COMM"
INST_GPU_TIME: Final = "gpu_time_ns"  # ro int
INST_THROTTLED: Final = "throttled_ns"  # ro int
INST_PREEMPTIONS: Final = "preemptions"  # ro int
INST_SHARE: Final = "share"  # ro percent, may be fractional
INST_REMOVE: Final = "remove"  # wo "1" | "force"

REMOVE_NORMAL: Final = "1"
REMOVE_FORCE: Final = "force"

# The knobs qgpuctl writes to change a GPU or a running instance (besides create/remove).
# An older module may lack some or publish them read-only; see docs/kernel-interface.md.
GPU_SETTABLE: Final = (GPU_POLICY, GPU_TIMESLICE, GPU_PERIOD, GPU_OVERCOMMIT, GPU_UNKNOWN_ESCAPES)
INST_SETTABLE: Final = (
    INST_MEM_MAX,
    INST_CORE,
    INST_CLASS,
    INST_MANAGED,
    INST_DMABUF,
    INST_CHANNELS_MAX,
    INST_RM_OBJECTS_MAX,
    INST_SYSMEM_MAX,
    INST_MAPPED_MAX,
)
# The issue that makes each of them live, for messages about a module that lacks it.
ARRIVES_WITH: Final = {
    GPU_POLICY: "compute scheduling",
    GPU_TIMESLICE: "compute scheduling",
    GPU_PERIOD: "the scheduling period knob",
    GPU_OVERCOMMIT: "memory limits",
    INST_MEM_MAX: "memory limits",
    INST_MANAGED: "memory limits",
    INST_DMABUF: "memory limits",
    INST_CHANNELS_MAX: "channel bounds",
    INST_RM_OBJECTS_MAX: "RM object bounds",
    INST_SYSMEM_MAX: "system memory limits",
    INST_MAPPED_MAX: "GPU mapping bounds",
    INST_CORE: "compute scheduling",
    INST_CLASS: "compute scheduling",
}

# Values.
POLICIES: Final = ("best-effort", "fixed-share", "burst-share")
GUARANTEED_POLICIES: Final = frozenset({"fixed-share", "burst-share"})
CLASSES: Final = ("online", "offline")
UNKNOWN_ESCAPES: Final = ("allow", "refuse")
# ``managed``: refuse fails mmap() of the instance's nvidia-uvm node, so managed memory (grown by
# page faults, which no ioctl can charge) cannot be made and the memory limit is hard. create
# takes it as managed= where create_keys lists it; an older module's create has no key for it, an
# instance starts at the default there and qgpuctl writes the knob after create.
MANAGED_MODES: Final = ("allow", "refuse")
MANAGED_DEFAULT: Final = "allow"
# ``dmabuf``: refuse fails the instance's dma-buf exports (NV_ERR_NOT_SUPPORTED). The driver lets
# an exporter name any client's memory and keeps it past every handle, so allow is for trusted
# tenants, whose memory a dma-buf holds after they freed it is not charged. The knob and the
# create key dmabuf= arrived together; a module without them forwards every export, as allow.
DMABUF_MODES: Final = ("allow", "refuse")
DMABUF_DEFAULT: Final = "refuse"
# The knobs create takes as keys of the same name (where create_keys lists them), with the value
# an instance gets when the key is left out: qgpuctl passes a key only where it differs.
CREATE_KNOB_DEFAULTS: Final = {INST_MANAGED: MANAGED_DEFAULT, INST_DMABUF: DMABUF_DEFAULT}
# What a module without one of these knobs does: it never refuses.
WITHOUT_KNOB: Final = "allow"
# ``channels_max``: an RM_ALLOC of a channel or channel group past it fails with
# NV_ERR_NO_FREE_FIFOS, as when the GPU's channel ids run out (a CUDA context holds 24). create
# takes it as channels= where create_keys lists it; the knob and the key arrived together, and a
# module without them bounds nothing, as max.
CHANNELS_CREATE_KEY: Final = "channels"
# What a count bound (channels_max, rm_objects_max) reads without a bound.
UNBOUNDED: Final = "max"
CHANNELS_DEFAULT: Final = UNBOUNDED
# ``rm_objects_max``: a call that would make an RM object past it (RM_ALLOC, RM_DUP_OBJECT, the
# others that make one) fails with NV_ERR_INSUFFICIENT_RESOURCES, as when a client's handles run
# out. create takes it as rm_objects= where create_keys lists it; the knob and the key arrived
# together, and a module without them bounds nothing, as max.
RM_OBJECTS_CREATE_KEY: Final = "rm_objects"
RM_OBJECTS_DEFAULT: Final = UNBOUNDED
# ``sysmem_max``: create takes it as sysmem= where create_keys lists it; the knob and the key
# arrived together, and a module without them limits nothing, as max.
SYSMEM_CREATE_KEY: Final = "sysmem"
# ``mapped_max``: create takes it as mapped= where create_keys lists it; the knob and the key
# arrived together, and a module without them bounds nothing, as max. Sizes are whole regions.
MAPPED_CREATE_KEY: Final = "mapped"
MAPPED_UNIT: Final = 2 << 20
MAPPED_MOST: Final = 512 << 40  # 2^28 regions (kmod/qgpu_create_parse.h QGPU_MAPPED_UNITS_LIMIT)
CORE_MIN: Final = 1
CORE_MAX: Final = 100
# period_us bounds (kmod/qgpu_sched_core.h QGPU_SC_PERIOD_MIN_NS, _MAX_NS)
PERIOD_MIN_US: Final = 1000
PERIOD_MAX_US: Final = 1000000

# Instance names as the kernel accepts them: unique across all GPUs.
KERNEL_NAME_RE: Final = re.compile(r"[a-z0-9][a-z0-9_.-]{0,31}")

# --- /dev ----------------------------------------------------------------------

# Relative to the /dev root ($QGPU_DEV_ROOT in tests): qgpu/<name>/<node>.
DEV_DIR: Final = "qgpu"
# (node under /dev/qgpu/<name>/, path the container sees)
DEV_NODES: Final = (
    ("nvidiactl", "/dev/nvidiactl"),
    ("nvidia0", "/dev/nvidia0"),
    ("nvidia-uvm", "/dev/nvidia-uvm"),
)
# The real driver's control node, which qgpu forwards to.
NVIDIA_CTL: Final = "nvidiactl"
UDEV_SUBSYSTEM: Final = "qgpu"
# Kernel device names: qgpu!<name>!<node> (devtmpfs turns '!' into '/').
UDEV_KERNEL_NAME_FMT: Final = "qgpu!{name}!{node}"

# --- generic netlink ------------------------------------------------------------

GENL_FAMILY: Final = "qgpu"
GENL_VERSION: Final = 1
GENL_MCGRP_EVENTS: Final = "events"
QGPU_CMD_EVENT: Final = 1
QGPU_ATTR_EVENT: Final = 1  # NUL-terminated string
QGPU_ATTR_GPU: Final = 2  # u32 index
QGPU_ATTR_INSTANCE: Final = 3  # string
QGPU_ATTR_PID: Final = 4  # u32
QGPU_ATTR_SIZE: Final = 5  # u64 bytes
QGPU_ATTR_TIMESTAMP_NS: Final = 6  # u64 CLOCK_MONOTONIC
QGPU_ATTR_DETAIL: Final = 7  # string
EVENT_NAMES: Final = (
    "oom",
    "preempt",
    "instance_create",
    "instance_remove",
    "policy_change",
    "set",
    "refused",
)

# --- files on the host ------------------------------------------------------------

UDEV_RULES_NAME: Final = "70-qgpu.rules"
# Where udevd reads rules, in its order of precedence (udev(7)): /etc, then /run (runtime rules,
# e.g. the test VM's), then the vendor directories.
UDEV_RULES_DIRS: Final = (
    "etc/udev/rules.d",
    "run/udev/rules.d",
    "usr/lib/udev/rules.d",
    "lib/udev/rules.d",
)
CDI_DIRS: Final = ("etc/cdi", "var/run/cdi")
CDI_KIND: Final = "qgpu.io/vgpu"

# --- procfs (read through the host root: /proc on a host) -----------------------------------

PROC_STATUS: Final = "proc/qgpu/status"  # "key: value" lines, then one block per GPU
# The driver interface qgpu's own RM client goes through (e.g. nvidia_get_rm_ops), "-" for none.
PROC_RM_CLIENT: Final = "rm_client"
# Where qgpu's probe that seals forwards sits ("nvidia:rm_ioctl"), "-" for none; then
# "(N missed)": sealed forwards the driver completed without entering rm_ioctl.
PROC_SEAL: Final = "seal"
# The same for UVM's handlers ("nvidia_uvm:uvm_api_*"); "(N missed)": calls no probe followed.
PROC_SEAL_UVM: Final = "seal_uvm"
# Where the probe that seals the parameters behind a forwarded call sits
# ("nvidia:os_memcpy_from_user"), "-" for none; "(N missed)": checked calls RM completed
# without copying them through it.
PROC_SEAL_PARAMS: Final = "seal_params"
# Where the probe that lends fd arguments sits ("nvidia:nv_get_file_private"), "-" for none
# (the real files are then installed in the tenant's fd table for the call); then
# "(N missed, M lent)".
PROC_SEAL_FD: Final = "seal_fd"
# The same for nvidia-uvm's fd arguments: the probe on the kernel's fget ("fget"), "-" for none.
PROC_SEAL_UVM_FD: Final = "seal_uvm_fd"
# Where the probe that answers the driver's GPU-file check for tenants sits
# ("nvidia:nv_is_gpu_accessible"), "-" for none (a real GPU file is then installed in the
# tenant's fd table for a device allocation or UVM_REGISTER_GPU); then "(N missed, M answered)".
PROC_SEAL_GPU: Final = "seal_gpu"
# Where the probe that keeps a tenant's ATTACH_GPUS_TO_FD to its instance's GPU sits
# ("nvidia:nvidia_dev_get"), "-" for none; then "(N missed, M refused)": successful attaches
# the probe never saw, and ids of other GPUs it kept the driver from taking.
PROC_SEAL_ATTACH: Final = "seal_attach"


def gpu_dir(minor: int) -> str:
    """sysfs directory of the GPU with backend minor ``minor``, relative to the root."""
    return f"{CLASS_DIR}/{GPU_DIR_PREFIX}{minor}"


def instance_dir(minor: int, name: str) -> str:
    """sysfs directory of instance ``name`` on GPU ``minor``, relative to the root."""
    return f"{gpu_dir(minor)}/{GPU_INSTANCES}/{name}"
