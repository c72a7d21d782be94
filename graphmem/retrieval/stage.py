"""The stage protocol: every step of a search has one signature.

A search is a ``Search`` (the request's fixed ``Query`` plus what the stages found so far) that
flows through an ordered plan of stages, as a Lucene query flows from its Query through its
Scorers to its Collector. A stage reads and changes the ``Search``'s candidates and reports its
facts on its trace row; the pipeline (``pipeline.py``) only orders the stages, asks each whether
this request runs it (``enabled``) and times and records the rows:

    for row_name, stages in plan:
        with trace.stage(row_name, False) as row:
            for stage in stages:          # asked when its turn comes: it sees what earlier stages did
                if stage.enabled(search):
                    row.enabled = True
                    stage.run(search, row)
                else:
                    stage.skip(search, row)

Several stages may share a trace row (health, source and time report on ``weighting``; the router
boost and recency on ``recall``); a row is enabled when any of its stages ran. A stage
holds no per-request state: one instance serves every search at once, so what a stage finds goes
on the ``Search`` (or in its candidates' ``why``), never on ``self``.

Writing a stage: subclass ``Stage`` (for ``skip``'s default), set ``name``, implement ``enabled``
and ``run``; put it in its row of ``pipeline.default_plan`` (or pass a plan to ``SearchPipeline``).
``tests/test_search_stages.py`` adds one to the weighting row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from graphmem.config import SearchConfig
from graphmem.model import Memory, MemoryFilter, TermStats
from graphmem.retrieval.candidate import Candidate
from graphmem.retrieval.overlap import Overlap
from graphmem.retrieval.trace import StageRow
from graphmem.stores.base import MemoryStore


@dataclass(frozen=True)
class Query:
    """One request's fixed inputs, shared by every stage: the query text, its recipe, how many
    results, the namespace, the filters and the request's clock reading."""

    text: str
    cfg: SearchConfig
    k: int
    ns: str
    flt: MemoryFilter
    now: str


@dataclass
class Named:
    """What the router found the query naming: known tags, categories and extracted topics."""

    tags: set[str] = field(default_factory=set)
    categories: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)


@dataclass
class KeyScores:
    """One recall key's scored candidates: rows by id, cosine and BM25 scores, the ids its recall
    found (vector hits, then full-text), its full-text ids, and each window's turns."""

    docs: dict[str, Memory]
    vector: dict[str, float]
    lexical: dict[str, float]
    ids: list[str]
    lex_ids: list[str]
    turns: dict[str, list[str]] = field(default_factory=dict)
    vector_hits: int = 0        # how many vector hits its store call returned (before the filters)


# what a key's store call brings: the terms' statistics, vector hits, full-text pool, rows read
KeyRecall = tuple[TermStats | None, list[str], list[str], dict[str, Memory]]


@dataclass
class RecallRound:
    """One recall round's inputs (terms, query vector) and what each key stage made of them.

    The key stages (``keys.py``) read ``terms`` and ``qvec`` and put their ``KeyScores`` under their
    name in ``keys``; ``prefetched`` holds a key's store call started beside another key's."""

    terms: list[str]
    qvec: np.ndarray | None
    keys: dict[str, KeyScores] = field(default_factory=dict)
    stats: dict[str, TermStats | None] = field(default_factory=dict)
    prefetched: dict[str, Callable[[], KeyRecall]] = field(default_factory=dict)


@dataclass
class Search:
    """One search as it moves through the stages.

    ``cands`` is the working set (id -> candidate, its score and its ``why``); ``qvec`` the query
    vector once recall embedded it; ``added`` every candidate expansion brought in (before the cut);
    ``results`` the final ranked list (set by rank)."""

    query: Query
    store: MemoryStore
    overlap: Overlap
    embed: Callable[[], np.ndarray | None]
    named: Named = field(default_factory=Named)
    cands: dict[str, Candidate] = field(default_factory=dict)
    qvec: np.ndarray | None = None
    added: list[Candidate] = field(default_factory=list)
    results: list[Candidate] = field(default_factory=list)
    round: RecallRound | None = None
    recall_windows: bool = False        # this search recalls context windows too (the window key runs)
    # recall's full-text pools by (namespace, terms): a second round asking for the same pool reuses it
    pools: dict[tuple[str, tuple[str, ...]], tuple[TermStats | None, list[str], dict[str, Memory]]] = field(
        default_factory=dict)

    @property
    def cfg(self) -> SearchConfig:
        return self.query.cfg


@runtime_checkable
class Stage(Protocol):
    """One step of a search. ``name`` is the recipe switch or rule it stands for (also how a plan
    lists it); ``enabled`` says whether this request runs it; ``run`` does its work on ``search``
    and reports on ``row``; ``skip`` reports what a switched-off stage reports (default: nothing)."""

    name: ClassVar[str]

    def enabled(self, search: Search) -> bool:
        """Whether this request runs the stage (its recipe switch and settings)."""
        ...

    def run(self, search: Search, row: StageRow) -> None:
        """Apply the stage to ``search``: read and change its candidates, note its facts on ``row``."""
        ...

    def skip(self, search: Search, row: StageRow) -> None:
        """The facts a switched-off stage still reports on its row (so a trace keeps its shape)."""
        return None
