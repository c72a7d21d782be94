"""``graphmem reindex``: re-embed a store with the configured model (resumable)."""

from __future__ import annotations

import json

import click
from tqdm import tqdm

from graphmem.cli.context import CliContext, pass_cli, store_line


@click.command("reindex")
@click.option("--batch-size", default=64, show_default=True, type=click.IntRange(1, 1000))
@click.option("--force", is_flag=True, help="Re-embed even when the store already records the configured model.")
@click.option("--progress/--no-progress", default=True, show_default=True)
@pass_cli
def reindex(cli: CliContext, batch_size: int, force: bool, progress: bool) -> None:
    """Re-embed every memory with the configured [model], in batches; an interrupted run
    resumes where it stopped. Needed after changing [model] on an existing store."""
    from graphmem.engine import Graphmem

    settings = cli.settings()
    engine = Graphmem.open(settings, reindexing=True)
    click.echo(f"graphmem: {store_line(settings, cli.data_dir_from(settings))}", err=True)
    try:
        total = sum(engine.stats(ns).memories for ns in engine.store.namespaces())
        with tqdm(total=total, unit="mem", desc="reindex", disable=not progress) as bar:
            result = engine.reindex(batch_size, progress=bar.update, force=force)
    finally:
        engine.close()
    click.echo(json.dumps(result))
