"""A 5,000-message ChatGPT export imported in one command: ``graphmem import --format chatgpt``
as a real process on the embedded store, progress bar on, live embedding, threads on (FOLLOWS
edges and context windows kept by ingest).

Why a whole command: that is what a user runs on their ``conversations.json``; the wall time
includes starting the process and loading the model. The export is generated deterministically
(conversations of alternating user/assistant turns built from the bench corpus vocabulary, with a
regenerated answer off the current branch in some), so reruns read the same file. Usage:
    python -m bench.bench_chat_import --messages 5000 [--out bench/results/chat-import-5k.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.meta import ROOT, provenance, write_result
from harness.corpus import FACTS, SUBJECTS, WORDS

QUESTIONS = ["How does the {s} work when it {f}?", "Why does the {s} {f}?",
             "Can you remind me whether the {s} {f}?", "What changes if the {s} no longer {f}?"]
ANSWERS = ["The {s} {f}, so check the {w} settings first.", "Yes: the {s} {f}; the {w} runbook has the details.",
           "It {f} because the {w} migration required it last quarter.",
           "If it stops, the {s} falls back to the {w} defaults and you should tell the owner."]


def _uid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def make_export(messages: int, per_conversation: int = 20, seed: int = 5) -> list[dict]:
    """ChatGPT ``conversations.json`` with ``messages`` visible turns on the current branches."""
    rng = random.Random(seed)
    conversations, made, t = [], 0, 1_730_000_000.0
    while made < messages:
        n = min(per_conversation, messages - made)
        root, mapping = _uid(rng), {}
        mapping[root] = {"id": root, "message": None, "parent": None, "children": []}
        parent = root
        for k in range(n):
            role = "user" if k % 2 == 0 else "assistant"
            s, w = rng.choice(SUBJECTS), rng.choice(WORDS)
            f = rng.choice(FACTS).format(x=" ".join(rng.sample(WORDS, 2)))
            text = rng.choice(QUESTIONS if role == "user" else ANSWERS).format(s=s, f=f.removeprefix("is "), w=w)
            t += rng.uniform(5, 90)
            if role == "assistant" and rng.random() < 0.1:          # a regenerated answer, off the branch
                old = _uid(rng)
                mapping[old] = {"id": old, "parent": parent, "children": [], "message": _message(
                    old, role, t - 3, "Let me think about the " + s + " again.")}
                mapping[parent]["children"].append(old)
            node = _uid(rng)
            mapping[node] = {"id": node, "parent": parent, "children": [],
                             "message": _message(node, role, t, text)}
            mapping[parent]["children"].append(node)
            parent = node
        conv = _uid(rng)
        conversations.append({"id": conv, "conversation_id": conv, "title": f"About the {rng.choice(SUBJECTS)}",
                              "create_time": t, "update_time": t, "current_node": parent, "mapping": mapping})
        made += n
        t += 3600
    return conversations


def _message(mid: str, role: str, t: float, text: str) -> dict:
    return {"id": mid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": round(t, 3),
            "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
            "metadata": {}, "recipient": "all"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    started = provenance()
    tmp = Path(tempfile.mkdtemp(prefix="chat-import-"))
    try:
        export = tmp / "conversations.json"
        export.write_text(json.dumps(make_export(args.messages)), encoding="utf-8")
        data = tmp / "store"
        cmd = [sys.executable, "-m", "graphmem", "--data-dir", str(data), "import", "--format", "chatgpt",
               str(export)]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                              text=True, check=True)
        wall = time.perf_counter() - t0
        print(done.stdout)
        stats = json.loads(subprocess.run([sys.executable, "-m", "graphmem", "--data-dir", str(data), "stats"],
                                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                          capture_output=True, text=True, check=True).stdout)
        size = sum(p.stat().st_size for p in data.rglob("*") if p.is_file())
        report = {"what": "graphmem import --format chatgpt of a generated export, one process, live "
                                   "embedding, embedded store",
                  "import_command": " ".join(["python", *cmd[1:]]),
                  "export": {"messages": args.messages, "conversations": len(json.loads(export.read_text())),
                             "bytes": export.stat().st_size,
                             "sha256": hashlib.sha256(export.read_bytes()).hexdigest()},
                  "wall_s": round(wall, 2), "messages_per_s": round(args.messages / wall, 1),
                  "store_bytes": size, "store_mb": round(size / 2**20, 2), "stats": stats,
                  "summary_table": done.stdout.strip()}
        print(json.dumps({k: report[k] for k in ("wall_s", "messages_per_s", "store_mb")}))
        if args.out:
            write_result(args.out, report, started=started)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
