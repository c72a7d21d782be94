"""Search request parameters are validated before they reach the pipeline."""

import pytest

from graphmem.config import load_settings
from graphmem.contract import SearchRequest, check_recipes, validate
from graphmem.contract.search import search_config
from graphmem.errors import ConfigError, ValidationError

SETTINGS = load_settings(use_env=False)


@pytest.mark.parametrize("recipe, stages, params, field", [
    ("nope", None, None, "recipe"),
    (None, {"expansion": "yes"}, None, "stages.expansion"),
    (None, {"rerank": True}, None, "stages.rerank"),
    (None, None, {"expansion_seeds": 2.5}, "params.expansion_seeds"),
    (None, None, {"recall_candidates": 10**9}, "params.recall_candidates"),
    (None, None, {"edge_type_weights": "x"}, "params.edge_type_weights"),
    (None, None, {"edge_type_weights": {"KNOWS": 1.0}}, "params.edge_type_weights.KNOWS"),
    (None, None, {"recency_half_life_days": 0}, "params.recency_half_life_days"),
    (None, None, {"dedupe_near_duplicates": "no"}, "params.dedupe_near_duplicates"),
    (None, None, {"fusion": "max"}, "params.fusion"),
    (None, None, {"health_floor": float("nan")}, "params.health_floor"),
])
def test_bad_search_parameters_name_the_field(recipe, stages, params, field):
    with pytest.raises(ValidationError) as err:
        fields = {"recipe": recipe, "stages": stages, "params": params}
        validate(SearchRequest, {"query": "q", **{k: v for k, v in fields.items() if v is not None}}, SETTINGS)
    assert err.value.field == field


def test_recipe_plus_overrides():
    request = validate(SearchRequest, {"query": "q", "recipe": "hybrid", "stages": {"expansion": True},
                                       "params": {"expansion_seeds": 3, "edge_type_weights": {"OVERLAPS": 0}}},
                       SETTINGS)
    cfg = search_config(SETTINGS, request)
    assert cfg.stage("expansion") and not cfg.stage("health") and cfg.expansion_seeds == 3
    assert cfg.edge_type_weights["OVERLAPS"] == 0 and cfg.edge_type_weights["SHARES_TAG"] > 0

def test_default_recipes_are_within_bounds():
    check_recipes(load_settings(use_env=False))

def test_a_recipe_outside_a_tunables_bounds_is_a_config_error():
    settings = load_settings(use_env=False, overrides={"recipes": {"wild": {"vector_weight": 70.0}}})
    with pytest.raises(ConfigError, match="recipe 'wild'.*vector_weight") as err:
        check_recipes(settings)
    assert err.value.field == "recipes.wild.vector_weight"
