"""A synthetic agent-memory corpus for benchmarks: deterministic, any size.

Tags follow a Zipf-like popularity so some tags and categories are huge (the case the degree
bound exists for); content mixes template sentences with a rotating vocabulary.
"""

from __future__ import annotations

import random

SUBJECTS = ["billing service", "search API", "auth gateway", "CI runners", "staging cluster", "data warehouse",
            "mobile app", "payments queue", "feature flags", "backup job", "metrics stack", "email worker"]
FACTS = ["deploys through the {x} pipeline", "reads its secrets from the {x} vault path",
         "alerts the {x} on-call rotation", "caches responses in {x} for five minutes",
         "runs nightly at {x} UTC", "needs approval from the {x} owner", "is configured by the {x} file",
         "logs to the {x} index", "scales between {x} replicas", "is owned by the {x} team"]
WORDS = ["alpha", "bravo", "delta", "echo", "falcon", "granite", "harbor", "indigo", "juniper", "kepler",
         "lumen", "meadow", "nimbus", "orchid", "pioneer", "quartz", "raven", "sierra", "tundra", "umber",
         "vertex", "willow", "xenon", "yonder", "zephyr"]
SOURCES = ["memory_tool", "identity.md", "USER.md", "MEMORY.md", "session_search", "sync_l1_to_l2", "cron",
           "manual_fix", "test"]


def make_memories(n: int, seed: int = 7, namespace: str = "bench") -> list[dict]:
    rng = random.Random(seed)
    tags = [f"tag-{i}" for i in range(400)]
    weights = [1.0 / (i + 1) for i in range(len(tags))]
    categories = [f"cat-{i}" for i in range(40)]
    cat_weights = [1.0 / (i + 1) for i in range(len(categories))]
    out = []
    for i in range(n):
        subject = rng.choice(SUBJECTS)
        fact = rng.choice(FACTS).format(x=" ".join(rng.sample(WORDS, 2)))
        extra = " ".join(rng.sample(WORDS, 3))
        out.append({
            "id": f"mem-{i:07d}",
            "namespace": namespace,
            "content": f"The {subject} {fact}; note {extra} #{i}.",
            "tags": sorted(set(rng.choices(tags, weights, k=rng.randint(1, 4)))),
            "category": rng.choices(categories, cat_weights)[0],
            "source": rng.choice(SOURCES),
        })
    return out


def make_queries(n: int, seed: int = 11) -> list[str]:
    """``n`` distinct queries, as users send them: a bench that repeats a query times a warm cache.
    The first 3,000 name one vocabulary word; beyond that they name two."""
    rng = random.Random(seed)
    out: dict[str, None] = {}
    while len(out) < n:
        words = " ".join(rng.sample(WORDS, 1 if len(out) < 2500 else 2))
        out.setdefault(f"how does the {rng.choice(SUBJECTS)} {rng.choice(FACTS).split(' {x}')[0]} {words}")
    return list(out)


def pass_queries(n: int, passes: int, seed: int = 11) -> list[list[str]]:
    """``passes`` lists of ``n`` queries, no query in two lists (each pass meets new queries)."""
    flat = make_queries(n * passes, seed)
    return [flat[i * n:(i + 1) * n] for i in range(passes)]
