"""Lazily opened engine shared by the commands of one CLI invocation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import click

from graphmem.config import Settings, load_settings
from graphmem.errors import GraphmemError, StoreUnavailable

# What a user runs to get a local Neo4j (README, docs/guides/stores.md): named when none answers.
NEO4J_START_HINT = ("start one with `make neo4j-start` in a graphmem checkout (or "
                    "`eval \"$(docker/neo4j-local/neo4j-local start)\"`, which also exports GRAPHMEM_NEO4J_URI), "
                    "or point GRAPHMEM_NEO4J_URI at a running server")


@dataclass
class CliContext:
    data_dir: str | None = None
    config_path: str | None = None
    store_kind: str | None = None
    data_dir_origin: str = "--data-dir"        # how data_dir was given: --data-dir or GRAPHMEM_DATA_DIR
    announce: bool = True                      # print the opened store on stderr
    _engine: object | None = field(default=None, repr=False)

    def settings(self) -> Settings:
        overrides: dict = {"store": {}}
        if self.data_dir:
            overrides["store"]["data_dir"] = self.data_dir
        if self.store_kind:
            overrides["store"]["kind"] = self.store_kind
        return load_settings(self.config_path, overrides)

    def data_dir_from(self, settings: Settings) -> str:
        """Where the data dir in use was set: the option, the variable, a config file or the default."""
        if self.data_dir:
            return self.data_dir_origin
        if settings.raw["store"].get("data_dir"):
            return "config file"
        return "per-user default"

    def engine(self):
        if self._engine is None:
            from graphmem.engine import Graphmem

            settings = self.settings()
            try:
                self._engine = Graphmem.open(settings)
            except StoreUnavailable as exc:
                if settings.store.kind != "neo4j":
                    raise
                raise click.ClickException(f"{error_line(exc)}\n  No Neo4j answers at {settings.store.neo4j.uri}: "
                                           f"{NEO4J_START_HINT}.") from exc
            if self.announce:
                click.echo(f"graphmem: {store_line(settings, self.data_dir_from(settings))}", err=True)
        return self._engine


def store_line(settings: Settings, data_dir_from: str) -> str:
    """One line naming the store a command opened (stderr of every command, the server's start log)."""
    cfg = settings.store
    if cfg.kind == "neo4j":
        return f"store neo4j {cfg.neo4j.uri} (database {cfg.neo4j.database!r})"
    return f"store sqlite {cfg.data_dir} ({data_dir_from})"


def store_fields(settings: Settings) -> dict[str, Any]:
    """The opened store as log fields (``graphmem serve``'s and ``graphmem mcp --http``'s start line)."""
    cfg = settings.store
    if cfg.kind == "neo4j":
        return {"store": "neo4j", "neo4j_uri": cfg.neo4j.uri, "neo4j_database": cfg.neo4j.database}
    return {"store": "sqlite", "data_dir": cfg.data_dir}


pass_cli = click.make_pass_decorator(CliContext)


def error_line(exc: GraphmemError) -> str:
    return f"{exc.code}: {exc.message}" + (f" (field: {exc.field})" if exc.field else "")


class CliGroup(click.Group):
    """The CLI's one error handler: a graphmem error (bad input, missing memory, store down) or a
    model that is not prepared ends any command with one clean line on stderr and exit code 1,
    never a traceback. Commands let these errors rise."""

    def invoke(self, ctx: click.Context) -> Any:
        from graphmem.embedding.embedder import ModelNotPreparedError
        from graphmem.embedding.prepare import PrepareError

        try:
            return super().invoke(ctx)
        except GraphmemError as exc:
            raise click.ClickException(error_line(exc)) from exc
        except (ModelNotPreparedError, PrepareError) as exc:
            raise click.ClickException(str(exc)) from exc
