"""The top passages reordered by their best sentence's cosine to the question: what it
gains, and what it costs per question.

    uv run python bench/sentence_order.py [--top 5] [--weights 0 .25 .5 .75 1]

Docent shows passages in fused order moved by term proximity when no reranker runs. Most
SQuAD misses at R@1 are the right article's second passage (73 of 157 held-out misses, at
proximity strength 1). This measures a cheaper stand-in for a reranker: every sentence of
the top ``--top`` passages is embedded with the same MiniLM, and each passage's score is
moved by ``weight ×`` the z-score of its best sentence's cosine. R@5 and R@10 cannot change
(the reorder stays inside the top five); R@1 and MRR can. The cost is timed cold, as a new
question would pay it: no sentence vector is kept from one question to the next.

Same sets and indexes as ``bench/retrieval_ideas.py``; the weight was chosen on the SQuAD
tuning split only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench.retrieval_corpus import CORPUS, Indexed, Variant, index_folder  # noqa: E402
from bench.retrieval_ideas import DATA, Rank, _z, figures  # noqa: E402
from graph.retrieval.types import Passage, Retrieval  # noqa: E402
from graph.support.sentences import split_sentences  # noqa: E402


def best_sentences(indexed: Indexed, query: str, passages: Sequence[Passage]) -> np.ndarray:
    """Each passage's best sentence cosine to the query."""
    q = np.asarray(indexed.queries.known[" ".join(query.split())], dtype=np.float32)
    best = []
    for p in passages:
        sentences = [s.text for s in split_sentences(p.text)] or [p.text]
        vectors = np.asarray(indexed.embedder.embed(sentences), dtype=np.float32)
        best.append(float((vectors @ q).max()))
    return np.asarray(best)


def ranks(
    indexed: Indexed,
    questions: Sequence[dict],
    rank_of: Callable[[Retrieval, dict], Rank],
    top: int,
    weights: Sequence[float],
) -> tuple[dict[float, list[Rank]], float, float]:
    """Each weight's ranks; the mean milliseconds and sentences one question's reorder took."""
    retriever = indexed.retriever("docent", Variant(2))
    out: dict[float, list[Rank]] = {w: [] for w in weights}
    spent = sentences = 0.0
    for q in questions:
        result = retriever.retrieve(q["question"], k=10)
        shown = result.passages
        head = shown[:top]
        started = time.perf_counter()
        best = best_sentences(indexed, q["question"], head)
        spent += time.perf_counter() - started
        sentences += sum(len(split_sentences(p.text)) or 1 for p in head)
        base = _z(np.asarray([p.score for p in head]))
        for w in weights:
            order = np.argsort(-(base + w * _z(best)), kind="stable")
            result.passages = [head[i] for i in order] + shown[top:]
            out[w].append(rank_of(result, q))
        result.passages = shown
    n = max(len(questions), 1)
    return out, spent * 1000 / n, sentences / n


def main() -> None:
    from bench.retrieval_eval import page_rank, squad_rank, squad_sample

    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--weights", type=float, nargs="+", default=[0, 0.25, 0.5, 0.75, 1])
    args = parser.parse_args()
    squad = index_folder("squad", CORPUS / "squad" / "docs", "*.md", raw=True)
    handbook = index_folder("handbook", CORPUS / "handbook" / "pages", "**/*.md", raw=False)
    sample = squad_sample(1300)
    paraphrased = [json.loads(line) for line in open(DATA / "handbook_questions.jsonl")]
    sets = [
        ("SQuAD tuning (300)", squad, sample[:300], squad_rank),
        ("SQuAD held-out (1000)", squad, sample[300:], squad_rank),
        ("handbook paraphrases (62)", handbook, paraphrased, page_rank),
    ]
    print(f"top {args.top} passages reordered by their best sentence (weight 0: as shipped)")
    print(f"{'set':27s} {'weight':>6s}  R@1   R@5   R@10  MRR")
    for name, indexed, questions, rank_of in sets:
        by_weight, ms, count = ranks(indexed, questions, rank_of, args.top, args.weights)
        for w in args.weights:
            cells = " ".join(f"{v:.3f}" for v in figures(by_weight[w]))
            print(f"{name:27s} {w:6.2f}  {cells}", flush=True)
        print(f"{name:27s} cost: {ms:.0f} ms and {count:.0f} sentences per question", flush=True)


if __name__ == "__main__":
    main()
