"""Retrieval quality: R@1, R@5, R@10 and MRR@10 of BM25, dense, RRF and Docent's fusion.

    uv run python bench/retrieval_eval.py [--sample 1000] [--methods bm25,dense,rrf,docent]

SQuAD: a fixed sample of questions (seed 7); the first 30 % is the tuning split, the
rest is held out and reported. A hit is a returned passage from the gold file that
overlaps a gold answer span. Handbook: paraphrased questions (bench/data); a hit is a
passage from the gold page. Passages are what the generator would get: fused, with
neighbours, merged; no reranker model. Then the relevance floor: its thresholds come
from the tuning split's answerable questions only, and are checked on held-out answerable
questions against the unanswerable ones.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_corpus import CORPUS, Indexed, index_folder  # noqa: E402
from graph.retrieval.floor import Floor  # noqa: E402
from graph.retrieval.types import Retrieval  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
TUNE_SHARE = 0.3


def squad_sample(n: int) -> list[dict]:
    rows = [json.loads(line) for line in open(CORPUS / "squad" / "questions.jsonl")]
    return random.Random(7).sample(rows, n)


def squad_rank(result: Retrieval, q: dict) -> int | None:
    gold = q["doc_file"].removeprefix("docs/")
    spans = [
        (a["char_start_in_doc"], a["char_start_in_doc"] + len(a["text"])) for a in q["answers"]
    ]
    for rank, p in enumerate(result.passages, start=1):
        if p.path == gold and any(p.start < hi and lo < p.end for lo, hi in spans):
            return rank
    return None


def page_rank(result: Retrieval, q: dict) -> int | None:
    for rank, p in enumerate(result.passages, start=1):
        if p.path == q["file"]:
            return rank
    return None


def metrics(ranks: list[int | None]) -> str:
    n = len(ranks)
    r = {k: sum(1 for x in ranks if x is not None and x <= k) / n for k in (1, 5, 10)}
    mrr = sum(1 / x for x in ranks if x is not None and x <= 10) / n
    return f"R@1 {r[1]:.3f}  R@5 {r[5]:.3f}  R@10 {r[10]:.3f}  MRR@10 {mrr:.3f}"


def evaluate(indexed: Indexed, questions: list[dict], key: str, rank_of, methods) -> dict:
    out: dict = {}
    for method in methods:
        retriever = indexed.retriever(method)
        started = time.perf_counter()
        out[method] = [rank_of(retriever.retrieve(q[key], k=10), q) for q in questions]
        out[method + ":s"] = time.perf_counter() - started
    return out


def report(title: str, ranks: dict, methods: list[str], n: int) -> None:
    print(f"\n{title} ({n} questions)")
    for method in methods:
        print(f"  {method:7s} {metrics(ranks[method])}   ({ranks[method + ':s']:.0f} s)")


def floor_features(indexed: Indexed, questions: list[str]) -> np.ndarray:
    retriever = indexed.retriever("docent")
    rows = []
    for q in questions:
        c = retriever.retrieve(q, k=1).candidates
        rows.append(
            (
                max((x.dense or 0.0 for x in c), default=0.0),
                max((x.coverage for x in c), default=0.0),
            )
        )
    return np.asarray(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=1000)
    parser.add_argument("--methods", default="bm25,dense,rrf,docent")
    args = parser.parse_args()
    methods = args.methods.split(",")

    squad = index_folder("squad", CORPUS / "squad" / "docs", "*.md", raw=True)
    handbook = index_folder("handbook", CORPUS / "handbook" / "pages", "**/*.md", raw=False)
    sample = squad_sample(args.sample)
    cut = int(len(sample) * TUNE_SHARE)
    tune, held = sample[:cut], sample[cut:]
    paraphrased = [json.loads(line) for line in open(DATA / "handbook_questions.jsonl")]
    unanswerable = [json.loads(line) for line in open(DATA / "unanswerable.jsonl")]

    report(
        "SQuAD tuning split",
        evaluate(squad, tune, "question", squad_rank, methods),
        methods,
        len(tune),
    )
    report(
        "SQuAD held-out", evaluate(squad, held, "question", squad_rank, methods), methods, len(held)
    )
    report(
        "Handbook paraphrases",
        evaluate(handbook, paraphrased, "question", page_rank, methods),
        methods,
        len(paraphrased),
    )

    # The floor: thresholds from the tuning split's answerable questions only.
    tune_features = np.vstack(
        [
            floor_features(squad, [q["question"] for q in tune]),
            floor_features(handbook, [q["question"] for q in paraphrased[::2]]),
        ]
    )
    default = Floor()
    print(f"\nRelevance floor in use: dense ≥ {default.dense} or coverage ≥ {default.coverage}")
    low_dense, low_coverage = np.percentile(tune_features, 2, axis=0)
    print(
        f"  answerable (tuning) 2nd percentile: dense {low_dense:.3f}, coverage {low_coverage:.3f}"
    )
    answerable = np.vstack(
        [
            floor_features(squad, [q["question"] for q in held]),
            floor_features(handbook, [q["question"] for q in paraphrased[1::2]]),
        ]
    )
    nothing = np.vstack(
        [
            floor_features(squad if u["corpus"] == "squad" else handbook, [u["question"]])
            for u in unanswerable
        ]
    )

    def passes(features: np.ndarray) -> np.ndarray:
        return (features[:, 0] >= default.dense) | (features[:, 1] >= default.coverage)

    kept = passes(answerable)
    refused = ~passes(nothing)
    declared = int((~kept).sum() + refused.sum())
    precision = refused.sum() / declared if declared else 1.0
    print(
        f"  'not found' precision {precision:.3f}, recall {refused.mean():.3f} "
        f"({int(refused.sum())}/{len(nothing)} unanswerable refused, "
        f"{int((~kept).sum())}/{len(answerable)} answerable wrongly refused)"
    )
    print(
        "  unanswerable features (dense, coverage): "
        + ", ".join(f"({d:.2f},{c:.2f})" for d, c in nothing)
    )


if __name__ == "__main__":
    main()
