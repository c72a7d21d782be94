"""The scale page is the one tools/docs_scale.py makes from bench/results: a result saved without
regenerating the page (or a figure typed in by hand) fails here, and so does a missing size that
the page does not name."""

from __future__ import annotations

import shutil

from tools import docs_scale


def test_scale_page_matches_saved_results():
    page = docs_scale.PAGE.read_text()
    fresh = docs_scale.render(page, docs_scale.points())
    assert fresh == page, "scale page is stale: run `python -m tools.docs_scale`"


def test_picture_is_saved_with_the_results():
    shown = docs_scale.PAGE.parent / docs_scale.PICTURE
    assert shown.read_bytes() == (docs_scale.RESULTS / docs_scale.PICTURE).read_bytes()


def test_every_row_cites_an_existing_result_with_its_command():
    pts = docs_scale.points()
    assert pts, "no scale result in bench/results"
    block = docs_scale.block(pts)
    for p in pts:
        assert (docs_scale.RESULTS / p.file).exists()
        assert f"`bench/results/{p.file}`" in block
        assert p.facts.get("command", "") in block


def test_sizes_no_file_holds_are_named_missing(tmp_path):
    """Only the embedded store's checkpoints present: Neo4j's sizes are listed as not measured."""
    for path in docs_scale.RESULTS.glob("scale-1m*.json"):
        shutil.copy(path, tmp_path / path.name)
    pts = docs_scale.points(tmp_path)
    gaps = docs_scale.missing(pts)
    assert "neo4j 10,000" in gaps and "neo4j 100,000" in gaps
    assert "Not measured yet: " + "; ".join(gaps) in docs_scale.block(pts, tmp_path)
    measured = {f"{p.store} {p.size:,}" for p in pts}
    assert not measured & set(gaps)


def test_picture_is_drawn_from_the_points(tmp_path):
    out = tmp_path / "curve.png"
    docs_scale.draw(docs_scale.points(), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
