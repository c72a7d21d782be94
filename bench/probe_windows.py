"""Probe: a turn alone vs a window of its session as a second key (the window text embedded, or the unit
mean of its turns' vectors), every turn scored by min-max hybrid fusion; recall@10 on locomo-dev.

PYTHONPATH=. python -m bench.probe_windows sentence-transformers/all-MiniLM-L6-v2
"""

import json
import math
import sys
import time
from collections import defaultdict

import numpy as np

from graphmem.embedding.embedder import load_embedder
from graphmem.text import term_counts, tokenize

model = sys.argv[1]
D = str(__import__("graphmem.eval.dataset", fromlist=["locomo_dir"]).locomo_dir()) + "/"
mems = [json.loads(line) for line in open(D + "memories.jsonl")]
qs = [json.loads(line) for line in open(D + "queries_no_adv.jsonl")]
emb = load_embedder(model, cache_path="/tmp/probe-windows-cache.sqlite")
by_conv = defaultdict(list)
for m in mems:
    by_conv[m["metadata"]["conversation"]].append(m)


def window(lst, i, b, a):
    return "\n".join(x["content"] for x in lst[max(0, i - b) : i + a + 1])


def bm25(qt, docs_tc, df, n, avg):
    out = np.zeros(len(docs_tc))
    for j, tc in enumerate(docs_tc):
        L = sum(tc.values())
        s = 0.0
        for t in set(qt):
            tf = tc.get(t, 0)
            if tf:
                d = df.get(t, 0)
                idf = math.log(1 + (n - d + 0.5) / (d + 0.5))
                s += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * L / avg))
        out[j] = s
    return out


def mm(x):
    lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo) if hi > lo else np.ones_like(x)


res = defaultdict(list)
t0 = time.time()
for conv, lst in by_conv.items():
    # sessions as threads
    sess = defaultdict(list)
    for m in lst:
        sess[m["category"]].append(m)
    win = {}
    for ms in sess.values():
        ms.sort(key=lambda m: m["metadata"]["turn_index"])
        for i, m in enumerate(ms):
            win[m["id"]] = {
                "b2a2": window(ms, i, 2, 2),
                "b2": window(ms, i, 2, 0),
                "b1a1": window(ms, i, 1, 1),
                "b3a1": window(ms, i, 3, 1),
            }
    ids = [m["id"] for m in lst]
    T = emb.embed_documents([m["content"] for m in lst])
    keys = {"turn": (T, [term_counts(m["content"]) for m in lst])}
    for w in ["b2a2", "b2", "b1a1", "b3a1"]:
        texts = [win[i][w] for i in ids]
        keys[w] = (emb.embed_documents(texts), [term_counts(t) for t in texts])
    # mean-of-vectors window (b2a2)
    pos = {i: j for j, i in enumerate(ids)}
    M = np.zeros_like(T)
    for ms in sess.values():
        for k, m in enumerate(ms):
            js = [pos[x["id"]] for x in ms[max(0, k - 2) : k + 3]]
            v = T[js].mean(0)
            M[pos[m["id"]]] = v / np.linalg.norm(v)
    keys["mean_b2a2"] = (M, keys["b2a2"][1])
    stats = {}
    for k, (_vectors, tcs) in keys.items():
        df = defaultdict(int)
        for tc in tcs:
            for t in tc:
                df[t] += 1
        stats[k] = (df, len(tcs), sum(sum(tc.values()) for tc in tcs) / len(tcs))
    for q in qs:
        if q["conversation"] != conv:
            continue
        qv = emb.embed_query(q["text"])
        qt = tokenize(q["text"])
        sc = {}
        for k, (V, tcs) in keys.items():
            cos = V @ qv
            b = bm25(qt, tcs, *stats[k])
            sc[k] = (mm(cos), mm(b) if b.max() > 0 else b, cos)
        rel = set(q["relevant_ids"])

        def r10(score, rel=rel, ids=ids):
            top = np.argsort(-score, kind="stable")[:10]
            return len(rel & {ids[j] for j in top}) / len(rel)

        def hyb(k, wv=0.5, sc=sc):
            return wv * sc[k][0] + (1 - wv) * sc[k][1]
        cat = q["category"]
        variants = {"turn": hyb("turn"), "turn_vec": sc["turn"][0]}
        for w in ["b2a2", "b2", "b1a1", "b3a1", "mean_b2a2"]:
            for a in [0.5, 0.7, 1.0]:
                variants[f"{w} w={a}"] = (1 - a) * hyb("turn") + a * hyb(w) if a < 1 else hyb(w)
            variants[f"{w} max"] = np.maximum(hyb("turn"), hyb(w))
        variants["mean_b2a2_vec+b2a2lex w=.5"] = 0.5 * hyb("turn") + 0.5 * (
            0.5 * sc["mean_b2a2"][0] + 0.5 * sc["b2a2"][1]
        )
        for name, s in variants.items():
            res[name].append((r10(s), cat))
    print(conv, time.time() - t0, flush=True)
out = {}
for name, rows in res.items():
    allr = np.mean([r for r, _ in rows])
    mh = np.mean([r for r, c in rows if c == 1])
    out[name] = (round(allr, 3), round(mh, 3))
for name, v in sorted(out.items(), key=lambda x: -x[1][0]):
    print(f"{name:35s} {v}")
json.dump(out, sys.stdout if len(sys.argv) < 3 else open(sys.argv[2], "w"), indent=1)
