"""BM25 alone, per keyword engine: R@1/5/10 and MRR@10 of each engine's top 10 chunks.

    uv run python bench/keyword_quality.py
    uv run --with tantivy python bench/keyword_quality.py   # tantivy too

The chunks are the SQuAD articles as bench/retrieval_eval.py indexes them (its cache);
the questions are its 1,000 held-out ones. No fusion, neighbours or floor: only whether
the engines' BM25 variants (Docent's k1 1.5; FTS5's and tantivy's fixed 1.2) rank the
chunk holding the answer alike, given the same terms (see bench/keyword_engines.py).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.keyword_engines import ENGINES  # noqa: E402
from bench.retrieval_corpus import CORPUS, index_folder, squad_sample  # noqa: E402
from bench.retrieval_eval import TUNE_COUNT, metrics  # noqa: E402

ROOT = Path("/tmp/keyword-bench")


def main() -> None:
    store = index_folder("squad", CORPUS / "squad" / "docs", "*.md", raw=True).store
    chunks = {
        (c.doc_id, c.index): c for d in store.document_ids() for c in store.document_chunks(d)
    }
    questions = squad_sample(TUNE_COUNT + 1_000)[TUNE_COUNT:]
    print(f"BM25 alone, SQuAD held-out ({len(questions):,} questions, top 10 chunks)")
    for name, make in ENGINES.items():
        folder = ROOT / f"quality-{name}"
        shutil.rmtree(folder, ignore_errors=True)
        engine = make(folder)
        engine.catch_up(store)
        ranks: list[int | None] = []
        for q in questions:
            gold = q["doc_file"].removeprefix("docs/")
            spans = [
                (a["char_start_in_doc"], a["char_start_in_doc"] + len(a["text"]))
                for a in q["answers"]
            ]
            hits = [chunks[key] for key in engine.top(q["question"], 10)]
            found = (
                rank
                for rank, c in enumerate(hits, start=1)
                if c.path == gold and any(c.start < hi and lo < c.end for lo, hi in spans)
            )
            ranks.append(next(found, None))
        engine.close()
        print(f"  {name:8} {metrics(ranks)}")


if __name__ == "__main__":
    main()
