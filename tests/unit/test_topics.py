"""Topic extraction: deterministic, evidence-backed, capped, configurable."""

from __future__ import annotations

from dataclasses import replace

from graphmem.config import load_settings
from graphmem.ingest.topics import extract_topics
from graphmem.text import quote_found

RULES = load_settings(use_env=False).topics


def keys(text: str, rules=RULES) -> list[str]:
    return [t["topic"] for t in extract_topics(text, rules)]


def test_names_first_then_longest_words_with_their_spans():
    text = "Caroline: I went to a LGBTQ support group yesterday in New York and it was so powerful."
    topics = extract_topics(text, replace(RULES, max_per_memory=10))
    assert [t["topic"] for t in topics][:2] == ["lgbtq", "new york"]     # acronym, multi-word name
    assert {"support", "group", "powerful", "yesterday", "caroline"} <= {t["topic"] for t in topics}
    for topic in topics:                 # every topic's quote is a span of the content: the evidence gate
        assert quote_found(text, topic["quote"]) and topic["quote"] in text
    assert "went" in keys(text, replace(RULES, max_per_memory=10))
    assert "went" not in keys(text, replace(RULES, max_per_memory=10, min_chars=5))   # shorter than min_chars


def test_keys_are_graphmem_terms_so_forms_meet():
    assert "pottery" in keys("Potteries are fun") and "pottery" in keys("I love pottery")


def test_sentence_initial_capital_is_not_a_name_and_stop_words_never_topics():
    assert keys("Thanks for that.") == ["thank"]
    assert keys("The and of it") == []


def test_cap_disable_and_pairs():
    text = "Melanie paints sunsets, sunrises, landscapes, portraits, flowers and horses near the lake."
    assert len(extract_topics(text, replace(RULES, max_per_memory=3))) == 3
    assert extract_topics(text, replace(RULES, enabled=False)) == []
    names = keys("Then Melanie flew to Paris with Nate.", replace(RULES, words=False))
    assert names == ["melanie", "paris", "nate"]
    paired = keys("Dave joined a rock band", replace(RULES, phrases=True, max_per_memory=10))
    assert "rock band" in paired and "rock band" not in keys("Dave joined a rock band")


def test_deterministic():
    text = "Jon's dance studio opened in Paris; Gina sells clothing online."
    assert extract_topics(text, RULES) == extract_topics(text, RULES)
