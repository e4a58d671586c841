"""How long the @ picker takes to filter the library's names, per keystroke.

Builds 5,000 realistic paths (folders, long names, shared words), then times
``MentionIndex.search`` for each prefix of a few typed queries, as the popup runs it.
Prints the median and the worst per-keystroke time. Run from the repo root:

    uv run python -m bench.mention_filter [--files 5000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from ui.chat.mention_picker import MentionIndex

WORDS = (
    "annual report budget minutes meeting handbook policy invoice contract draft final "
    "review quarterly summary notes plan roadmap design spec research paper thesis slides "
    "q1 q2 q3 q4 2021 2022 2023 2024 employee customer vendor legal finance hr"
).split()
FOLDERS = ["", "finance/", "hr/policies/", "research/papers/", "projects/docent/", "archive/2022/"]
QUERIES = ["annual", "hbk", "q3 rep", "thesis final", "zzz"]


def make_paths(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    paths: set[str] = set()
    while len(paths) < count:
        name = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 7)))
        paths.add(f"{rng.choice(FOLDERS)}{name} {len(paths)}.{rng.choice(['pdf', 'md', 'txt'])}")
    return sorted(paths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    paths = make_paths(args.files)
    started = time.perf_counter()
    index = MentionIndex(paths)
    build_ms = (time.perf_counter() - started) * 1000
    timings: list[float] = []
    for _ in range(args.repeat):
        for query in QUERIES:
            for end in range(len(query) + 1):
                started = time.perf_counter()
                index.search(query[:end])
                timings.append((time.perf_counter() - started) * 1000)
    print(f"files: {len(index)}  index build: {build_ms:.1f} ms")
    print(
        f"filter per keystroke: median {statistics.median(timings):.2f} ms, "
        f"p95 {sorted(timings)[int(len(timings) * 0.95)]:.2f} ms, max {max(timings):.2f} ms "
        f"({len(timings)} keystrokes)"
    )


if __name__ == "__main__":
    main()
