"""Where errors become exit codes and one-line messages: the root command group.

Doing it in the group (not only in ``main()``) means the console script,
``python -m qgpuctl`` and tests driving the app through typer's CliRunner all
get the same exit codes and the same one-line stderr messages.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

from qgpuctl.cli.context import AppContext
from qgpuctl.errors import EXIT_ASSERT_FAILED, QgpuError
from qgpuctl.render import print_error


def _debug_enabled(ctx: Any) -> bool:
    obj = getattr(ctx, "obj", None)
    return isinstance(obj, AppContext) and obj.debug


class QgpuGroup(TyperGroup):
    """A TyperGroup whose failures are one red line on stderr and a documented exit code."""

    # ctx is click's Context, which typer no longer exports publicly; Any keeps
    # the override compatible with the base signature without a private import.
    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, typer.TyperException):
            raise  # typer's own control flow and usage errors: handled in main()
        except QgpuError as exc:
            self._report(exc, str(exc), debug=_debug_enabled(ctx))
            raise typer.Exit(exc.exit_code) from None
        except Exception as exc:
            message = f"unexpected {type(exc).__name__}: {exc}"
            if not _debug_enabled(ctx):
                message += " (rerun with --debug for a traceback)"
            self._report(exc, message, debug=_debug_enabled(ctx))
            raise typer.Exit(EXIT_ASSERT_FAILED) from None

    @staticmethod
    def _report(exc: BaseException, message: str, *, debug: bool) -> None:
        if debug:
            traceback.print_exception(exc, file=sys.stderr)
        print_error(message, sys.stderr)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        """Run the CLI; usage errors become one line instead of typer's usage panel.

        A bare ``qgpuctl`` is left to typer so it prints the help, and callers
        embedding the group with ``standalone_mode=False`` get exceptions as is.
        """
        argv = list(sys.argv[1:] if args is None else args)
        if not standalone_mode or (not argv and self.no_args_is_help):
            return super().main(
                argv, prog_name, complete_var, standalone_mode, windows_expand_args, **extra
            )
        try:
            rv = super().main(argv, prog_name, complete_var, False, windows_expand_args, **extra)
        except typer.Abort:
            print_error("aborted", sys.stderr)
            sys.exit(EXIT_ASSERT_FAILED)
        except typer.TyperException as exc:
            # Usage errors (bad option value, unknown command): exit_code 2.
            print_error(exc.format_message(), sys.stderr)
            sys.exit(exc.exit_code)
        # Not standalone, typer returns the code of a typer.Exit, or the
        # command's return value, which is None for every qgpuctl command.
        sys.exit(rv if isinstance(rv, int) and not isinstance(rv, bool) else 0)
