"""Options shared by several commands, declared once so they read the same everywhere."""

from __future__ import annotations

from typing import Annotated

import typer

from qgpuctl.render import OutputFormat

OUTPUT_HELP = "Output format: table for people, json or yaml for scripts."

# Per-command -o: lets `qgpuctl doctor -o json` work as well as
# `qgpuctl -o json doctor`; None means "use the global option".
OutputOverride = Annotated[
    OutputFormat | None,
    typer.Option("-o", "--output", help=OUTPUT_HELP, case_sensitive=False, show_default=False),
]
