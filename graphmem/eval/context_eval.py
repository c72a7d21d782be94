"""Answer coverage of the context block (``retrieval/context_block.py``) at several token budgets.

Why beside answer@k: answer@k asks whether the gold answer is in the raw contents of the top k; an
agent is handed the block instead, whose memories are dated (relative phrases resolved), grouped by
thread with neighbouring turns and cut at a budget. ``block_answer@B`` applies answer@k's matching
rule (``metrics.answer_covered``) to the block built from the same ranked results under budget B;
``block_tokens@B`` is its size (``text.llm_tokens``, the block's own count).
"""

from __future__ import annotations

from typing import Any

from graphmem.eval.metrics import answer_covered
from graphmem.eval.runner import QueryRun
from graphmem.model import MemoryFilter
from graphmem.retrieval.context_block import build_block

BUDGETS = (200, 400, 800)


def block_metrics(engine: Any, run: QueryRun, namespace: str, answer: Any,
                  budgets: tuple[int, ...] = BUDGETS) -> dict[str, float]:
    """``block_answer@B`` and ``block_tokens@B`` for each budget, from the run's ranked results."""
    ids = [r["id"] for r in run.results]
    found = engine.store.get_memories(namespace, ids) if ids else {}
    ranked = [found[i] for i in ids if i in found]
    out: dict[str, float] = {}
    for budget in budgets:
        block = build_block(engine.store, namespace, ranked, budget, engine.settings.time,
                            engine.settings.context_block, MemoryFilter(), engine.clock())
        out[f"block_answer@{budget}"] = float(answer_covered(str(answer or ""), [block["text"]]))
        out[f"block_tokens@{budget}"] = float(block["tokens"])
    return out
