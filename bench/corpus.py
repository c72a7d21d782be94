"""The synthetic corpus, now ``harness.corpus`` (shared with the tests); kept for the scale benches
that still import it from here."""

from harness.corpus import FACTS, SOURCES, SUBJECTS, WORDS, make_memories, make_queries, pass_queries

__all__ = ["FACTS", "SOURCES", "SUBJECTS", "WORDS", "make_memories", "make_queries", "pass_queries"]
