"""The ``graphmem`` command line: a thin mirror of the library (``graphmem.engine``)."""

from __future__ import annotations

import click

from graphmem.cli.context import CliContext, CliGroup


@click.group(cls=CliGroup)
@click.option("--data-dir", envvar="GRAPHMEM_DATA_DIR", type=click.Path(file_okay=False),
              help="Embedded store directory (env GRAPHMEM_DATA_DIR) [default: the per-user data dir, "
                   "e.g. ~/.local/share/graphmem; `graphmem info` shows it].")
@click.option("--config", "config_path", envvar="GRAPHMEM_CONFIG", type=click.Path(dir_okay=False),
              help="TOML config file overriding graphmem/defaults.toml (env GRAPHMEM_CONFIG).")
@click.option("--store", "store_kind", type=click.Choice(["sqlite", "neo4j"]), envvar="GRAPHMEM_STORE",
              help="Store backend (env GRAPHMEM_STORE; default sqlite).")
@click.version_option(package_name=None, version=__import__("graphmem").__version__)
@click.pass_context
def main(ctx: click.Context, data_dir: str | None, config_path: str | None, store_kind: str | None) -> None:
    """graphmem: graph memory for AI agents."""
    from_env = ctx.get_parameter_source("data_dir") == click.core.ParameterSource.ENVIRONMENT
    ctx.obj = CliContext(data_dir=data_dir, config_path=config_path, store_kind=store_kind,
                         data_dir_origin="GRAPHMEM_DATA_DIR" if from_env else "--data-dir")


# -- command registry: each module adds its commands here --------------------------------------
from graphmem.cli import memory_cmds  # noqa: E402

memory_cmds.register(main)

from graphmem.cli.model_cmd import model as model_group  # noqa: E402

main.add_command(model_group)

from graphmem.cli.eval_cmd import eval_ as eval_command  # noqa: E402

main.add_command(eval_command)

from graphmem.cli.export_cmd import export as export_command  # noqa: E402

main.add_command(export_command)

from graphmem.cli.reindex_cmd import reindex as reindex_command  # noqa: E402

main.add_command(reindex_command)

from graphmem.cli.serve_cmd import serve  # noqa: E402

main.add_command(serve)

from graphmem.cli.mcp_cmd import mcp as mcp_command  # noqa: E402

main.add_command(mcp_command)

from graphmem.cli import ops_cmds  # noqa: E402

ops_cmds.register(main)

from graphmem.cli.info_cmd import info as info_command  # noqa: E402

main.add_command(info_command)

from graphmem.cli.context_cmd import context as context_command  # noqa: E402

main.add_command(context_command)
