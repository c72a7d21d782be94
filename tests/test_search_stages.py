"""The stage protocol through the real engine: the default plan's rows, a stage added to a plan runs
in its row on the recalled candidates and reports there, a switched-off stage reports through
``skip``, and every result's ``why`` is the contract's typed model."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest

from graphmem.contract.responses import Why
from graphmem.ingest.bulk import import_jsonl
from graphmem.retrieval.pipeline import SearchPipeline, default_plan
from graphmem.retrieval.stage import Search, Stage
from graphmem.retrieval.trace import StageRow

FIXTURE = Path(__file__).parent / "fixtures" / "e2e_agent.jsonl"
QUERY = "How do I ship a new release of the billing service?"
ROWS = ["router", "recall", "expansion", "multihop", "weighting", "rank"]


class HalveTheBest(Stage):
    """A test stage: halves the best candidate's score; on only for recipes with expansion on."""

    name: ClassVar[str] = "halve_the_best"

    def enabled(self, search: Search) -> bool:
        return search.cfg.stage("expansion")

    def run(self, search: Search, row: StageRow) -> None:
        best = min(search.cands.values(), key=lambda c: (-c.score, c.memory.id))
        best.score /= 2
        row.counts(row.n_in, row.n_out, halved=best.memory.id)

    def skip(self, search: Search, row: StageRow) -> None:
        row.counts(row.n_in, row.n_out, halved=None)


@pytest.fixture
def agent(engine):
    assert import_jsonl(engine, FIXTURE)["rejected"] == 0
    return engine


def with_plan(engine, add_to_weighting: list[Stage]) -> SearchPipeline:
    settings = engine.settings
    plan = [(row, [*stages, *add_to_weighting] if row == "weighting" else stages)
            for row, stages in default_plan(settings.supersede, settings.time)]
    return SearchPipeline(engine.store, engine.embedder, engine.clock, 0, plan=plan)


def test_the_default_plan_keeps_the_trace_rows_and_names_each_stage_once(agent):
    plan = default_plan(agent.settings.supersede, agent.settings.time, agent.settings.entities)
    assert [row for row, _ in plan] == ROWS
    names = [stage.name for _, stages in plan for stage in stages]
    assert len(names) == len(set(names)) and all(isinstance(s, Stage) for _, stages in plan for s in stages)
    out = agent.search(QUERY, k=5, trace=True)
    assert out.trace is not None and [s.stage for s in out.trace.stages] == ROWS


def test_a_stage_added_to_the_plan_runs_in_its_row_on_the_candidates(agent):
    before = {c.memory.id: c.score for c in agent.search_outcome(QUERY, k=15).candidates}
    best = next(iter(before))
    agent.pipeline = with_plan(agent, [HalveTheBest()])
    after = agent.search_outcome(QUERY, k=15)
    weighting = next(s for s in after.trace["stages"] if s["stage"] == "weighting")
    # it runs after health, source and time: the candidate it halves is the one ranked first without it
    assert weighting["halved"] == best and weighting["enabled"] is True
    scores = {c.memory.id: c.score for c in after.candidates}
    assert scores == {i: score / 2 if i == best else score for i, score in before.items()}
    assert next(iter(scores)) != best or before[best] / 2 > sorted(before.values())[-2]


def test_a_switched_off_stage_reports_through_skip_and_leaves_the_ranking(agent):
    plain = agent.search_outcome(QUERY, k=5, stages={"expansion": False})
    agent.pipeline = with_plan(agent, [HalveTheBest()])
    off = agent.search_outcome(QUERY, k=5, stages={"expansion": False})
    weighting = next(s for s in off.trace["stages"] if s["stage"] == "weighting")
    assert weighting["halved"] is None and weighting["enabled"] is True      # health and source still ran
    assert [(c.memory.id, c.score) for c in off.candidates] == [(c.memory.id, c.score) for c in plain.candidates]


def test_every_result_explains_itself_in_the_typed_why(agent):
    outcome = agent.search_outcome(QUERY, k=10)
    kinds = set()
    for cand in outcome.candidates:
        why = cand.explain()
        assert isinstance(why, Why) and why.kind == cand.kind
        assert cand.why() == why.model_dump(exclude_unset=True)
        assert why.health.applied and why.source.applied
        kinds.add(why.kind)
        if why.direct is not None:
            assert why.direct.vector is not None or why.direct.lexical is not None
    assert "direct" in kinds and kinds & {"related", "direct+related"}
    sent = agent.search(QUERY, k=10, trace=True).results
    assert [r.why for r in sent] == [c.explain() for c in outcome.candidates]
