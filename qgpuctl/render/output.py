"""Tables for people, JSON and YAML for scripts, from the same rows.

Data always goes to the file the caller passes (stdout for command results);
diagnostics go to stderr through :func:`print_error`, so ``qgpuctl ... -o json |
jq`` never sees a warning mixed into its input.

rich and yaml are imported by the functions that use them: every command imports this
module, most print only one of the formats, and each library costs a command's start-up
half a second or more in the test VM's emulation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

Row = Mapping[str, Any]

# Only cells of a column named "status" are coloured: colour carries the
# verdict, never the data.
_STATUS_STYLES: Mapping[str, str] = {"ok": "green", "fail": "bold red", "warn": "yellow"}


class OutputFormat(StrEnum):
    """Values of ``-o/--output``."""

    TABLE = "table"
    JSON = "json"
    YAML = "yaml"


def console_for(file: TextIO) -> Console:
    """A rich console writing to ``file`` that behaves the same on a terminal and in a test.

    ``NO_COLOR`` (https://no-color.org) is read at call time rather than when
    rich is imported, so a test or wrapper can set it late. Width comes from
    ``COLUMNS`` when set (rich's own rule), which is how tests pin it.
    Highlighting and markup are off: values such as ``[0,1]`` or UUIDs are
    data and must print verbatim.
    """
    from rich.console import Console

    return Console(
        file=file,
        no_color=bool(os.environ.get("NO_COLOR")),
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
    )


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _header(column: str) -> str:
    return column.replace("_", " ").upper()


def _yaml_document(data: Any) -> str:
    import yaml

    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False)


def _table(columns: Sequence[str]) -> Table:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for column in columns:
        table.add_column(_header(column), overflow="fold")
    return table


def render_table(
    rows: Sequence[Row],
    columns: Sequence[str],
    fmt: OutputFormat,
    file: TextIO,
) -> None:
    """Print ``rows`` restricted to ``columns`` (in that order) in format ``fmt``.

    JSON and YAML get the raw values (numbers stay numbers, None stays null);
    only the table turns them into display text.
    """
    data = [{column: row.get(column) for column in columns} for row in rows]
    if fmt is OutputFormat.JSON:
        file.write(json.dumps(data, indent=2) + "\n")
    elif fmt is OutputFormat.YAML:
        file.write(_yaml_document(data))
    else:
        from rich.text import Text

        table = _table(columns)
        for record in data:
            cells = []
            for column in columns:
                text = _cell(record[column])
                style = _STATUS_STYLES.get(text, "") if column == "status" else ""
                cells.append(Text(text, style=style))
            table.add_row(*cells)
        console_for(file).print(table)


def print_error(message: str, file: TextIO) -> None:
    """One red line on ``file`` (stderr): the whole user-facing form of an error."""
    from rich.text import Text

    line = " ".join(part.strip() for part in message.splitlines() if part.strip())
    console_for(file).print(Text(f"qgpuctl: error: {line}", style="red"), soft_wrap=True)


def render_data(data: Any, fmt: OutputFormat, file: TextIO) -> None:
    """A whole document for scripts: JSON (indented) or YAML in the written key order."""
    if fmt is OutputFormat.JSON:
        file.write(json.dumps(data, indent=2) + "\n")
    else:
        file.write(_yaml_document(data))


def render_sections(
    sections: Sequence[tuple[str, Sequence[Row], Sequence[str]]],
    data: Any,
    fmt: OutputFormat,
    file: TextIO,
) -> None:
    """Several titled tables for people, or ``data`` as one document for scripts."""
    if fmt is not OutputFormat.TABLE:
        render_data(data, fmt, file)
        return
    from rich.text import Text

    for n, (title, rows, columns) in enumerate(sections):
        if n:
            file.write("\n")
        if title:
            console_for(file).print(Text(title, style="bold"))
        if rows:
            render_table(rows, columns, fmt, file)
        else:
            file.write("(none)\n")


def render_fields(fields: Sequence[tuple[str, Any]], fmt: OutputFormat, file: TextIO) -> None:
    """One object: ``key: value`` lines for people, a mapping for scripts."""
    if fmt is not OutputFormat.TABLE:
        render_data(dict(fields), fmt, file)
        return
    from rich.text import Text

    width = max((len(key) for key, _ in fields), default=0)
    console = console_for(file)
    for key, value in fields:
        console.print(Text(f"{key + ':':<{width + 1}} {_cell(value)}"), soft_wrap=True)


def sections_renderable(sections: Sequence[tuple[str, Sequence[Row], Sequence[str]]]) -> Any:
    """The tables of :func:`render_sections` as one rich renderable (for ``top``)."""
    from rich.console import Group
    from rich.text import Text

    parts: list[Any] = []
    for title, rows, columns in sections:
        parts.append(Text(title, style="bold"))
        table = _table(columns)
        for row in rows:
            table.add_row(*(Text(_cell(row.get(column))) for column in columns))
        parts.append(table)
    return Group(*parts)
