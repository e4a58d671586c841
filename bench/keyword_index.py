"""The keyword index against SQLite FTS5 (and tantivy, when installed), on the same chunks.

    uv run python bench/keyword_index.py [--sizes 10000,100000] [--queries 200]
    uv run --with tantivy python bench/keyword_index.py   # tantivy too

Chunks: SQuAD's paragraphs and the handbook's pages cut by the project's chunker, then
chunks of seven random sentences from them (as bench/search_latency.py makes them) up to
each size, in documents of 50 chunks. Every engine indexes the same terms
(``ingest.index.keyword.terms``: stemmed, no stop words): FTS5 and tantivy get them as
pre-stemmed words split only at spaces, so only the engines differ, not the tokenisers.
FTS5 and tantivy score with their built-in BM25 (k1 1.2, fixed) and are asked only for
the top 50: the most favourable question for them, since Docent also asks any chunk's
score and rank (``KeywordScores.lookup``) and each chunk's share of the query's idf.

Printed per engine and size: query p50/p95 (SQuAD questions, one at a time); writing
1,000 chunks (20 new documents of 50, each its own write, tokenising included); the cold
load (a fresh process, its imports done, opens the files and answers one query; the
page cache is warm); then, at the first size, what ``kill -9`` during writes leaves; and
lines of code.
The load average is printed beside each run: the machine is shared.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.keyword_engines import ENGINES, Engine  # noqa: E402
from ingest.document_parts import Chunk, Page  # noqa: E402
from ingest.pipeline.chunker import chunk_pages  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
ROOT = Path("/tmp/keyword-bench")
PER_DOC = 50
TOP = 50
KILLS = 5


def base_texts() -> list[str]:
    """SQuAD's paragraphs and the handbook's chunks: the real text the fill is drawn from."""
    squad = [json.loads(line)["text"] for line in open(CORPUS / "squad" / "paragraphs.jsonl")]
    pages = [
        Page(None, p.read_text(encoding="utf-8"))
        for p in sorted(CORPUS.glob("handbook/pages/**/*.md"))
    ]
    return squad + [piece.text for piece in chunk_pages(pages, 1000, 150)]


def documents(size: int, texts: list[str]) -> dict[str, list[Chunk]]:
    """``size`` chunks in documents of ``PER_DOC``: the real texts first, then varied ones."""
    pool = [s.strip() + "." for t in texts for s in t.split(". ") if len(s) > 40]
    rng = random.Random(size)
    bodies = texts[:size] + [" ".join(rng.sample(pool, 7)) for _ in range(size - len(texts))]
    return {
        f"doc{d:05d}": chunks(f"doc{d:05d}", bodies[d * PER_DOC : (d + 1) * PER_DOC])
        for d in range(size // PER_DOC)
    }


def chunks(doc_id: str, bodies: list[str]) -> list[Chunk]:
    return [
        Chunk(doc_id, f"{doc_id}.md", f"{doc_id}.md", None, i, 0, len(t), t, "-")
        for i, t in enumerate(bodies)
    ]


class DictSource:
    """A ``ChunkSource`` over a dict: what the store would hold."""

    def __init__(self, docs: dict[str, list[Chunk]]) -> None:
        self.docs = docs

    def document_ids(self) -> set[str]:
        return set(self.docs)

    def document_chunks(self, doc_id: str) -> list[Chunk]:
        return self.docs[doc_id]


def load_average() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def query_latency(engine: Engine, queries: list[str]) -> tuple[float, float]:
    for q in queries[:10]:
        engine.top("warm up " + q, TOP)
    ms = []
    for q in queries:
        started = time.perf_counter()
        engine.top(q, TOP)
        ms.append((time.perf_counter() - started) * 1000)
    p50, p95 = np.percentile(ms, [50, 95])
    return float(p50), float(p95)


def write_cost(engine: Engine, texts: list[str]) -> tuple[float, float]:
    """(seconds for 20 new documents of 50 chunks, the slowest single write in ms)."""
    rng = random.Random(1)
    each = []
    for d in range(1_000 // PER_DOC):
        doc_id = f"new{d:03d}"
        batch = chunks(doc_id, [rng.choice(texts) for _ in range(PER_DOC)])
        started = time.perf_counter()
        engine.replace(doc_id, batch)
        each.append(time.perf_counter() - started)
    return sum(each), max(each) * 1000


def cold_load(name: str, folder: Path, query: str) -> float:
    """Median ms, over three fresh processes, to open the index and answer one query."""
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, __file__, "--cold", name, str(folder), query],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(float(out.stdout))
    return float(np.median(runs))


def kill_during_writes(name: str, folder: Path, source: DictSource) -> str:
    """Kill a writing process ``KILLS`` times at random moments; check what each leaves."""
    rng = random.Random(9)
    consistent = repaired = 0
    lost: list[int] = []
    for trial in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, __file__, "--writer", name, str(folder), str(trial)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None
        written: list[str] = []
        while len(written) < 3 + trial:
            written.append(child.stdout.readline().strip())
        time.sleep(rng.uniform(0, 0.05))
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        engine = ENGINES[name](folder)
        ids = engine.document_ids()
        kept = {d for d in ids if d.startswith(f"crash{trial}-")}
        ok = set(source.docs) <= ids and set(written) <= kept
        ok = ok and all(engine.top(f"{d} zzcrash{trial}", 1) for d in written[-1:])
        consistent += ok
        lost.append(len(set(written) - kept))
        for d in kept:  # what the store holds after the crash
            source.docs[d] = writer_chunks(d)
        engine.catch_up(source)
        repaired += engine.document_ids() == set(source.docs)
        engine.close()
    return (
        f"consistent after {consistent}/{KILLS} kills; acknowledged writes lost: {sum(lost)};"
        f" catch_up agreed with the store {repaired}/{KILLS} times"
    )


def writer_chunks(doc_id: str) -> list[Chunk]:
    trial = doc_id.split("-")[0].removeprefix("crash")
    return chunks(
        doc_id, [f"{doc_id} zzcrash{trial} written before the kill {i}" for i in range(PER_DOC)]
    )


def child(mode: str, name: str, folder: Path, arg: str) -> None:
    if mode == "--cold":
        started = time.perf_counter()
        engine = ENGINES[name](folder)
        engine.top(arg, TOP)
        print((time.perf_counter() - started) * 1000)
        return
    engine = ENGINES[name](folder)
    for i in range(10_000):  # killed long before the end
        doc_id = f"crash{arg}-{i:04d}"
        engine.replace(doc_id, writer_chunks(doc_id))
        print(doc_id, flush=True)


def lines_of_code(name: str) -> str:
    """Non-blank lines of the index: Docent's modules, or the bench's adapter for an engine
    (the terms module, which every engine uses, is left out of both)."""
    if name == "current":
        root = Path(__file__).resolve().parents[1] / "ingest" / "index" / "keyword"
        parts = ("index", "scores", "segments", "store")
        lines = [x for p in parts for x in (root / f"{p}.py").read_text().splitlines()]
        return f"{sum(1 for x in lines if x.strip())} (ingest/index/keyword/, terms left out)"
    lines = inspect.getsource(ENGINES[name]).splitlines()
    return f"{sum(1 for x in lines if x.strip())} (the adapter above: top k only)"


def measure(size: int, texts: list[str], queries: list[str], names: list[str]) -> None:
    docs = documents(size, texts)
    print(f"\n{size:,} chunks")
    for name in names:
        folder = ROOT / f"{name}-{size}"
        shutil.rmtree(folder, ignore_errors=True)
        started = time.perf_counter()
        engine = ENGINES[name](folder)
        engine.catch_up(DictSource(docs))
        built = time.perf_counter() - started
        p50, p95 = query_latency(engine, queries)
        written, worst = write_cost(engine, texts)
        engine.close()
        cold = cold_load(name, folder, queries[0])
        print(
            f"  {name:8} query p50 {p50:6.1f} ms, p95 {p95:6.1f} ms | write 1,000 chunks"
            f" {written:5.2f} s (slowest write {worst:5.0f} ms) | cold load {cold:6.0f} ms"
            f" | built in {built:.0f} s  [{load_average()}]"
        )


def main() -> None:
    if len(sys.argv) == 5 and sys.argv[1] in ("--cold", "--writer"):
        child(sys.argv[1], sys.argv[2], Path(sys.argv[3]), sys.argv[4])
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--engines", default=",".join(ENGINES))
    args = parser.parse_args()
    names = [n for n in args.engines.split(",") if n in ENGINES]
    rows = [json.loads(line)["question"] for line in open(CORPUS / "squad" / "questions.jsonl")]
    queries = random.Random(3).sample(rows, args.queries)
    texts = base_texts()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"Keyword index engines on the same chunks ({len(texts):,} real, the rest varied)")
    for size in sizes:
        measure(size, texts, queries, names)
    print(f"\nkill -9 during writes, at {sizes[0]:,} chunks ({KILLS} kills each)")
    for name in names:
        source = DictSource(documents(sizes[0], texts))
        folder = ROOT / f"{name}-kill"
        shutil.rmtree(folder, ignore_errors=True)
        engine = ENGINES[name](folder)
        engine.catch_up(source)
        engine.close()
        print(f"  {name:8} {kill_during_writes(name, folder, source)}")
    print("\nlines of code (non-blank)")
    for name in names:
        print(f"  {name:8} {lines_of_code(name)}")


if __name__ == "__main__":
    main()
