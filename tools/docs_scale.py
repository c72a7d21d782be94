"""The docs' scale page, generated from the scale results in bench/results/.

Reads every result that exists: the embedded store's whole-search checkpoints
(``scale-1m*.json`` from bench/bench_scale_1m.py: a ``checkpoints`` list, one row per size) and
Neo4j beside the embedded store (``scale-neo4j-<size>.json`` from bench/bench_scale_neo4j.py).
Each point keeps the file it came from, its command, commit and load average, so every figure on
the page names its source. ``python -m tools.docs_scale`` rewrites the block between
``<!-- scale:begin -->`` and ``<!-- scale:end -->`` in docs/benchmarks/scale-1m.md and draws the
curve (``docs/benchmarks/scale-curve.png``, a copy in ``bench/results/scale-curve.png``);
``--check`` only reports whether the page is current. Sizes the page wants (10k, 100k, 1M; Neo4j
to 100k) that no file holds are listed as missing.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
PAGE = ROOT / "docs" / "benchmarks" / "scale-1m.md"
PICTURE = "scale-curve.png"
BLOCK = "scale"
WANTED = {"embedded": (10_000, 100_000, 1_000_000), "embedded, flat": (10_000, 100_000, 1_000_000),
          "neo4j": (10_000, 100_000)}
TWIN = "embedded beside neo4j"
STORE_NAMES = {"sqlite": TWIN, "neo4j": "neo4j"}      # bench_scale_neo4j's own embedded-store run


@dataclass
class Point:
    """One store at one size, as one result file saved it."""
    store: str
    size: int
    file: str
    facts: dict[str, Any]
    p50: float
    p95: float
    embed_p50: float | None
    stages_p50: dict[str, float]
    stages_p95: dict[str, float] = field(default_factory=dict)
    rss_mb: float | None = None
    disk_mb: float | None = None
    load_s: float | None = None
    load_rate: float | None = None
    floor_ratio: float | None = None
    loadavg: float | None = None
    load_from: int = 0                       # the size this run's load started at (0: loaded from empty)


def markers(block: str = BLOCK) -> tuple[str, str]:
    return f"<!-- {block}:begin -->", f"<!-- {block}:end -->"


def _mb(n: float | None) -> float | None:
    return None if n is None else round(n / 1e6, 1)


def from_checkpoint(name: str, row: dict[str, Any], top_facts: dict[str, Any], shape: str = "threads") -> Point:
    """A bench_scale_1m checkpoint (the approximate-index run is the one the store serves); the
    flat shape (no threads, so no context windows) is a series of its own."""
    search = row.get("search_ann") or row.get("search") or {}
    facts = row.get("facts") or top_facts
    disk = row.get("disk") or {}
    stages = search.get("stage_p50_ms") or {k: v["p50_ms"] for k, v in (search.get("stages") or {}).items()}
    per_stage = search.get("stage_ms") or search.get("stages") or {}
    stages95 = search.get("stage_p95_ms") or {k: v["p95_ms"] for k, v in per_stage.items() if "p95_ms" in v}
    return Point("embedded" if shape == "threads" else "embedded, flat", int(row["size"]), name, facts,
                 search["p50_ms"], search["p95_ms"],
                 (search.get("embed_query") or {}).get("p50_ms"), stages, stages95,
                 (row.get("memory") or {}).get("rss_mb"), _mb(sum(v for v in disk.values() if isinstance(v, int))),
                 row.get("load_seconds_so_far"), row.get("segment_rate_per_s"), row.get("floor_ratio_p50"),
                 loadavg=facts.get("machine", {}).get("loadavg_at_start", [None])[0])


def from_neo4j_run(name: str, d: dict[str, Any]) -> list[Point]:
    """Both stores of one bench_scale_neo4j size."""
    out = []
    for kind in d.get("stores", []):
        s, at, load = d["search"][kind], d["stores_at_size"][kind], d["load"].get(kind, {})
        memory = at.get("memory") or {}
        out.append(Point(STORE_NAMES[kind], int(d["size"]), name, d["facts"], s["search"]["p50_ms"],
                         s["search"]["p95_ms"], s["embed_query"]["p50_ms"],
                         {k: v["p50_ms"] for k, v in s["stages"].items()},
                         {k: v["p95_ms"] for k, v in s["stages"].items()},
                         memory.get("rss_mb") or memory.get("server_rss_mb"), _mb(at.get("disk_bytes")),
                         load.get("seconds"), load.get("per_s"), s.get("ratio_p50"),
                         d.get("loadavg_before_search", [None])[0], int(load.get("from", 0))))
    return out


def points(results: Path = RESULTS) -> list[Point]:
    """Every point the result files hold; a size saved twice keeps the later run."""
    found: dict[tuple[str, int], Point] = {}
    for path in sorted(results.glob("scale-1m*.json")):
        d = json.loads(path.read_text())
        for row in d.get("checkpoints", []):
            p = from_checkpoint(path.name, row, d.get("facts", {}), d.get("shape", "threads"))
            _keep(found, p)
    for path in sorted(results.glob("scale-neo4j-*.json")):
        for p in from_neo4j_run(path.name, json.loads(path.read_text())):
            _keep(found, p)
    out = sorted(found.values(), key=lambda p: (p.store, p.size))
    for prev, p in zip(out, out[1:], strict=False):   # a run that continued a store: its load time so far
        if p.load_from and p.store == prev.store and prev.size == p.load_from and prev.load_s and p.load_s:
            p.load_s = round((prev.load_s or 0) + (p.load_s or 0), 1)
    return out


def _keep(found: dict[tuple[str, int], Point], p: Point) -> None:
    old = found.get((p.store, p.size))
    if old is None or p.facts.get("started_utc", "") >= old.facts.get("started_utc", ""):
        found[(p.store, p.size)] = p


def _fmt(x: float | None, digits: int = 0) -> str:
    return "-" if x is None else f"{x:,.{digits}f}"


def _sources(pts: list[Point]) -> dict[tuple[str, str], int]:
    """A number per (file, command): a file's rows share one source line."""
    out: dict[tuple[str, str], int] = {}
    for p in pts:
        out.setdefault(_key(p), len(out) + 1)
    return out


def _key(p: Point) -> tuple[str, str]:
    return p.file, f"{p.facts.get('command', '')}\0{p.facts.get('git_commit', '')}"


def _source_lines(pts: list[Point], numbers: dict[tuple[str, str], int]) -> list[str]:
    lines = []
    for key, n in numbers.items():
        p = next(q for q in pts if _key(q) == key)
        name, command = p.file, p.facts.get("command", "")
        commit = p.facts.get("git_commit", "")[:7] or "(no commit saved)"
        lines.append(f"{n}. `{command or '(no command saved)'}` at {commit}; `bench/results/{name}`")
    return lines


def _stage_names(pts: list[Point]) -> list[str]:
    """Stages in pipeline order (the order a trace lists them)."""
    return list(dict.fromkeys(s for p in pts for s in p.stages_p50))


def _table(head: list[str], rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(head) + " |", "|" + " --- |" * len(head),
                      *("| " + " | ".join(r) + " |" for r in rows)])


def table(pts: list[Point]) -> str:
    """The search table, the resources table and the numbered sources both cite."""
    numbers, stages = _sources(pts), _stage_names(pts)
    search = [[p.store, f"{p.size:,}", f"{p.p50:.1f} / {p.p95:.1f}", _fmt(p.embed_p50, 1), _fmt(p.floor_ratio, 2),
               *[f"{_fmt(p.stages_p50.get(s), 1)} / {_fmt(p.stages_p95.get(s), 1)}" for s in stages],
               _fmt(p.loadavg, 1), f"[{numbers[_key(p)]}]"] for p in pts]
    resources = [[p.store, f"{p.size:,}", _fmt(p.rss_mb), _fmt(p.disk_mb), _fmt(p.load_s), _fmt(p.load_rate, 1),
                  f"[{numbers[_key(p)]}]"] for p in pts]
    return "\n\n".join([
        _table(["store", "memories", "whole search p50 / p95 ms", "query embedding p50 ms", "p50 vs its floor",
                *[f"{s} p50 / p95 ms" for s in stages], "load avg", "source"], search),
        _table(["store", "memories", "RSS MB", "disk MB", "load s", "load memories/s", "source"], resources),
        "Sources:\n\n" + "\n".join(_source_lines(pts, numbers))])


def comparison(results: Path = RESULTS) -> list[str]:
    """Neo4j against the embedded store at each size both were measured at in one run."""
    lines = []
    runs = [(path.name, json.loads(path.read_text())) for path in results.glob("scale-neo4j-*.json")]
    for name, d in sorted(runs, key=lambda r: r[1]["size"]):
        search, ingest = d["search"].get("neo4j_vs_sqlite_p50"), d["load"].get("neo4j_vs_sqlite")
        if search is None:
            continue
        lines.append(f"- {d['size']:,} memories (`bench/results/{name}`, load average "
                     f"{d['loadavg_before_search'][0]:.1f}): Neo4j whole search p50 {search:.2f}x the embedded "
                     f"store's (target <= 1.5: {'met' if search <= 1.5 else 'not met'})"
                     + (f", ingest {ingest:.2f}x (target >= 0.6: {'met' if ingest >= 0.6 else 'not met'})."
                        if ingest is not None else "; ingest not compared (the stores did not load together)."))
    return lines


def missing(pts: list[Point]) -> list[str]:
    have = {(p.store, p.size) for p in pts}
    return [f"{store} {size:,}" for store, sizes in WANTED.items() for size in sizes if (store, size) not in have]


def block(pts: list[Point], results: Path = RESULTS) -> str:
    gaps = missing(pts)
    parts = [f"![Whole search, stages, RSS, disk and load time against the store's size]({PICTURE})", "",
             table(pts), ""]
    compared = comparison(results)
    if compared:
        parts += ["Neo4j beside the embedded store, measured in one run (the same memories and queries, "
                  "the stores in turn):", "", *compared, ""]
    parts.append("Not measured yet: " + "; ".join(gaps) + "." if gaps else "Every size is measured.")
    return "\n".join(parts)


def render(text: str, pts: list[Point]) -> str:
    begin, end = markers()
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{PAGE} has no {begin} ... {end} block")
    return pattern.sub(lambda _: f"{begin}\n{block(pts)}\n{end}", text)


def draw(pts: list[Point], out: Path) -> None:
    """Six panels against the size (log scale): line style per store, colour per stage."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5))
    styles = {"embedded": "-", "embedded, flat": "-.", TWIN: ":", "neo4j": "--"}
    colours = {s: f"C{k}" for k, s in enumerate(_stage_names(pts))}
    for store in styles:
        line = [p for p in pts if p.store == store]
        if not line:
            continue
        sizes, ls = [p.size for p in line], styles[store]
        axes[0][0].plot(sizes, [p.p50 for p in line], ls, color="C0", marker="o", label=f"{store} p50")
        axes[0][0].plot(sizes, [p.p95 for p in line], ls, color="C3", marker="^", label=f"{store} p95")
        for panel, attr in ((axes[0][1], "stages_p50"), (axes[0][2], "stages_p95")):
            for stage in [s for s in colours if any(s in getattr(p, attr) for p in line)]:
                ys = [getattr(p, attr).get(stage) for p in line]
                panel.plot(sizes, [y if y is not None else float("nan") for y in ys], ls, color=colours[stage],
                           marker=".", label=f"{store} {stage}")
        for panel, attr in ((axes[1][0], "rss_mb"), (axes[1][1], "disk_mb"), (axes[1][2], "load_s")):
            panel.plot(sizes, [getattr(p, attr) or float("nan") for p in line], ls,
                       color=f"C{list(styles).index(store)}", marker="o", label=store)
    titles = ["whole search ms (k=10, query embedded live)", "stage p50 ms", "stage p95 ms",
              "RSS MB (embedded: the process; Neo4j: the server)", "disk MB", "load time s (to this size)"]
    for panel, title in zip([a for row in axes for a in row], titles, strict=True):
        panel.set_xscale("log")
        panel.set_xlim(5_000, 2_000_000)
        panel.set_xticks([10_000, 100_000, 1_000_000], ["10k", "100k", "1M"])
        panel.set_title(title, fontsize=10)
        panel.set_xlabel("memories in the namespace")
        panel.grid(True, alpha=0.3)
        if panel.lines:
            panel.legend(fontsize=6)
        else:
            panel.text(0.5, 0.5, "not saved by these runs", ha="center", transform=panel.transAxes)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=80, metadata={"Software": None})
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="exit 1 if the page is not current")
    args = ap.parse_args()
    pts = points()
    text = PAGE.read_text()
    new = render(text, pts)
    if args.check:
        sys.exit(0 if new == text and (PAGE.parent / PICTURE).exists() else 1)
    draw(pts, PAGE.parent / PICTURE)
    shutil.copyfile(PAGE.parent / PICTURE, RESULTS / PICTURE)
    PAGE.write_text(new)
    print("missing:", ", ".join(missing(pts)) or "none")


if __name__ == "__main__":
    main()
