"""Memory commands: add, update, import, get, history, search, neighbors, delete, rescore, stats.

Tables never cut an id (columns that hold one fold instead), so any id printed can be copied
into the next command."""

from __future__ import annotations

import json

import click
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from graphmem.cli.context import CliContext, pass_cli
from graphmem.config import STAGES
from graphmem.contract.requests import DEFAULT_SOURCE
from graphmem.views import dump, why_text

console = Console()


def _echo_json(data) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with "…" when cut."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit - 1]
    at_boundary = text[limit - 1] == " "
    cut = head if at_boundary or " " not in head else head.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:.-") + "…"


@click.command()
@click.argument("content")
@click.option("--tags", "--tag", "tags", multiple=True,
              help="Tag (repeatable: --tags a --tags b; --tag is an alias).")
@click.option("--category")
@click.option("--source", help=f"Provenance [default: {DEFAULT_SOURCE}, as over HTTP and MCP].")
@click.option("--reason")
@click.option("--id", "memory_id", help="Idempotency key / explicit id.")
@click.option("--thread", help="The conversation it belongs to (linked by FOLLOWS, with a context window).")
@click.option("--seq", type=int, help="Its position in the thread (default: created_at order).")
@click.option("--supersedes", multiple=True, help="Id of an older memory this one replaces (repeatable).")
@click.option("--namespace", "-n", default="default", show_default=True)
@pass_cli
def add(cli: CliContext, content, tags, category, source, reason, memory_id, thread, seq, supersedes,
        namespace) -> None:
    """Add one memory."""
    data = {"content": content, "tags": list(tags), "category": category, "source": source,
            "reason": reason, "id": memory_id, "thread": thread, "seq": seq,
            "supersedes": list(supersedes) or None}
    result = cli.engine().add({k: v for k, v in data.items() if v is not None}, namespace)
    _echo_json({"index": 0, **dump(result)})     # the add's answer as it has always printed (a batch's item 0)


@click.command()
@click.argument("memory_id")
@click.option("--content", help="New content (re-embeds and re-links).")
@click.option("--tags", "--tag", "tags", multiple=True, help="New tags, replacing the old (repeatable).")
@click.option("--category")
@click.option("--source")
@click.option("--reason")
@click.option("--namespace", "-n", default="default", show_default=True)
@pass_cli
def update(cli: CliContext, memory_id, content, tags, category, source, reason, namespace) -> None:
    """Change fields of a stored memory (as PATCH /v1/memories/{id}); unset fields stay as they are."""
    patch = {"content": content, "tags": list(tags) or None, "category": category, "source": source,
             "reason": reason}
    patch = {k: v for k, v in patch.items() if v is not None}
    if not patch:
        raise click.UsageError("give at least one of --content, --tags, --category, --source, --reason")
    _echo_json(dump(cli.engine().update(namespace, memory_id, patch)))


IMPORT_FORMATS = ("memories", "chatgpt", "claude", "messages", "transcript")


@click.command(name="import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--format", "fmt", type=click.Choice(IMPORT_FORMATS), default="memories", show_default=True,
              help="memories: JSONL of memory records; chatgpt / claude: their conversations.json export; "
                   "messages: JSONL of chat messages with a thread; transcript: 'Speaker: text' lines "
                   "(see docs/chat-import.md).")
@click.option("--thread", help="Thread of a transcript [default: transcript:<file stem>].")
@click.option("--namespace", "-n", default="default", show_default=True,
              help="Namespace for lines that do not name one.")
@click.option("--namespace-field", help="Metadata field whose value becomes the namespace (e.g. conversation).")
@click.option("--batch-size", type=int, default=None,
              help="Memories per chunk [default: ingest.import_chunk_size].")
@click.option("--skip-invalid", is_flag=True,
              help="Chat formats: import the good conversations and list the bad ones, instead of refusing "
                   "the whole file.")
@pass_cli
def import_(cli: CliContext, path, fmt, thread, namespace, namespace_field, batch_size, skip_invalid) -> None:
    """Import memories or a chat export (batched, idempotent) with a progress bar and summary."""
    from graphmem.ingest.bulk import import_jsonl
    from graphmem.ingest.chat import import_chat

    if fmt == "memories":
        if thread:
            raise click.UsageError("--thread applies to chat formats (transcript)")
        if skip_invalid:
            raise click.UsageError("--skip-invalid applies to chat formats (a memories file already imports "
                                   "its good lines and lists the rejected ones)")
        summary = import_jsonl(cli.engine(), path, namespace, namespace_field, batch_size, progress=True)
        place = "line"
    else:
        if namespace_field:
            raise click.UsageError("--namespace-field applies to --format memories only")
        summary = import_chat(cli.engine(), path, fmt, namespace, thread, batch_size, progress=True,
                              skip_invalid=skip_invalid)
        place = "message"
    table = Table(title=escape(f"import {path}"))
    for col in ("created", "duplicate", "rejected"):
        table.add_column(col, justify="right")
    table.add_row(str(summary["created"]), str(summary["duplicate"]), str(summary["rejected"]))
    console.print(table)
    for row in summary["rejections"][:20]:
        console.print(escape(f"  {place} {row[place]}: {row['code']}: {row['message']} (field: {row['field']})"))
    if len(summary["rejections"]) > 20:
        console.print(f"  ... {len(summary['rejections']) - 20} more rejections")
    skipped = summary.get("skipped", [])
    if skipped:
        console.print(f"skipped {len(skipped)} bad conversation{'s' if len(skipped) > 1 else ''} (nothing of "
                      "them stored):")
    for row in skipped:
        console.print(escape(f"  {row['code']}: {row['message']}"), soft_wrap=True)


@click.command()
@click.argument("memory_id")
@click.option("--namespace", "-n", default="default", show_default=True)
@pass_cli
def get(cli: CliContext, memory_id, namespace) -> None:
    """Show one memory by id (always works, whatever its health)."""
    _echo_json(dump(cli.engine().get(namespace, memory_id)))


@click.command()
@click.argument("memory_id")
@click.option("--namespace", "-n", default="default", show_default=True)
@pass_cli
def delete(cli: CliContext, memory_id, namespace) -> None:
    """Delete a memory and its edges."""
    cli.engine().delete(namespace, memory_id)
    click.echo(f"deleted {memory_id}")


@click.command()
@click.argument("query")
@click.option("--namespace", "-n", default="default", show_default=True)
@click.option("-k", default=None, type=int, help="Results to return (default from the recipe).")
@click.option("--recipe", help="Named search config (default, hybrid, lexical, vector, hybrid_expansion).")
@click.option("--no", "disabled", multiple=True,
              type=click.Choice(STAGES),
              help="Disable a stage (repeatable).")
@click.option("--tags", "--tag", "tags", multiple=True,
              help="Filter: memory must carry this tag (repeatable: all must match; --tag is an alias).")
@click.option("--categories", "--category", "categories", multiple=True,
              help="Filter: category (repeatable: any of; --category is an alias).")
@click.option("--explain", is_flag=True, help="Show why each result is there.")
@click.option("--trace", is_flag=True, help="Show per-stage counts and timings.")
@click.option("--json", "as_json", is_flag=True, help="Print the raw JSON response.")
@pass_cli
def search(cli: CliContext, query, namespace, k, recipe, disabled, tags, categories, explain, trace,
           as_json) -> None:
    """Search memories with the staged pipeline."""
    engine = cli.engine()
    filters = {"tags": list(tags) or None, "categories": list(categories) or None}
    found = engine.search(query, namespace, k, {k: v for k, v in filters.items() if v}, recipe,
                          {d: False for d in disabled} or None, explain=True, trace=trace)
    out = dump(found)
    if as_json:
        _echo_json(out)
        return
    table = Table(title=escape(f"search: {query}"), show_lines=explain)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("kind")
    table.add_column("memory", overflow="fold", ratio=3)
    if explain:
        table.add_column("why", overflow="fold", ratio=2)
    for i, (res, typed) in enumerate(zip(out["results"], found.results, strict=True), start=1):
        mem = res["memory"]
        row = [str(i), f"{res['score']:.4f}", res["kind"],
               f"{escape(clip(mem['content'], 90))}\n[dim]{escape(mem['id'])} · {escape(mem['source'])} · "
               f"health {mem['health']:.2f}[/dim]"]
        if explain and typed.why is not None:
            row.append(escape(why_text(typed.why)))
        table.add_row(*row)
    console.print(table)
    if trace:
        stages = Table(title="trace")
        for col in ("stage", "on", "in", "out", "ms"):
            stages.add_column(col)
        for st in out["trace"]["stages"]:
            stages.add_row(st["stage"], str(st["enabled"]), str(st["in"]), str(st["out"]), f"{st['ms']:.2f}")
        console.print(stages)


@click.command()
@click.argument("memory_id")
@click.option("--namespace", "-n", default="default", show_default=True)
@click.option("--min-weight", default=0.0, show_default=True)
@pass_cli
def neighbors(cli: CliContext, memory_id, namespace, min_weight) -> None:
    """One-hop neighbourhood of a memory with edge types, weights and reasons."""
    out = dump(cli.engine().neighbors(namespace, memory_id, min_weight=min_weight))
    table = Table(title=escape(f"neighbors of {memory_id}: {clip(out['memory']['content'], 60)}"))
    table.add_column("type")
    table.add_column("weight", justify="right")
    table.add_column("reason", overflow="fold")
    table.add_column("neighbor", overflow="fold")
    for n in out["neighbors"]:
        table.add_row(n["type"], f"{n['weight']:.3f}", escape(clip(json.dumps(n["reason"]), 60)),
                      f"{escape(clip(n['memory']['content'], 70))}\n[dim]{escape(n['memory']['id'])}[/dim]")
    console.print(table)


@click.command()
@click.option("--namespace", "-n", default=None, help="Only this namespace (default: all).")
@pass_cli
def rescore(cli: CliContext, namespace) -> None:
    """Re-apply the health rules and source ranks from the current config."""
    _echo_json(cli.engine().rescore(namespace))


@click.command()
@click.option("--namespace", "-n", default=None, help="Only this namespace (default: all).")
@click.option("--json", "as_json", is_flag=True, help="Print the raw JSON report (for scripts).")
@pass_cli
def stats(cli: CliContext, namespace, as_json) -> None:
    """Counts per namespace, edges per type, degree stats, health distribution."""
    report = dump(cli.engine().stats(namespace))
    if as_json:
        _echo_json(report)
        return
    server = report["server"]
    console.print(f"{report['memories']} memories on {server['kind']} {server['version']} ({server['topology']})")
    spaces = Table(title="memories per namespace")
    spaces.add_column("namespace", overflow="fold")
    spaces.add_column("memories", justify="right")
    for ns, count in report["namespaces"].items():
        spaces.add_row(escape(ns), str(count))
    console.print(spaces)
    edges = Table(title="edges per type")
    for col in ("type", "edges", "max degree", "mean degree"):
        edges.add_column(col, justify="left" if col == "type" else "right")
    for etype, degree in report["degree"].items():
        edges.add_row(etype, str(report["edges"].get(etype, 0)), str(degree["max"]), f"{degree['mean']:.2f}")
    console.print(edges)
    health = Table(title="health")
    health.add_column("range")
    health.add_column("memories", justify="right")
    for band, count in report["health_histogram"].items():
        health.add_row(escape(band), str(count))
    console.print(health)


@click.command()
@click.argument("memory_id")
@click.option("--namespace", "-n", default="default", show_default=True)
@pass_cli
def history(cli: CliContext, memory_id, namespace) -> None:
    """The supersession chain of a memory, oldest first, with times and reasons."""
    _echo_json(dump(cli.engine().history(namespace, memory_id)))


def register(group: click.Group) -> None:
    for command in (add, update, import_, get, history, delete, search, neighbors, rescore, stats):
        group.add_command(command)

