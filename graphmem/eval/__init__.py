"""Retrieval evaluation: labelled queries against a fresh store, one run per configuration.

``dataset`` loads and scopes memories and queries, ``runner`` ingests them and runs each
search recipe through the public facade, ``metrics`` holds the pure ranking metrics and
``report`` turns runs into tables, ``report.json`` and plots. ``graphmem eval`` is the CLI.
"""

from graphmem.eval.runner import BUILTIN_RECIPES, EvalOptions, EvalRun, evaluate

__all__ = ["BUILTIN_RECIPES", "EvalOptions", "EvalRun", "evaluate"]
