"""Topic extractors compared on locomo-dev: cost per memory and a link-quality proxy.

Why: the extractor runs on every insert, and its topics only help if two turns about the same
thing (multi-hop evidence of one query) share one while two random turns of a conversation
rarely do. For each extractor: microseconds per memory (median of repeats, 2 shared cores),
topics per memory, the share of multi-hop evidence pairs sharing a linkable topic (held by at
most ``--max-df-ratio`` of the conversation, as linking requires), the same share over random
pairs of one conversation, and their ratio (lift).

    python -m bench.topics_compare [--yake-path /tmp/topics-yake] [--repeat 3]
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from bench.meta import write_result
from graphmem.config import TopicSettings as TopicRules
from graphmem.eval.dataset import locomo_dir
from graphmem.ingest.topics import extract_topics
from graphmem.text import tokenize

ROOT = Path(__file__).resolve().parents[1]


def rule_based(rules: TopicRules):
    return lambda text: [t["topic"] for t in extract_topics(text, rules)]


def yake_based(top: int, n: int):
    import yake  # noqa: PLC0415  (optional: only this comparison needs it)
    extractor = yake.KeywordExtractor(lan="en", n=n, top=top, dedupLim=0.9)

    def run(text: str) -> list[str]:
        keys = [" ".join(tokenize(k)) for k, _ in extractor.extract_keywords(text)]
        return list(dict.fromkeys(k for k in keys if k))
    return run


def evaluate(extract, memories: list[dict], queries: list[dict], max_df_ratio: float, repeat: int,
             seed: int = 0) -> dict[str, Any]:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        topics = {m["id"]: set(extract(m["content"])) for m in memories}
        times.append((time.perf_counter() - t0) / len(memories) * 1e6)
    conv = {m["id"]: m["metadata"]["conversation"] for m in memories}
    df: dict[str, Counter[str]] = defaultdict(Counter)
    size: Counter[str] = Counter()
    for m in memories:
        df[conv[m["id"]]].update(topics[m["id"]])
        size[conv[m["id"]]] += 1

    def linked(a: str, b: str) -> bool:
        c = conv[a]
        return any(df[c][t] <= max_df_ratio * size[c] for t in topics[a] & topics[b])

    pairs = [p for q in queries if q.get("category") == 1
             for p in itertools.combinations(sorted(set(q["relevant_ids"]) & topics.keys()), 2)]
    rng = random.Random(seed)
    by_conv: dict[str, list[str]] = defaultdict(list)
    for m in memories:
        by_conv[conv[m["id"]]].append(m["id"])
    randoms = [tuple(rng.sample(by_conv[conv[a]], 2)) for a, _ in pairs for _ in range(20)]
    evidence = sum(linked(a, b) for a, b in pairs) / max(len(pairs), 1)
    noise = sum(linked(a, b) for a, b in randoms) / max(len(randoms), 1)
    return {"us_per_memory": {"median": round(statistics.median(times), 1), "min": round(min(times), 1),
                              "max": round(max(times), 1)},
            "topics_per_memory": round(statistics.mean(len(t) for t in topics.values()), 2),
            "evidence_pairs": len(pairs), "evidence_pairs_linked": round(evidence, 4),
            "random_pairs_linked": round(noise, 4), "lift": round(evidence / noise, 2) if noise else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--yake-path", help="directory holding the yake package (pip install --target)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-df-ratio", type=float, default=0.05)
    ap.add_argument("--output", type=Path, default=ROOT / "bench" / "results" / "topics_compare.json")
    args = ap.parse_args()
    if args.yake_path:
        sys.path.append(args.yake_path)
    base = locomo_dir()
    memories = [json.loads(line) for line in (base / "memories.jsonl").open()]
    queries = [json.loads(line) for line in (base / "queries_no_adv.jsonl").open()]
    extractors = {
        "rules: names + words (6)": rule_based(TopicRules(True, 6, 4, True, True, False)),
        "rules: names + pairs + words (6)": rule_based(TopicRules(True, 6, 4, True, True, True)),
        "rules: names + words (10)": rule_based(TopicRules(True, 10, 4, True, True, False)),
        "rules: names + pairs + words (10)": rule_based(TopicRules(True, 10, 4, True, True, True)),
        "rules: names only (6)": rule_based(TopicRules(True, 6, 4, True, False, False)),
    }
    try:
        extractors["yake n=2 top=6"] = yake_based(6, 2)
        extractors["yake n=1 top=6"] = yake_based(6, 1)
        extractors["yake n=2 top=10"] = yake_based(10, 2)
    except ImportError:
        print("yake not importable: only the rule-based extractor is measured", file=sys.stderr)
    results = {}
    for name, extract in extractors.items():
        results[name] = evaluate(extract, memories, queries, args.max_df_ratio, args.repeat)
        print(name, results[name], file=sys.stderr, flush=True)
    out = {"memories": len(memories),
           "max_df_ratio": args.max_df_ratio, "extractors": results}
    write_result(args.output, out)
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
