"""The registered benchmarks: each name maps to the module that runs it and to its group.

``quality`` measures what the ranking finds, ``speed`` what it costs, ``faults`` how real processes
behave when a store hangs, goes away or is raced. ``python -m bench`` lists them and
``python -m bench NAME [args]`` runs one (each takes ``--help``).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

GROUPS = ("quality", "speed", "faults")
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Bench:
    name: str
    module: str          # inside the bench package
    group: str

    @property
    def summary(self) -> str:
        """The first line of the module's docstring, read without importing it (imports are heavy)."""
        tree = ast.parse((HERE / f"{self.module}.py").read_text())
        return (ast.get_docstring(tree) or "").strip().split("\n")[0]


_BY_GROUP = {
    "quality": ["answer_ceiling", "bench_fixture_supersede", "bench_models", "bench_supersede_calibration",
                "bench_supersede_candidates", "compare_cv", "derive_floors", "group_check", "probe_windows",
                "topics_compare", "tune_eval"],
    "speed": ["ann_compare", "bench_ann_arm", "bench_ann_scale", "bench_api", "bench_as_of", "bench_chat_import",
              "bench_concurrency", "bench_context", "bench_durability", "bench_embedder", "bench_engine",
              "bench_file_modes", "bench_gather", "bench_holders_cut", "bench_ingest", "bench_limits",
              "bench_link_candidates", "bench_load", "bench_mcp", "bench_multihop_latency",
              "bench_neo4j_lock_cost", "bench_row_decode", "bench_scale", "bench_scale_1m", "bench_scale_ann",
              "bench_scale_neo4j", "bench_scale_open", "bench_stores", "bench_tenants", "bench_topics_ingest",
              "bench_validation",
              "floor", "probe_neo4j_reads", "profile_neo4j_ingest", "profile_neo4j_search", "profile_search"],
    "faults": ["bench_hung_neo4j", "bench_outage", "bench_slow_clients", "bench_soak", "bench_two_process",
               "bench_two_process_neo4j"],
}


def _name(module: str) -> str:
    return module.removeprefix("bench_").replace("_", "-")


REGISTRY: dict[str, Bench] = {_name(m): Bench(_name(m), m, group)
                              for group, mods in _BY_GROUP.items() for m in mods}


def listing() -> str:
    """Every benchmark by group, with its summary: what ``python -m bench`` prints."""
    width = max(map(len, REGISTRY))
    lines = ["usage: python -m bench NAME [args]   (python -m bench NAME --help for its options)", ""]
    for group in GROUPS:
        lines.append(f"{group}:")
        lines += [f"  {b.name:<{width}}  {b.summary}"
                  for b in sorted(REGISTRY.values(), key=lambda b: b.name) if b.group == group]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
