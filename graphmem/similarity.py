"""The similarity measures ranking and linking share, each written once.

- ``cosine``: the dot product of two embeddings (graphmem stores unit vectors, so it is their cosine).
- ``idf``: Lucene's BM25 inverse document frequency, ``ln(1 + (N - df + 0.5) / (df + 0.5))``, always
  positive (a term in every document still counts a little).
- ``jaccard``: the share of two sets' union they have in common (0 for two empty sets).
"""

from __future__ import annotations

import math
from collections.abc import Set

import numpy as np


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def idf(n_docs: int, df: int) -> float:
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))


def jaccard(a: Set[str], b: Set[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0
