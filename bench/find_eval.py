"""Find's recall and precision over the handbook, against answer keys a script builds.

    uv run python bench/find_eval.py [--show]

Terms: the script picks 20 words and two-word phrases that occur on 3 to 40 of the 244
pages (a fixed seed, among those that are not stop words or Markdown noise). A page
contains a term when its text, as Docent reads it, has the term as whole words, any case,
the last word maybe plural ("badge" holds on "badges"). Find is asked for each term as a
person would type it (no quotes), and again quoted (literal matching); the key is the set
of pages containing it. Targets: recall >= 0.95, precision >= 0.90.

Paraphrased topics: 20 topics written by hand in words the key's term does not use
("working from home" for pages that say "telework"); the key is, again, the pages holding
the term. Recall is printed at find's one setting, with the precision it had.

Find runs exactly as ``POST /api/find`` runs it (``graph.retrieval.find_documents.find`` through a
``Search`` of the benchmark's index: all-MiniLM-L6-v2, Docent's chunker and BM25).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.retrieval_corpus import CORPUS, index_folder  # noqa: E402
from graph.retrieval.find_documents import FindSettings, find  # noqa: E402
from ingest.index.keyword.terms import _STOP  # noqa: E402
from ingest.loaders import UnreadableFile, load  # noqa: E402

PAGES = CORPUS / "handbook" / "pages"
TARGET_RECALL, TARGET_PRECISION = 0.95, 0.90
SEED = 26

# Topic, the term whose pages are its key. The topic shares no word with the term.
PARAPHRASES: list[tuple[str, str]] = [
    ("working from home", "telework"),
    ("time off after having or adopting a baby", "parental leave"),
    ("claiming back money spent on a work trip", "reimbursement"),
    ("government-issued charge account for business trips", "travel card"),
    ("daily allowance for meals while away", "per diem"),
    ("smart identity badge for entering buildings and computers", "piv card"),
    ("recording the hours worked each pay period", "timesheet"),
    ("making websites usable by people with disabilities", "accessibility"),
    ("buying services from vendors", "procurement"),
    ("written feedback on how well staff did over the year", "performance review"),
    ("secret credentials for logging in", "password"),
    ("first days after joining the organisation", "onboarding"),
    ("hours worked beyond the normal schedule", "overtime"),
    ("handing over your annual holidays to a colleague in need", "leave transfer"),
    ("time off when you are unwell", "sick leave"),
    ("hotel stays on work trips", "lodging"),
    ("getting a computer and other gear for your job", "equipment"),
    ("unwanted sexual advances and bullying at work", "harassment"),
    ("leaving the organisation for good", "offboarding"),
    ("personal information about citizens that must be protected", "pii"),
]


def _shares_a_word(topic: str, term: str) -> bool:
    """Whether the topic uses a word of the term (its stem, roughly): then it is no
    paraphrase."""
    words = {w.lower()[:5] for w in re.findall(r"\w+", topic)}
    return any(w.lower()[:5] in words for w in term.split())


def page_texts() -> dict[str, str]:
    texts = {}
    for path in sorted(PAGES.glob("**/*.md")):
        try:
            texts[path.relative_to(PAGES).as_posix()] = "\n".join(p.text for p in load(path))
        except UnreadableFile:
            continue
    return texts


def contains(text: str, term: str, *, exact: bool = False) -> bool:
    """The term's words together, whole; unless ``exact``, each singular or plural."""
    words = [re.escape(w if exact else w.removesuffix("s")) for w in term.split()]
    tail = "" if exact else "(?:s|es)?"
    pattern = r"(?<![\w-])" + r"\W+".join(w + tail for w in words) + r"(?![\w])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def key_for(texts: dict[str, str], term: str, *, exact: bool = False) -> set[str]:
    return {path for path, text in texts.items() if contains(text, term, exact=exact)}


_WORD = re.compile(r"[A-Za-z][a-z]+")
_NOISE = {"http", "https", "www", "html", "endraw", "raw", "include", "title", "page", "gov"}


def pick_terms(texts: dict[str, str], count: int = 20) -> list[str]:
    """20 words and two-word phrases on 3 to 40 pages: 12 words, 8 phrases, at random."""
    words: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    for text in texts.values():
        tokens = [w.lower() for w in _WORD.findall(text)]
        good = [w for w in tokens if len(w) > 4 and w not in _STOP and w not in _NOISE]
        words.update(set(good))
        pairs.update(
            {
                f"{a} {b}"
                for a, b in zip(tokens, tokens[1:], strict=False)
                if len(a) > 3
                and len(b) > 3
                and a not in _STOP
                and b not in _STOP
                and a not in _NOISE
                and b not in _NOISE
            }
        )
    rng = random.Random(SEED)
    singles = sorted(w for w, n in words.items() if 3 <= n <= 40)
    doubles = sorted(p for p, n in pairs.items() if 3 <= n <= 40)
    chosen: list[str] = []
    for pool, want in ((singles, 12), (doubles, count - 12)):
        rng.shuffle(pool)
        for term in pool:
            if len([c for c in chosen if c in pool]) >= want:
                break
            if 3 <= len(key_for(texts, term)) <= 40:
                chosen.append(term)
    return chosen


def measure(search, library, query: str, key: set[str]) -> tuple[float, float, set[str]]:
    found = {d.path for d in find(search, query, library).documents}
    hit = len(found & key)
    recall = hit / len(key) if key else 1.0
    precision = hit / len(found) if found else 1.0
    return recall, precision, found


def report(
    title: str, rows: list[tuple[str, set[str], float, float, set[str]]], show: bool
) -> None:
    print(f"\n{title}")
    tp = sum(len(found & key) for _, key, _, _, found in rows)
    keyed = sum(len(key) for _, key, _, _, _ in rows)
    returned = sum(len(found) for *_, found in rows)
    for query, key, recall, precision, found in rows:
        print(
            f"  {query[:52]:52} key {len(key):3}  found {len(found):3}"
            f"  R {recall:.2f}  P {precision:.2f}"
        )
        if show:
            for missed in sorted(key - found)[:5]:
                print(f"      missed {missed}")
            for extra in sorted(found - key)[:5]:
                print(f"      extra  {extra}")
    macro_r = sum(r for _, _, r, _, _ in rows) / len(rows)
    macro_p = sum(p for _, _, _, p, _ in rows) / len(rows)
    print(
        f"  macro recall {macro_r:.3f}, macro precision {macro_p:.3f};"
        f" micro recall {tp / keyed:.3f}, micro precision {tp / max(returned, 1):.3f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--show", action="store_true", help="list missed and extra pages")
    args = parser.parse_args()
    handbook = index_folder("handbook", PAGES, "**/*.md", raw=False)
    library = sorted(handbook.library.paths.values())
    texts = page_texts()
    terms = pick_terms(texts)
    settings = FindSettings()
    print(
        f"{len(library)} pages indexed;"
        f" find at coverage {settings.coverage}, dense {settings.dense}"
    )
    retriever = handbook.retriever("docent")
    started = time.perf_counter()
    calls = 0
    with retriever.begin() as search:
        for quoted in (False, True):
            rows = []
            for term in terms:
                key = key_for(texts, term, exact=quoted)
                query = f'"{term}"' if quoted else term
                recall, precision, found = measure(search, library, query, key)
                calls += 1
                rows.append((query, key, recall, precision, found))
            report("Terms, quoted (literal)" if quoted else "Terms, as typed", rows, args.show)
            if not quoted:
                typed = rows
        para = []
        leaks = [(t, k) for t, k in PARAPHRASES if _shares_a_word(t, k)]
        assert not leaks, f"these topics use their term's words: {leaks}"
        for topic, term in PARAPHRASES:
            key = key_for(texts, term)
            recall, precision, found = measure(search, library, topic, key)
            calls += 1
            para.append((f"{topic} [{term}]", key, recall, precision, found))
        elapsed = (time.perf_counter() - started) * 1000 / calls
        report("Paraphrased topics (key: pages holding the bracketed term)", para, args.show)
        print("\n  the same topics at lower dense bars (the terms' precision falls too):")
        for bar in (0.45, 0.40, 0.35):
            lower = FindSettings(dense=bar)
            hit = returned = keyed = 0
            for topic, term in PARAPHRASES:
                key = key_for(texts, term)
                found = {d.path for d in find(search, topic, library, settings=lower).documents}
                hit, returned, keyed = (
                    hit + len(found & key),
                    returned + len(found),
                    keyed + len(key),
                )
            print(
                f"    dense {bar:.2f}: micro recall {hit / keyed:.3f},"
                f" micro precision {hit / max(returned, 1):.3f}"
            )
    macro_r = sum(r for _, _, r, _, _ in typed) / len(typed)
    macro_p = sum(p for _, _, _, p, _ in typed) / len(typed)
    para_r = sum(r for _, _, r, _, _ in para) / len(para)
    para_p = sum(p for _, _, _, p, _ in para) / len(para)
    print("\nTargets (terms as typed, macro)")
    print(
        f"  recall    {macro_r:.3f} (>= {TARGET_RECALL}:"
        f" {'met' if macro_r >= TARGET_RECALL else 'NOT met'})"
    )
    print(
        f"  precision {macro_p:.3f} (>= {TARGET_PRECISION}:"
        f" {'met' if macro_p >= TARGET_PRECISION else 'NOT met'})"
    )
    print(f"  paraphrased topics at the same setting: recall {para_r:.3f}, precision {para_p:.3f}")
    print(f"  {elapsed:.0f} ms per find on average")


if __name__ == "__main__":
    main()
