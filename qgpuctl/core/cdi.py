"""CDI specs for qgpu instances: ``qgpuctl cdi generate`` (nvidia-ctk's habit).

One device per instance, named after it, under the kind ``qgpu.io/vgpu``; each
maps the instance's nodes ``/dev/qgpu/<name>/*`` to the paths the CUDA stack
opens in the container (``/dev/nvidiactl``, ``/dev/nvidia0``,
``/dev/nvidia-uvm``), so ``podman run --device qgpu.io/vgpu=NAME`` gives the
container that instance and nothing else. ``hostPath`` needs CDI 0.5.0; we
write 0.6.0, which podman, containerd, CRI-O and Docker 25+ all read.

:func:`validate_spec` checks the rules of the CDI spec that a generator can get
wrong (see https://github.com/cncf-tags/container-device-interface SPEC.md):
the kind's vendor is a DNS subdomain and its class a 63-char label, device
names begin and end with an alphanumeric, device node paths are absolute and
unique per device, device names unique per spec.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from qgpuctl.backends import schema as k

CDI_VERSION: Final = "0.6.0"
_SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
_DNS_LABEL = re.compile(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?")
_CLASS = re.compile(r"[a-zA-Z0-9]([a-zA-Z0-9_.-]{0,61}[a-zA-Z0-9])?")
_DEVICE_NAME = re.compile(r"[a-zA-Z0-9]([a-zA-Z0-9_.:-]*[a-zA-Z0-9])?")


class CdiError(ValueError):
    """A spec that breaks a CDI rule; the message names the field."""


@dataclass(frozen=True, slots=True)
class CdiDevice:
    name: str
    nodes: tuple[tuple[str, str], ...]  # (container path, host path)


def device_for(name: str, dev_root: str = "/dev") -> CdiDevice:
    """The CDI device of instance ``name``: its qgpu nodes under ``dev_root``."""
    root = dev_root.rstrip("/") or ""
    return CdiDevice(
        name=name,
        nodes=tuple(
            (container, f"{root}/{k.DEV_DIR}/{name}/{node}") for node, container in k.DEV_NODES
        ),
    )


def qualified_name(name: str, kind: str = k.CDI_KIND) -> str:
    """What ``podman run --device`` takes: ``qgpu.io/vgpu=NAME``."""
    return f"{kind}={name}"


def valid_device_name(name: str) -> bool:
    return _DEVICE_NAME.fullmatch(name) is not None


def make_spec(devices: Iterable[CdiDevice], kind: str = k.CDI_KIND) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "cdiVersion": CDI_VERSION,
        "kind": kind,
        "devices": [
            {
                "name": dev.name,
                "containerEdits": {
                    "deviceNodes": [
                        {"path": path, "hostPath": host, "permissions": "rw"}
                        for path, host in dev.nodes
                    ]
                },
            }
            for dev in sorted(devices, key=lambda d: d.name)
        ],
    }
    validate_spec(spec)
    return spec


def validate_kind(kind: str) -> None:
    vendor, sep, cls = kind.partition("/")
    if not sep or "/" in cls:
        raise CdiError(f"kind: {kind!r} is not vendor/class")
    if len(vendor) > 253 or not all(_DNS_LABEL.fullmatch(p) for p in vendor.split(".")):
        raise CdiError(f"kind: vendor {vendor!r} is not a DNS subdomain")
    if not _CLASS.fullmatch(cls):
        raise CdiError(
            f"kind: class {cls!r} must be 1-63 of a-z A-Z 0-9 _ . -, "
            "beginning and ending with a letter or digit"
        )


def validate_spec(spec: Any) -> None:
    """Raise CdiError on the first rule ``spec`` breaks."""
    if not isinstance(spec, dict):
        raise CdiError("the spec is not a mapping")
    for key in ("cdiVersion", "kind", "devices"):
        if key not in spec:
            raise CdiError(f"{key}: required")
    if not isinstance(spec["cdiVersion"], str) or not _SEMVER.fullmatch(spec["cdiVersion"]):
        raise CdiError(f"cdiVersion: {spec['cdiVersion']!r} is not a semantic version")
    validate_kind(str(spec["kind"]))
    devices = spec["devices"]
    if not isinstance(devices, list):
        raise CdiError("devices: expected a list")
    seen: set[str] = set()
    for i, dev in enumerate(devices):
        where = f"devices[{i}]"
        name = dev.get("name") if isinstance(dev, dict) else None
        if not isinstance(name, str) or not valid_device_name(name):
            raise CdiError(
                f"{where}.name: {name!r} must begin and end with a letter or digit, "
                "with a-z A-Z 0-9 _ . : - between"
            )
        if name in seen:
            raise CdiError(f"{where}.name: {name!r} given twice")
        seen.add(name)
        edits = dev.get("containerEdits", {})
        nodes = edits.get("deviceNodes", []) if isinstance(edits, dict) else None
        if not isinstance(nodes, list):
            raise CdiError(f"{where}.containerEdits.deviceNodes: expected a list")
        paths: set[str] = set()
        for j, node in enumerate(nodes):
            nwhere = f"{where}.containerEdits.deviceNodes[{j}]"
            if not isinstance(node, dict):
                raise CdiError(f"{nwhere}: expected a mapping")
            path = node.get("path")
            if not isinstance(path, str) or not path.startswith("/"):
                raise CdiError(f"{nwhere}.path: {path!r} must be an absolute path")
            if path in paths:
                raise CdiError(f"{nwhere}.path: {path!r} given twice")
            paths.add(path)
            host = node.get("hostPath", path)
            if not isinstance(host, str) or not host.startswith("/"):
                raise CdiError(f"{nwhere}.hostPath: {host!r} must be an absolute path")
            perms = node.get("permissions", "rw")
            if not isinstance(perms, str) or not perms or set(perms) - set("rwm"):
                raise CdiError(f"{nwhere}.permissions: {perms!r} must be letters of rwm")
