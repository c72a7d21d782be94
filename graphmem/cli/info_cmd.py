"""``graphmem info``: which store this command line opens, and what it holds.

Why: memories added from one place must be findable from another. This names the store, the data
dir (and what chose it), the model, the version, the counts and the config files read, so a user
sees at once whether two commands (or the CLI and a server) share one store.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graphmem.cli.context import CliContext, pass_cli


def info_report(cli: CliContext) -> dict[str, Any]:
    """The facts ``graphmem info`` prints, as one JSON-able document."""
    from graphmem import __version__
    from graphmem.embedding.prepare import default_model_dir

    engine = cli.engine()
    settings = engine.settings
    cfg = settings.store
    stats = engine.stats()
    model_dir = (Path(settings.model.dir).expanduser() if settings.model.dir
                 else default_model_dir(settings.model.name))
    store: dict[str, Any] = {"kind": cfg.kind, **engine.server(addresses=False)}
    if cfg.kind == "neo4j":
        store.update(uri=cfg.neo4j.uri, database=cfg.neo4j.database)
    return {
        "version": __version__,
        "store": store,
        "data_dir": cfg.data_dir,
        "data_dir_from": cli.data_dir_from(settings),
        "model": {"name": engine.embedder.model_id, "dimension": engine.embedder.dim, "dir": str(model_dir)},
        "memories": stats.memories,
        "namespaces": stats.namespaces,
        "edges": sum(stats.edges.model_dump().values()),
        "config_files": list(settings.config_files),
        "env_vars": list(settings.env_vars),
    }


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (for scripts).")
@pass_cli
def info(cli: CliContext, as_json: bool) -> None:
    """The store this command line opens (kind, data dir and why), model, version, counts, config files."""
    report = info_report(cli)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    store = report["store"]
    where = (f"{store['uri']} (database {store['database']!r})" if store["kind"] == "neo4j"
             else report["data_dir"])
    rows = [
        ("version", report["version"]),
        ("store", f"{store['kind']} {store.get('version') or ''}".strip() + f": {where}"),
        ("data dir", f"{report['data_dir']} ({report['data_dir_from']})"
                     + ("\nwith Neo4j: the embedding cache only" if store["kind"] == "neo4j" else "")),
        ("model", f"{report['model']['name']} ({report['model']['dimension']}-d) in {report['model']['dir']}"),
        ("memories", f"{report['memories']}"
                     + "".join(f"\n{ns}: {n}" for ns, n in report["namespaces"].items())),
        ("edges", str(report["edges"])),
        ("config files", "\n".join(report["config_files"])),
        ("GRAPHMEM_* set", "\n".join(report["env_vars"]) or "none"),
    ]
    table = Table(title="graphmem info", show_header=False)
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in rows:
        table.add_row(key, escape(value))
    Console().print(table)
