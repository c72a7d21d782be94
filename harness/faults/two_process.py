"""Two ``graphmem serve`` processes and a ``graphmem import`` on one data dir, racing on the same ids.

Each round:
1. creates: the CLI imports ids ``r<round>-<n>`` while both servers create the same ids, each
   process with its own content. At most one create per id may be acknowledged (201 / counted
   as created by the import); the others must be refused with 409 ``conflict``. An acknowledged
   create whose content is not the stored one is a lost write.
2. delete against PATCH: for half the ids server A deletes while B patches at the same moment;
   for the other half A deletes first, then B (whose row cache has just read the memory) patches
   and reads. An acknowledged delete must stay deleted: a later PATCH is a 404, a GET a 404, and
   the memory is gone at the end (otherwise it is a resurrected delete).

Afterwards the servers stop and ``graphmem check`` (no repair) must report no problem.
``tests/reliability/test_two_process_race.py`` asserts on one short run; as a script it runs
``--rounds`` rounds and saves the figures.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.client import GraphmemClient, GraphmemClientError
from harness import ROOT
from harness import servers as fault_kit

NS = "race"
TOPICS = ["billing deploys", "search indexes", "backup rotation", "auth tokens"]


def content(memory_id: str, writer: str) -> str:
    topic = TOPICS[hash(memory_id) % len(TOPICS)]
    return f"{writer} wrote {memory_id}: notes on {topic} for the {memory_id.replace('-', ' ')} drill"


@dataclass
class Tally:
    """What the race acknowledged and how each request ended (shared by the worker threads)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    acked: dict[str, list[str]] = field(default_factory=dict)      # id -> writers whose create was acknowledged
    cli_created: int = 0
    deletes_acked: set[str] = field(default_factory=set)
    statuses: Counter[str] = field(default_factory=Counter)
    stale_reads: list[str] = field(default_factory=list)           # a GET after an acknowledged delete found it
    patch_after_delete: list[str] = field(default_factory=list)    # a PATCH after an acknowledged delete succeeded
    errors: list[str] = field(default_factory=list)

    def note(self, what: str) -> None:
        with self.lock:
            self.statuses[what] += 1


def _status(exc: GraphmemClientError) -> str:
    return f"{exc.status} {exc.code}"


def create(url: str, writer: str, memory_id: str, tally: Tally) -> None:
    with GraphmemClient(url, timeout=60) as gm:
        try:
            result = gm.add(content(memory_id, writer), id=memory_id, namespace=NS, tags=["race"])
        except GraphmemClientError as exc:
            tally.note(f"create {_status(exc)}")
            if exc.status != 409:
                with tally.lock:
                    tally.errors.append(f"create {memory_id} via {writer}: {_status(exc)} {exc}")
            return
    tally.note(f"create {result['status']}")
    if result["status"] == "created":
        with tally.lock:
            tally.acked.setdefault(memory_id, []).append(writer)


class Import:
    """A ``graphmem import`` process; ``started`` is set once its progress bar appears (the model is
    loaded and the batches are about to be written)."""

    def __init__(self, data_dir: Path, ids: list[str], tmp: Path, env: dict[str, str]) -> None:
        path = tmp / f"import-{ids[0]}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "content": content(i, "cli"), "namespace": NS,
                                            "tags": ["race"]}) + "\n" for i in ids))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "import", str(path),
             "--batch-size", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        self.started = threading.Event()
        self.stderr: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        while char := self.proc.stderr.read(1):
            self.stderr.append(char)
            if char == "%":         # tqdm's "import:   0%|"
                self.started.set()
        self.started.set()

    def finish(self) -> tuple[int, str, str]:
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        code = self.proc.wait(timeout=300)
        self.reader.join(timeout=10)
        return code, out, "".join(self.stderr)


def import_outcome(importer: Import, tally: Tally) -> None:
    code, out, err = importer.finish()
    if code != 0:
        tally.note("import failed")
        tally.errors.append(f"import exited {code}: {err[-500:]}")
        return
    # The summary table: "created | duplicate | rejected" then one row of numbers.
    numbers = [line for line in out.splitlines() if line.replace("│", " ").split()
               and all(p.isdigit() for p in line.replace("│", " ").split())]
    created, duplicate, rejected = (int(p) for p in numbers[0].replace("│", " ").split())
    conflicts = out.count(": conflict: ")
    tally.cli_created += created
    tally.statuses.update({"import created": created, "import duplicate": duplicate,
                           "import conflict": conflicts, "import other rejection": rejected - conflicts})
    if rejected != conflicts:
        tally.errors.append(f"import rejected {rejected - conflicts} lines for another reason:\n{out[-1500:]}")


def delete_then_patch(a: str, b: str, memory_id: str, concurrent: bool, pool: ThreadPoolExecutor,
                      tally: Tally) -> None:
    """A deletes, B patches: at once, or B right after A's acknowledged delete."""
    def delete() -> bool:
        with GraphmemClient(a, timeout=60) as gm:
            try:
                gm.delete(memory_id, namespace=NS)
            except GraphmemClientError as exc:
                tally.note(f"delete {_status(exc)}")
                return False
        tally.note("delete 204")
        with tally.lock:
            tally.deletes_acked.add(memory_id)
        return True

    def patch(after_delete: bool) -> None:
        with GraphmemClient(b, timeout=60) as gm:
            try:
                if after_delete:
                    gm.update(memory_id, namespace=NS, content=content(memory_id, "patch"))
                else:           # tags only: no embedding, so it races the delete evenly
                    gm.update(memory_id, namespace=NS, tags=["race", "patched"])
                tally.note("patch 200")
                if after_delete:
                    with tally.lock:
                        tally.patch_after_delete.append(memory_id)
            except GraphmemClientError as exc:
                tally.note(f"patch {_status(exc)}")
            if after_delete:
                try:
                    gm.get(memory_id, namespace=NS)
                    with tally.lock:
                        tally.stale_reads.append(memory_id)
                except GraphmemClientError as exc:
                    if exc.status != 404:
                        tally.errors.append(f"get {memory_id} after delete: {_status(exc)}")

    if concurrent:
        pair: list[Future[Any]] = [pool.submit(delete), pool.submit(patch, False)]
        for f in pair:
            f.result()
        return
    with GraphmemClient(b, timeout=60) as gm:     # B reads it first: its row cache holds the memory
        gm.get(memory_id, namespace=NS)
    if delete():
        patch(True)


def final_contents(url: str, ids: list[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    with GraphmemClient(url, timeout=60) as gm:
        for memory_id in ids:
            try:
                out[memory_id] = gm.get(memory_id, namespace=NS)["content"]
            except GraphmemClientError as exc:
                if exc.status != 404:
                    raise
                out[memory_id] = None
    return out


def lost_writes(tally: Tally, first_contents: dict[str, str | None]) -> int:
    """Acknowledged creates whose content is not what the id holds after the create phase."""
    acks = sum(len(w) for w in tally.acked.values()) + tally.cli_created
    kept = 0
    for memory_id, stored in first_contents.items():
        if stored is None:
            continue
        writers = tally.acked.get(memory_id, [])
        if any(stored == content(memory_id, w) for w in writers) or stored == content(memory_id, "cli"):
            kept += 1
    return acks - kept


def check_data_dir(data_dir: Path, env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "graphmem", "--data-dir", str(data_dir), "check"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {"output": done.stdout}
    return {"exit_code": done.returncode, "problems": report.get("problems"), "stderr": done.stderr[-500:]}


def child_env() -> dict[str, str]:
    return fault_kit.child_env({"COLUMNS": "200"})          # the import's summary lines unwrapped


def create_phase(urls: list[str], data_dir: Path, ids: list[str], tmp: Path, env: dict[str, str],
                 pool: ThreadPoolExecutor, tally: Tally) -> int:
    """The import starts; once it begins writing (the ids in order, a few per transaction) both
    servers create the ids in reverse order, one id at a time (both servers at once), so the two
    sides meet in the middle; then they go over every id again until the import has finished.
    Returns the passes over the ids."""
    importer = Import(data_dir, ids, tmp, env)
    importer.started.wait(timeout=300)
    passes = 0
    while importer.proc.poll() is None or passes < 2:
        for memory_id in reversed(ids):
            futures = [pool.submit(create, url, name, memory_id, tally)
                       for url, name in zip(urls, ("a", "b"), strict=True)]
            for f in futures:
                f.result()
        passes += 1
    import_outcome(importer, tally)
    return passes


def race(urls: list[str], data_dir: Path, rounds: int, n_ids: int, tmp: Path) -> dict[str, Any]:
    """The race against running servers; the check is left to the caller (after they stop)."""
    env = child_env()
    statuses: Counter[str] = Counter()
    errors: list[str] = []
    per_round = []
    lost = resurrected = patched_after_delete = stale = 0
    for r in range(rounds):
        ids = [f"r{r}-{n}" for n in range(n_ids)]
        tally = Tally()
        with ThreadPoolExecutor(max_workers=8) as pool:
            passes = create_phase(urls, data_dir, ids, tmp, env, pool, tally)
            stored = final_contents(urls[1], ids)
            lost_here = lost_writes(tally, stored)
            for k, memory_id in enumerate(ids):
                if stored[memory_id] is not None:
                    delete_then_patch(urls[0], urls[1], memory_id, concurrent=k % 2 == 0, pool=pool, tally=tally)
        after = [final_contents(url, ids) for url in urls]
        for url in urls:        # each server's vector matrix and row cache followed the other's deletes
            for topic in TOPICS:
                with GraphmemClient(url, timeout=60) as gm:
                    hits = gm.search(f"notes on {topic} drill", namespace=NS, k=20)["results"]
                stale += len({h["id"] for h in hits} & tally.deletes_acked)
        back = sorted(i for i in tally.deletes_acked if any(seen[i] is not None for seen in after))
        lost += lost_here
        resurrected += len(back)
        patched_after_delete += len(tally.patch_after_delete)
        stale += len(tally.stale_reads)
        statuses.update(tally.statuses)
        errors += tally.errors
        per_round.append({"round": r, "create_passes": passes, "acknowledged_writes_lost": lost_here,
                          "deletes_acknowledged": len(tally.deletes_acked), "resurrected": back[:10]})
    return {"rounds": rounds, "ids_per_round": n_ids, "acknowledged_writes_lost": lost,
            "resurrected_deletes": resurrected, "patch_after_delete_succeeded": patched_after_delete,
            "stale_reads_after_delete": stale,     # a GET, or a search hit, of an acknowledged delete
            "conflicts_409": statuses["create 409 conflict"] + statuses["import conflict"],
            "statuses": dict(sorted(statuses.items())), "errors": errors[:20], "per_round": per_round}
