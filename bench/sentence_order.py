"""The search with and without ordering its top passages by their best sentence
(``graph.retrieval.sentence_order``, the ``sentence_order`` setting): what it gains, and
what it costs per search.

    uv run python bench/sentence_order.py [--timed 200]

Docent shows passages in fused order moved by term proximity when no reranker runs. Most
SQuAD misses at R@1 are the right article's second passage. With ``sentence_order`` on,
the search's own MiniLM embeds every sentence of the top five passages, and each of them
moves by its best sentence's cosine to the question. Both rows are the product's own
search; R@5 and R@10 can move only where a passage leaves or enters the top five shown.

The cost is timed cold, as a new question pays it: the first ``--timed`` questions of each
set are searched again with an embedder that remembers nothing, once with the setting
off and once on, in turn. Same sets and indexes as ``bench/retrieval_ideas.py``; the
weight (``graph.retrieval.sentence_order.WEIGHT``) was chosen on the SQuAD tuning split only.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_corpus import CORPUS, Indexed, Variant, index_folder  # noqa: E402
from bench.retrieval_ideas import DATA, Rank, figures  # noqa: E402
from graph.retrieval.scored import Retrieval  # noqa: E402

K = 10


def ranks(
    indexed: Indexed,
    questions: Sequence[dict],
    rank_of: Callable[[Retrieval, dict], Rank],
    sentence_order: bool,
) -> list[Rank]:
    retriever = indexed.retriever("docent", Variant(), sentence_order=sentence_order)
    return [rank_of(retriever.retrieve(q["question"], k=K), q) for q in questions]


def cold_ms(indexed: Indexed, questions: Sequence[dict]) -> tuple[float, float]:
    """Median milliseconds of one search, without and with the order by sentences, with
    nothing remembered from one search to the next."""
    off = indexed.retriever("docent", Variant(), embedder=indexed.embedder)
    on = indexed.retriever("docent", Variant(), sentence_order=True, embedder=indexed.embedder)
    spent: dict[bool, list[float]] = {False: [], True: []}
    for q in questions:
        for flag, retriever in ((False, off), (True, on)):
            started = time.perf_counter()
            retriever.retrieve(q["question"], k=K)
            spent[flag].append((time.perf_counter() - started) * 1000)
    return statistics.median(spent[False]), statistics.median(spent[True])


def main() -> None:
    from bench.retrieval_corpus import page_rank, squad_rank, squad_sample

    parser = argparse.ArgumentParser()
    parser.add_argument("--timed", type=int, default=200, help="questions timed per set")
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
    print("the search as shipped, then with sentence_order on")
    print(f"{'set':27s} {'order':>9s}  R@1   R@5   R@10  MRR    search p50 (cold)")
    for name, indexed, questions, rank_of in sets:
        timed = cold_ms(indexed, questions[: args.timed])
        for flag, label in ((False, "shipped"), (True, "sentences")):
            cells = " ".join(f"{v:.3f}" for v in figures(ranks(indexed, questions, rank_of, flag)))
            print(f"{name:27s} {label:>9s}  {cells}  {timed[flag]:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
