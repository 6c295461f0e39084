"""The per-GPU policy file: schema, strict parsing with path-named errors, export.

Format (``version: v1``; reference in ``policies/README.md``)::

    version: v1
    gpus:
      - selector: {index: 0}          # or {uuid: GPU-...}, or the word all
        policy: burst-share           # optional: left alone when absent
        timeslice_us: 1024            # optional
        period_us: 10000              # optional: 1000..1000000
        overcommit: false             # optional
        unknown_escapes: refuse       # optional
        instances:                    # required (may be []): exactly these instances
          - {name: infer-a, mem: 4G, core: 30, class: online, managed: refuse, dmabuf: refuse,
             channels: 48, rm_objects: 4096, sysmem: 2G, mapped: 64G}

Every error names the field as a path (``gpus[0].instances[2].core: ...``) so it
can be found without line numbers; unknown keys and duplicate keys are refused,
because a typo such as ``cores:`` silently ignored is a limit silently not set.
Checks that need the machine (selectors resolving, memory sums, names on GPUs the
file does not select) are made by :mod:`qgpuctl.core.plan`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from qgpuctl.backends import schema as k
from qgpuctl.core.units import (
    format_size,
    parse_channels,
    parse_limit,
    parse_mapped,
    parse_rm_objects,
    parse_size,
)
from qgpuctl.errors import PolicyError, SizeError

if TYPE_CHECKING:
    import yaml

VERSION: Final = "v1"
GPU_PLACEHOLDER: Final = "{gpu}"

# Names qgpuctl accepts: the kernel's rule, and ending in a letter or digit so
# every instance is also a valid CDI device name (qgpu.io/vgpu=NAME).
NAME_RULE: Final = "1-32 of a-z 0-9 _ . -, starting and ending with a letter or digit"


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be an instance name, or None if it can."""
    if not k.KERNEL_NAME_RE.fullmatch(name) or not name[-1].isalnum():
        return f"invalid instance name {name!r}: {NAME_RULE}"
    return None


@dataclass(frozen=True, slots=True)
class Selector:
    """Which GPUs an entry applies to: ``all``, one index, or one UUID."""

    index: int | None = None
    uuid: str | None = None

    @property
    def is_all(self) -> bool:
        return self.index is None and self.uuid is None

    def matches(self, index: int, uuid: str | None) -> bool:
        if self.index is not None:
            return index == self.index
        if self.uuid is not None:
            return uuid is not None and uuid.lower() == self.uuid.lower()
        return True

    def __str__(self) -> str:
        if self.index is not None:
            return f"index {self.index}"
        if self.uuid is not None:
            return f"uuid {self.uuid}"
        return "all"

    def to_data(self) -> Any:
        if self.index is not None:
            return {"index": self.index}
        if self.uuid is not None:
            return {"uuid": self.uuid}
        return "all"


@dataclass(frozen=True, slots=True)
class InstanceSpec:
    name: str  # may contain {gpu}, expanded per matched GPU
    mem: int | None  # bytes; None = max
    core: int
    klass: str
    path: str  # gpus[i].instances[j], for messages
    managed: str = k.MANAGED_DEFAULT  # allow|refuse UVM managed memory
    dmabuf: str = k.DMABUF_DEFAULT  # allow|refuse dma-buf exports (allow: trusted tenants only)
    channels: str = k.CHANNELS_DEFAULT  # max|N channels and channel groups held at once
    rm_objects: str = k.RM_OBJECTS_DEFAULT  # max|N RM objects held at once
    sysmem: int | None = None  # bytes of system memory RM allocates for it; None = max
    mapped: int | None = None  # bytes of GPU address space its RM mappings span; None = max

    def expand(self, index: int) -> str:
        return self.name.replace(GPU_PLACEHOLDER, str(index))


@dataclass(frozen=True, slots=True)
class GpuSpec:
    selector: Selector
    instances: tuple[InstanceSpec, ...]
    path: str
    policy: str | None = None
    timeslice_us: int | None = None
    period_us: int | None = None
    overcommit: bool | None = None
    unknown_escapes: str | None = None


@dataclass(frozen=True, slots=True)
class PolicyFile:
    gpus: tuple[GpuSpec, ...]
    version: str = VERSION


# --- loading -----------------------------------------------------------------
#
# yaml is imported by the functions that read or write a file, not with this module: every
# qgpuctl command imports this module, and yaml costs a command's start-up half a second in the
# test VM's emulation.


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            mark = key_node.start_mark
            raise PolicyError(
                "", f"line {mark.line + 1}: key {key!r} given twice in the same mapping"
            )
        seen.add(key)
    return loader.construct_mapping(node)


@functools.cache
def _strict_loader() -> type[yaml.SafeLoader]:
    """SafeLoader that refuses a key given twice in one mapping."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        pass

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
    return StrictLoader


def load_policy(text: str, source: str = "<policy>") -> PolicyFile:
    """Parse and validate a policy file's text; raises PolicyError naming the field."""
    import yaml

    try:
        data = yaml.load(text, Loader=_strict_loader())  # noqa: S506 - a SafeLoader subclass
    except PolicyError as exc:
        raise PolicyError("", f"{source}: {exc.msg}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise PolicyError("", f"{source}:{where}: not valid YAML: {problem}") from None
    return parse_policy(data)


def _keys(data: Any, path: str, required: Sequence[str], optional: Sequence[str]) -> None:
    if not isinstance(data, Mapping):
        raise PolicyError(path or "(top level)", f"expected a mapping, got {_kind(data)}")
    allowed = (*required, *optional)
    for key in data:
        if key not in allowed:
            raise PolicyError(
                _join(path, str(key)), f"unknown key (expected one of: {', '.join(allowed)})"
            )
    for key in required:
        if key not in data:
            raise PolicyError(_join(path, key), "required")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{type(value).__name__} {value!r}"


def _choice(value: Any, path: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        raise PolicyError(path, f"expected one of {', '.join(choices)}, got {_kind(value)}")
    return value


def _int(value: Any, path: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PolicyError(path, f"expected an integer, got {_kind(value)}")
    if value < lo or (hi is not None and value > hi):
        bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise PolicyError(path, f"{value} is out of range ({bound})")
    return value


def _mem(value: Any, path: str, parse: Callable[[str], int | None] = parse_size) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise PolicyError(path, f"expected a size like 4G, 512M, bytes or max, got {_kind(value)}")
    try:
        return parse(str(value))
    except SizeError as exc:
        raise PolicyError(path, str(exc)) from None


def _selector(value: Any, path: str) -> Selector:
    if value == "all":
        return Selector()
    if isinstance(value, str):
        raise PolicyError(path, f"expected all, {{index: N}} or {{uuid: GPU-...}}, got {value!r}")
    _keys(value, path, (), ("index", "uuid"))
    if len(value) != 1:
        raise PolicyError(path, "expected exactly one of index or uuid")
    if "index" in value:
        return Selector(index=_int(value["index"], f"{path}.index", 0))
    uuid = value["uuid"]
    if not isinstance(uuid, str) or not uuid:
        raise PolicyError(f"{path}.uuid", f"expected a GPU UUID string, got {_kind(uuid)}")
    return Selector(uuid=uuid)


_INSTANCE_REQUIRED: Final = ("name", "mem", "core")
_INSTANCE_OPTIONAL: Final = (
    "class",
    "managed",
    "dmabuf",
    "channels",
    "rm_objects",
    "sysmem",
    "mapped",
)
_GPU_REQUIRED: Final = ("selector", "instances")
_GPU_OPTIONAL: Final = ("policy", "timeslice_us", "period_us", "overcommit", "unknown_escapes")


def _instance(data: Any, path: str) -> InstanceSpec:
    _keys(data, path, _INSTANCE_REQUIRED, _INSTANCE_OPTIONAL)
    name = data["name"]
    if not isinstance(name, str):
        raise PolicyError(f"{path}.name", f"expected a string, got {_kind(name)}")
    problem = check_name(name.replace(GPU_PLACEHOLDER, "0"))
    if problem is not None:
        raise PolicyError(f"{path}.name", problem)
    return InstanceSpec(
        name=name,
        mem=_mem(data["mem"], f"{path}.mem"),
        core=_int(data["core"], f"{path}.core", k.CORE_MIN, k.CORE_MAX),
        klass=_choice(data.get("class", "online"), f"{path}.class", k.CLASSES),
        path=path,
        managed=_choice(data.get("managed", k.MANAGED_DEFAULT), f"{path}.managed", k.MANAGED_MODES),
        dmabuf=_choice(data.get("dmabuf", k.DMABUF_DEFAULT), f"{path}.dmabuf", k.DMABUF_MODES),
        channels=_bound(parse_channels, data.get("channels", k.UNBOUNDED), f"{path}.channels"),
        rm_objects=_bound(
            parse_rm_objects, data.get("rm_objects", k.UNBOUNDED), f"{path}.rm_objects"
        ),
        sysmem=_mem(data.get("sysmem", "max"), f"{path}.sysmem", parse_limit),
        mapped=_mem(data.get("mapped", "max"), f"{path}.mapped", parse_mapped),
    )


def _bound(parse: Callable[[str | int], str], value: Any, path: str) -> str:
    try:
        return parse(value)
    except ValueError as exc:
        raise PolicyError(path, str(exc)) from None


def _gpu(data: Any, path: str) -> GpuSpec:
    _keys(data, path, _GPU_REQUIRED, _GPU_OPTIONAL)
    selector = _selector(data["selector"], f"{path}.selector")
    raw_instances = data["instances"]
    if raw_instances is None:
        raw_instances = []
    if not isinstance(raw_instances, list):
        raise PolicyError(f"{path}.instances", f"expected a list, got {_kind(raw_instances)}")
    instances = tuple(
        _instance(item, f"{path}.instances[{j}]") for j, item in enumerate(raw_instances)
    )
    policy = None if "policy" not in data else _choice(data["policy"], f"{path}.policy", k.POLICIES)
    timeslice = (
        None
        if "timeslice_us" not in data
        else _int(data["timeslice_us"], f"{path}.timeslice_us", 1)
    )
    period = (
        None
        if "period_us" not in data
        else _int(data["period_us"], f"{path}.period_us", k.PERIOD_MIN_US, k.PERIOD_MAX_US)
    )
    overcommit = data.get("overcommit")
    if overcommit is not None and not isinstance(overcommit, bool):
        raise PolicyError(f"{path}.overcommit", f"expected true or false, got {_kind(overcommit)}")
    escapes = (
        None
        if "unknown_escapes" not in data
        else _choice(data["unknown_escapes"], f"{path}.unknown_escapes", k.UNKNOWN_ESCAPES)
    )
    if policy in k.GUARANTEED_POLICIES:
        total = sum(inst.core for inst in instances)
        if total > k.CORE_MAX:
            raise PolicyError(
                f"{path}.instances",
                f"core guarantees add up to {total}% on one GPU; {policy} allows at most 100%",
            )
    seen: dict[str, str] = {}
    for inst in instances:
        if inst.name in seen:
            raise PolicyError(f"{inst.path}.name", f"{inst.name!r} is also {seen[inst.name]}")
        seen[inst.name] = f"{inst.path}.name"
    return GpuSpec(
        selector=selector,
        instances=instances,
        path=path,
        policy=policy,
        timeslice_us=timeslice,
        period_us=period,
        overcommit=overcommit,
        unknown_escapes=escapes,
    )


def parse_policy(data: Any) -> PolicyFile:
    """Validate already-loaded YAML/JSON data against the v1 schema."""
    if data is None:
        raise PolicyError("", "the file is empty; expected 'version: v1' and 'gpus:'")
    _keys(data, "", ("version", "gpus"), ())
    version = data["version"]
    if version != VERSION:
        raise PolicyError("version", f"unsupported version {_kind(version)}; this qgpuctl reads v1")
    raw_gpus = data["gpus"]
    if not isinstance(raw_gpus, list):
        raise PolicyError("gpus", f"expected a list, got {_kind(raw_gpus)}")
    gpus = tuple(_gpu(item, f"gpus[{i}]") for i, item in enumerate(raw_gpus))
    _check_across_entries(gpus)
    return PolicyFile(gpus=gpus)


def _check_across_entries(gpus: Sequence[GpuSpec]) -> None:
    """What the file alone can tell: overlapping selectors and repeated names."""
    seen_selectors: dict[Selector, str] = {}
    for gpu in gpus:
        path = f"{gpu.path}.selector"
        if gpu.selector.is_all and len(gpus) > 1:
            raise PolicyError(path, "'all' must be the only entry; it selects every GPU")
        if gpu.selector in seen_selectors:
            raise PolicyError(path, f"selects the same GPU as {seen_selectors[gpu.selector]}")
        seen_selectors[gpu.selector] = path
    names: dict[str, str] = {}
    for gpu in gpus:
        for inst in gpu.instances:
            if inst.name in names and GPU_PLACEHOLDER not in inst.name:
                raise PolicyError(
                    f"{inst.path}.name",
                    f"{inst.name!r} is also {names[inst.name]}; names are unique across GPUs",
                )
            names.setdefault(inst.name, f"{inst.path}.name")


# --- writing -----------------------------------------------------------------


def _represent_dict(dumper: yaml.SafeDumper, data: dict[str, Any]) -> yaml.Node:
    flow = all(not isinstance(v, dict | list) for v in data.values())
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=flow)


@functools.cache
def _flow_dumper() -> type[yaml.SafeDumper]:
    """Block style for the structure, flow style for the leaves ({name: a, mem: 4G, ...})."""
    import yaml

    class FlowDumper(yaml.SafeDumper):
        pass

    FlowDumper.add_representer(dict, _represent_dict)
    return FlowDumper


def _instance_data(i: InstanceSpec) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": i.name,
        "mem": format_size(i.mem),
        "core": i.core,
        "class": i.klass,
        "managed": i.managed,
        "dmabuf": i.dmabuf,
    }
    # left out, a bound is max; given, a YAML number, as a file gives it
    for key, bound in (("channels", i.channels), ("rm_objects", i.rm_objects)):
        if bound != k.UNBOUNDED:
            data[key] = int(bound)
    if i.sysmem is not None:
        data["sysmem"] = format_size(i.sysmem)
    if i.mapped is not None:
        data["mapped"] = format_size(i.mapped)
    return data


def policy_to_data(policy: PolicyFile) -> dict[str, Any]:
    """The file as plain data, in the order a person writes it; parses back to ``policy``."""
    out_gpus = []
    for gpu in policy.gpus:
        entry: dict[str, Any] = {"selector": gpu.selector.to_data()}
        if gpu.policy is not None:
            entry["policy"] = gpu.policy
        if gpu.timeslice_us is not None:
            entry["timeslice_us"] = gpu.timeslice_us
        if gpu.period_us is not None:
            entry["period_us"] = gpu.period_us
        if gpu.overcommit is not None:
            entry["overcommit"] = gpu.overcommit
        if gpu.unknown_escapes is not None:
            entry["unknown_escapes"] = gpu.unknown_escapes
        entry["instances"] = [_instance_data(i) for i in gpu.instances]
        out_gpus.append(entry)
    return {"version": policy.version, "gpus": out_gpus}


def dump_policy_yaml(policy: PolicyFile, header: str = "") -> str:
    import yaml

    body = yaml.dump(
        policy_to_data(policy),
        Dumper=_flow_dumper(),
        sort_keys=False,
        default_flow_style=False,
        width=100,
    )
    return header + body
