"""bench/ as a suite: every runnable bench is registered and listed by group, one writer saves
results in one schema, the tuning grids are data the tuner can run, and nothing the docs are made
from reads the archive of superseded results."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from bench.meta import write_result
from bench.suite import GROUPS, REGISTRY
from bench.tune_grids import edge_grid, edge_names, search_grid, search_names
from graphmem.config import EdgeSettings, SearchConfig, load_settings

ROOT = Path(__file__).resolve().parents[1]
HELPERS = {"__init__", "__main__", "corpus", "live_query", "meta", "scale_vectors", "suite", "tune_grids"}


def _bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_every_bench_script_is_registered_in_one_group():
    scripts = {p.stem for p in (ROOT / "bench").glob("*.py")} - HELPERS
    assert scripts == {b.module for b in REGISTRY.values()}
    assert {b.group for b in REGISTRY.values()} == set(GROUPS)
    for bench in REGISTRY.values():
        assert bench.summary, f"bench/{bench.module}.py has no docstring to list"


def test_listing_groups_the_benches_and_an_unknown_name_names_the_fix():
    listed = _bench()
    assert listed.returncode == 0, listed.stderr
    out = listed.stdout
    heads = [out.index(f"\n{group}:\n") for group in GROUPS]
    assert heads == sorted(heads)
    assert out.index("  soak ") > heads[2] and heads[1] < out.index("  scale-1m ") < heads[2]
    assert heads[0] < out.index("  tune-eval ") < heads[1]
    wrong = _bench("sok")
    assert wrong.returncode == 2 and "did you mean soak" in wrong.stderr and "python -m bench" in wrong.stderr


def test_a_bench_runs_by_name_with_its_own_arguments():
    ran = _bench("compare-cv", "--help")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("usage: compare_cv.py") and "--bootstrap BOOTSTRAP" in ran.stdout


def test_the_writer_saves_one_provenance_schema_and_one_latency_key_style(tmp_path):
    saved = write_result(tmp_path / "r.json", {"search": {"p50_s": 0.25, "p95_ms": 3.0, "per_s": 40.0},
                                              "runs": [{"max_s": 1}]})
    on_disk = json.loads((tmp_path / "r.json").read_text())
    assert on_disk == saved
    assert set(on_disk["provenance"]) == {"command", "commit", "dirty", "date", "loadavg", "machine"}
    assert on_disk["search"] == {"p50_ms": 250.0, "p95_ms": 3.0, "per_s": 40.0}     # a rate stays per second
    assert on_disk["runs"] == [{"max_ms": 1000.0}]
    with pytest.raises(ValueError, match="non-finite"):
        write_result(tmp_path / "nan.json", {"p50_ms": math.nan})
    assert not (tmp_path / "nan.json").exists()


def test_the_tuning_grids_hold_only_knobs_the_tuner_can_set():
    tunables = {f.name for f in fields(SearchConfig) if f.metadata.get("tunable")} | {"stages"}
    recipes = set(load_settings(use_env=False).recipes)
    for name in search_names():
        grid = search_grid(name)
        labels = [label for label, _, _ in grid.points]
        assert len(labels) == len(set(labels)), name
        for label, recipe, params in grid.points:
            assert recipe in recipes and set(params) <= tunables, (name, label)
        families = {grid.families.get(label, recipe) for label, recipe, _ in grid.points}
        assert {side for pair in grid.compare for side in pair} <= families | recipes, name
    edge_keys = {f.name for f in fields(EdgeSettings)} | {"topics", "context"}
    for name in edge_names():
        for label, edges in edge_grid(name).variants:
            assert set(edges) <= edge_keys, (name, label)


def test_no_docs_page_generator_or_test_reads_the_archive():
    archive = ROOT / "bench" / "results" / "archive"
    assert any(archive.iterdir())
    readers = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "tools").glob("*.py"), *(ROOT / "tests").rglob("*.py"),
               ROOT / "README.md", ROOT / "mkdocs.yml"]
    this = Path(__file__).resolve()
    cited = re.compile(r"results/archive/[\w./-]*\w\.\w+")      # a file in it (the folder may be named)
    for path in readers:
        if path.resolve() != this:
            assert not cited.search(path.read_text(errors="replace")), path
    for stem in (p.name for p in archive.iterdir() if p.name != "README.md"):
        for path in [*(ROOT / "docs").rglob("*.md"), *(ROOT / "tools").glob("*.py")]:
            assert stem not in path.read_text(errors="replace"), (stem, path)
