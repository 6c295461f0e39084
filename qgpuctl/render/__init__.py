"""Everything that turns data into text; the only package that imports rich.

Commands hand rows to these functions with an explicit file, so tests capture
exactly what an operator or a script would see, and the choice of terminal
library stays a detail of this package.
"""

from qgpuctl.render.output import (
    OutputFormat,
    console_for,
    print_error,
    render_data,
    render_fields,
    render_sections,
    render_table,
)

__all__ = [
    "OutputFormat",
    "console_for",
    "print_error",
    "render_data",
    "render_fields",
    "render_sections",
    "render_table",
]
