"""The one percentile rule of saved figures and test bounds: ``graphmem.eval.metrics.percentile``."""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.eval.metrics import percentile


def pct(values: Sequence[float], q: float, ndigits: int | None = None) -> float:
    """The ``q`` quantile (q in [0, 1]) of ``values``, rounded to ``ndigits`` when given."""
    value = percentile(values, q * 100.0)
    return value if ndigits is None else round(value, ndigits)
