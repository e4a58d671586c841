"""Build bench/data/support_dev.jsonl: sentences with the passages an answer would have
had, and the verdict the support check should give.

    uv run python bench/build_support_dev.py [--seed 23] [--per-article 5]

From the SQuAD articles of the shared corpus. For each sampled question, the sentence of
its paragraph that holds the answer, and as passages that paragraph plus the three other
paragraphs of the article that share the most content words with the sentence (what
retrieval would return), in shuffled order. Each question gives:

- supported: the sentence as written, or (two questions in three) paraphrased by rule
  (bench/support_rules.py: passive to active, "X was founded in 1850 by Y" → "Y founded
  X in 1850"; an opening phrase moved to the end or a closing one to the front; a
  parenthesis or a clause between commas dropped; words from a small synonym table);
  a third of them lightly (two rules, two synonyms), a third heavily (three and five);
  every other question also only the clause that holds the answer, as a short answer
  puts it, and every fifth the sentence joined with the next one;
- partly (bench/support_false.py): the sentence with a number, year or month replaced
  by another of the same kind taken from another article, where it has one, and with a
  name replaced every other question; none of the passages holds what was put in, which
  the item records as ``missing``;
- unsupported, in turn: a sentence of another article; one with its names and years
  replaced by this article's; a template that puts this article's names and years in a
  relation the article never states; a sentence of this article from a paragraph that is
  not among the passages (on topic, fluent, and not in what the answer was given).

The articles are split in two halves by a seeded shuffle: ``tune`` (constants are chosen
on it) and ``held`` (only reported). The build is deterministic for a seed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.support_false import (  # noqa: E402
    Pools,
    names_replaced,
    swap,
    template,
    unseen,
)
from bench.support_rules import paraphrase, synonyms, trim_to_answer  # noqa: E402
from graph.support.sentences import split_sentences  # noqa: E402
from graph.support.words import STOP, content_terms  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "squad"
OUT = Path(__file__).resolve().parent / "data" / "support_dev.jsonl"
OTHER_PASSAGES = 3


def load() -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]], list[dict]]:
    paragraphs = {}
    by_article: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in open(CORPUS / "paragraphs.jsonl", encoding="utf-8"):
        row = json.loads(line)
        paragraphs[row["paragraph_id"]] = row
        by_article[row["title"]].append(row)
    questions = [json.loads(line) for line in open(CORPUS / "questions.jsonl", encoding="utf-8")]
    return paragraphs, by_article, questions


def answer_sentence(paragraph: str, at: int) -> str | None:
    for sentence in split_sentences(paragraph):
        if sentence.start <= at < sentence.end:
            text = sentence.text
            return text if 40 <= len(text) <= 300 and text[-1] in ".!?" else None
    return None


def passages_for(sentence: str, gold: dict, article: list[dict], rng: random.Random) -> list:
    words = set(content_terms(sentence))
    others = [p for p in article if p["paragraph_id"] != gold["paragraph_id"]]
    others.sort(key=lambda p: (-len(words & set(content_terms(p["text"]))), p["paragraph_index"]))
    chosen = [gold, *others[:OTHER_PASSAGES]]
    rng.shuffle(chosen)
    return [
        {
            "n": n,
            "text": p["text"],
            "file": p["doc_file"].removeprefix("docs/"),
            "path": p["doc_file"],
            "paragraph_id": p["paragraph_id"],
        }
        for n, p in enumerate(chosen, start=1)
    ]


def build(seed: int, per_article: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    paragraphs, by_article, questions = load()
    pools = Pools(by_article)
    titles = sorted(by_article)
    order = titles[:]
    rng.shuffle(order)
    split = {t: ("tune" if i < len(order) // 2 else "held") for i, t in enumerate(order)}
    by_title: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        by_title[q["title"]].append(q)
    items: list[dict[str, Any]] = []
    turn = 0
    for title in titles:
        candidates = by_title[title][:]
        rng.shuffle(candidates)
        seen: set[str] = set()
        taken = 0
        for q in candidates:
            if taken == per_article:
                break
            gold = paragraphs[q["paragraph_id"]]
            sentence = answer_sentence(gold["text"], q["answers"][0]["char_start_in_paragraph"])
            if sentence is None or sentence in seen:
                continue
            seen.add(sentence)
            taken += 1
            turn += 1
            passages = passages_for(sentence, gold, by_article[title], rng)
            base = {
                "split": split[title],
                "article": title,
                "question": q["id"],
                "original": sentence,
                "gold": next(p["n"] for p in passages if p["paragraph_id"] == q["paragraph_id"]),
                "passages": passages,
            }
            answer = q["answers"][0]["text"]
            made = question_items(sentence, answer, gold["text"], title, passages, pools, rng, turn)
            items += [base | item for item in made]
    for number, item in enumerate(items):
        item["id"] = f"support-{number:04d}"
    return items


def question_items(
    sentence: str,
    answer: str,
    paragraph: str,
    title: str,
    passages: list,
    pools: Pools,
    rng: random.Random,
    turn: int,
) -> list[dict[str, Any]]:
    """One question's items: supported, partly (one or two swaps) and unsupported."""
    said, rules = sentence, list[str]()
    if turn % 3 == 1:
        said, rules = paraphrase(sentence, rng)
    elif turn % 3 == 2:
        said, rules = paraphrase(sentence, rng, rules=3, words=5)
    kind = "paraphrase" if rules else "verbatim"
    items: list[dict[str, Any]] = [{"kind": kind, "rules": rules, "sentence": said} | _expect("s")]
    if turn % 5 == 0 and (joined := join_next(sentence, paragraph)):
        items.append({"kind": "joined", "sentence": joined} | _expect("s"))
    if turn % 2 == 0 and (trimmed := trim_to_answer(sentence, answer)):
        trimmed, words = synonyms(trimmed, rng)
        rules = ["trim_to_answer"] + ([f"synonyms:{words}"] if words else [])
        items.append({"kind": "trimmed", "rules": rules, "sentence": trimmed} | _expect("s"))
    source = said if turn % 4 == 0 else sentence
    # A number swapped where there is one, and a name every other question (or instead).
    numeric = swap(source, title, passages, pools, rng, ("year", "number", "month"))
    name = swap(source, title, passages, pools, rng, ("name",))
    for swapped in (numeric, name if turn % 2 or numeric is None else None):
        if swapped is not None:
            text, what, was, new = swapped
            items.append(
                {"kind": f"swap_{what}", "sentence": text, "swapped": was, "missing": new}
                | _expect("p")
            )
    for kind in UNSUPPORTED[turn % len(UNSUPPORTED) :] + UNSUPPORTED:
        made = unsupported(kind, title, pools, rng, passages)
        if made is not None:
            text, source_title = made
            items.append({"kind": kind, "sentence": text, "from": source_title} | _expect("u"))
            break
    return items


UNSUPPORTED = ("other_article", "names_replaced", "template", "unseen")


def unsupported(
    kind: str, title: str, pools: Pools, rng: random.Random, passages: list
) -> tuple[str, str] | None:
    """A sentence of ``kind`` that the passages do not say, and the article it is from."""
    if kind == "names_replaced":
        return names_replaced(title, pools, rng, passages)
    if kind == "template":
        text = template(title, pools, rng, passages)
        return (text, title) if text else None
    if kind == "unseen":
        text = unseen(title, pools, rng, passages)
        return (text, title) if text else None
    other = rng.choice(sorted(t for t in pools.sentences if t != title))
    return rng.choice(pools.sentences[other]), other


def join_next(sentence: str, paragraph: str) -> str | None:
    """The sentence and the next one of its paragraph made one: "A. B." → "A, and b."."""
    sentences = [s.text for s in split_sentences(paragraph)]
    at = sentences.index(sentence) if sentence in sentences else -1
    if at < 0 or at + 1 == len(sentences) or len(sentences[at + 1]) > 200:
        return None
    after = sentences[at + 1]
    first = after.split()[0]
    if first.lower() in STOP or first in ("The", "A", "An", "It", "This"):
        after = after[0].lower() + after[1:]
    return f"{sentence.rstrip('.!?')}, and {after}"


def _expect(letter: str) -> dict[str, str]:
    return {"expected": {"s": "supported", "p": "partly", "u": "unsupported"}[letter]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--per-article", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    items = build(args.seed, args.per_article)
    with open(args.out, "w", encoding="utf-8") as out:
        for item in items:
            # Passages by paragraph id: their text is the corpus's (see load_passages).
            item["passages"] = [
                {"n": p["n"], "paragraph_id": p["paragraph_id"]} for p in item["passages"]
            ]
            out.write(json.dumps(item, ensure_ascii=False) + "\n")
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for item in items:
        counts[(item["split"], item["kind"])] += 1
    print(f"{len(items)} items -> {args.out}")
    for (half, kind), count in sorted(counts.items()):
        print(f"  {half:5} {kind:15} {count}")


if __name__ == "__main__":
    main()
