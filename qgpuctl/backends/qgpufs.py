"""qgpu's sysfs knobs as operations: create, remove, set; all through SysfsTree.

Kept apart from SysfsTree (which knows files, not qgpu) and from core (which
knows no files). Errors keep the kernel's errno and gain a hint where the
errno alone is ambiguous.
"""

from __future__ import annotations

import errno

from qgpuctl.backends import schema as k
from qgpuctl.backends.sysfs import SysfsTree
from qgpuctl.core.plan import (
    InstanceConfig,
    no_channels_key,
    no_dmabuf_key,
    no_mapped_key,
    no_rm_objects_key,
    no_sysmem_key,
    refuse_remedy,
)
from qgpuctl.core.units import format_size
from qgpuctl.errors import KernelInterfaceError, PartialApplyError

_CREATE_HINTS = {
    errno.ENOSPC: "the GPU is full (no instance slot, or not enough memory without overcommit)",
    errno.EOPNOTSUPP: "qgpu does not support this GPU's driver version (see qgpuctl doctor)",
    errno.EINVAL: (
        "a value was refused (name taken or invalid, size, or core over 100% under a"
        " guaranteed policy)"
    ),
}
_WRITE_HINTS = {
    (k.INST_MEM_MAX, errno.EBUSY): "the instance already uses more than that",
    (k.INST_MEM_MAX, errno.ENOSPC): "the GPU's memory is committed (set overcommit 1 to allow)",
    (k.INST_CORE, errno.EINVAL): "core guarantees on this GPU would exceed 100%",
    (k.INST_REMOVE, errno.EBUSY): "the instance is in use (--force detaches its processes)",
    (k.GPU_POLICY, errno.EINVAL): "the guarantees on this GPU add up to more than 100%",
    (k.INST_CHANNELS_MAX, errno.EBUSY): "the instance holds more channels than that now",
    (k.INST_RM_OBJECTS_MAX, errno.EBUSY): "the instance's processes hold more RM objects now",
    (k.INST_SYSMEM_MAX, errno.EBUSY): "the instance's processes hold more system memory now",
    (k.INST_MAPPED_MAX, errno.EBUSY): "the instance's mappings span more GPU address space now",
    # the count bounds: missing in an older module
    **{
        (knob, errno.ENOENT): (
            f"the qgpu module has no {knob} knob (it arrives with {k.ARRIVES_WITH[knob]})"
        )
        for knob in (
            k.INST_CHANNELS_MAX,
            k.INST_RM_OBJECTS_MAX,
            k.INST_SYSMEM_MAX,
            k.INST_MAPPED_MAX,
        )
    },
    # managed and dmabuf: missing, or read-only, in an older module
    **{
        (knob, code): f"the qgpu module {what} (it arrives with {k.ARRIVES_WITH[knob]})"
        for knob in k.CREATE_KNOB_DEFAULTS
        for code, what in (
            (errno.ENOENT, f"has no {knob} knob"),
            (errno.EACCES, "cannot change it"),
        )
    },
}


def _with_hint(exc: KernelInterfaceError, hint: str | None) -> KernelInterfaceError:
    if hint is None or exc.detail:
        return exc
    return KernelInterfaceError(exc.path, exc.value, exc.errno, detail=hint)


def create_line(name: str, config: InstanceConfig, takes: frozenset[str] = frozenset()) -> str:
    """The exact line written to ``create``.

    ``managed=``, ``dmabuf=``, ``channels=``, ``rm_objects=``, ``sysmem=`` and ``mapped=`` only
    where the module takes them (``takes``: its create keys) and the value is not the kernel's
    default, so the lines stay what they were without them.
    """
    line = f"{name} mem={format_size(config.mem)} core={config.core} class={config.klass}"
    extra = [
        f" {key}={value}"
        for key, value in config.knobs().items()
        if key in takes and value != k.CREATE_KNOB_DEFAULTS[key]
    ]
    for key, bound in (
        (k.CHANNELS_CREATE_KEY, config.channels),
        (k.RM_OBJECTS_CREATE_KEY, config.rm_objects),
    ):
        if key in takes and bound != k.UNBOUNDED:
            extra.append(f" {key}={bound}")
    if k.SYSMEM_CREATE_KEY in takes and config.sysmem is not None:
        extra.append(f" {k.SYSMEM_CREATE_KEY}={format_size(config.sysmem)}")
    if k.MAPPED_CREATE_KEY in takes and config.mapped is not None:
        extra.append(f" {k.MAPPED_CREATE_KEY}={format_size(config.mapped)}")
    return line + "".join(extra)


class QgpuControl:
    """The real :class:`qgpuctl.core.apply.KernelControl`, on a SysfsTree."""

    def __init__(self, sysfs: SysfsTree) -> None:
        self.sysfs = sysfs

    def create_keys(self, minor: int) -> frozenset[str]:
        """The keys this module's ``create`` takes after NAME (none listed by an older one)."""
        keys = self.sysfs.read_optional(f"{k.gpu_dir(minor)}/{k.GPU_CREATE_KEYS}")
        return frozenset(() if keys is None else keys.split())

    def create(self, minor: int, name: str, config: InstanceConfig) -> None:
        """Create the instance with all of ``config``, or leave nothing behind.

        A ``managed`` or ``dmabuf`` other than the default goes in the create line where the
        module takes the key, so the instance never runs with the default. An older module
        gets ``managed`` by a write after create. That write records no original: the
        instance is new, and undoing its creation removes it. If it is refused, the instance
        is removed again and the refusal raised. ``dmabuf`` has no such write: a module whose
        create lacks the key forwards every export, so ``refuse`` there is refused before
        anything is written.
        """
        takes = self.create_keys(minor)
        line = create_line(name, config, takes)
        path = f"{k.gpu_dir(minor)}/{k.GPU_CREATE}"
        # What a module without the key cannot do: bound channels, RM objects or GPU mappings,
        # limit system memory, refuse dma-buf exports.
        for lacking, why, instead in (
            (
                config.channels != k.CHANNELS_DEFAULT and k.CHANNELS_CREATE_KEY not in takes,
                no_channels_key(),
                f"create {name} without --channels",
            ),
            (
                config.rm_objects != k.RM_OBJECTS_DEFAULT and k.RM_OBJECTS_CREATE_KEY not in takes,
                no_rm_objects_key(),
                f"create {name} without --rm-objects",
            ),
            (
                config.sysmem is not None and k.SYSMEM_CREATE_KEY not in takes,
                no_sysmem_key(),
                f"create {name} without --sysmem",
            ),
            (
                config.mapped is not None and k.MAPPED_CREATE_KEY not in takes,
                no_mapped_key(),
                f"create {name} without --mapped",
            ),
            (
                config.dmabuf != k.WITHOUT_KNOB and k.INST_DMABUF not in takes,
                no_dmabuf_key(),
                f"create {name} with {k.INST_DMABUF} allow",
            ),
        ):
            if lacking:
                raise KernelInterfaceError(
                    self.sysfs.path(path),
                    line,
                    None,
                    detail=f"{why}; {refuse_remedy(instead)}; nothing was created",
                )
        try:
            self.sysfs.write_only(path, line)
        except KernelInterfaceError as exc:
            raise _with_hint(exc, _CREATE_HINTS.get(exc.errno or 0)) from None
        if config.managed == k.MANAGED_DEFAULT or k.INST_MANAGED in takes:
            return
        try:
            self.sysfs.write_only(f"{k.instance_dir(minor, name)}/{k.INST_MANAGED}", config.managed)
        except KernelInterfaceError as exc:
            refused = _with_hint(exc, _WRITE_HINTS.get((k.INST_MANAGED, exc.errno or 0)))
            try:
                self.remove(minor, name)
            except KernelInterfaceError as undo:
                raise PartialApplyError(
                    f"{refused}; and removing the new instance {name} failed: {undo}"
                ) from exc
            undone = f"{name} was removed again; nothing was changed"
            detail = f"{refused.detail}; {undone}" if refused.detail else undone
            raise KernelInterfaceError(
                refused.path, refused.value, refused.errno, detail=detail
            ) from None

    def remove(self, minor: int, name: str, *, force: bool = False) -> None:
        value = k.REMOVE_FORCE if force else k.REMOVE_NORMAL
        try:
            self.sysfs.write_only(f"{k.instance_dir(minor, name)}/{k.INST_REMOVE}", value)
        except KernelInterfaceError as exc:
            raise _with_hint(exc, _WRITE_HINTS.get((k.INST_REMOVE, exc.errno or 0))) from None

    def write_gpu(self, minor: int, attr: str, value: str) -> None:
        self._write(f"{k.gpu_dir(minor)}/{attr}", attr, value)

    def write_instance(self, minor: int, name: str, attr: str, value: str) -> None:
        self._write(f"{k.instance_dir(minor, name)}/{attr}", attr, value)

    def _write(self, rel: str, attr: str, value: str) -> None:
        try:
            self.sysfs.write(rel, value)
        except KernelInterfaceError as exc:
            raise _with_hint(exc, _WRITE_HINTS.get((attr, exc.errno or 0))) from None

    def rollback_writes(self) -> None:
        self.sysfs.rollback()

    def commit(self) -> None:
        self.sysfs.commit()
