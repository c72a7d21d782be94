"""Lazily opened engine shared by the commands of one CLI invocation."""

from __future__ import annotations

from dataclasses import dataclass, field

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
            from graphmem.embedding.embedder import ModelNotPreparedError
            from graphmem.engine import Graphmem

            try:
                self._engine = Graphmem.open(self.settings())
            except (GraphmemError, ModelNotPreparedError) as exc:
                raise click.ClickException(str(exc)) from exc
        return self._engine


pass_cli = click.make_pass_decorator(CliContext)
