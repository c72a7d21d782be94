"""Text normalisation shared by ingest (hashing, terms, tags) and lexical recall.

Both stores index the *same* term strings produced here, so lexical candidates and
BM25 scores do not depend on a store's own analyzer.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter

_WS = re.compile(r"\s+")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9\-.]*[a-z0-9]|[a-z0-9]")   # "_" splits: billing_db_url

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
    """Lower-cased content terms without stop words, lightly stemmed."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("'", "'")
    tokens = []
    for raw in _TOKEN.findall(folded.replace("'", " ")):
        raw = raw.strip(".-_")
        if not raw or raw in STOP_WORDS or len(raw) < 2:
            continue
        tokens.append(_stem(raw))
    return tokens


def term_counts(text: str) -> dict[str, int]:
    return dict(Counter(tokenize(text)))


def quote_found(source_text: str, quote: str) -> bool:
    """Evidence check: the quote occurs in the source after whitespace/case folding."""
    return normalize_content(quote) in normalize_content(source_text)
