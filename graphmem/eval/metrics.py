"""Pure ranking metrics for the eval harness.

Kept free of IO and of graphmem types so each number can be checked by hand in a unit
test. A ranked list is a sequence of *results*; a result is one id, or a collection of ids
when one returned memory stands for several stored ones (the pipeline merges
near-duplicates into the better-scored copy and names the others in its ``why``). A result
credits every relevant id it stands for, but each relevant id is credited once, at its
first (best) position.

Relevance is a mapping ``id -> grade``; grades <= 0 mean "not relevant". Binary labels
are grade 1. Conventions, chosen to match trec_eval so numbers compare with papers:

- recall@k = relevant ids credited in the top k / all relevant ids
- precision@k = results in the top k that credit a relevant id / k (not / results returned:
  returning fewer results is not rewarded)
- nDCG@k uses linear gain (grade) and log2(rank + 1) discount; the ideal list puts every
  relevant id in its own slot, best grade first
- MRR uses the first relevant result within the list given (callers cut it to k)
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence

from graphmem.text import llm_tokens

Result = str | Collection[str]


def _ids(result: Result) -> tuple[str, ...]:
    return (result,) if isinstance(result, str) else tuple(result)


def _relevant(relevance: Mapping[str, float]) -> dict[str, float]:
    return {i: float(g) for i, g in relevance.items() if g > 0}


def credited(ranked: Sequence[Result], relevance: Mapping[str, float], k: int) -> list[list[str]]:
    """Per result in the top k, the relevant ids it is the first to credit."""
    rel = _relevant(relevance)
    seen: set[str] = set()
    out: list[list[str]] = []
    for result in ranked[:k]:
        fresh = [i for i in dict.fromkeys(_ids(result)) if i in rel and i not in seen]
        seen.update(fresh)
        out.append(fresh)
    return out


def recall_at_k(ranked: Sequence[Result], relevance: Mapping[str, float], k: int) -> float:
    """Share of relevant ids found in the top k; 0.0 when nothing is relevant."""
    rel = _relevant(relevance)
    if not rel:
        return 0.0
    return sum(len(c) for c in credited(ranked, rel, k)) / len(rel)


def precision_at_k(ranked: Sequence[Result], relevance: Mapping[str, float], k: int) -> float:
    """Share of the k slots filled by a result that credits a relevant id."""
    if k <= 0:
        return 0.0
    rel = _relevant(relevance)
    hits = sum(1 for result in ranked[:k] if any(i in rel for i in _ids(result)))
    return hits / k


def hit_at_k(ranked: Sequence[Result], relevance: Mapping[str, float], k: int) -> float:
    """1.0 when any relevant id is in the top k, else 0.0."""
    rel = _relevant(relevance)
    return 1.0 if any(i in rel for result in ranked[:k] for i in _ids(result)) else 0.0


def reciprocal_rank(ranked: Sequence[Result], relevance: Mapping[str, float]) -> float:
    """1 / position of the first result crediting a relevant id; 0.0 when there is none."""
    rel = _relevant(relevance)
    for position, result in enumerate(ranked, start=1):
        if any(i in rel for i in _ids(result)):
            return 1.0 / position
    return 0.0


def dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(position + 1) for position, g in enumerate(gains, start=1))


def ndcg_at_k(ranked: Sequence[Result], relevance: Mapping[str, float], k: int) -> float:
    """Graded nDCG@k. A result crediting several relevant ids gains their best grade (it
    occupies one slot); the others count as found for recall but add no extra gain."""
    rel = _relevant(relevance)
    if not rel or k <= 0:
        return 0.0
    gains = [max((rel[i] for i in ids), default=0.0) for ids in credited(ranked, rel, k)]
    ideal = dcg(sorted(rel.values(), reverse=True)[:k])
    return dcg(gains) / ideal if ideal > 0 else 0.0


def low_health_share(healths: Sequence[float], threshold: float = 0.5) -> float:
    """Share of returned memories with health below ``threshold`` (0.0 for no results)."""
    if not healths:
        return 0.0
    return sum(1 for h in healths if h < threshold) / len(healths)


def low_health_above_relevant(ranked: Sequence[Result], healths: Sequence[float],
                              relevance: Mapping[str, float], top: int = 3,
                              threshold: float = 0.5) -> bool:
    """True when a low-health result sits in the top ``top`` *above* a healthy result that
    credits a relevant id (anywhere further down the list given, so a healthy answer pushed
    out of the top ``top`` by junk also counts). Healthy relevant results are the ones the
    health stage must protect; whether the low-health record is itself labelled relevant
    does not matter."""
    rel = _relevant(relevance)
    first_low = next((i for i, h in enumerate(healths[:top]) if h < threshold), None)
    if first_low is None:
        return False
    return any(healths[j] >= threshold and any(i in rel for i in _ids(ranked[j]))
               for j in range(first_low + 1, min(len(ranked), len(healths))))


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (numpy's default), ``q`` in [0, 100]; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def relative_lift(new: float, base: float) -> float | None:
    """(new - base) / base; None when the base is 0 (a lift from nothing is undefined)."""
    return None if base == 0 else (new - base) / base


# -- answer coverage -------------------------------------------------------------------------
# Does the context an agent receives contain the answer? SQuAD-style normalisation (case,
# punctuation and articles folded), then: a short answer must occur as a phrase in the
# concatenated contents; a long one needs ``long_share`` of its content tokens present.

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")
_COVERAGE_STOP = frozenset(
    "a an the and or of to in on at for with by from is was are were be it its that this as".split())


def normalize_answer(text: str) -> str:
    """Lower-case, punctuation to spaces, articles dropped, whitespace folded."""
    folded = _PUNCT.sub(" ", unicodedata.normalize("NFKC", str(text)).casefold())
    return " ".join(_ARTICLES.sub(" ", folded).split())


def answer_covered(answer: str, contents: Sequence[str], long_words: int = 4, long_share: float = 0.8) -> bool:
    """True when the gold ``answer`` is in the concatenated ``contents``: as a whole phrase
    for answers of fewer than ``long_words`` content tokens, else by >= ``long_share`` of
    its (distinct) content tokens. An empty answer is never covered."""
    gold = normalize_answer(answer)
    if not gold:
        return False
    context = " " + normalize_answer(" ".join(contents)) + " "
    words = [w for w in dict.fromkeys(gold.split()) if w not in _COVERAGE_STOP]
    if len(words) < long_words:
        return f" {gold} " in context
    present = set(context.split())
    return sum(w in present for w in words) / len(words) >= long_share


def context_tokens(contents: Sequence[str]) -> int:
    """Approximate LLM tokens of the context: words and punctuation marks (regex), a
    tokenizer-free stand-in that is stable across models."""
    return sum(llm_tokens(c) for c in contents)


# -- edge precision --------------------------------------------------------------------------
# Of the neighbours one-hop expansion adds, how many are relevant, per kind of edge? An
# addition is credited to the path that set its score (the first of its ``why.related`` paths,
# which the pipeline sorts best first). The edge key is the edge type refined by its reason:
# the reason's ``kind`` when it names one, else the names of the non-empty lists it carries
# (what the two memories share: ``SHARES_TAG[tags]``, ``SHARES_TAG[tags+topics]``,
# ``OVERLAPS[terms]``), so a new edge type or a new kind of shared label shows up as its own
# row without code here knowing about it.

ADDED, RELEVANT = "exp_added", "exp_relevant"


def edge_key(path: Mapping[str, object]) -> str:
    """``EDGE_TYPE``, ``EDGE_TYPE[kind]`` or ``EDGE_TYPE[list+list]`` for one expansion path
    (a ``why.related`` item; see above)."""
    edge = str(path.get("edge", "?"))
    reason = path.get("reason")
    if not isinstance(reason, Mapping):
        return edge
    kind = reason.get("kind")
    if isinstance(kind, str) and kind:
        return f"{edge}[{kind}]"
    shared = sorted(str(k) for k, v in reason.items() if isinstance(v, list | tuple) and v)
    return f"{edge}[{'+'.join(shared)}]" if shared else edge


def expansion_counts(additions: Sequence[tuple[str, str]], relevance: Mapping[str, float],
                     top_ids: Collection[str], prefix: str = "exp") -> dict[str, float]:
    """Flat per-query counts for ``additions`` = (memory id, edge key) pairs:
    ``exp_added`` / ``exp_relevant`` overall, ``exp_added:<key>`` / ``exp_relevant:<key>``
    per edge key, and ``exp_added@top`` / ``exp_relevant@top`` for the additions that are
    among ``top_ids`` (the results handed back, e.g. the top 10). ``prefix`` replaces
    ``exp`` to count another set of pairs (e.g. direct hits an edge also reached)."""
    rel = _relevant(relevance)
    added, relevant = f"{prefix}_added", f"{prefix}_relevant"
    out: dict[str, float] = {added: 0.0, relevant: 0.0, f"{added}@top": 0.0, f"{relevant}@top": 0.0}
    for memory_id, key in additions:
        hit = float(memory_id in rel)
        for suffix in ("", f":{key}", *(("@top",) if memory_id in top_ids else ())):
            out[added + suffix] = out.get(added + suffix, 0.0) + 1.0
            out[relevant + suffix] = out.get(relevant + suffix, 0.0) + hit
    return out


def edge_keys(rows: Sequence[Mapping[str, float]], prefix: str = "exp") -> list[str]:
    """Every edge key that appears in a list of ``expansion_counts`` rows, sorted."""
    head = f"{prefix}_added:"
    return sorted({k[len(head):] for row in rows for k in row if k.startswith(head)})


def pooled_precision(rows: Sequence[Mapping[str, float]], suffix: str = "",
                     prefix: str = "exp") -> tuple[float, float, float | None]:
    """(relevant, added, relevant / added) summed over queries (micro average: every addition
    counts once); precision is None when nothing was added."""
    added = sum(row.get(f"{prefix}_added{suffix}", 0.0) for row in rows)
    relevant = sum(row.get(f"{prefix}_relevant{suffix}", 0.0) for row in rows)
    return relevant, added, (relevant / added if added else None)
