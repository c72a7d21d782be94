"""Regenerate the docs site's quality tables from saved reports (never typed in by hand).

Reads bench/results/cv/<model>.json (bench/tune_eval.py --cv), bench/results/models.json
(bench/bench_models.py) and bench/results/eval-fixture/report.json (graphmem eval), and
rewrites the block between ``<!-- quality:begin -->`` and ``<!-- quality:end -->`` in
docs/benchmarks/quality.md. Every table says whether its figures are held-out or tuned-on and which commit
made them.

    python -m tools.docs_quality [--default-model context-minilm]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path
from typing import Any

from graphmem.eval import cv as cvlib

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "benchmarks" / "quality.md"

RESULTS = ROOT / "bench" / "results"
BEGIN, END = "<!-- quality:begin -->", "<!-- quality:end -->"
FAMILIES = [("lexical", "lexical (BM25)"), ("vector", "vector"), ("hybrid", "hybrid"),
            ("hybrid_context", "hybrid + context windows"),
            ("hybrid_expansion", "hybrid + context + expansion"), ("default", "default (+ health + source)")]
# CV grids whose families are levers on one default (one table each), by their table title
FEATURE_GRIDS = {"cv-multihop": "Multi-hop levers", "cv-default": "The default re-chosen (expansion_threaded)",
                 "cv-recall": "Recall levers (full-text term selection, fusion, pool sizes)",
                 "cv-keys": "Reciprocal-rank fusion per recall key",
                 "cv-threaded": "The memory key's fusion in searches over threads",
                 "cv-rrf": "rrf_k and context_weight tuned per fold",
                 "cv-entities": "Entities: stage multihop tuned per fold, and a list question's thread spread"}
CATEGORIES = ["multi_hop", "temporal", "open_domain", "single_hop"]


def ci(cell: dict[str, Any], signed: bool = False) -> str:
    fmt = "{:+.3f}" if signed else "{:.3f}"
    return f"{fmt.format(cell['mean'])} [{fmt.format(cell['ci95'][0])}, {fmt.format(cell['ci95'][1])}]"


def short(commit: str | None) -> str:
    return (commit or "?")[:7]


def run_commit(report: dict[str, Any] | None) -> str:
    """The commit a report ran at, as it landed on main (``commits_landed_as`` maps a branch
    commit that was rebased before landing to the commit it became), shortened."""
    report = report or {}
    prov = report.get("provenance") or {}
    commit = prov.get("commit") or (prov.get("git") or {}).get("commit")    # a bench's, or graphmem eval's
    return short((report.get("commits_landed_as") or {}).get(commit, commit))


def cv_tables(name: str, cv: dict[str, Any]) -> list[str]:
    prov = cv["provenance"]
    lines = [f"**locomo-dev, {cv['model']}, held-out** (leave-one-conversation-out: each family's grid "
             f"point is chosen on 4 conversations by {cv['protocol']['objective']} and scored on the 5th; "
             f"mean of the 5 held-out folds, 95% stratified bootstrap interval; {cv['protocol']['queries']} "
             f"queries; `{prov['command']}` at {run_commit(cv)}, "
             f"`bench/results/cv/{name}.json`):", "",
             "| recipe | R@5 | R@10 | nDCG@10 | MRR | multi-hop R@10 | temporal | open-domain | single-hop "
             "| answer in top 5 | answer in top 10 | context tokens @10 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for family, label in FAMILIES:
        if family not in cv["families"]:
            continue
        h = cv["families"][family]["held_out"]
        cats = [h["by_category"].get(c, {}).get("recall@10") for c in CATEGORIES]
        lines.append(f"| {label} | {h['recall@5']['mean']:.3f} | {ci(h['recall@10'])} "
                     f"| {h['ndcg@10']['mean']:.3f} | {h['mrr']['mean']:.3f} | {ci(cats[0]) if cats[0] else ''} | "
                     + " | ".join(f"{c['mean']:.3f}" if c else "" for c in cats[1:])
                     + f" | {h['answer@5']['mean']:.3f} | {h['answer@10']['mean']:.3f} "
                       f"| {h['context_tokens@10']['mean']:.0f} |")
    tuned = cv["families"]["default"]["tuned_on"]
    lines.append(f"| *default, tuned-on (in-sample, for contrast)* | {tuned['recall@5']['mean']:.3f} "
                 f"| {tuned['recall@10']['mean']:.3f} | {tuned['ndcg@10']['mean']:.3f} "
                 f"| {tuned['mrr']['mean']:.3f} "
                 f"| {tuned['by_category']['multi_hop']['recall@10']['mean']:.3f} | | | | | | |")
    lines += ["", "Paired differences, held-out (95% interval; an interval that spans 0 is no evidence):", "",
              "| a - b | R@10 | nDCG@10 | multi-hop R@10 | answer in top 10 |", "|---|---|---|---|---|"]
    for pair, d in cv["differences"].items():
        mh = d["by_category"].get("multi_hop", {}).get("recall@10")
        lines.append(f"| {pair} | {ci(d['recall@10'], True)} | {ci(d['ndcg@10'], True)} | "
                     f"{ci(mh, True) if mh else ''} | {ci(d['answer@10'], True)} |")
    chosen = sorted({f["chosen"] for f in cv["families"]["default"]["folds"]})
    names = ", ".join(f"`{c}`" for c in chosen)
    lines += ["", f"Default family: grid points chosen across the folds: {names}.", ""]
    return lines


def edge_table(name: str, cv: dict[str, Any]) -> list[str]:
    """Held-out edge precision of expansion (``edge_precision_held_out`` of each family)."""
    blocks = {f: cv["families"][f].get("edge_precision_held_out") for f, _ in FAMILIES if f in cv["families"]}
    blocks = {f: b for f, b in blocks.items() if b}
    if not blocks:
        return []
    labels = dict(FAMILIES)
    lines = [f"**Edge precision, held-out** (`bench/results/cv/{name}.json`, the same folds: every neighbour "
             "expansion added before the cut to k, credited to the edge of its best path; relevant = a gold "
             "evidence turn; pooled over queries, 95% stratified bootstrap interval. *Boosted*: direct hits in "
             "the top 10 that an edge also reached, raised by the merge bonus):", "",
             "| recipe | edge | added (per query) | relevant | precision | added, in top 10 (relevant) "
             "| boosted in top 10 (relevant) |", "|---|---|---|---|---|---|---|"]

    def cell(c: dict[str, Any]) -> str:
        if c is None or c["precision"] is None:
            return ""
        return f"{c['precision']:.3f} [{c['ci95'][0]:.3f}, {c['ci95'][1]:.3f}]"

    for family, b in blocks.items():
        n = b["queries"]
        boosted = b["boosted_in_top_k"]
        lines.append(f"| {labels[family]} | all | {b['all']['added']} ({b['all']['added'] / n:.1f}) "
                     f"| {b['all']['relevant']} | {cell(b['all'])} | {b['in_top_k']['added']} "
                     f"({b['in_top_k']['relevant']}) | {boosted['all']['added']} ({boosted['all']['relevant']}) |")
        for key in sorted(set(b["by_edge"]) | set(boosted["by_edge"])):
            e, o = b["by_edge"].get(key), boosted["by_edge"].get(key)
            boost = f"{o['added']} ({o['relevant']})" if o else ""
            lines.append(f"| | {key} | {e['added'] if e else 0} | {e['relevant'] if e else 0} | {cell(e)} | "
                         f"| {boost} |")
    return lines + [""]


def round_ratio(cost: dict[str, Any], base: dict[str, Any], key: str) -> str:
    """Median over rounds of this model's figure / the base model's in the same round (the
    models take turns within a round, so the ratio cancels most of the machine's load)."""
    ours, theirs = cost.get(key, {}).get("runs") or [], base.get(key, {}).get("runs") or []
    ratios = sorted(a / b for a, b in zip(ours, theirs, strict=False) if b)
    return f"{statistics.median(ratios):.2f}x" if ratios else ""


def model_table(cvs: dict[str, dict[str, Any]], costs: dict[str, Any] | None, base_model: str) -> list[str]:
    by_model = {m["model"]: m for m in (costs or {}).get("models", [])}
    base = by_model.get(base_model, {})
    load = (costs or {}).get("loadavg_1min") or [0.0]
    lines = ["**Embedding model** (held-out default recipe per model, same protocol; each row's CV grid and "
             "commit are named; cost from "
             "`python -m bench.bench_models` at "
             f"{run_commit(costs)}, "
             "`bench/results/models.json`, 2 shared cores, load average "
             f"{min(load):.0f}-{max(load):.0f}: "
             f"median of {(costs or {}).get('rounds', '?')} rounds, the models taking turns [min, max]):", "",
             "| model | CV grid, commit | R@10 | multi-hop R@10 | nDCG@10 | answer in top 10 "
             "| query embedding p50 ms (x default, per round) | ingest memories/s (x default, per round) |",
             "|---|---|---|---|---|---|---|---|"]
    for _name, cv in cvs.items():
        h = cv["families"]["default"]["held_out"]
        cost = by_model.get(cv["model"], {})
        q = cost.get("query_embedding_ms_p50")
        ing = cost.get("ingest_memories_per_s")
        run = f"{cv['grid_spec']['grid']}, {run_commit(cv)}"
        q_cell = (f"{q['median']:.1f} [{q['min']:.1f}, {q['max']:.1f}] "
                  f"({round_ratio(cost, base, 'query_embedding_ms_p50')})") if q else ""
        ing_cell = (f"{ing['median']:.1f} [{ing['min']:.1f}, {ing['max']:.1f}] "
                    f"({round_ratio(cost, base, 'ingest_memories_per_s')})") if ing else ""
        lines.append(f"| {cv['model']} | {run} | {ci(h['recall@10'])} "
                     f"| {ci(h['by_category']['multi_hop']['recall@10'])} "
                     f"| {h['ndcg@10']['mean']:.3f} | {h['answer@10']['mean']:.3f} | {q_cell} | {ing_cell} |")
    return lines + [""]


def model_differences(cvs: dict[str, dict[str, Any]], base_name: str) -> list[str]:
    """Paired held-out differences between embedding models: each other model's hybrid and
    default recipes minus the base model's default, on the same queries and folds (needs the
    reports' ``held_out_per_query``; reports without it are left out)."""
    base = cvs.get(base_name, {})
    rows_b = base.get("families", {}).get("default", {}).get("held_out_per_query")
    if not rows_b:
        return []
    groups = base["protocol"]["groups"]
    multi = {g: [q for q in ids if q in set(base["protocol"]["categories"].get("multi_hop", []))]
             for g, ids in groups.items()}
    lines = [f"Paired differences between models, held-out (each model's recipe minus {base['model']}'s "
             "default, the same 760 queries and folds; 95% paired stratified bootstrap, 2,000 resamples):", "",
             "| a - b | R@10 | multi-hop R@10 | nDCG@10 | answer in top 10 |", "|---|---|---|---|---|"]
    for name, other in cvs.items():
        if name == base_name:
            continue
        for family in ("hybrid", "default"):
            rows_a = other.get("families", {}).get(family, {}).get("held_out_per_query")
            if not rows_a or set(rows_a) != set(rows_b):
                continue
            cells = [cvlib.interval(rows_a, groups, "recall@10", baseline=rows_b),
                     cvlib.interval(rows_a, multi, "recall@10", baseline=rows_b),
                     cvlib.interval(rows_a, groups, "ndcg@10", baseline=rows_b),
                     cvlib.interval(rows_a, groups, "answer@10", baseline=rows_b)]
            row = " | ".join(ci(c, True) for c in cells)
            lines.append(f"| {other['model']} {family} - default | {row} |")
    return lines + [""] if len(lines) > 4 else []


def feature_tables(cvs: dict[str, dict[str, Any]]) -> list[str]:
    """The multi-hop levers (``--grid cv-multihop`` reports, and ``--edges windows`` ones): every family
    held-out per category, and each family's paired difference with today's default (or with the
    same recipe on the shipped window)."""
    lines: list[str] = []
    for name, cv in cvs.items():
        spec = cv.get("grid_spec", {})
        if spec.get("grid") not in FEATURE_GRIDS and spec.get("edges") != "windows":
            continue
        prov = cv["provenance"]
        title = FEATURE_GRIDS.get(spec.get("grid", ""), "Multi-hop levers")
        lines += [f"**{title}, {cv['model']}, held-out** (each family tuned per fold on its own grid "
                  f"points; `{prov['command']}` at {run_commit(cv)}, `bench/results/cv/{name}.json`):", "",
                  "| family | grid points | R@10 | multi-hop R@10 | temporal | open-domain | single-hop "
                  "| answer in top 10 | context tokens @10 |", "|---|---|---|---|---|---|---|---|---|"]
        for family, data in cv["families"].items():
            h = data["held_out"]
            cats = [h["by_category"].get(c, {}).get("recall@10") for c in CATEGORIES]
            lines.append(f"| {family} | {data['grid_points']} | {ci(h['recall@10'])} | "
                         + " | ".join(ci(c) if c else "" for c in cats)
                         + f" | {ci(h['answer@10'])} | {h['context_tokens@10']['mean']:.0f} |")
        lines += ["", "| a - b (paired, held-out) | R@10 | multi-hop R@10 | temporal | open-domain | single-hop "
                  "| answer in top 10 |", "|---|---|---|---|---|---|---|"]
        for pair, d in cv["differences"].items():
            a, b = pair.split(" - ")
            if not (b in ("default", "hybrid_context") or a.startswith(b + " ")):
                continue
            cats = [d["by_category"].get(c, {}).get("recall@10") for c in CATEGORIES]
            lines.append(f"| {pair} | {ci(d['recall@10'], True)} | "
                         + " | ".join(ci(c, True) if c else "" for c in cats) + f" | {ci(d['answer@10'], True)} |")
        lines.append("")
    return lines


def compare_table() -> list[str]:
    """Paired held-out differences across two CV reports (``bench/compare_cv.py``, bench/results/cv-compare/)."""
    paths = sorted((RESULTS / "cv-compare").glob("*.json"))
    if not paths:
        return []
    lines = ["**Across models, held-out, paired** (`python -m bench.compare_cv A.json:family B.json:family`: "
             "the same 760 queries and folds, 95% paired stratified bootstrap):", "",
             "| a - b | R@10 | multi-hop R@10 | temporal | open-domain | single-hop | answer in top 10 | file |",
             "|---|---|---|---|---|---|---|---|"]
    for path in paths:
        rep = json.loads(path.read_text())
        a, b, d = rep["a"], rep["b"], rep["difference"]
        cats = [d["by_category"].get(c, {}).get("recall@10") for c in CATEGORIES]
        label = (f"{a['model'].split('/')[-1]} {a['family']} ({short(a['commit'])}) - "
                 f"{b['model'].split('/')[-1]} {b['family']} ({short(b['commit'])})")
        lines.append(f"| {label} | {ci(d['recall@10'], True)} | "
                     + " | ".join(ci(c, True) if c else "" for c in cats)
                     + f" | {ci(d['answer@10'], True)} | `{path.relative_to(ROOT)}` |")
    return lines + [""]


def old_new_table() -> list[str]:
    """The agent-memory sets under the new default and the old one (bench/configs/minilm-default.toml),
    at one commit: ``<name>`` (new) beside ``<name>-minilm`` (old)."""
    lines = ["**Agent-memory sets, new default (e5-small-v2) vs old (all-MiniLM-L6-v2)** (no threads, so "
             "expansion_threaded does not apply; tuned-on for the old default; `graphmem eval`, "
             "old = `--config bench/configs/minilm-default.toml`):", "",
             "| set | recipe | model | commit | R@5 | R@10 | nDCG@10 | MRR | hit@1 | file |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, recipes in (("eval-fixture", ("vector", "hybrid", "default")),
                          ("eval-quality-blind", ("default", "default_grouped"))):
        for suffix, model in (("", "e5-small-v2"), ("-minilm", "all-MiniLM-L6-v2")):
            path = RESULTS / f"{name}{suffix}" / "report.json"
            if not path.exists():
                continue
            report = json.loads(path.read_text())
            for recipe in recipes:
                o = report["configs"].get(recipe, {}).get("overall")
                if o:
                    lines.append(f"| {name} ({report['dataset']['queries']} queries) | {recipe} | {model} "
                                 f"| {run_commit(report)} | {o['recall@5']:.3f} | {o['recall@10']:.3f} "
                                 f"| {o['ndcg@10']:.3f} | {o['mrr']:.3f} | {o['hit@1']:.3f} "
                                 f"| `{path.relative_to(ROOT)}` |")
    return lines + [""] if len(lines) > 4 else []


def fixture_table() -> list[str]:
    report = json.loads((RESULTS / "eval-fixture" / "report.json").read_text())
    lines = ["**Agent-memory fixture** (tuned-on: the defaults were chosen with these 38 queries in view; too "
             f"few for folds; `{report.get('command')}` at {run_commit(report)}):", "",
             "| recipe | R@5 | R@10 | nDCG@10 | MRR | needs-related R@10 | low-health share | "
             "low-health above a relevant record in top 3 |", "|---|---|---|---|---|---|---|---|"]
    for family, label in FAMILIES:
        if family not in report["configs"]:      # a recipe newer than the saved report
            continue
        o = report["configs"][family]["overall"]
        nr = report["configs"][family]["by"]["needs_related"]["true"]["recall@10"]
        lines.append(f"| {label} | {o['recall@5']:.3f} | {o['recall@10']:.3f} | {o['ndcg@10']:.3f} "
                     f"| {o['mrr']:.3f} | {nr:.3f} | {100 * o['low_health_share']:.1f}% "
                     f"| {o['low_health_above_relevant_top3']:.0f} |")
    return lines + [""]


def fixture_levers_table() -> list[str]:
    """One-knob moves on the agent-memory fixture under the default model (bench/configs/fixture-levers.toml)."""
    path = RESULTS / "eval-fixture-levers" / "report.json"
    if not path.exists():
        return []
    report = json.loads(path.read_text())
    lines = ["**Agent-memory fixture, one-knob moves under e5-small-v2** (tuned-on, 38 queries; "
             f"`{report.get('command')}` at {run_commit(report)}, `{path.relative_to(ROOT)}`):", "",
             "| recipe | R@10 | nDCG@10 | needs-related R@10 |", "|---|---|---|---|"]
    for name, data in report["configs"].items():
        o, nr = data["overall"], data["by"]["needs_related"]["true"]["recall@10"]
        lines.append(f"| {name} | {o['recall@10']:.3f} | {o['ndcg@10']:.3f} | {nr:.3f} |")
    return lines + [""]


def answer_ceiling_table() -> list[str]:
    """The share of answers in their labelled evidence (bench/answer_ceiling.py): answer@k's ceiling."""
    path = RESULTS / "answer-ceiling.json"
    if not path.exists():
        return []
    rep = json.loads(path.read_text())
    cats = " | ".join(f"{rep['by_category'][c]['answer_in_evidence']:.3f}" if c in rep["by_category"] else ""
                      for c in CATEGORIES)
    return ["**Answer coverage ceiling** (the share of locomo-dev queries whose gold answer is in the text of "
            f"their labelled evidence turns: a retriever returning exactly those turns scores this; "
            f"`{rep['run']['command']}` at {short(rep['run']['git_commit'])}, `{path.relative_to(ROOT)}`):", "",
            "| all | multi-hop | temporal | open-domain | single-hop |", "|---|---|---|---|---|",
            f"| {rep['answer_in_evidence']:.3f} | {cats} |", ""]


def render(default_name: str) -> str:
    cvs = {p.stem: json.loads(p.read_text()) for p in sorted((RESULTS / "cv").glob("*.json"))}
    # the model table compares embedders on the shipped edges; other CV reports (e.g. edge variants) stay out
    models = {name: cv for name, cv in cvs.items() if cv.get("grid_spec", {}).get("edges") == "tuned"
              and cv.get("grid_spec", {}).get("grid") not in FEATURE_GRIDS}
    costs_path = RESULTS / "models.json"
    costs = json.loads(costs_path.read_text()) if costs_path.exists() else None
    lines = [BEGIN]
    if default_name in cvs:
        lines += cv_tables(default_name, cvs[default_name]) + edge_table(default_name, cvs[default_name])
    base_model = cvs[default_name]["model"] if default_name in cvs else ""
    lines += model_table(models, costs, base_model) + model_differences(models, default_name)
    lines += feature_tables(cvs) + answer_ceiling_table() + compare_table() + fixture_table()
    lines += fixture_levers_table() + old_new_table() + [END]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--default-model", default="context-minilm", help="the cv report whose full tables are shown")
    args = ap.parse_args()
    text = PAGE.read_text()
    if BEGIN not in text:
        raise SystemExit(f"{PAGE} has no {BEGIN} marker")
    new = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _m: render(args.default_model), text,
                 flags=re.S)
    PAGE.write_text(new)
    print(f"{PAGE.relative_to(ROOT)}: quality block regenerated")


if __name__ == "__main__":
    main()
