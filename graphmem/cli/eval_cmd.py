"""``graphmem eval``: the retrieval ablation harness on the command line.

Thin on purpose: options become an ``EvalOptions``; ``graphmem.eval`` does the work, so the
tests and ``bench/tune_eval.py`` run exactly what this command runs.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click
from rich.console import Console

from graphmem.cli.context import CliContext, pass_cli


@click.command(name="eval")
@click.option("--memories", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Memories JSONL (the import format).")
@click.option("--queries", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Queries JSONL: id, text, relevant_ids or relevance {id: grade}, other fields.")
@click.option("--scope", help="Field naming each memory's (metadata) and query's namespace, e.g. conversation.")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="TOML whose [search] override and [recipes.*] run as extra configurations.")
@click.option("--recipe", "recipes", multiple=True,
              help="Configuration to run (repeatable; default: all built-in ablations + the file's).")
@click.option("--k", default=10, show_default=True, type=click.IntRange(1, 100))
@click.option("--depth", default=20, show_default=True, type=click.IntRange(1, 100),
              help="List length for the recall@k curve (searches return max(k, depth)).")
@click.option("--store", "store_kind", type=click.Choice(["sqlite", "neo4j"]),
              help="Store backend for the fresh eval store (default: the global --store, else sqlite).")
@click.option("--limit-queries", type=click.IntRange(1), help="Score only the first N queries.")
@click.option("--only", "only_namespaces", multiple=True, help="Keep only these scope values (repeatable).")
@click.option("--by", "by", multiple=True, help="Break metrics down by this query field (repeatable).")
@click.option("--thread-by", help="Field (top level or metadata) giving each memory its thread, e.g. category.")
@click.option("--seq-by", help="Field giving each memory its position in the thread, e.g. turn_index.")
@click.option("--store-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Keep the sqlite eval store here (default: a temp dir removed afterwards).")
@click.option("--embedding-cache", type=click.Path(dir_okay=False, path_type=Path),
              help="Embedding cache file (default: <graphmem cache>/eval-embedding-cache.sqlite).")
@click.option("--plots/--no-plots", default=True, show_default=True)
@click.option("--progress/--no-progress", default=True, show_default=True)
@click.option("--output", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Directory for report.json and the PNG plots.")
@pass_cli
def eval_(cli: CliContext, memories, queries, scope, config_path, recipes, k, depth, store_kind,
          limit_queries, only_namespaces, by, thread_by, seq_by, store_dir, embedding_cache, plots, progress,
          output) -> None:
    """Evaluate retrieval on labelled queries: every configuration on one fresh store."""
    from graphmem.eval.provenance import provenance
    from graphmem.eval.report import build_report, plot_all, print_tables, write_json
    from graphmem.eval.runner import EvalOptions, evaluate

    kind = store_kind or cli.store_kind or "sqlite"
    options = EvalOptions(
        memories=memories, queries=queries, scope=scope, config=config_path, recipes=list(recipes), k=k,
        depth=depth, store=kind, data_dir=store_dir, embedding_cache=embedding_cache,
        limit_queries=limit_queries, only_namespaces=list(only_namespaces) or None, by=list(by),
        progress=progress, store_settings=cli.settings().store if kind != "sqlite" else None,
        thread_by=thread_by, seq_by=seq_by)
    run = evaluate(options)
    report = build_report(run)
    report["command"] = "graphmem " + shlex.join(sys.argv[1:])     # how to reproduce this report
    report["provenance"] = provenance([memories, queries], {"settings": run.effective_settings,
                                                            "recipes": report["settings"]["recipes"]},
                                      report["command"])
    output.mkdir(parents=True, exist_ok=True)
    write_json(report, output / "report.json")
    console = Console()
    print_tables(report, Console(width=max(console.width, 150)))   # 13 columns: never squeeze them
    written = plot_all(report, output) if plots else []
    click.echo(f"wrote {output / 'report.json'}" + "".join(f", {p.name}" for p in written))
