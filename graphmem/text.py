"""Text normalisation shared by ingest (hashing, terms, tags) and lexical recall.

Both stores index the *same* term strings produced here, so lexical candidates and
BM25 scores do not depend on a store's own analyzer.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

_WS = re.compile(r"\s+")
# "_" splits (billing_db_url); an inner apostrophe stays so "didn't" can meet its stop word.
_TOKEN = re.compile(r"[a-z0-9][a-z0-9\-.']*[a-z0-9]|[a-z0-9]")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})   # typographic -> ASCII
_CLITIC = re.compile(r"(?:n't|'(?:s|t|d|ll|re|ve|m))$")       # "user's" -> "user", "it'll" -> "it"

# A compact English stop-word list: function words carry no topical signal for
# OVERLAPS edges or BM25.
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
down during each few for from further get got had hadn't has hasn't have haven't having he he'd he'll
he's her here here's hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it
it's its itself just let's like me more most much mustn't my myself no nor not now of off on once only
or other ought our ours ourselves out over own really same shan't she she'd she'll she's should
shouldn't so some such than that that's the their theirs them themselves then there there's these they
they'd they'll they're they've this those through to too under until up us very was wasn't we we'd
we'll we're we've were weren't what what's when when's where where's which while who who's whom why
why's will with won't would wouldn't yeah yes you you'd you'll you're you've your yours yourself
yourselves oh ok okay hey hi wow um uh lol s t d ll re ve m
""".split())


def normalize_whitespace(text: str) -> str:
    return _WS.sub(" ", text).strip()


def normalize_content(text: str) -> str:
    """Canonical form used for exact-duplicate detection (case, width and spacing folded)."""
    return normalize_whitespace(unicodedata.normalize("NFKC", text)).casefold()


def content_hash(text: str) -> str:
    return hashlib.sha256(normalize_content(text).encode("utf-8")).hexdigest()


def normalize_tag(tag: str) -> str:
    """Tags compare case-insensitively with inner whitespace folded to one space."""
    return normalize_whitespace(unicodedata.normalize("NFKC", tag)).casefold()


def normalize_category(category: str) -> str:
    return normalize_whitespace(unicodedata.normalize("NFKC", category)).casefold()


def _stem(token: str) -> str:
    """A tiny, conservative plural folder ("charts" -> "chart", "policies" -> "policy").

    Verb suffixes are left alone: stripping "-ing"/"-ed" blindly maps "billing" to "bill"."""
    for suffix, min_len in (("ies", 5), ("sses", 6), ("s", 4)):
        if token.endswith(suffix) and len(token) >= min_len and not token.endswith(("ss", "us", "is")):
            stem = token[: -len(suffix)]
            return stem + "y" if suffix == "ies" else stem + ("ss" if suffix == "sses" else "")
    return token


def tokenize(text: str) -> list[str]:
    """Lower-cased content terms without stop words, lightly stemmed.

    Terms never hold an apostrophe (the full-text indexes see plain words): a contraction is
    dropped whole when it is a stop word ("didn't"), else loses its clitic ("user's" -> "user")
    and splits at any apostrophe left ("o'reilly" -> "reilly")."""
    folded = unicodedata.normalize("NFKC", text).casefold().translate(_APOSTROPHES)
    tokens = []
    for raw in _TOKEN.findall(folded):
        if raw in STOP_WORDS:
            continue
        for part in _CLITIC.sub("", raw).split("'") if "'" in raw else (raw,):
            part = part.strip(".-_")
            if not part or part in STOP_WORDS or len(part) < 2:
                continue
            tokens.append(_stem(part))
    return tokens


def term_counts(text: str) -> dict[str, int]:
    return dict(Counter(tokenize(text)))


def full_text_terms(counts: Mapping[str, int]) -> str:
    """The text both stores' full-text indexes hold for a memory: each term once per occurrence."""
    return " ".join(t for t, n in counts.items() for _ in range(n))


def rarest_terms(terms: Iterable[str], df: Mapping[str, int], n_docs: int, *, max_terms: int,
                 max_df_ratio: float, max_postings: int) -> list[str]:
    """The terms worth a full-text lookup: the rarest ones present, at most ``max_terms``.

    Linking (OVERLAPS candidates) and lexical recall both use this rule. Terms held by more than
    ``max_df_ratio`` of the ``n_docs`` memories are skipped (tiny idf, long posting lists) unless
    nothing else is present, then the two rarest stand in; and the terms taken stop once their
    summed document frequency would pass ``max_postings`` (the rarest is always taken), so the
    cost of a lookup stays flat as the store grows."""
    unique = sorted(dict.fromkeys(terms), key=lambda t: (df.get(t, 0), t))
    present = [t for t in unique if df.get(t, 0) > 0]
    limit = max(1, n_docs * max_df_ratio)
    selective = [t for t in present if df[t] <= limit]
    chosen: list[str] = []
    postings = 0
    for term in (selective or present[:2])[:max_terms]:
        postings += df[term]
        if chosen and postings > max_postings:
            break
        chosen.append(term)
    return chosen


def quote_found(source_text: str, quote: str) -> bool:
    """Evidence check: the quote occurs in the source after whitespace/case folding."""
    return normalize_content(quote) in normalize_content(source_text)


_LLM_TOKEN = re.compile(r"\w+|[^\w\s]")


def llm_tokens(text: str) -> int:
    """The one token count of context blocks and the eval: words and punctuation marks (a
    tokenizer-free estimate, stable across models; an LLM's BPE count for English prose runs within
    about 10-30% of it). Additive over lines: the count of lines joined by newlines is their sum."""
    return len(_LLM_TOKEN.findall(text))
