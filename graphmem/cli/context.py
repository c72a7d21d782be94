"""Lazily opened engine shared by the commands of one CLI invocation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import click

from graphmem.config import Settings, load_settings
from graphmem.errors import GraphmemError


@dataclass
class CliContext:
    data_dir: str | None = None
    config_path: str | None = None
    store_kind: str | None = None
    _engine: object | None = field(default=None, repr=False)

    def settings(self) -> Settings:
        overrides: dict = {"store": {}}
        if self.data_dir:
            overrides["store"]["data_dir"] = self.data_dir
        if self.store_kind:
            overrides["store"]["kind"] = self.store_kind
        return load_settings(self.config_path, overrides)

    def engine(self):
        if self._engine is None:
            from graphmem.engine import Graphmem

            self._engine = Graphmem.open(self.settings())
        return self._engine


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
