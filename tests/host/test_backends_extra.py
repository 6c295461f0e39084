"""CDI rules, placement, the netlink decoder, the emulated kernel's contract, udev waiting."""

from __future__ import annotations

import errno
import threading
import time
from pathlib import Path

import pytest
from conftest import GIB, Host

from qgpuctl.backends import schema as k
from qgpuctl.backends.files import write_atomic
from qgpuctl.backends.netlink import QgpuEvent, ReplaySource, decode_buffer, encode_event
from qgpuctl.backends.qgpufs import QgpuControl, create_line
from qgpuctl.backends.udev import UdevWaiter
from qgpuctl.core.cdi import CdiError, device_for, make_spec, validate_kind, validate_spec
from qgpuctl.core.placement import Placement, place
from qgpuctl.core.plan import InstanceConfig
from qgpuctl.core.state import read_state
from qgpuctl.errors import KernelInterfaceError, UsageError

# --- CDI ----------------------------------------------------------------------


def test_spec_maps_instance_nodes() -> None:
    spec = make_spec([device_for("b"), device_for("a.1")])
    assert spec["cdiVersion"] == "0.6.0" and spec["kind"] == "qgpu.io/vgpu"
    assert [d["name"] for d in spec["devices"]] == ["a.1", "b"]
    nodes = spec["devices"][1]["containerEdits"]["deviceNodes"]
    assert [(n["path"], n["hostPath"]) for n in nodes] == [
        ("/dev/nvidiactl", "/dev/qgpu/b/nvidiactl"),
        ("/dev/nvidia0", "/dev/qgpu/b/nvidia0"),
        ("/dev/nvidia-uvm", "/dev/qgpu/b/nvidia-uvm"),
    ]


@pytest.mark.parametrize("kind", ["qgpu.io/vgpu", "vendor.com/foo", "foo.bar.baz/foo-bar123.B_az"])
def test_valid_kinds(kind: str) -> None:
    validate_kind(kind)


@pytest.mark.parametrize(
    "kind", ["foo", "vendor.com/foo/", "vendor.com/foo/bar", "Vendor.com/x", "-a.com/x", "a.com/-x"]
)
def test_invalid_kinds(kind: str) -> None:
    with pytest.raises(CdiError, match="kind"):
        validate_kind(kind)


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda s: s.pop("kind"), "kind: required"),
        (lambda s: s.update(cdiVersion="0.6"), "semantic version"),
        (lambda s: s["devices"][0].update(name="bad-"), "devices[0].name"),
        (lambda s: s["devices"].append(dict(s["devices"][0])), "devices[1].name: 'a' given twice"),
        (
            lambda s: s["devices"][0]["containerEdits"]["deviceNodes"][0].update(path="dev/x"),
            "deviceNodes[0].path",
        ),
        (
            lambda s: s["devices"][0]["containerEdits"]["deviceNodes"][1].update(hostPath="x"),
            "deviceNodes[1].hostPath",
        ),
        (
            lambda s: s["devices"][0]["containerEdits"]["deviceNodes"][1].update(
                path="/dev/nvidiactl"
            ),
            "given twice",
        ),
        (
            lambda s: s["devices"][0]["containerEdits"]["deviceNodes"][0].update(permissions="x"),
            "permissions",
        ),
    ],
)
def test_validate_spec_rules(mutate, needle: str) -> None:  # type: ignore[no-untyped-def]
    spec = make_spec([device_for("a")])
    mutate(spec)
    with pytest.raises(CdiError) as info:
        validate_spec(spec)
    assert needle in str(info.value)


def test_write_atomic_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "cdi" / "qgpu.yaml"
    write_atomic(target, "one\n")
    write_atomic(target, "two\n")
    assert target.read_text() == "two\n"
    assert [p.name for p in target.parent.iterdir()] == ["qgpu.yaml"]


def test_write_atomic_error_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(KernelInterfaceError):
        write_atomic(tmp_path / "file" / "sub" / "x", "t")


# --- placement -------------------------------------------------------------------


def test_binpack_and_spread(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.create(1, "big", InstanceConfig(60 * GIB, 10, "online"))  # GPU 1: 20G free of 80G
    gpus = read_state(host.kernel).gpus
    assert place(gpus, 4 * GIB, 10, Placement.BINPACK).index == 1  # fullest that fits
    assert place(gpus, 4 * GIB, 10, Placement.SPREAD).index == 0  # emptiest (40G free)
    assert place(gpus, 30 * GIB, 10, Placement.BINPACK).index == 0  # only GPU 0 fits
    with pytest.raises(UsageError, match="GPU 0: 40G memory free, 50G asked; GPU 1: 20G"):
        place(gpus, 50 * GIB, 10, Placement.BINPACK)
    # An unlimited instance needs a whole free GPU unless it overcommits.
    assert place(gpus, None, 10, Placement.BINPACK).index == 0


def test_placement_respects_guarantees_and_slots(host: Host) -> None:
    host.kernel.add_gpu(2, policy="fixed-share", max_instances=1)
    ctl = QgpuControl(host.kernel)
    ctl.create(2, "x", InstanceConfig(GIB, 90, "online"))
    gpu2 = [g for g in read_state(host.kernel).gpus if g.index == 2]
    with pytest.raises(UsageError, match="no free instance slot"):
        place(gpu2, GIB, 5, Placement.BINPACK)


# --- netlink -------------------------------------------------------------------------


def test_event_round_trip_and_partial_attributes() -> None:
    full = QgpuEvent("oom", gpu=3, instance="a", pid=9, size=2**40, timestamp_ns=7, detail="d")
    bare = QgpuEvent("policy_change", gpu=0)
    assert decode_buffer(encode_event(full) + encode_event(bare)) == [full, bare]
    assert list(ReplaySource([encode_event(full)]).events()) == [full]


def test_wire_format_of_an_event() -> None:
    """Attribute numbers and types as docs/kernel-interface.md specifies them."""
    data = encode_event(QgpuEvent("oom", gpu=1, size=5), family_id=0x1F)
    # nlmsghdr: len, type=family, flags, seq, pid; genlmsghdr: cmd=1, version=1
    assert data[4:6] == (0x1F).to_bytes(2, "little")
    assert data[16:18] == bytes([k.QGPU_CMD_EVENT, k.GENL_VERSION])
    attrs = data[20:]
    assert attrs[:8] == (8).to_bytes(2, "little") + (1).to_bytes(2, "little") + b"oom\0"
    assert attrs[8:16] == (8).to_bytes(2, "little") + (2).to_bytes(2, "little") + (1).to_bytes(
        4, "little"
    )
    assert attrs[16:28] == (12).to_bytes(2, "little") + (5).to_bytes(2, "little") + (5).to_bytes(
        8, "little"
    )


def test_truncated_buffer_is_ignored() -> None:
    data = encode_event(QgpuEvent("oom"))
    assert decode_buffer(data[:10]) == []


# --- the emulated kernel keeps the contract ----------------------------------------------


@pytest.mark.parametrize(
    ("rel", "value", "code"),
    [
        ("class/qgpu/gpu0/create", "Bad", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a mem=1.5G", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a core=0", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a class=batch", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a color=red", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a mem=41G", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a mem=40G", errno.ENOSPC),
        ("class/qgpu/gpu0/create", "x mem=1G", errno.EINVAL),
        ("class/qgpu/gpu0/policy", "fair", errno.EINVAL),
        ("class/qgpu/gpu0/timeslice_us", "0", errno.EINVAL),
        ("class/qgpu/gpu0/overcommit", "2", errno.EINVAL),
        ("class/qgpu/gpu0/unknown_escapes", "maybe", errno.EINVAL),
        ("class/qgpu/gpu0/memory", "1", errno.EACCES),
        ("class/qgpu/gpu0/instances/x/mem_max", "1K", errno.EBUSY),
        ("class/qgpu/gpu0/instances/x/mem_max", "41G", errno.ENOSPC),
        ("class/qgpu/gpu0/instances/x/core", "101", errno.EINVAL),
        ("class/qgpu/gpu0/instances/x/class", "batch", errno.EINVAL),
        ("class/qgpu/gpu0/instances/x/managed", "deny", errno.EINVAL),
        ("class/qgpu/gpu0/instances/x/dmabuf", "ALLOW", errno.EINVAL),
        ("class/qgpu/gpu0/instances/x/dmabuf", "", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a dmabuf=yes", errno.EINVAL),
        ("class/qgpu/gpu0/create", "a dmabuf=allow dmabuf=allow", errno.EINVAL),
        ("class/qgpu/gpu0/instances/x/remove", "yes", errno.EINVAL),
        ("class/qgpu/gpu0/instances/x/remove", "1", errno.EBUSY),
        ("class/qgpu/gpu0/instances/x/share", "1", errno.EACCES),
        ("class/qgpu/gpu0/instances/nope/core", "1", errno.ENOENT),
    ],
)
def test_fake_kernel_errnos(host: Host, rel: str, value: str, code: int) -> None:
    QgpuControl(host.kernel).create(0, "x", InstanceConfig(GIB, 10, "online"))
    host.kernel.use("x", mem_current=2**20, processes=[(1, "init")])
    with pytest.raises(KernelInterfaceError) as info:
        host.kernel.write_only(rel, value)
    assert info.value.errno == code


def test_fake_kernel_guarantees_under_fixed_share(host: Host) -> None:
    ctl = QgpuControl(host.kernel)
    ctl.write_gpu(0, k.GPU_POLICY, "fixed-share")
    ctl.create(0, "a", InstanceConfig(GIB, 60, "online"))
    with pytest.raises(KernelInterfaceError) as info:
        ctl.create(0, "b", InstanceConfig(GIB, 50, "online"))
    assert info.value.errno == errno.EINVAL and "100%" in str(info.value)
    assert create_line("b", InstanceConfig(None, 5, "offline")) == "b mem=max core=5 class=offline"


def test_the_fake_kernel_has_dmabuf_as_the_interface_says(host: Host) -> None:
    keys = "mem core class managed dmabuf channels rm_objects sysmem mapped"
    assert host.kernel.read("class/qgpu/gpu0/create_keys") == keys
    host.kernel.write_only("class/qgpu/gpu0/create", "d mem=1G core=10")
    assert host.kernel.read("class/qgpu/gpu0/instances/d/dmabuf") == k.DMABUF_DEFAULT == "refuse"
    host.kernel.write_only("class/qgpu/gpu0/instances/d/dmabuf", "allow")
    assert host.kernel.read("class/qgpu/gpu0/instances/d/dmabuf") == "allow"
    host.kernel.write_only("class/qgpu/gpu0/create", "e mem=1G core=10 dmabuf=allow")
    assert host.kernel.read("class/qgpu/gpu0/instances/e/dmabuf") == "allow"
    # A module whose create has no dmabuf key: neither the key nor the knob.
    host.kernel.set_create_keys(1, "mem core class managed")
    with pytest.raises(KernelInterfaceError) as info:
        host.kernel.write_only("class/qgpu/gpu1/create", "f mem=1G core=10 dmabuf=allow")
    assert info.value.errno == errno.EINVAL
    host.kernel.write_only("class/qgpu/gpu1/create", "f mem=1G core=10")
    assert not host.kernel.exists("class/qgpu/gpu1/instances/f/dmabuf")


def test_create_puts_managed_and_dmabuf_in_the_line_where_the_module_takes_them(
    host: Host,
) -> None:
    host.kernel.add_gpu(7, create_keys="mem core class managed dmabuf")
    ctl = QgpuControl(host.kernel)
    ctl.create(7, "m", InstanceConfig(GIB, 10, "online", "refuse", "allow"))
    writes = [(path, value) for path, value in host.kernel.writes if "gpu7" in path]
    line = "m mem=1G core=10 class=online managed=refuse dmabuf=allow"
    assert writes == [("class/qgpu/gpu7/create", line)], writes
    assert host.kernel.read("class/qgpu/gpu7/instances/m/managed") == "refuse"
    assert host.kernel.read("class/qgpu/gpu7/instances/m/dmabuf") == "allow"
    # the defaults need no key: the lines stay as they were without them
    ctl.create(7, "n", InstanceConfig(GIB, 10, "online"))
    assert host.kernel.writes[-1] == ("class/qgpu/gpu7/create", "n mem=1G core=10 class=online")
    assert host.kernel.read("class/qgpu/gpu7/instances/n/dmabuf") == "refuse"
    # an older module (gpu0 lists no keys) gets managed by a write after; it forwards
    # dma-bufs, so only dmabuf allow can be created there
    host.kernel.set_create_keys(0, None)
    ctl.create(0, "o", InstanceConfig(GIB, 10, "online", "refuse", "allow"))
    assert host.kernel.writes[-2:] == [
        ("class/qgpu/gpu0/create", "o mem=1G core=10 class=online"),
        ("class/qgpu/gpu0/instances/o/managed", "refuse"),
    ]
    assert create_line("d", InstanceConfig(None, 5, "online")) == "d mem=max core=5 class=online"


def test_create_refusing_dmabuf_without_the_key_writes_nothing(host: Host) -> None:
    host.kernel.set_create_keys(0, "mem core class managed")
    with pytest.raises(KernelInterfaceError) as info:
        QgpuControl(host.kernel).create(0, "r", InstanceConfig(GIB, 10, "online"))
    assert info.value.errno is None and info.value.path.name == "create"
    assert "cannot refuse dma-buf exports" in str(info.value)
    assert "create r with dmabuf allow" in str(info.value)
    assert "nothing was created" in str(info.value)
    assert host.kernel.writes == []


def test_write_only_knobs_are_not_readable(host: Host) -> None:
    with pytest.raises(KernelInterfaceError) as info:
        host.kernel.read("class/qgpu/gpu0/create")
    assert info.value.errno == errno.EACCES


# --- udev -------------------------------------------------------------------------------


def test_waiter_returns_when_nodes_appear(tmp_path: Path) -> None:
    node = tmp_path / "qgpu" / "a" / "nvidia0"
    waiter = UdevWaiter()
    waiter.start()

    def appear() -> None:
        time.sleep(0.1)
        node.parent.mkdir(parents=True)
        node.write_text("")

    thread = threading.Thread(target=appear)
    thread.start()
    try:
        assert waiter.wait([node], timeout=5) == []
    finally:
        thread.join()
        waiter.stop()
    assert UdevWaiter().wait([tmp_path / "never"], timeout=0.05) == [tmp_path / "never"]
