"""``graphmem check``, ``graphmem backup`` and ``graphmem restore``: thin over the engine's operations."""

from __future__ import annotations

import contextlib
import json
import sys

import click

from graphmem.cli.context import CliContext, pass_cli
from graphmem.errors import GraphmemError


def _fail(exc: GraphmemError) -> None:
    raise click.ClickException(f"{exc.code}: {exc.message}" + (f" (field: {exc.field})" if exc.field else ""))


@click.command()
@click.option("--namespace", "-n", "namespaces", multiple=True, help="Check only this namespace (repeatable).")
@click.option("--repair", is_flag=True, help="Fix what can be derived (indexes, counts, dangling/over-cap edges).")
@pass_cli
def check(cli: CliContext, namespaces, repair) -> None:
    """Verify the store's invariants; exit 1 when a problem remains."""
    try:
        report = cli.engine().check(list(namespaces) or None, repair)
    except GraphmemError as exc:
        _fail(exc)
    click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    if any(not p["repaired"] for p in report["problems"]):
        sys.exit(1)


@click.command()
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Destination file ('-' for stdout, jsonl only).")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "sqlite"]), default="jsonl", show_default=True,
              help="jsonl: portable dump (either store, restorable into either); sqlite: online copy of "
                   "the embedded database file.")
@click.option("--namespace", "-n", "namespaces", multiple=True, help="Dump only this namespace (repeatable).")
@pass_cli
def backup(cli: CliContext, output, fmt, namespaces) -> None:
    """Back up the store while it stays in use."""
    engine = cli.engine()
    try:
        if fmt == "sqlite":
            click.echo(f"backed up the embedded store to {engine.backup_file(output)}", err=True)
            return
        with (contextlib.nullcontext(sys.stdout) if output == "-" else open(output, "x", encoding="utf-8")) as out:
            counts = engine.dump(out, list(namespaces) or None)
    except GraphmemError as exc:
        _fail(exc)
    except OSError as exc:
        raise click.ClickException(f"cannot write {output}: {exc}") from exc
    click.echo(f"dumped {counts['memories']} memories and {counts['edges']} edges to {output}", err=True)


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@pass_cli
def restore(cli: CliContext, path) -> None:
    """Restore a JSONL dump into the configured store (its namespaces must be empty there)."""
    try:
        with (contextlib.nullcontext(sys.stdin) if path == "-" else open(path, encoding="utf-8")) as lines:
            counts = cli.engine().restore(lines)
    except GraphmemError as exc:
        _fail(exc)
    click.echo(f"restored {counts['memories']} memories and {counts['edges']} edges", err=True)


def register(group: click.Group) -> None:
    for command in (check, backup, restore):
        group.add_command(command)
