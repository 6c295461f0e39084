"""Typer commands: parse arguments, call core/ and backends/, render, map errors to exit codes."""
