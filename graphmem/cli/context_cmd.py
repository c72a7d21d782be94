"""``graphmem context QUERY --max-tokens N``: a search's memories as one prompt-ready text."""

from __future__ import annotations

import json

import click

from graphmem.cli.context import CliContext, pass_cli
from graphmem.config import STAGES


@click.command("context")
@click.argument("query")
@click.option("--max-tokens", required=True, type=int,
              help="Token budget of the text (1 to [limits] max_context_tokens; words and punctuation marks).")
@click.option("--namespace", "-n", default="default", show_default=True)
@click.option("-k", default=None, type=int, help="Results the search asks for (default [context_block] k).")
@click.option("--recipe", help="Named search config (default, hybrid, lexical, vector, hybrid_expansion).")
@click.option("--no", "disabled", multiple=True, type=click.Choice(STAGES), help="Disable a stage (repeatable).")
@click.option("--with", "enabled", multiple=True, type=click.Choice(STAGES),
              help="Enable a stage that is off by default, e.g. time (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print the whole response (ids, tokens, trace) as JSON.")
@pass_cli
def context(cli: CliContext, query, max_tokens, namespace, k, recipe, disabled, enabled, as_json) -> None:
    """Print the context block for QUERY: memories dated, grouped by thread, cut at --max-tokens."""
    stages = {**{s: True for s in enabled}, **{s: False for s in disabled}} or None
    out = cli.engine().context(query, max_tokens, namespace, k, None, recipe, stages)
    if as_json:
        click.echo(json.dumps(out.model_dump(by_alias=True, exclude_none=True), indent=2, ensure_ascii=False))
    else:
        click.echo(out.text)
