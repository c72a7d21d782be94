"""Entity mentions extracted from a memory's content at ingest (pure, rules only, no IO).

Why: a multi-hop question's evidence is spread over turns of several sessions that name the
same people and things ("Audrey", "her dogs", "the agility class") and share little else with
the query. Each mention becomes a ``MENTIONS`` link from the memory to an ``Entity`` node of its
namespace, so the multi-hop stage (``retrieval/multihop.py``) can walk memory -> entity -> memory.

Rules, deterministic given the content alone (both ends of a link pick the same key on their own):

- **names**: runs of capitalised words that are not stop words. A word opening a sentence counts
  only when it is part of a longer run, an acronym, a speaker prefix ("Audrey: ..."), an address
  ("Audrey, ...") or a possessive ("Andrew's"), so "Yesterday I ..." is not a name.
- **noun phrases**: up to ``max_words`` content words after a determiner, a possessive pronoun,
  a possessive name or ``of`` ("her dogs", "the agility class", "kind of classes"); the phrase,
  its word pairs when longer, and its last word (the head noun in English) are entities.

A key is graphmem's own terms of the span (``text.tokenize``: case folded, possessives and simple
plurals folded), so "Dogs", "dog" and "dog's" meet. Each entity keeps the first span it comes
from (its evidence: the span is checked against the content by the evidence gate's rule).
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphmem.config import EntitySettings
from graphmem.text import STOP_WORDS, quote_found, tokenize

_WORD = re.compile(r"[^\W_](?:[\w'\u2019-]*[^\W_])?")
_BOUNDARY = re.compile(r"[.!?;\n]\s*$")       # a gap ending a sentence
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)


def entity_key(span: str) -> str:
    """The key of a span: its terms (``text.tokenize``) joined by a space ('' when it has none)."""
    return " ".join(tokenize(span))


@lru_cache(maxsize=65536)
def _word_key(word: str) -> str:
    return entity_key(word)


@lru_cache(maxsize=8)
def _folded(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w.casefold() for w in words)


@lru_cache(maxsize=8)
def _filler(words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(entity_key(w) for w in words) - {""}


def _is_content(word: str, filler: frozenset[str], rules: EntitySettings, first: bool) -> bool:
    """A word that may be part of a noun phrase: alphabetic, not a stop or filler word, and after
    the first word not a past-tense verb ("her dogs loved it": the phrase ends at "dogs")."""
    folded = word.casefold().replace("\u2019", "'")
    if folded in STOP_WORDS or not _alpha(word) or (not first and folded.endswith("ed")):
        return False
    key = _word_key(word)
    return bool(key) and key not in filler and len(key) >= rules.min_chars


def _alpha(word: str) -> bool:
    return word.replace("'", "").replace("\u2019", "").replace("-", "").isalpha()


def _mentions(content: str, rules: EntitySettings) -> list[tuple[int, int, int, str]]:
    """(priority, start, end, kind) spans in content order: names 0, phrases 1, heads 2."""
    out: list[tuple[int, int, int, str]] = []
    filler = _filler(tuple(rules.stop_words))
    triggers = _folded(tuple(rules.triggers))
    words = list(_WORD.finditer(content))
    name: list[re.Match] = []
    name_opens_sentence = False

    def close_name() -> None:
        nonlocal name_opens_sentence
        if name:
            last = name[-1]
            follows = content[last.end():last.end() + 1]
            alone_at_start = name_opens_sentence and len(name) == 1
            filler_word = len(name) == 1 and _word_key(last.group()) in filler     # "Saturday", "May"
            keep = not filler_word and (not alone_at_start or follows in (":", ",")
                                        or _POSSESSIVE.search(last.group()) is not None
                                        or (len(last.group()) > 1 and last.group().isupper()))
            if keep:
                out.append((0, name[0].start(), last.end(), "name"))
            name.clear()

    prev_end = 0
    for i, match in enumerate(words):
        gap = content[prev_end:match.start()]
        sentence_start = prev_end == 0 or bool(_BOUNDARY.search(gap)) or gap.strip().endswith(":")
        word = match.group()
        folded = word.casefold().replace("\u2019", "'")
        if gap.strip() and name:
            close_name()
        # a filler word opening a sentence ("Hey Mel", "Good to see you") does not start a name;
        # inside one it may be part of it ("New York")
        capital = (word[0].isupper() and folded not in STOP_WORDS
                   and not (sentence_start and _word_key(word) in filler))
        if rules.names and capital and _alpha(word):
            if not name:
                name_opens_sentence = sentence_start
            name.append(match)
            if _POSSESSIVE.search(word):
                close_name()
        else:
            close_name()
        trigger = folded in triggers or (_POSSESSIVE.search(word) is not None and word[0].isupper())
        if rules.phrases and trigger:
            run: list[re.Match] = []
            for nxt in words[i + 1:i + 1 + rules.max_words]:
                between = content[(run[-1] if run else match).end():nxt.start()]
                if between.strip() or not _is_content(nxt.group(), filler, rules, not run):
                    break
                run.append(nxt)
            if run:
                out.append((1, run[0].start(), run[-1].end(), "phrase"))
                if len(run) > 2:        # "pottery workshop teacher": "pottery workshop", "workshop teacher"
                    out.extend((1, x.start(), y.end(), "phrase") for x, y in zip(run, run[1:], strict=False))
                if len(run) > 1:
                    out.append((2, run[-1].start(), run[-1].end(), "phrase"))
        prev_end = match.end()
    close_name()
    return out


def extract_entities(content: str, rules: EntitySettings) -> list[dict[str, str]]:
    """At most ``max_per_memory`` mentions ``{"entity": key, "kind", "quote": span}``: names first,
    then noun phrases, then their head words, each in content order, each key once."""
    if not rules.enabled or rules.max_per_memory <= 0:
        return []
    found: dict[str, tuple[str, str]] = {}
    for _priority, start, end, kind in sorted(_mentions(content, rules)):
        span = _POSSESSIVE.sub("", content[start:end])
        key = entity_key(span)
        if not key or key in found or not quote_found(content, span):
            continue
        found[key] = (kind, span)
        if len(found) >= rules.max_per_memory:
            break
    return [{"entity": key, "kind": kind, "quote": span} for key, (kind, span) in found.items()]


def entity_keys(text: str, rules: EntitySettings) -> list[str]:
    """The entity keys of a text (a query's, or a seed memory's content)."""
    return [m["entity"] for m in extract_entities(text, rules)]
