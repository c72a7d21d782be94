"""What request validation costs per search, before (hand-written checks) and after (the
contract's pydantic models), measured in one run on the same machine (target: <= 1 ms).

Both trees are exported from git; each parses the same search bodies with its own code path,
from the raw request to the engine's SearchConfig (body parse, field checks, filters, recipe and
tunables, k), inside a real Flask request context. Runs alternate old/new to share the noise.

    .venv/bin/python -m bench.bench_validation --before b1082a8 --out bench/results/validation.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.meta import write_result

ROOT = Path(__file__).resolve().parents[1]

BODIES = {
    "minimal": {"query": "how often are database backups taken"},
    "full": {"query": "how often are database backups taken", "k": 20, "recipe": "hybrid_expansion",
             "filters": {"tags": ["backup", "database"], "categories": ["infra"], "min_health": 0.2,
                         "created_after": "2024-01-01T00:00:00Z", "include_expired": False},
             "stages": {"router": True, "health": False},
             "params": {"recall_candidates": 80, "fusion": "rrf", "rrf_k": 60, "expansion_seeds": 5,
                        "edge_type_weights": {"SHARES_TAG": 1.5, "RELATED": 2.0}, "dedupe_near_duplicates": True},
             "explain": True, "trace": False},
}

COMMON = """
import json, sys, tempfile, time
from flask import g
from graphmem.api import create_app
from graphmem.auth import Principal
from graphmem.config import load_settings

class Holder:     # create_app reads only .settings from the engine; parsing never calls it
    pass

settings = load_settings(overrides={"store": {"data_dir": tempfile.mkdtemp()}}, use_env=False)
holder = Holder()
holder.settings = settings
app = create_app(holder, settings, environ={})
bodies, iterations = json.loads(sys.argv[1]), int(sys.argv[2])
out = {}
for name, body in bodies.items():
    raw = json.dumps(body)
    samples = []
    for _ in range(iterations):
        with app.test_request_context("/v1/search", method="POST", data=raw, content_type="application/json"):
            g.principal = Principal(None, None)
            start = time.perf_counter()
            parse()
            samples.append((time.perf_counter() - start) * 1e6)
    samples.sort()
    out[name] = samples[len(samples) // 2]
print(json.dumps(out))
"""

OLD = """
from graphmem.retrieval.request import build_search_config, parse_filters, parse_k
from graphmem.api.routes_search import SEARCH_FIELDS, _flag, check_search_options
from graphmem.api.serialize import body_namespace, json_body

def parse():
    data = json_body(SEARCH_FIELDS)
    body_namespace(data)
    _flag(data, "explain", True), _flag(data, "trace", False)
    check_search_options(data.get("recipe"), data.get("params"))
    parse_filters(data.get("filters"), settings.limits)
    cfg = build_search_config(settings, data.get("recipe"), data.get("stages"), data.get("params"))
    parse_k(data.get("k"), settings.limits, cfg.k)
"""

NEW = """
from graphmem.api.serialize import body_namespace
from graphmem.api.validation import json_body, models
from graphmem.contract import validate
from graphmem.contract.search import filters_from, search_config

def parse():
    body = validate(models().SearchRequest, json_body())     # parsed once, at the contract
    body_namespace(body.namespace)
    filters_from(body.filters)
    search_config(settings, body)
"""


def export(rev: str, into: Path) -> Path:
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev, "graphmem"], capture_output=True, check=True, cwd=ROOT)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def run(tree: Path, code: str, iterations: int) -> dict[str, float]:
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(BODIES), str(iterations)], capture_output=True,
                          text=True, check=True, cwd=tree, env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"})
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", default="b1082a8", help="the last commit with the hand-written checks")
    ap.add_argument("--after", default="HEAD")
    ap.add_argument("--iterations", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--out", default="bench/results/validation.json")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {side: export(getattr(args, side), Path(tmp) / side) for side in ("before", "after")}
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for _ in range(args.repeats):
            runs["before"].append(run(trees["before"], COMMON.replace("class Holder", OLD + "\nclass Holder"),
                                      args.iterations))
            runs["after"].append(run(trees["after"], COMMON.replace("class Holder", NEW + "\nclass Holder"),
                                     args.iterations))
    rev = {k: subprocess.run(["git", "rev-parse", getattr(args, k)], capture_output=True, text=True,
                             cwd=ROOT).stdout.strip() for k in ("before", "after")}
    result = {
        "command": "python -m bench.bench_validation " + " ".join(sys.argv[1:]),
        "commits": rev,
        "note": "Median microseconds per search request to parse and validate (raw body -> SearchConfig), "
                f"{args.iterations} requests per run, {args.repeats} alternating runs; shared 2-core machine.",
        "bodies": BODIES,
        "p50_us": {side: {body: round(statistics.median(r[body] for r in rs), 1) for body in BODIES}
                   for side, rs in runs.items()},
        "runs_us": runs,
    }
    result["added_us"] = {body: round(result["p50_us"]["after"][body] - result["p50_us"]["before"][body], 1)
                          for body in BODIES}
    write_result(args.out, result)
    print(json.dumps({k: result[k] for k in ("p50_us", "added_us")}, indent=2))


if __name__ == "__main__":
    main()
