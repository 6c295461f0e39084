"""The policy file: strict parsing, path-named errors, round trips, the shipped examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from qgpuctl.core.policy import Selector, dump_policy_yaml, load_policy, parse_policy
from qgpuctl.errors import EXIT_USAGE, PolicyError

GIB = 2**30
POLICIES_DIR = Path(__file__).resolve().parents[2] / "policies"

GOOD = """\
version: v1
gpus:
  - selector: {index: 0}
    policy: burst-share
    timeslice_us: 1024
    instances:
      - {name: infer-a, mem: 4G, core: 30, class: online, managed: refuse, dmabuf: refuse}
      - {name: batch-1, mem: 8589934592, core: 20, class: offline, managed: allow, dmabuf: allow}
  - selector: {uuid: GPU-abc}
    overcommit: true
    unknown_escapes: allow
    instances:
      - {name: big, mem: max, core: 100}
"""


def test_parse_good_file() -> None:
    policy = load_policy(GOOD)
    first, second = policy.gpus
    assert first.selector == Selector(index=0)
    assert first.policy == "burst-share" and first.timeslice_us == 1024
    assert first.overcommit is None and first.unknown_escapes is None
    assert [(i.name, i.mem, i.core, i.klass, i.managed, i.dmabuf) for i in first.instances] == [
        ("infer-a", 4 * GIB, 30, "online", "refuse", "refuse"),
        ("batch-1", 8 * GIB, 20, "offline", "allow", "allow"),
    ]
    assert second.selector == Selector(uuid="GPU-abc")
    assert second.overcommit is True and second.policy is None
    assert second.instances[0].mem is None and second.instances[0].klass == "online"
    assert second.instances[0].managed == "allow"  # left out: the kernel's default
    assert second.instances[0].dmabuf == "refuse"  # left out: the kernel's default


def test_round_trip_through_yaml() -> None:
    policy = load_policy(GOOD)
    again = load_policy(dump_policy_yaml(policy))
    assert [(g.selector, g.policy, g.instances) for g in again.gpus] == [
        (g.selector, g.policy, g.instances) for g in policy.gpus
    ]
    # every instance key is written out, the defaults too
    assert "{name: big, mem: max, core: 100, class: online, managed: allow, dmabuf: refuse}" in (
        dump_policy_yaml(policy)
    )


def test_selector_all_and_placeholder() -> None:
    policy = load_policy(
        "version: v1\ngpus:\n- selector: all\n  instances:\n"
        "  - {name: 'infer-{gpu}', mem: 1G, core: 50}\n"
    )
    assert policy.gpus[0].selector.is_all
    assert policy.gpus[0].instances[0].expand(3) == "infer-3"


def _gpu(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"selector": {"index": 0}, "instances": []}
    base.update(fields)
    return base


def _inst(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {"name": "a", "mem": "1G", "core": 10}
    base.update(fields)
    return base


# One field wrong per case; the error must name exactly that field.
BAD: list[tuple[object, str, str]] = [
    (None, "", "empty"),
    ([], "(top level)", "expected a mapping"),
    ({"gpus": []}, "version", "required"),
    ({"version": "v2", "gpus": []}, "version", "unsupported version"),
    ({"version": 1, "gpus": []}, "version", "unsupported version"),
    ({"version": "v1", "gpus": {}}, "gpus", "expected a list"),
    ({"version": "v1", "gpus": [], "extra": 1}, "extra", "unknown key"),
    ({"version": "v1", "gpus": [_gpu(polcy="x")]}, "gpus[0].polcy", "unknown key"),
    ({"version": "v1", "gpus": [{"instances": []}]}, "gpus[0].selector", "required"),
    ({"version": "v1", "gpus": [_gpu(selector="first")]}, "gpus[0].selector", "expected all"),
    ({"version": "v1", "gpus": [_gpu(selector={"index": -1})]}, "gpus[0].selector.index", "range"),
    (
        {"version": "v1", "gpus": [_gpu(selector={"index": 0, "uuid": "x"})]},
        "gpus[0].selector",
        "exactly one",
    ),
    (
        {"version": "v1", "gpus": [_gpu(selector={"name": "x"})]},
        "gpus[0].selector.name",
        "unknown key",
    ),
    ({"version": "v1", "gpus": [_gpu(policy="fair")]}, "gpus[0].policy", "expected one of"),
    ({"version": "v1", "gpus": [_gpu(timeslice_us=0)]}, "gpus[0].timeslice_us", "range"),
    ({"version": "v1", "gpus": [_gpu(timeslice_us="1ms")]}, "gpus[0].timeslice_us", "integer"),
    ({"version": "v1", "gpus": [_gpu(period_us=999)]}, "gpus[0].period_us", "1000..1000000"),
    ({"version": "v1", "gpus": [_gpu(period_us=1000001)]}, "gpus[0].period_us", "range"),
    ({"version": "v1", "gpus": [_gpu(overcommit="yes")]}, "gpus[0].overcommit", "true or false"),
    (
        {"version": "v1", "gpus": [_gpu(unknown_escapes="maybe")]},
        "gpus[0].unknown_escapes",
        "one of",
    ),
    ({"version": "v1", "gpus": [_gpu(instances={})]}, "gpus[0].instances", "expected a list"),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(cores=5)])]},
        "gpus[0].instances[0].cores",
        "unknown key",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[{"name": "a", "core": 1}])]},
        "gpus[0].instances[0].mem",
        "required",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(name="Bad")])]},
        "gpus[0].instances[0].name",
        "invalid instance name",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(name="ends-")])]},
        "gpus[0].instances[0].name",
        "ending",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(name="x" * 33)])]},
        "gpus[0].instances[0].name",
        "1-32",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(name=7)])]},
        "gpus[0].instances[0].name",
        "string",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(mem="1.5G")])]},
        "gpus[0].instances[0].mem",
        "fraction",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(mem="4GB")])]},
        "gpus[0].instances[0].mem",
        "suffix",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(mem=True)])]},
        "gpus[0].instances[0].mem",
        "size",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(core=0)])]},
        "gpus[0].instances[0].core",
        "range",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(core=101)])]},
        "gpus[0].instances[0].core",
        "range",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(core="30%")])]},
        "gpus[0].instances[0].core",
        "integer",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(core=True)])]},
        "gpus[0].instances[0].core",
        "boolean",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(**{"class": "batch"})])]},
        "gpus[0].instances[0].class",
        "one of",
    ),
    *(
        (
            {"version": "v1", "gpus": [_gpu(instances=[_inst(**{key: value})])]},
            f"gpus[0].instances[0].{key}",
            needle,
        )
        for key in ("managed", "dmabuf")
        for value, needle in (
            ("deny", "expected one of allow, refuse, got str 'deny'"),
            (False, "got a boolean (false)"),
            ("Refuse", "one of allow, refuse"),
            ("ALLOW", "one of allow, refuse"),
        )
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(dmabufs="allow")])]},
        "gpus[0].instances[0].dmabufs",
        "unknown key (expected one of: name, mem, core, class, managed, dmabuf, channels, "
        "rm_objects, sysmem, mapped)",
    ),
    (
        {"version": "v1", "gpus": [_gpu(instances=[_inst(), _inst()])]},
        "gpus[0].instances[1].name",
        "also gpus[0].instances[0].name",
    ),
    (
        {
            "version": "v1",
            "gpus": [
                _gpu(policy="fixed-share", instances=[_inst(core=60), _inst(name="b", core=50)])
            ],
        },
        "gpus[0].instances",
        "110%",
    ),
    (
        {
            "version": "v1",
            "gpus": [_gpu(instances=[_inst()]), _gpu(selector={"index": 1}, instances=[_inst()])],
        },
        "gpus[1].instances[0].name",
        "unique across GPUs",
    ),
    (
        {"version": "v1", "gpus": [_gpu(), _gpu()]},
        "gpus[1].selector",
        "same GPU as gpus[0].selector",
    ),
    ({"version": "v1", "gpus": [_gpu(selector="all"), _gpu()]}, "gpus[0].selector", "only entry"),
]


@pytest.mark.parametrize(("data", "path", "needle"), BAD)
def test_errors_name_the_field(data: object, path: str, needle: str) -> None:
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert info.value.path == path
    assert needle in info.value.msg
    assert info.value.exit_code == EXIT_USAGE
    assert "\n" not in str(info.value)


def test_best_effort_allows_guarantees_over_100() -> None:
    data = {"version": "v1", "gpus": [_gpu(instances=[_inst(core=60), _inst(name="b", core=50)])]}
    assert len(parse_policy(data).gpus[0].instances) == 2


def test_duplicate_keys_are_refused() -> None:
    with pytest.raises(PolicyError, match="line 3: key 'policy' given twice"):
        load_policy(
            "version: v1\ngpus:\n- {selector: all, policy: best-effort, policy: fixed-share}\n"
        )


def test_bad_yaml_names_the_line() -> None:
    with pytest.raises(PolicyError, match=r"p.yaml: line 3: not valid YAML"):
        load_policy("version: v1\ngpus: [\n", "p.yaml")


@pytest.mark.parametrize("path", sorted(POLICIES_DIR.glob("*.yaml")), ids=lambda p: Path(p).name)
def test_shipped_examples_are_valid(path: Path) -> None:
    policy = load_policy(path.read_text(), str(path))
    assert policy.gpus


def test_examples_exist() -> None:
    assert len(list(POLICIES_DIR.glob("*.yaml"))) >= 3
