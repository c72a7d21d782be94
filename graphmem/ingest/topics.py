"""Topic tags extracted from a memory's content at ingest (pure, no IO).

Why: callers' tags are often provenance (speaker, session, date), so SHARES_TAG links turns
by *when* they were said. Topics say *what* a memory is about (names, salient words, short
noun-phrase-like word pairs), so two memories about the same thing link across sessions.

Deterministic given the content alone: both ends of a link must pick the same topic on
their own, whenever each was written. Rarity is applied where tags are, at link time
(tag rarity from the label counts), not here. Each topic keeps the exact span of content it
comes from (its evidence, checked by the evidence gate: ``text.quote_found``); its key is
graphmem's own terms of that span (``text.tokenize``), so "Pottery" and "potteries" meet.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphmem.config import TopicSettings
from graphmem.text import STOP_WORDS, quote_found, tokenize

_WORD = re.compile(r"[^\W_](?:[\w'\u2019-]*[^\W_])?")
_BOUNDARY = re.compile(r"[.!?:;\n]\s*$")       # a gap ending a sentence (or a "Speaker:" prefix)


def _key(span: str) -> str:
    return " ".join(tokenize(span))


@lru_cache(maxsize=8)
def filler_keys(stop_words: tuple[str, ...]) -> frozenset[str]:
    """The terms of ``[topics] stop_words`` (so every form of a filler word is one)."""
    return frozenset(_key(word) for word in stop_words) - {""}


def _candidates(content: str, rules: TopicSettings) -> list[tuple[int, int, int, str]]:
    """(priority, order, start, end) spans: names 0, word pairs 1, single words 2. A filler word
    (``stop_words``) is neither a word topic nor part of a pair, but may be part of a name."""
    out: list[tuple[int, int, int, str]] = []
    filler = filler_keys(tuple(rules.stop_words))
    prev_end = 0
    run: list[re.Match] = []           # adjacent content words (no stop word or punctuation between)
    name: list[re.Match] = []          # adjacent capitalised words

    def close_name() -> None:
        if name:
            out.append((0, name[0].start(), name[-1].end(), "name"))
            name.clear()

    for match in _WORD.finditer(content):
        gap = content[prev_end:match.start()]
        sentence_start = prev_end == 0 or bool(_BOUNDARY.search(gap))
        if gap.strip():                 # punctuation between: no phrase spans it
            run = []
            close_name()
        word = match.group()
        folded = word.casefold().replace("\u2019", "'")
        is_stop = folded in STOP_WORDS or not tokenize(word)
        capital = word[0].isupper() and (not sentence_start or (len(word) > 1 and word.isupper()))
        if rules.names and capital and not is_stop:
            name.append(match)
        else:
            close_name()
        if is_stop or _key(word) in filler:
            run = []
        else:
            if rules.phrases and run:
                out.append((1, run[-1].start(), match.end(), "pair"))
            run.append(match)
            if rules.words:
                out.append((2, match.start(), match.end(), "word"))
        prev_end = match.end()
    close_name()
    return out


def extract_topics(content: str, rules: TopicSettings) -> list[dict[str, str]]:
    """At most ``max_per_memory`` topics ``{"topic": key, "quote": span}``: names first, then
    word pairs, then single words, longest first (longer words are more specific), each key once."""
    if not rules.enabled or rules.max_per_memory <= 0:
        return []
    scored = []
    for priority, start, end, _kind in _candidates(content, rules):
        span = content[start:end]
        key = _key(span)
        terms = key.split()
        if not terms or any(t.isdigit() for t in terms) or (len(terms) == 1 and len(key) < rules.min_chars):
            continue
        length = -len(key) if priority == 2 else 0
        scored.append(((priority, length, start), key, span))
    topics: dict[str, str] = {}
    for _, key, span in sorted(scored):
        if key not in topics and quote_found(content, span):
            topics[key] = span
        if len(topics) >= rules.max_per_memory:
            break
    return [{"topic": key, "quote": span} for key, span in topics.items()]
