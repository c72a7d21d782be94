"""The entity extractor (ingest/entities.py): the rules on examples, and properties over any text
(hypothesis): every mention's span is in the content, keys are unique and folded, the count is
bounded, and the result depends on the content alone."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.config import load_settings
from graphmem.ingest.entities import entity_key, extract_entities
from graphmem.retrieval.multihop import is_list_query, rarity, spread, spreadable

RULES = load_settings(use_env=False).entities


def keys(text: str) -> list[str]:
    return [e["entity"] for e in extract_entities(text, RULES)]


def test_names_phrases_and_folding():
    assert keys("Audrey: I signed my dogs up for an agility class at Pawsome Park.") == [
        "audrey", "pawsome park", "dog", "agility class", "class"]
    assert keys("Andrew's girlfriend loved it.") == ["andrew", "girlfriend"]
    assert keys("Yesterday I went hiking with my sister in New York.") == ["new york", "sister"]
    assert keys("Hey Mel! Good to see you on Saturday.") == ["mel"]          # filler and weekdays are not names
    assert keys("My girlfriend wants a fluffy puppy.") == ["girlfriend", "fluffy puppy", "puppy"]


def test_switches_and_bound():
    assert extract_entities("I met Audrey and her dogs.", replace(RULES, enabled=False)) == []
    assert keys_of("I met Audrey and her dogs.", replace(RULES, phrases=False)) == ["audrey"]
    assert keys_of("I met Audrey and her dogs.", replace(RULES, names=False)) == ["dog"]
    text = " ".join(f"the {w} thing{i}" for i, w in enumerate(["alpha", "bravo", "charlie", "delta", "echo",
                                                                  "foxtrot", "golf", "hotel", "india", "juliet",
                                                                  "kilo", "lima"]))
    assert len(extract_entities(text, RULES)) == RULES.max_per_memory


def keys_of(text: str, rules) -> list[str]:
    return [e["entity"] for e in extract_entities(text, rules)]


WORDS = st.sampled_from(["the", "my", "her", "Audrey", "Andrew's", "dogs", "agility", "class", "New", "York",
                         "of", "kind", "Yesterday", "LGBTQ", "group", ":", ",", ".", "!", "\u2019s", "caf\u00e9",
                         "  ", "\n", "x", "a", "Hey"])


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.lists(WORDS, max_size=40).map(" ".join)))
def test_mentions_are_evidence_gated_unique_bounded_and_deterministic(text):
    found = extract_entities(text, RULES)
    assert len(found) <= RULES.max_per_memory
    assert len({e["entity"] for e in found}) == len(found)
    for mention in found:
        assert mention["quote"] and mention["quote"] in text
        assert mention["entity"] == entity_key(mention["quote"]) != ""
        assert mention["kind"] in ("name", "phrase")
    assert extract_entities(text, RULES) == found


def test_spread_rarity_and_list_questions():
    assert rarity(1, 1000) == 1.0 and 0 < rarity(10, 1000) < rarity(2, 1000) < 1.0 and rarity(1000, 1000) == 0.0
    assert spreadable(2, 10, 0.05) and not spreadable(3, 10, 0.05) and spreadable(50, 1000, 0.05)
    assert not spreadable(0, 10, 0.5)
    reached = spread({"s": (1.0, ["dog", "audrey"])}, ["dog"], {"dog": ["s", "m1", "m2"], "audrey": ["s", "m1"]},
                     {"dog": 0.5, "audrey": 0.2}, 1.0)
    assert set(reached) == {"s", "m1", "m2"}
    assert reached["m1"].activation == 0.5 * 2 + 0.2 * 1 and reached["m1"].via["dog"] == ["query", "s"]
    assert reached["s"].activation == 0.5 * 1 and reached["s"].via == {"dog": ["query"]}   # not from itself
    assert is_list_query("What kind of classes has Audrey joined?") and is_list_query("Which books did she read?")
    assert not is_list_query("When did Caroline go to the support group?")
