"""Relative time phrases (ingest/timeref.py): the parser never raises, every span is in the text,
every resolution is finite and ordered; worked examples against the renderings answers use."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.config import load_settings
from graphmem.ingest.timeref import memory_time, resolve_memory_times, resolve_phrases, stored_range

RULES = load_settings(use_env=False).time
MONDAY = date(2023, 5, 8)          # LoCoMo conv-26's first session: Monday 8 May 2023

PIECES = ["yesterday", "today", "tomorrow", "last week", "last weekend", "next month", "last year",
          "last Saturday", "next Friday", "this Sunday", "3 days ago", "two weeks ago", "a few years ago",
          "in May", "last May", "May 3, 2023", "7 May 2023", "in 2022", "last summer", "this winter",
          "9999 years ago", "in December 9999", "next year", "the day before yesterday", "March", "may",
          " ", ", ", ". ", "I went", "\u2019s", "\n", "ago", "last", "in"]


def check(text: str, anchor: date, absolute: bool) -> None:
    refs = resolve_phrases(text, anchor, RULES, absolute=absolute)
    previous_end = 0
    for ref in refs:
        assert 0 <= ref.start < ref.end <= len(text)
        assert text[ref.start:ref.end] == ref.phrase
        assert ref.start >= previous_end                    # in text order, never overlapping
        previous_end = ref.end
        assert ref.first <= ref.last
        assert stored_range(ref.to_dict()) == (ref.first, ref.last)
        assert ref.text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200), st.dates(), st.booleans())
def test_any_text_never_raises_and_spans_are_in_it(text, anchor, absolute):
    check(text, anchor, absolute)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), st.dates(), st.booleans())
def test_phrase_soup_resolves_inside_the_calendar(text, anchor, absolute):
    check(text, anchor, absolute)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120), st.text(max_size=40))
def test_stored_times_are_evidence_gated(content, stamp):
    for entry in resolve_memory_times(content, stamp, RULES):
        start, end = entry["span"]
        assert content[start:end] == entry["phrase"]


@pytest.mark.parametrize("text, value, rendering", [
    ("I went to the support group yesterday.", "2023-05-07", "7 May 2023"),
    ("I gave a talk at a school last week.", "2023-05-01/2023-05-07", "the week before 8 May 2023"),
    ("We went camping last weekend!", "2023-05-06/2023-05-07", "the weekend before 8 May 2023"),
    ("Last Saturday I ran a charity race.", "2023-05-06", "the Saturday before 8 May 2023"),
    ("last Monday was rough", "2023-05-01", "the Monday before 8 May 2023"),
    ("I had it done 10 years ago", "2013-01-01/2013-12-31", "2013"),
    ("3 days ago", "2023-05-05", "5 May 2023"),
    ("two weekends ago", "2023-04-29/2023-04-30", "two weekends before 8 May 2023"),
    ("We move next month.", "2023-06-01/2023-06-30", "June 2023"),
    ("I read it last year", "2022-01-01/2022-12-31", "2022"),
    ("We met in May.", "2023-05-01/2023-05-31", "May 2023"),
    ("last summer was hot", "2022-06-01/2022-08-31", "summer 2022"),
    ("this morning I painted", "2023-05-08", "8 May 2023"),
    ("the day before yesterday", "2023-05-06", "6 May 2023"),
    ("a few days ago", "2023-05-04/2023-05-06", "a few days before 8 May 2023"),
])
def test_examples(text, value, rendering):
    (ref,) = resolve_phrases(text, MONDAY, RULES)
    assert (ref.value, ref.text) == (value, rendering)


@pytest.mark.parametrize("text", ["I may go", "They march on", "It was in 2022.", "On 7 May 2023 we met",
                                  "I went out with May yesterday"[:16], "the next day"])
def test_no_relative_phrase_no_resolution(text):
    assert resolve_phrases(text, MONDAY, RULES) == []


def test_query_dates_read_absolute_forms():
    refs = resolve_phrases("Who did Maria have dinner with on May 3, 2023?", MONDAY, RULES, absolute=True)
    assert [(r.phrase, r.value) for r in refs] == [("May 3, 2023", "2023-05-03")]
    (year,) = resolve_phrases("what happened in 2022", MONDAY, RULES, absolute=True)
    assert year.value == "2022-01-01/2022-12-31"


def test_memory_time_prefers_a_parsable_metadata_time():
    assert memory_time({"timestamp": "2023-05-08T13:56:00"}, "2024-01-01T00:00:00Z", ["timestamp"]) \
        == "2023-05-08T13:56:00"
    assert memory_time({"timestamp": "junk"}, "2024-01-01T00:00:00Z", ["timestamp"]) == "2024-01-01T00:00:00Z"
    assert memory_time({}, "2024-01-01T00:00:00Z", ["timestamp"]) == "2024-01-01T00:00:00Z"


def test_disabled_or_unparsable_time_resolves_nothing():
    off = load_settings(overrides={"time": {"enabled": False}}, use_env=False).time
    assert resolve_phrases("yesterday", MONDAY, off) == []
    assert resolve_memory_times("yesterday", "not a time", RULES) == []
