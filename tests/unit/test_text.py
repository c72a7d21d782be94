"""The tokeniser and the one "rarest terms" rule shared by linking and lexical recall."""

import pytest

from graphmem.config import load_settings
from graphmem.errors import ConfigError
from graphmem.text import rarest_terms, tokenize


def test_stop_words_with_apostrophes_match_and_leave_no_fragments():
    assert tokenize("I didn't see it and we can't, won't, don't") == ["see"]
    assert tokenize("We didn\u2019t deploy; it\u2019ll fail") == ["deploy", "fail"]     # typographic
    assert "didn" not in tokenize("didn't") and "t" not in tokenize("didn't")


def test_possessives_and_inner_apostrophes_leave_plain_terms():
    assert tokenize("the user's logs and the users' keys") == ["user", "log", "user", "key"]
    assert tokenize("O'Reilly rock'n'roll") == ["reilly", "rock", "roll"]
    assert all("'" not in t for t in tokenize("it's Bob's 'quoted' mightn't")), "terms stay plain words"


def test_other_tokens_are_unchanged():
    assert tokenize("billing_db_url v1.2.3 deploys") == ["billing", "db", "url", "v1.2.3", "deploy"]


DF = {"helm": 3, "deploy": 400, "service": 900, "mid": 6000, "common": 9000}


def test_rarest_terms_skip_common_terms_but_never_return_none_present():
    rule = {"max_terms": 8, "max_df_ratio": 0.2, "max_postings": 10_000}
    assert rarest_terms(["service", "deploy", "helm", "absent"], DF, 1000, **rule) == ["helm"]
    assert rarest_terms(["service", "deploy"], DF, 1000, **rule) == ["deploy", "service"]
    assert rarest_terms(["absent"], DF, 1000, **rule) == []


def test_rarest_terms_stop_at_the_postings_budget_and_the_term_cap():
    rule = {"max_terms": 8, "max_df_ratio": 1.0, "max_postings": 10_000}
    assert rarest_terms(["common", "mid", "helm"], DF, 10**6, **rule) == ["helm", "mid"]
    assert rarest_terms(["common", "mid"], DF, 10**6, **{**rule, "max_postings": 10}) == ["mid"]  # always one
    assert rarest_terms(["common", "mid", "helm", "deploy"], DF, 10**6, **{**rule, "max_terms": 2}) == [
        "helm", "deploy"]


def test_linking_and_recall_share_one_rule_and_one_naming_scheme(tmp_path):
    settings = load_settings(use_env=False)
    keys = ("lexical_lookup_terms", "lexical_max_df_ratio", "lexical_max_postings")
    assert all(hasattr(settings.edges, k) and hasattr(settings.search, k) for k in keys)
    old = tmp_path / "old.toml"
    old.write_text("[edges]\nlexical_term_max_df = 500\n")
    with pytest.raises(ConfigError, match="lexical_max_postings") as err:
        load_settings(old, use_env=False)
    assert err.value.field == "edges.lexical_term_max_df"
