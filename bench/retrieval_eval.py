"""Retrieval quality: R@1, R@5, R@10 and MRR@10 of BM25, dense, RRF and Docent's fusion,
then the relevance floor's precision and recall, then each retrieval idea on and off
(``bench/retrieval_ideas.py``; ``--no-ideas`` leaves that table out).

    uv run python bench/retrieval_eval.py [--sample 1300] [--methods ...] [--no-ideas]

SQuAD: a fixed sample of questions (seed 7); the first 300 are the tuning split, the
rest (1,000 by default) is held out, used for no choice of constant, and reported against
the target (the sample is prefix-stable: the tuning split is the same whatever --sample).
A hit is a returned passage from the gold file that overlaps a gold answer span.
Handbook: paraphrased questions (bench/data), written to share few words with their page;
a hit is a passage from the gold page.
Passages are what the generator would get: fused, ordered, with neighbours, merged; no
reranker model (none is on disk here).

The floor: its bar is the lowest, over the kinds of answerable tuning questions (SQuAD's
tuning split; every other handbook paraphrase), of each kind's 2nd percentile of relevance,
so that no kind of question is wrongly refused often; it is then checked on the held-out
answerable questions against the unanswerable ones (bench/data), which play no part in
choosing it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_corpus import (  # noqa: E402
    CORPUS,
    Indexed,
    Rank,
    RankOf,
    index_folder,
    page_rank,
    squad_rank,
    squad_sample,
)
from bench.retrieval_ideas import IDEAS, table  # noqa: E402
from graph.retrieval.floor import Floor, relevance  # noqa: E402
from ingest.index.keyword.terms import terms  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
TUNE_COUNT = 300
FLOOR_PERCENTILE = 2
TARGET_R1, TARGET_R5 = 0.80, 0.93


def recall(ranks: list[Rank], k: int) -> float:
    return sum(1 for x in ranks if x is not None and x <= k) / len(ranks)


def metrics(ranks: list[Rank]) -> str:
    mrr = sum(1 / x for x in ranks if x is not None and x <= 10) / len(ranks)
    r = " ".join(f"R@{k} {recall(ranks, k):.3f}" for k in (1, 5, 10))
    return f"{r}  MRR@10 {mrr:.3f}"


class Run:
    """Every method's ranks on one question set, and Docent's relevance per question."""

    def __init__(
        self, indexed: Indexed, questions: list[dict], rank_of: RankOf, methods: list[str]
    ) -> None:
        self.ranks: dict[str, list[Rank]] = {}
        self.seconds: dict[str, float] = {}
        self.relevance: list[float] = []
        for method in methods:
            retriever = indexed.retriever(method)
            started = time.perf_counter()
            ranks = []
            for q in questions:
                result = retriever.retrieve(q["question"], k=10)
                ranks.append(rank_of(result, q))
                if method == "docent":
                    self.relevance.append(relevance(result.candidates))
            self.ranks[method] = ranks
            self.seconds[method] = time.perf_counter() - started

    def report(self, title: str) -> None:
        n = len(next(iter(self.ranks.values())))
        print(f"\n{title} ({n} questions)")
        for method, ranks in self.ranks.items():
            print(f"  {method:7s} {metrics(ranks)}   ({self.seconds[method]:.0f} s)")


def overlap_report(questions: list[dict], root: Path) -> None:
    """How many of each paraphrase's index terms its gold page holds (low is the point),
    beside the same share on another page of about the same length (what chance gives)."""
    pages = sorted(root.glob("**/*.md"), key=lambda p: p.stat().st_size)
    page_terms = {p: set(terms(p.read_text(encoding="utf-8"))) for p in pages}
    gold, other = [], []
    for q in questions:
        asked = set(terms(q["question"]))
        at = pages.index(root / q["file"])
        twin = pages[at + 1] if at + 1 < len(pages) else pages[at - 1]
        gold.append(len(asked & page_terms[root / q["file"]]) / max(len(asked), 1))
        other.append(len(asked & page_terms[twin]) / max(len(asked), 1))
    a, b = np.asarray(gold), np.asarray(other)
    print(
        f"Handbook paraphrases: {len(a)} questions; share of a question's terms (stemmed, no"
        f" stop words) found anywhere on its gold page: median {np.median(a):.2f}"
        f" ({int((a <= 0.5).sum())} at most half); on a page of the next size up:"
        f" median {np.median(b):.2f}"
    )


def verdict(value: float, target: float) -> str:
    return "met" if value >= target else f"MISSED by {target - value:.3f}"


def floor_report(
    tune: dict[str, np.ndarray],
    held: dict[str, np.ndarray],
    unanswerable: np.ndarray,
    in_use: float,
) -> None:
    """Calibrate on ``tune``: the bar no kind of answerable question falls below more than
    ``FLOOR_PERCENTILE`` % of the time; then check it on ``held`` and ``unanswerable``."""
    bars = {kind: float(np.percentile(v, FLOOR_PERCENTILE)) for kind, v in tune.items()}
    calibrated = min(bars.values())
    print(
        "\nRelevance floor (relevance = max(best cosine, best coverage)): the lowest of each"
        f" kind's {FLOOR_PERCENTILE}nd percentile over answerable tuning questions: "
        + ", ".join(f"{kind} {bar:.3f} ({len(tune[kind])})" for kind, bar in bars.items())
        + f" -> {calibrated:.3f}; in use {in_use:.3f}"
    )
    for name, bar in (("in use", in_use), ("calibrated", calibrated)):
        refused = int((unanswerable < bar).sum())
        wrongly = {kind: int((v < bar).sum()) for kind, v in held.items()}
        total = sum(wrongly.values())
        precision = refused / (refused + total) if refused + total else 1.0
        print(
            f"  {name:10s} 'not found' precision {precision:.3f}, recall"
            f" {refused / len(unanswerable):.3f}: {refused}/{len(unanswerable)} unanswerable"
            " refused; held-out answerable wrongly refused: "
            + ", ".join(f"{kind} {n}/{len(held[kind])}" for kind, n in wrongly.items())
        )
    print(
        "  relevance of the unanswerable: "
        + " ".join(f"{x:.2f}" for x in sorted(unanswerable.tolist()))
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=1300)
    parser.add_argument("--methods", default="bm25,dense,rrf,docent")
    parser.add_argument("--no-ideas", action="store_true", help="skip the ideas table")
    args = parser.parse_args()
    methods = args.methods.split(",")
    if "docent" not in methods:
        methods.append("docent")

    squad = index_folder("squad", CORPUS / "squad" / "docs", "*.md", raw=True)
    handbook = index_folder("handbook", CORPUS / "handbook" / "pages", "**/*.md", raw=False)
    sample = squad_sample(args.sample)
    cut = min(TUNE_COUNT, len(sample) // 2)
    paraphrased = [json.loads(line) for line in open(DATA / "handbook_questions.jsonl")]
    overlap_report(paraphrased, CORPUS / "handbook" / "pages")
    unanswerable = [json.loads(line) for line in open(DATA / "unanswerable.jsonl")]

    tune = Run(squad, sample[:cut], squad_rank, methods)
    tune.report("SQuAD tuning split")
    held = Run(squad, sample[cut:], squad_rank, methods)
    held.report("SQuAD held-out")
    book = Run(handbook, paraphrased, page_rank, methods)
    book.report("Handbook paraphrases")

    docent = held.ranks["docent"]
    print("\nTargets")
    print(
        f"  SQuAD held-out, no reranker model: R@1 {recall(docent, 1):.3f} (>= {TARGET_R1}:"
        f" {verdict(recall(docent, 1), TARGET_R1)}), R@5 {recall(docent, 5):.3f}"
        f" (>= {TARGET_R5}: {verdict(recall(docent, 5), TARGET_R5)})"
    )
    singles: list[str] = [m for m in ("bm25", "dense") if m in book.ranks]
    for k in (1, 5):
        ours = recall(book.ranks["docent"], k)
        if not singles:
            print(f"  Handbook R@{k}: docent {ours:.3f} (run bm25 and dense to compare)")
            continue
        best = max(singles, key=lambda m: recall(book.ranks[m], k))
        theirs = recall(book.ranks[best], k)
        print(
            f"  Handbook R@{k}: docent {ours:.3f} vs the better single retriever ({best})"
            f" {theirs:.3f}: {'beats it' if ours > theirs else 'DOES NOT beat it'}"
        )

    nothing = []
    for corpus in ("squad", "handbook"):
        asked = [{"question": u["question"]} for u in unanswerable if u["corpus"] == corpus]
        found = Run(squad if corpus == "squad" else handbook, asked, lambda r, q: None, ["docent"])
        nothing += found.relevance
    floor_report(
        {"SQuAD": np.asarray(tune.relevance), "handbook": np.asarray(book.relevance[::2])},
        {"SQuAD": np.asarray(held.relevance), "handbook": np.asarray(book.relevance[1::2])},
        np.asarray(nothing),
        Floor().relevance,
    )
    if not args.no_ideas:
        table(
            IDEAS,
            [
                ("SQuAD tuning", squad, sample[:cut], squad_rank),
                ("SQuAD held-out", squad, sample[cut:], squad_rank),
                ("handbook paraphrases", handbook, paraphrased, page_rank),
            ],
        )


if __name__ == "__main__":
    main()
