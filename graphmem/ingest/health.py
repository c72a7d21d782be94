"""Deterministic health score: 1.0 minus explicit, named penalties.

Pure function of the memory's fields and the rules; health never deletes anything,
it only weights ranking. ``graphmem rescore`` re-applies changed rules.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphmem.config import HealthRules
from graphmem.model import HealthPenalty


@lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern, ...]:
    return tuple(re.compile(p, re.IGNORECASE | re.MULTILINE) for p in patterns)


def _first_match(patterns: tuple[str, ...], text: str) -> str | None:
    for pattern in _compiled(patterns):
        found = pattern.search(text)
        if found:
            return found.group(0).strip()
    return None


def assess_health(content: str, tags: list[str], category: str | None,
                  rules: HealthRules) -> tuple[float, list[HealthPenalty]]:
    """Return (score in [0, 1], penalties that produced it)."""
    penalties: list[HealthPenalty] = []
    length = len(content.strip())
    if length < rules.short_chars:
        penalties.append(HealthPenalty("too_short", rules.short_penalty,
                                       f"{length} chars < {rules.short_chars}"))
    if length > rules.long_chars:
        penalties.append(HealthPenalty("too_long", rules.long_penalty,
                                       f"{length} chars > {rules.long_chars}"))
    transient = _first_match(rules.transient_patterns, content)
    if transient:
        penalties.append(HealthPenalty("transient_command", rules.transient_penalty,
                                       f"matched {transient[:40]!r}"))
    reference = _first_match(rules.reference_patterns, content)
    if reference:
        penalties.append(HealthPenalty("raw_reference", rules.reference_penalty,
                                       f"matched {reference[:40]!r}"))
    if not tags:
        penalties.append(HealthPenalty("missing_tags", rules.missing_tags_penalty, "no tags"))
    if not category:
        penalties.append(HealthPenalty("missing_category", rules.missing_category_penalty, "no category"))
    return health_score(penalties), penalties


def health_score(penalties: list[HealthPenalty]) -> float:
    """1.0 minus the penalties, floor 0.0 (one formula for the rules and the supersession penalty)."""
    return round(max(0.0, 1.0 - sum(p.penalty for p in penalties)), 6)


SUPERSEDED = "superseded"


def superseded_penalty(newer_id: str, at: str, rules: HealthRules) -> HealthPenalty:
    """The penalty a superseded memory carries while the supersession stands."""
    return HealthPenalty(SUPERSEDED, rules.superseded_penalty, f"superseded by {newer_id} at {at}")


def kept_penalties(reasons: list[HealthPenalty]) -> list[HealthPenalty]:
    """The penalties the content rules do not derive (supersession): kept by updates and rescore."""
    return [p for p in reasons if p.rule == SUPERSEDED]
