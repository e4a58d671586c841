"""Each retrieval idea on and off, on every question set, in one table.

    uv run python bench/retrieval_ideas.py [--sample 1300]

Rows are configurations: vectors of the chunk's text alone, then contextual vectors
(title and heading path in front), then the shipped search (with the document prior of
``graph.retrieval.prior``), then each other document-level idea on contextual vectors
without the shipped prior. Columns: R@1, R@5, R@10 and MRR@10 on the SQuAD tuning split
(300, where any constant was chosen), the SQuAD held-out questions (1,000) and the
handbook paraphrases (62). A keyword "context field" (the same words as a lighter
keyword field) was measured too and left out of the product; docs/retrieval.md has that
table and why.

The end of ``bench/retrieval_eval.py``'s output; also runnable alone. Set
``DOCENT_EVAL_CACHE`` to a folder of your own if your chunks or vectors differ from
another branch's.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bench.retrieval_corpus import (  # noqa: E402
    CORPUS,
    Indexed,
    Variant,
    index_folder,
    page_rank,
    squad_rank,
    squad_sample,
)
from graph.retrieval.fusion import Fusion  # noqa: E402
from graph.retrieval.prior import lean_on_documents  # noqa: E402
from graph.retrieval.scored import Candidate, Retrieval  # noqa: E402
from ingest.document_parts import DocumentVector  # noqa: E402
from ingest.index.chunk_context import title_of  # noqa: E402
from ingest.index.keyword.terms import terms  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"
Rank = int | None
Wrap = Callable[[Indexed], Callable[[Fusion], Fusion] | None]


@dataclass(frozen=True)
class Idea:
    """One row of the table: which indexes, and what runs after fusion."""

    name: str
    variant: Variant
    wrap: Wrap = lambda indexed: None


def recall(ranks: Sequence[Rank], k: int) -> float:
    return sum(1 for x in ranks if x is not None and x <= k) / max(len(ranks), 1)


def mrr(ranks: Sequence[Rank]) -> float:
    return sum(1 / x for x in ranks if x is not None and x <= 10) / max(len(ranks), 1)


def figures(ranks: Sequence[Rank]) -> tuple[float, float, float, float]:
    return recall(ranks, 1), recall(ranks, 5), recall(ranks, 10), mrr(ranks)


def ranks_of(
    indexed: Indexed,
    questions: Sequence[dict],
    rank_of: Callable[[Retrieval, dict], Rank],
    idea: Idea,
    fusion: str = "docent",
) -> list[Rank]:
    retriever = indexed.retriever(fusion, idea.variant, wrap=idea.wrap(indexed))
    return [rank_of(retriever.retrieve(q["question"], k=10), q) for q in questions]


def table(
    ideas: Sequence[Idea],
    sets: Sequence[tuple[str, Indexed, Sequence[dict], Callable[[Retrieval, dict], Rank]]],
    fusion: str = "docent",
) -> dict[str, dict[str, tuple[float, float, float, float]]]:
    """Print one row per idea: each set's R@1 R@5 R@10 MRR@10; returns the figures."""
    head = " | ".join(f"{name:^27s}" for name, *_ in sets)
    print(f"\n{'':36s} {head}")
    sub = " | ".join(f"{'R@1   R@5   R@10  MRR':^27s}" for _ in sets)
    print(f"{'idea (' + fusion + ')':36s} {sub}")
    out: dict[str, dict[str, tuple[float, float, float, float]]] = {}
    for idea in ideas:
        row = {}
        for name, indexed, questions, rank_of in sets:
            row[name] = figures(ranks_of(indexed, questions, rank_of, idea, fusion))
        out[idea.name] = row
        cells = " | ".join(" ".join(f"{v:.3f}" for v in row[name]).center(27) for name, *_ in sets)
        print(f"{idea.name:36s} {cells}", flush=True)
    return out


def prior(weight: float, first_chunk: bool = False, shy: float = 0.0) -> Wrap:
    """After fusion: the product's prior (``graph.retrieval.prior``) without its length
    term: ``weight`` times the z-score of the cosine between the query and each
    candidate's document vector (with ``first_chunk``: its first chunk's stored vector,
    which with contextual vectors holds its title and first headings).

    With ``shy`` the prior is leaned on only as far as the query's words fail to pin a
    chunk: it is scaled by ``(1 − c)^shy``, c being the best coverage among the candidates
    (the share of the query's idf mass that one chunk holds). A question that shares its
    words with a passage (most of SQuAD's) keeps its order; a paraphrase (the handbook's)
    leans on its page's topic."""

    def make(indexed: Indexed) -> Callable[[Fusion], Fusion]:
        if first_chunk:
            store = indexed.vectors(2)
            stored = store.vectors([(doc_id, 0) for doc_id in indexed.chunks])
            docs = {k[0]: DocumentVector(v, 1) for k, v in stored.items()}
        else:
            docs = dict(indexed.store.document_vectors(list(indexed.chunks)))

        def wrap(fuse: Fusion) -> Fusion:
            def fused(candidates: Sequence[Candidate], query: str) -> float | None:
                trust = fuse(candidates, query)
                q = indexed.queries.known[" ".join(query.split())]
                lean_on_documents(
                    candidates, q, lambda ids: docs, weight=weight, shyness=shy, span=math.inf
                )
                return trust

            return fused

        return wrap

    return make


def title_boost(boost: float) -> Wrap:
    """After fusion: add ``boost`` to the chunks of a document whose title the query names
    (every term of the title, or of its path's folder and stem, is among the query's)."""

    def make(indexed: Indexed) -> Callable[[Fusion], Fusion]:
        titles: dict[str, list[set[str]]] = {}
        for doc_id, path in indexed.library.paths.items():
            names = [set(terms(title_of(path)))]
            chunks = indexed.chunks.get(doc_id)
            if chunks and chunks[0].heading:
                names.append(set(terms(chunks[0].heading.split(" > ")[0])))
            titles[doc_id] = [n for n in names if n]

        def wrap(fuse: Fusion) -> Fusion:
            def fused(candidates: Sequence[Candidate], query: str) -> float | None:
                trust = fuse(candidates, query)
                asked = set(terms(query))
                for c in candidates:
                    if any(n <= asked for n in titles.get(c.key[0], [])):
                        c.fused += boost
                return trust

            return fused

        return wrap

    return make


def main() -> None:

    parser = argparse.ArgumentParser()
    parser.add_argument("--sample", type=int, default=1300)
    args = parser.parse_args()
    squad = index_folder("squad", CORPUS / "squad" / "docs", "*.md", raw=True)
    handbook = index_folder("handbook", CORPUS / "handbook" / "pages", "**/*.md", raw=False)
    sample = squad_sample(args.sample)
    paraphrased = [json.loads(line) for line in open(DATA / "handbook_questions.jsonl")]
    sets = [
        ("SQuAD tuning", squad, sample[:300], squad_rank),
        ("SQuAD held-out", squad, sample[300:], squad_rank),
        ("handbook paraphrases", handbook, paraphrased, page_rank),
    ]
    table(IDEAS, sets)


OFF = Variant(2, prior=False)
IDEAS = [
    Idea("text vectors alone", Variant(1, prior=False)),
    Idea("+ contextual vectors", OFF),
    Idea("+ short-page shy prior (shipped)", Variant(2)),
    Idea("ctx vectors + document prior .25", OFF, prior(0.25)),
    Idea("ctx vectors + document prior .5", OFF, prior(0.5)),
    Idea("ctx vectors + first-chunk prior .25", OFF, prior(0.25, first_chunk=True)),
    Idea("ctx vectors + first-chunk prior .5", OFF, prior(0.5, first_chunk=True)),
    Idea("ctx vectors + shy prior 2", OFF, prior(2.0, shy=2)),
    Idea("ctx vectors + shy prior 3", OFF, prior(3.0, shy=2)),
    Idea("ctx vectors + title boost .5", OFF, title_boost(0.5)),
    Idea("ctx vectors + title boost 1", OFF, title_boost(1.0)),
]


if __name__ == "__main__":
    main()
