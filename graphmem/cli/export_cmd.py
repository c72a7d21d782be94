"""``graphmem export``: a namespace, some ids or a query's neighbourhood as GraphML, GEXF or JSON."""

from __future__ import annotations

import click

from graphmem.cli.context import CliContext, pass_cli


@click.command(name="export")
@click.option("--format", "fmt", type=click.Choice(["graphml", "gexf", "json"]), required=True,
              help="graphml / gexf (Gephi, yEd, Cytoscape; lists and dicts as JSON text) or json "
                   "(the API's graph shape: nodes + edges).")
@click.option("--namespace", "-n", default="default", show_default=True)
@click.option("--ids", help="Comma-separated memory ids: export them and their neighbourhood.")
@click.option("--query", "-q", help="Export the neighbourhood of this query's results.")
@click.option("--k", default=10, show_default=True, help="Results of --query.")
@click.option("--recipe", help="Search recipe for --query (default: the default recipe).")
@click.option("--hops", default=1, show_default=True, type=click.IntRange(0, 5),
              help="Neighbour hops around --ids / --query results.")
@click.option("--batch-size", default=500, show_default=True, type=click.IntRange(1, 5000),
              help="Memories per store read when exporting a whole namespace.")
@click.option("--analysis/--no-analysis", "include_analysis", default=False,
              help="json: also write hop, result rank/kind/score/why and expanded edges.")
@click.option("--output", "-o", required=True, type=click.Path(dir_okay=False, allow_dash=True),
              help="Output file ('-' for stdout, json only).")
@pass_cli
def export(cli: CliContext, fmt, namespace, ids, query, k, recipe, hops, batch_size, include_analysis,
           output) -> None:
    """Export the memory graph: a whole namespace (default), --ids, or --query's results."""
    from graphmem.analysis.export import export_graph
    from graphmem.analysis.mirror import mirror_ids, mirror_namespace, mirror_query
    from graphmem.contract import validate_value
    from graphmem.contract.types import Namespace

    if ids and query:
        raise click.UsageError("give --ids or --query, not both")
    if output == "-" and fmt != "json":
        raise click.UsageError("only --format json can be written to stdout")
    engine = cli.engine()
    try:
        validate_value(Namespace, namespace, "namespace")
        if ids:
            id_list = [i.strip() for i in ids.split(",") if i.strip()]
            G = mirror_ids(engine.store, namespace, id_list, hops)
            if G.graph["missing_ids"]:
                click.echo(f"not found in {namespace!r}: {', '.join(G.graph['missing_ids'])}", err=True)
        elif query:
            G = mirror_query(engine, namespace, query, k, hops, recipe=recipe)
        else:
            G = mirror_namespace(engine.store, namespace, batch_size)
        export_graph(G, fmt, output, include_analysis)
    except OSError as exc:
        raise click.ClickException(f"cannot write {output}: {exc}") from exc
    types: dict[str, int] = {}
    for *_, etype in G.edges(keys=True):
        types[etype] = types.get(etype, 0) + 1
    detail = ", ".join(f"{t} {n}" for t, n in sorted(types.items()))
    click.echo(f"exported {G.number_of_nodes()} memories and {G.number_of_edges()} edges"
               + (f" ({detail})" if detail else "") + f" from {namespace!r} to {output}", err=True)
