"""Renderers: same rows, three formats, no colour when NO_COLOR is set."""

from __future__ import annotations

import io
import json

import pytest
import yaml

from qgpuctl.render import OutputFormat, console_for, print_error, render_table

ROWS = [
    {"name": "qgpu0", "mem": 4 * 2**30, "gpus": "[0,1]", "busy": True, "extra": "dropped"},
    {"name": "qgpu1", "mem": None, "gpus": "all", "busy": False},
]
COLUMNS = ["name", "mem", "gpus", "busy"]


def render(fmt: OutputFormat) -> str:
    out = io.StringIO()
    render_table(ROWS, COLUMNS, fmt, out)
    return out.getvalue()


def test_json_keeps_types_and_drops_unlisted_columns() -> None:
    data = json.loads(render(OutputFormat.JSON))
    assert data == [
        {"name": "qgpu0", "mem": 4 * 2**30, "gpus": "[0,1]", "busy": True},
        {"name": "qgpu1", "mem": None, "gpus": "all", "busy": False},
    ]


def test_yaml_matches_json() -> None:
    assert yaml.safe_load(render(OutputFormat.YAML)) == json.loads(render(OutputFormat.JSON))


def test_yaml_keeps_column_order() -> None:
    first = render(OutputFormat.YAML).splitlines()[:4]
    assert [line.strip("- ").split(":")[0] for line in first] == COLUMNS


def test_table_is_plain_text_with_verbatim_values() -> None:
    text = render(OutputFormat.TABLE)
    lines = text.splitlines()
    assert lines[0].split() == ["NAME", "MEM", "GPUS", "BUSY"]
    assert lines[1].split() == ["qgpu0", str(4 * 2**30), "[0,1]", "yes"]
    assert lines[2].split() == ["qgpu1", "-", "all", "no"]
    assert "\x1b[" not in text


def test_status_colour_only_without_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv("FORCE_COLOR", "1")
    out = io.StringIO()
    render_table([{"status": "fail"}], ["status"], OutputFormat.TABLE, out)
    assert "\x1b[" in out.getvalue() and "31" in out.getvalue()
    # Nothing but the colour changes under NO_COLOR.
    monkeypatch.setenv("NO_COLOR", "1")
    plain = io.StringIO()
    render_table([{"status": "fail"}], ["status"], OutputFormat.TABLE, plain)
    assert "31m" not in plain.getvalue()


def test_console_width_is_pinned() -> None:
    assert console_for(io.StringIO()).width == 100


def test_print_error_is_one_line() -> None:
    err = io.StringIO()
    print_error("first\n  second " + "x" * 300, err)
    text = err.getvalue()
    assert text.count("\n") == 1
    assert text.startswith("qgpuctl: error: first second x")
