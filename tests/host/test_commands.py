"""The commands end to end on the emulated kernel: output, exit codes, one-line errors."""

from __future__ import annotations

import errno
import json
import os
import stat

import pytest
import yaml
from conftest import GIB, Host
from fake_kernel import fs_snapshot
from golden import check_golden

from qgpuctl.backends import schema as k
from qgpuctl.backends.devfs import DevTree
from qgpuctl.backends.netlink import QgpuEvent, encode_event
from qgpuctl.backends.nvml import NvmlGpu
from qgpuctl.cli.app import app
from qgpuctl.cli.context import AppContext
from qgpuctl.errors import EXIT_ASSERT_FAILED, EXIT_KERNEL, EXIT_USAGE


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, f"expected one line, got {lines!r}"
    assert lines[0].startswith("qgpuctl: error: ")
    return lines[0]


def test_help_lists_every_command(host: Host) -> None:
    r = host.invoke("--help")
    for command in (
        "gpus", "create", "list", "show", "set", "delete", "policy", "apply", "assert",
        "export", "validate", "status", "top", "events", "cdi", "doctor",
    ):  # fmt: skip
        assert f" {command} " in r.stdout, command


def test_gpus_table_and_json(host: Host) -> None:
    r = host.invoke("gpus")
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:3] == ["INDEX", "NAME", "MEMORY"]
    assert "40G" in lines[1] and "100%" in lines[1]
    data = json.loads(host.invoke("-o", "json", "gpus").stdout)
    assert data[1]["memory"] == 80 * GIB and data[1]["identity"] == "sysfs"
    assert data[0]["free_core"] == 100


def test_gpus_identity_from_nvml(host: Host) -> None:
    uuid = "GPU-00000001-0000-4000-8000-000000000001"
    host.nvml = {uuid.lower(): NvmlGpu(1, uuid, "NVIDIA H100 80GB HBM3", 81559 * 2**20)}
    data = json.loads(host.invoke("gpus", "-o", "json").stdout)
    assert data[1]["name"] == "NVIDIA H100 80GB HBM3" and data[1]["identity"] == "nvml"
    assert data[0]["identity"] == "sysfs"


def test_create_places_waits_and_prints_usage(host: Host) -> None:
    r = host.invoke("create", "infer-a", "--mem", "4G", "--core", "30")
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith(
        "created infer-a on GPU 0: mem 4G, core 30%, class online, managed allow, dmabuf refuse, "
        "channels max, rm objects max, sysmem max, mapped max\n"
    )
    assert f"{host.dev}/qgpu/infer-a/nvidia-uvm" in r.stdout
    assert "podman run --device qgpu.io/vgpu=infer-a" in r.stdout
    # binpack: the fullest GPU that fits is GPU 0 again; spread: the emptiest, GPU 1.
    r = host.invoke("-o", "json", "create", "--mem", "1G", "--core", "5")
    assert json.loads(r.stdout)["gpu"] == 0 and json.loads(r.stdout)["name"] == "vgpu0"
    r = host.invoke("-o", "json", "create", "--mem", "1G", "--core", "5", "--placement", "spread")
    assert json.loads(r.stdout)["gpu"] == 1


def test_create_with_gpu_and_class(host: Host) -> None:
    uuid = "GPU-00000001-0000-4000-8000-000000000001"
    r = host.invoke(
        "create", "b", "--mem", "max", "--core", "10", "--gpu", uuid, "--class", "offline"
    )
    assert r.exit_code == 0, r.stderr
    assert "on GPU 1: mem max, core 10%, class offline, managed allow" in r.stdout


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["create", "Bad", "--mem", "1G", "--core", "1"], "invalid instance name"),
        (["create", "a", "--mem", "1.5G", "--core", "1"], "fraction"),
        (["create", "a", "--mem", "1G", "--core", "101"], "--core"),
        (["create", "a", "--mem", "1G"], "--core"),
        (["create", "a", "--mem", "1G", "--core", "1", "--gpu", "9"], "no GPU '9'"),
        (["create", "a", "--mem", "100G", "--core", "1"], "no GPU fits"),
        (["show", "nope"], "no instance 'nope'"),
        (["set", "nope", "--core", "1"], "no instance"),
        (["set", "x"], "nothing to set"),
        (["set", "x", "--managed", "deny"], "'deny' is not one of 'allow', 'refuse'"),
        (["create", "a", "--mem", "1G", "--core", "1", "--managed", "no"], "--managed"),
        (["set", "x", "--dmabuf", "deny"], "'deny' is not one of 'allow', 'refuse'"),
        (["create", "a", "--mem", "1G", "--core", "1", "--dmabuf", "no"], "--dmabuf"),
        (["policy", "set", "0", "fair"], "fair"),
    ],
)
def test_usage_errors(host: Host, args: list[str], needle: str) -> None:
    host.invoke("create", "x", "--mem", "1G", "--core", "1")
    r = host.invoke(*args)
    assert r.exit_code == EXIT_USAGE, r.stdout
    assert needle in one_line(r.stderr)


def test_create_refused_by_kernel_is_exit_3(host: Host) -> None:
    host.kernel.fail_next("gpu0/create", errno.EOPNOTSUPP)
    r = host.invoke("create", "a", "--mem", "1G", "--core", "1")
    assert r.exit_code == EXIT_KERNEL
    assert "(ENOTSUP)" in one_line(r.stderr) and "driver version" in r.stderr


def test_create_times_out_when_nodes_never_appear(host: Host) -> None:
    host.kernel.dev_root = None  # a kernel whose nodes do not show up
    r = host.invoke("create", "a", "--mem", "1G", "--core", "1", "--wait-timeout", "0.2")
    assert r.exit_code == EXIT_KERNEL
    assert "did not appear within 0.2s" in one_line(r.stderr)


def test_list_show_set_delete(host: Host) -> None:
    host.invoke("create", "a", "--mem", "4G", "--core", "30")
    host.kernel.use("a", mem_current=GIB, processes=[(4242, "python3")], share=29.8)
    r = host.invoke("list")
    row = r.stdout.splitlines()[1].split()
    assert row == ["a", "0", "4G", "1G", "30%", "29.8%", "online", "allow", "refuse", "0/max", "1"]
    r = host.invoke("show", "a")
    assert "memory:       1G used of 4G" in r.stdout
    assert "processes:    4242 python3" in r.stdout
    assert "cdi:          qgpu.io/vgpu=a" in r.stdout
    data = yaml.safe_load(host.invoke("show", "a", "-o", "yaml").stdout)
    assert data["processes"] == [{"pid": 4242, "comm": "python3"}] and data["share"] == 29.8
    r = host.invoke("-o", "json", "set", "a", "--mem", "8G", "--core", "50", "--class", "offline")
    assert r.exit_code == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["mem"], data["core"], data["class"]) == ("8G", 50, "offline")
    r = host.invoke("delete", "a")
    assert r.exit_code == EXIT_KERNEL and "EBUSY" in one_line(r.stderr) and "--force" in r.stderr
    r = host.invoke("delete", "a", "--force")
    assert r.exit_code == 0 and r.stdout == "deleted a from GPU 0\n"
    assert not (host.dev / "qgpu" / "a").exists()


@pytest.mark.parametrize(("attr", "column"), [("managed", 7), ("dmabuf", 8)])
def test_allow_refuse_knobs_through_create_list_show_set(
    host: Host, attr: str, column: int
) -> None:
    default = k.CREATE_KNOB_DEFAULTS[attr]
    other = "refuse" if default == "allow" else "allow"
    knob = host.kernel.root / f"class/qgpu/gpu0/instances/a/{attr}"
    r = host.invoke("create", "a", "--mem", "4G", "--core", "30", f"--{attr}", other)
    assert r.exit_code == 0, r.stderr
    knobs = {**k.CREATE_KNOB_DEFAULTS, attr: other}
    line = (
        f"class online, managed {knobs['managed']}, dmabuf {knobs['dmabuf']}, "
        "channels max, rm objects max, sysmem max, mapped max\n"
    )
    assert line in r.stdout
    assert knob.read_text() == f"{other}\n"
    # The module lists the key: in the create line, so the instance never has the default.
    assert host.kernel.writes == [
        ("class/qgpu/gpu0/create", f"a mem=4G core=30 class=online {attr}={other}")
    ]
    (listed,) = json.loads(host.invoke("-o", "json", "list").stdout)
    assert listed[attr] == other
    header, row = host.invoke("list").stdout.splitlines()[:2]
    assert (header.split()[column], row.split()[column]) == (attr.upper(), other)
    assert f"{attr + ':':<14}{other}\n" in host.invoke("show", "a").stdout
    r = host.invoke("-o", "json", "set", "a", f"--{attr}", default.upper())  # either case
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)[attr] == default and knob.read_text() == f"{default}\n"
    r = host.invoke("-o", "yaml", "create", "b", "--mem", "1G", "--core", "5")
    assert yaml.safe_load(r.stdout)[attr] == default  # the default: not in the line
    assert host.kernel.writes[-1] == ("class/qgpu/gpu0/create", "b mem=1G core=5 class=online")


@pytest.mark.parametrize("flag", ["--managed", "--dmabuf"])
def test_bad_allow_refuse_values_change_nothing(host: Host, flag: str) -> None:
    host.invoke("create", "a", "--mem", "4G", "--core", "30")
    host.kernel.writes.clear()
    for args in (
        ["set", "a", flag, "maybe"],
        ["set", "a", "--mem", "8G", flag, ""],
        ["create", "b", "--mem", "1G", "--core", "5", flag, "1"],
    ):
        r = host.invoke(*args)
        assert r.exit_code == EXIT_USAGE, args
        assert flag in one_line(r.stderr)
    assert host.kernel.writes == []


def test_create_whose_managed_write_is_refused_leaves_nothing(host: Host) -> None:
    # A module before create_keys: managed is written after create. It has no dmabuf knob
    # either and forwards every dma-buf, which the instance must accept (--dmabuf allow).
    host.kernel.set_create_keys(0, None)
    host.kernel.fail_next("instances/a/managed", errno.EIO)
    r = host.invoke(
        "create", "a", "--mem", "4G", "--core", "30", "--managed", "refuse", "--dmabuf", "allow"
    )
    assert r.exit_code == EXIT_KERNEL
    line = one_line(r.stderr)
    assert "managed: writing 'refuse'" in line and "(EIO)" in line
    assert "a was removed again; nothing was changed" in line
    assert json.loads(host.invoke("-o", "json", "list").stdout) == []
    assert not (host.dev / "qgpu" / "a").exists()


def test_create_refusing_dmabuf_on_a_module_without_the_key(host: Host) -> None:
    # A module whose create lists managed but not dmabuf: it has no dmabuf knob and forwards.
    host.kernel.set_create_keys(0, "mem core class managed")
    before = fs_snapshot(host.kernel.root)
    create = ("create", "a", "--mem", "4G", "--core", "30", "--gpu", "0")
    r = host.invoke(*create)
    assert r.exit_code == EXIT_KERNEL
    line = one_line(r.stderr)
    assert "instances/a/dmabuf: writing 'refuse'" in line
    assert "cannot refuse dma-buf exports" in line and "'dmabuf' key" in line
    assert "--dmabuf allow" in line and "load a qgpu module that has the knob" in line
    assert line.endswith("nothing was created")
    assert fs_snapshot(host.kernel.root) == before and host.kernel.writes == []
    # allow is what such a module does anyway: created, without the knob.
    r = host.invoke("-o", "json", *create, "--dmabuf", "allow")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["dmabuf"] is None
    assert host.kernel.writes == [("class/qgpu/gpu0/create", "a mem=4G core=30 class=online")]
    assert "dmabuf:       -" in host.invoke("show", "a").stdout
    r = host.invoke("set", "a", "--dmabuf", "refuse")
    assert r.exit_code == EXIT_KERNEL
    line = one_line(r.stderr)
    assert "dmabuf" in line and "does not have it" in line and "nothing was changed" in line


def test_set_is_all_or_nothing(host: Host) -> None:
    host.invoke("create", "a", "--mem", "4G", "--core", "30")
    host.kernel.use("a", mem_current=3 * GIB)
    r = host.invoke("set", "a", "--core", "50", "--mem", "2G")  # mem first: EBUSY
    assert r.exit_code == EXIT_KERNEL and "EBUSY" in one_line(r.stderr)
    host.kernel.fail_next("a/core", errno.EINVAL)
    r = host.invoke("set", "a", "--mem", "6G", "--core", "50")
    assert r.exit_code == EXIT_KERNEL
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["mem"], data["core"]) == ("4G", 30)  # the mem write was rolled back
    host.kernel.fail_next("a/managed", errno.EINVAL)
    r = host.invoke("set", "a", "--core", "50", "--managed", "refuse")  # managed is written last
    assert r.exit_code == EXIT_KERNEL and "managed" in one_line(r.stderr)
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["core"], data["managed"]) == (30, "allow")  # the core write was rolled back
    host.kernel.fail_next("a/dmabuf", errno.EINVAL)
    r = host.invoke("set", "a", "--managed", "refuse", "--dmabuf", "allow")  # dmabuf last
    assert r.exit_code == EXIT_KERNEL and "dmabuf" in one_line(r.stderr)
    data = json.loads(host.invoke("show", "a", "-o", "json").stdout)
    assert (data["managed"], data["dmabuf"]) == ("allow", "refuse")  # managed rolled back


def test_policy_show_and_set(host: Host) -> None:
    host.invoke("create", "a", "--mem", "1G", "--core", "60", "--gpu", "0")
    host.invoke("create", "b", "--mem", "1G", "--core", "60", "--gpu", "0")
    r = host.invoke("policy", "set", "0", "fixed-share")
    assert r.exit_code == EXIT_USAGE and "120%" in one_line(r.stderr)
    r = host.invoke(
        "-o", "json", "policy", "set", "1", "burst-share", "--timeslice-us", "500",
        "--period-us", "20000",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout) == [
        {
            "gpu": 1,
            "policy": "burst-share",
            "timeslice_us": 500,
            "period_us": 20000,
            "overcommit": False,
            "unknown_escapes": "refuse",
            "core_guaranteed": 0,
        }
    ]
    r = host.invoke("policy", "show", "0")
    assert r.stdout.splitlines()[1].split() == [
        "0", "best-effort", "1024", "10000", "no", "refuse", "120%",
    ]  # fmt: skip
    # out of range: refused before anything is written
    r = host.invoke("policy", "set", "1", "best-effort", "--period-us", "999")
    assert r.exit_code == EXIT_USAGE
    assert host.kernel._get(host.kernel._gpu(1) / "policy") == "burst-share"


POLICY = """\
version: v1
gpus:
  - selector: {index: 0}
    policy: fixed-share
    instances:
      - {name: a, mem: 4G, core: 30}
"""


def test_apply_assert_export_validate(host: Host, tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(tmp_path, "p.yaml")
    with open(path, "w") as f:
        f.write(POLICY)
    r = host.invoke("validate", "-f", path)
    assert r.stdout == f"{path}: valid (1 GPU entries, 1 instances)\n"
    r = host.invoke("assert", "-f", path)
    assert r.exit_code == EXIT_ASSERT_FAILED
    assert "2 changes needed (-v shows them)" in one_line(r.stderr)
    r = host.invoke("apply", "-f", path)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.endswith(f"applied 2 changes from {path}\n")
    assert "step 2/2: create a on GPU 0" in r.stderr
    r = host.invoke("apply", "-f", path)
    assert r.stdout == f"nothing to do: the GPUs match {path}\n"
    r = host.invoke("assert", "-f", path)
    assert r.exit_code == 0 and r.stdout == f"the GPUs match {path}\n"
    # An unlisted instance: apply keeps it, assert fails unless --allow-unlisted.
    host.invoke("create", "extra", "--mem", "1G", "--core", "5", "--gpu", "0")
    r = host.invoke("apply", "-f", path)
    assert "note: GPU 0: extra: not in the file; kept" in r.stdout
    assert host.invoke("assert", "-f", path).exit_code == EXIT_ASSERT_FAILED
    assert host.invoke("assert", "-f", path, "--allow-unlisted").exit_code == 0
    r = host.invoke("assert", "-f", path, "-v")
    assert "delete" in r.stdout and "extra" in r.stdout
    # export parses back and asserts clean (the GPU-1 entry too).
    exported = host.invoke("export").stdout
    r = host.invoke("assert", "-f", "-", input=exported)
    assert r.exit_code == 0, r.stderr
    assert json.loads(host.invoke("export", "-o", "json").stdout)["version"] == "v1"


def test_policy_file_from_environment(
    host: Host, monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike[str]
) -> None:
    path = os.path.join(tmp_path, "p.yaml")
    with open(path, "w") as f:
        f.write(POLICY)
    monkeypatch.setenv("QGPU_POLICY_FILE", path)
    assert host.invoke("validate").exit_code == 0


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            "version: v1\ngpus:\n- selector: {index: 0}\n  instances:\n"
            "  - {name: a, mem: 4G, cores: 3}\n",
            "gpus[0].instances[0].cores: unknown key",
        ),
        (
            "version: v1\ngpus:\n- selector: {index: 5}\n  instances: []\n",
            "gpus[0].selector: index 5",
        ),
    ],
)
def test_policy_errors_are_one_line_exit_2(host: Host, text: str, needle: str) -> None:
    r = host.invoke("apply", "-f", "-", input=text)
    assert r.exit_code == EXIT_USAGE
    assert needle in one_line(r.stderr)


def test_missing_policy_file(host: Host) -> None:
    r = host.invoke("validate", "-f", "/nonexistent.yaml")
    assert r.exit_code == EXIT_USAGE and "cannot read /nonexistent.yaml" in one_line(r.stderr)


def test_status_shows_usage_and_older_module_dashes(host: Host) -> None:
    host.invoke("create", "a", "--mem", "4G", "--core", "30")
    host.kernel.use("a", mem_current=GIB, share=12.5, processes=[(7, "vllm")], channels=24)
    host.kernel.remove_attr("class/qgpu/gpu0/utilization")  # an older module
    host.kernel.remove_attr("class/qgpu/gpu0/instances/a/preemptions")
    r = host.invoke("status")
    assert r.exit_code == 0, r.stderr
    gpu0 = r.stdout.splitlines()[2].split()
    assert gpu0[:3] == ["0", "best-effort", "-"]
    inst = [line for line in r.stdout.splitlines() if line.startswith("a ")][0].split()
    assert inst == ["a", "0", "online", "1G/4G", "24/max", "12.5%/30%", "-", "0", "7:vllm"]
    data = json.loads(host.invoke("status", "-o", "json").stdout)
    assert data["gpus"][0]["utilization"] is None
    assert data["instances"][0]["share_achieved"] == 12.5
    assert (data["instances"][0]["channels"], data["instances"][0]["channels_max"]) == (24, "max")
    # a module without the knob: no channels column value
    host.kernel.remove_attr("class/qgpu/gpu0/instances/a/channels_max")
    inst = [line for line in host.invoke("status").stdout.splitlines() if line.startswith("a ")]
    assert inst[0].split()[4] == "-"


def test_top_runs_a_bounded_number_of_frames(host: Host) -> None:
    r = host.invoke("top", "--iterations", "2", "--interval", "0.1")
    assert r.exit_code == 0, r.stderr
    assert "GPUs" in r.stdout and "Instances" in r.stdout


def test_events_from_a_recording(host: Host) -> None:
    host.recorded_events = [
        encode_event(QgpuEvent("instance_create", gpu=0, instance="a", timestamp_ns=1_000_000_000))
        + encode_event(
            QgpuEvent("oom", gpu=0, instance="a", pid=42, size=GIB, timestamp_ns=2_500_000_000)
        ),
        encode_event(QgpuEvent("preempt", gpu=1, instance="b", detail="by online c")),
    ]
    r = host.invoke("events")
    assert r.stdout.splitlines() == [
        "1.000000 instance_create gpu=0 instance=a",
        "2.500000 oom             gpu=0 instance=a pid=42 size=1G",
        "- preempt         gpu=1 instance=b detail='by online c'",
    ]
    r = host.invoke("events", "-o", "json", "--instance", "a", "--count", "1")
    lines = r.stdout.splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["event"] == "instance_create"


def test_cdi_generate_golden_and_file(host: Host) -> None:
    for name, gpu in (("infer-a", "0"), ("batch-1", "1")):
        host.invoke("create", name, "--mem", "1G", "--core", "5", "--gpu", gpu)
    ctx = host.context()
    ctx.dev = DevTree(host.dev)
    golden_ctx = AppContext(sysfs=host.kernel, dev=DevTree(DevTree().root), host=ctx.host)
    from typer.testing import CliRunner

    r = CliRunner().invoke(app, ["cdi", "generate"], obj=golden_ctx)
    assert r.exit_code == 0, r.stderr
    check_golden("cdi.yaml", r.stdout)
    r = CliRunner().invoke(app, ["-o", "json", "cdi", "generate"], obj=golden_ctx)
    check_golden("cdi.json", r.stdout)
    target = host.files / "etc/cdi/qgpu.json"
    r = host.invoke("cdi", "generate", "--file", str(target))
    assert r.exit_code == 0 and r.stdout == f"wrote {target}: 2 devices of kind qgpu.io/vgpu\n"
    assert json.loads(target.read_text())["kind"] == "qgpu.io/vgpu"
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["qgpu.json"]  # no temp file left
    r = host.invoke("cdi", "generate", "--file", str(target), "-o", "yaml")
    assert "whose name says json" in r.stderr
    assert yaml.safe_load(target.read_text())["cdiVersion"] == "0.6.0"
    r = host.invoke("cdi", "generate", "-o", "table")
    assert r.exit_code == EXIT_USAGE


def test_cdi_generate_without_instances_removes_the_file(host: Host) -> None:
    target = host.files / "etc/cdi/qgpu.yaml"
    target.parent.mkdir(parents=True)
    target.write_text("stale")
    r = host.invoke("cdi", "generate", "--file", str(target))
    assert r.exit_code == 0 and "removed" in r.stdout and not target.exists()


def test_doctor_on_a_healthy_fake_host(host: Host) -> None:
    host.invoke("create", "a", "--mem", "1G", "--core", "5", "--sysmem", "256M")
    (host.files / "etc/udev/rules.d").mkdir(parents=True)
    (host.files / "etc/udev/rules.d/70-qgpu.rules").write_text("")
    r = host.invoke("-o", "json", "doctor")
    status = {row["check"]: row["status"] for row in json.loads(r.stdout)}
    assert status["CDI spec current"] == "warn"
    host.invoke("cdi", "generate", "--file", str(host.files / "etc/cdi/qgpu.yaml"))
    r = host.invoke("-o", "json", "doctor")
    assert r.exit_code == 0, r.stdout
    assert {row["status"] for row in json.loads(r.stdout)} == {"ok"}
    # A new instance makes the spec stale; a missing node fails too.
    host.invoke("create", "b", "--mem", "1G", "--core", "5")
    (host.dev / "qgpu/a/nvidia0").unlink()
    r = host.invoke("-o", "json", "doctor")
    assert r.exit_code == EXIT_KERNEL
    status = {row["check"]: row["status"] for row in json.loads(r.stdout)}
    assert status["CDI spec current"] == "fail" and status["instance device nodes"] == "fail"


def test_doctor_names_instances_that_allow_dmabuf_exports(host: Host) -> None:
    def row() -> dict[str, str]:
        rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
        return next(r for r in rows if r["check"] == "dma-buf exports refused")

    assert (row()["status"], row()["detail"]) == ("ok", "no instances")
    host.invoke("create", "a", "--mem", "1G", "--core", "5")
    host.invoke("create", "b", "--mem", "1G", "--core", "5")
    assert (row()["status"], row()["detail"]) == ("ok", "refused on all 2 instances")
    assert host.invoke("set", "b", "--dmabuf", "allow").exit_code == 0
    warned = row()
    assert warned["status"] == "warn"
    assert "allowed on b:" in warned["detail"] and "trusted tenants only" in warned["detail"]


def doctor_row_with_status(host: Host, status: str | None, check: str) -> dict[str, str]:
    """Doctor's row `check` with /proc/qgpu/status reading `status` (None: no such file)."""
    path = host.files / "proc/qgpu/status"
    if status is None:
        path.unlink()
    else:
        path.write_text(status)
    r = host.invoke("-o", "json", "doctor")
    assert r.exit_code == 0, r.stdout  # a warning, not a failure
    row: dict[str, str] = next(r for r in json.loads(r.stdout) if r["check"] == check)
    return row


@pytest.mark.parametrize(
    ("status", "want", "says"),
    [
        ("qgpu 0.1.0\nrm_client: nvsim_get_rm_ops\n", "ok", "through nvsim_get_rm_ops"),
        ("qgpu 0.1.0\nrm_client: -\ngpus: 1\n", "warn", "exceed its memory limit"),
        ("qgpu 0.1.0\ngpus: 1\n", "warn", "no rm_client line"),
        (None, "warn", "cannot read /proc/qgpu/status"),
    ],
)
def test_doctor_warns_without_a_kernel_rm_client(
    host: Host, status: str | None, want: str, says: str
) -> None:
    row = doctor_row_with_status(host, status, "kernel RM client")
    assert row["status"] == want and says in row["detail"], row


@pytest.mark.parametrize(
    ("status", "want", "says"),
    [
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
            "seal_fd: nvidia:nv_get_file_private (0 missed, 3 lent)\n"
            "seal_uvm_fd: fget (0 missed, 1 lent)\n"
            "seal_gpu: nvidia:nv_is_gpu_accessible (0 missed, 2 answered)\n"
            "seal_attach: nvidia:nvidia_dev_get (0 missed, 1 refused)\n",
            "ok",
            "probes on nvidia:rm_ioctl, nvidia_uvm:uvm_api_*, nvidia:os_memcpy_from_user,"
            " nvidia:nv_get_file_private, fget, nvidia:nv_is_gpu_accessible and"
            " nvidia:nvidia_dev_get",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
            "seal_fd: nvidia:nv_get_file_private (0 missed, 3 lent)\n"
            "seal_uvm_fd: fget (0 missed, 1 lent)\n"
            "seal_gpu: nvidia:nv_is_gpu_accessible (0 missed, 2 answered)\n"
            "seal_attach: - (0 missed, 0 refused)\n",
            "warn",
            "ATTACH_GPUS_TO_FD is not sealed",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
            "seal_fd: nvidia:nv_get_file_private (0 missed, 3 lent)\n"
            "seal_uvm_fd: fget (0 missed, 1 lent)\n"
            "seal_gpu: nvidia:nv_is_gpu_accessible (0 missed, 2 answered)\n"
            "seal_attach: nvidia:nvidia_dev_get (4 missed, 0 refused)\n",
            "warn",
            "4 ATTACH_GPUS_TO_FD calls succeeded without entering nvidia_dev_get",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
            "seal_fd: nvidia:nv_get_file_private (0 missed, 3 lent)\n"
            "seal_uvm_fd: - (0 missed, 0 lent)\n"
            "seal_gpu: nvidia:nv_is_gpu_accessible (0 missed, 2 answered)\n"
            "seal_attach: nvidia:nvidia_dev_get (0 missed, 0 refused)\n",
            "warn",
            "UVM fd arguments are not lent",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
            "seal_fd: nvidia:nv_get_file_private (0 missed, 3 lent)\n"
            "seal_uvm_fd: fget (0 missed, 1 lent)\n"
            "seal_gpu: - (0 missed, 0 answered)\n",
            "warn",
            "GPU-file check is not answered",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n"
            "seal_fd: nvidia:nv_get_file_private (0 missed, 3 lent)\n"
            "seal_uvm_fd: fget (0 missed, 1 lent)\n",
            "warn",
            "GPU-file check is not answered",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\nseal_fd: - (0 missed, 0 lent)\n",
            "warn",
            "fd arguments are not lent",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\nseal_params: - (0 missed)\n",
            "warn",
            "can name another tenant's RM client",
        ),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n"
            "seal_uvm: nvidia_uvm:uvm_api_* (0 missed)\n"
            "seal_params: nvidia:os_memcpy_from_user (0 missed)\n",
            "warn",
            "fd arguments are not lent",
        ),
        ("qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\n", "warn", "UVM calls are not sealed"),
        (
            "qgpu 0.1.0\nseal: nvidia:rm_ioctl (0 missed)\nseal_uvm: - (0 missed)\n",
            "warn",
            "UVM calls are not sealed",
        ),
        ("qgpu 0.1.0\nseal: - (0 missed)\ngpus: 1\n", "warn", "exceed its memory limit"),
        ("qgpu 0.1.0\nseal: nvsim:rm_ioctl (3 missed)\n", "warn", "3 calls missed it"),
        ("qgpu 0.1.0\ngpus: 1\n", "warn", "no seal line"),
        (None, "warn", "cannot read /proc/qgpu/status"),
    ],
)
def test_doctor_warns_without_sealed_forwarding(
    host: Host, status: str | None, want: str, says: str
) -> None:
    row = doctor_row_with_status(host, status, "sealed forwarding")
    assert row["status"] == want and says in row["detail"], row


def test_doctor_reports_unsupported_and_unknown_driver(host: Host) -> None:
    host.kernel.add_gpu(2, driver="999.1", supported=False)
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "backend driver supported")
    assert row["status"] == "fail" and "999.1" in row["detail"]
    host.kernel.remove_attr("class/qgpu/gpu2/driver_supported")
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "backend driver supported")
    assert row["status"] == "warn"


def test_doctor_warns_when_gpu_memory_is_a_numa_node(host: Host) -> None:
    host.kernel.add_gpu(2)
    host.kernel.add_gpu(3)
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "GPU memory as NUMA node")
    assert row["status"] == "ok" and "none" in row["detail"], row
    (host.kernel.root / "class/qgpu/gpu3/numa_node").write_text("5\n")
    (host.kernel.root / "class/qgpu/gpu2/numa_node").write_text("unknown\n")
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "GPU memory as NUMA node")
    assert row["status"] == "warn" and "GPU 3: node 5" in row["detail"], row
    assert "cpuset.mems" in row["detail"] and "GPU 2" not in row["detail"], row
    (host.kernel.root / "class/qgpu/gpu3/numa_node").unlink()  # an older module
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "GPU memory as NUMA node")
    assert row["status"] == "ok" and "not reported" in row["detail"], row


def test_doctor_warns_when_gp_get_is_not_written_back(host: Host) -> None:
    host.kernel.add_gpu(2)
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "channel progress")
    assert row["status"] == "ok" and "controls effective, GP_GET unknown" in row["detail"], row
    (host.kernel.root / "class/qgpu/gpu2/gp_get").write_text("still\n")
    rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
    row = next(r for r in rows if r["check"] == "channel progress")
    assert row["status"] == "warn" and "not written back" in row["detail"], row


def test_doctor_says_what_fixed_share_switching_costs(host: Host) -> None:
    host.kernel.add_gpu(2)

    def row() -> dict[str, str]:
        rows = json.loads(host.invoke("-o", "json", "doctor").stdout)
        return next(r for r in rows if r["check"] == "scheduling controls' cost")

    assert row()["status"] == "ok" and "GPU 2: no control call yet" in row()["detail"]
    gpu = host.kernel.root / "class/qgpu/gpu2"
    (gpu / "control_us").write_text("450\n")
    assert row()["status"] == "ok" and "GPU 2: 450 us a call" in row()["detail"]
    # fixed-share at 10 ms: a switch (two calls) a period is 9 % of a CPU
    (gpu / "policy").write_text("fixed-share\n")
    r = row()
    assert r["status"] == "warn" and "about 9 % of a CPU" in r["detail"], r
    assert "qgpuctl policy set 2 fixed-share --period-us 40000" in r["detail"], r
    assert "2.2 %" in r["detail"], r
    (gpu / "period_us").write_text("50000\n")
    assert row()["status"] == "ok"
    (gpu / "control_us").unlink()  # an older module
    assert row()["status"] == "ok" and "GPU 2: not reported" in row()["detail"]


def test_commands_without_the_module_exit_3(tmp_path: os.PathLike[str]) -> None:
    from typer.testing import CliRunner

    for args in (["gpus"], ["list"], ["status"], ["export"]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == EXIT_KERNEL, args
        assert "is the qgpu module loaded?" in one_line(r.stderr)
