"""Answers from a real small model: Docent beside two baselines, on SQuAD questions.

Runs against a real OpenAI-compatible server (by default ``../shared/tools/real-model
serve``: llama-cpp-python's server with Qwen2.5-Coder-1.5B-Instruct on the CPU), never in
CI. A fixed sample of SQuAD questions (``--questions``, two per article) is asked over their
articles, indexed into a library kept under /tmp between runs. Each question is answered
three ways, one after another, against the same server with greedy decoding:

- **docent**: a fresh chat in Documents mode, through ``ChatService`` as the window asks;
- **bare**: the question with the passages Docent's search returns, in a minimal prompt
  (isolates Docent's prompt and checks from its retrieval);
- **oracle**: the question with its gold paragraph alone, in a minimal prompt (what the
  model can do at best).

    uv run python bench/real_model.py [--questions 40] [--url URL] [--model NAME]
                                      [--save FILE.jsonl] [--only docent,bare,oracle]
                                      [--before EARLIER.jsonl]
    uv run python bench/real_model.py --report RUN.jsonl [--before EARLIER.jsonl]

For each question and way it prints whether the answer holds the gold answer, whether every
``[n]`` is valid, whether a cited source holds the gold, the sentence verdicts, whether the
answer was withheld, time to first token, total time, prompt tokens and model calls; then
the shares and the issue's targets. ``--save`` writes every answer as JSON lines, the raw
material of the hand-labelled set in ``bench/data/``. ``--report`` prints a saved run's
figures again without a model; with ``--before`` it also sets Docent's answers beside an
earlier run's on the questions both asked (the prompt-token target is against it).

Prompt tokens are counted by the server's own tokenizer (``/extras/tokenize``, which
llama-cpp-python serves) over the messages' text, so the three ways are counted alike;
the chat template's few tokens per message are left out of all three.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import statistics
import string
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.container import Services  # noqa: E402
from app.services.chat import Done, Sources  # noqa: E402
from bench.counted_model import CountedModel, Tokenizer  # noqa: E402
from bench.library import CORPUS, indexed_container  # noqa: E402
from graph import prompts  # noqa: E402
from graph.citations import cited_numbers  # noqa: E402
from models.openai_chat import OpenAIChat  # noqa: E402
from models.protocols import Message  # noqa: E402

SQUAD = CORPUS / "squad"
ARTICLES = 20
"""Articles in the library; the questions are asked over all of them."""
SEED = 36
WORK = Path(os.environ.get("DOCENT_REAL_BENCH", "/tmp/docent-real-model-bench"))

ORACLE_SYSTEM = "Answer the question from the passage, in one short sentence."
ORACLE_USER = "Passage:\n{passage}\n\nQuestion: {question}"
BARE_SYSTEM = (
    "Answer the question from the numbered sources, in one or two short sentences. "
    "Cite the source of each fact like [1]."
)
BARE_USER = "{sources}\n\nQuestion: {question}"


# -- the sample --------------------------------------------------------------------------


def sample(count: int) -> tuple[list[str], list[dict[str, Any]]]:
    """The articles of the library and ``count`` questions over them, two per article."""
    rows = [json.loads(line) for line in open(SQUAD / "questions.jsonl")]
    paragraphs = {
        p["paragraph_id"]: p
        for p in (json.loads(line) for line in open(SQUAD / "paragraphs.jsonl"))
    }
    files = sorted({r["doc_file"] for r in rows})
    rng = random.Random(SEED)
    articles = sorted(rng.sample(files, ARTICLES))
    per_article = max(1, -(-count // len(articles)))
    questions: list[dict[str, Any]] = []
    for article in articles:
        own = [r for r in rows if r["doc_file"] == article]
        for row in rng.sample(own, per_article):
            questions.append({**row, "paragraph": paragraphs[row["paragraph_id"]]})
    return [a.removeprefix("docs/") for a in articles], questions[:count]


def follow_ups(questions: list[dict[str, Any]]) -> dict[str, str]:
    """For each question, another question on its article (not in the sample if it can
    help it): the second question of the same chat."""
    rows = [json.loads(line) for line in open(SQUAD / "questions.jsonl")]
    asked = {q["id"] for q in questions}
    out = {}
    for q in questions:
        same = [r for r in rows if r["doc_file"] == q["doc_file"] and r["id"] != q["id"]]
        same.sort(key=lambda r: (r["id"] in asked, r["id"]))
        if same:
            out[q["id"]] = same[0]["question"]
    return out


_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normal(text: str) -> str:
    """SQuAD's answer normalisation: lower case, no punctuation, articles or extra spaces."""
    text = "".join(c for c in text.lower() if c not in string.punctuation)
    return " ".join(_ARTICLES.sub(" ", text).split())


def holds_gold(text: str, question: dict[str, Any]) -> bool:
    said = normal(text)
    return any(normal(a["text"]) and normal(a["text"]) in said for a in question["answers"])


def gold_spans(question: dict[str, Any]) -> list[tuple[int, int]]:
    return [
        (a["char_start_in_doc"], a["char_start_in_doc"] + len(a["text"]))
        for a in question["answers"]
    ]


def source_holds_gold(source: dict[str, Any], question: dict[str, Any]) -> bool:
    """Whether the source's passage overlaps a gold answer span in the gold article."""
    if source.get("path") != question["doc_file"].removeprefix("docs/"):
        return False
    start, end = source.get("start"), source.get("end")
    if start is None or end is None:
        return False
    return any(start < hi and lo < end for lo, hi in gold_spans(question))


# -- the model, counted --------------------------------------------------------------------


# -- one answer ------------------------------------------------------------------------------


@dataclass
class Answer:
    way: str
    qid: str
    text: str = ""
    right: bool = False
    valid: bool = True
    cites: int = 0
    cited_gold: bool | None = None
    retrieved_gold: bool | None = None
    verdicts: list[str] = field(default_factory=list)
    withheld: bool = False
    draft: str | None = None
    ttft: float | None = None
    total: float = 0.0
    sources_at: float | None = None
    prompt_tokens: int | None = None
    calls: int = 0
    passages: list[dict[str, Any]] = field(default_factory=list)
    """The numbered passages searched for the question (saved for bench/check_labels.py)."""
    follow_ttft: float | None = None
    """With ``--follow-up``: the first token of a second question in the same chat."""
    follow_prompt_tokens: int | None = None


def score_citations(answer: Answer, sources: list[dict[str, Any]], q: dict[str, Any]) -> None:
    numbers = cited_numbers(answer.text)
    by_n = {s["n"]: s for s in sources}
    answer.cites = len(numbers)
    answer.valid = all(n in by_n for n in numbers)
    if numbers:
        answer.cited_gold = any(source_holds_gold(by_n[n], q) for n in numbers if n in by_n)


async def ask_docent(
    container: Services,
    model: CountedModel,
    tokens: Tokenizer,
    q: dict,
    follow_up: str | None = None,
) -> Answer:
    answer = Answer("docent", q["id"])
    before = len(model.calls)
    started = time.perf_counter()
    turn = container.chat.start_turn(None, q["question"], "rag")
    retrieved: list[dict[str, Any]] = []
    async for event in turn.events():
        now = time.perf_counter() - started
        if isinstance(event, Sources) and answer.sources_at is None:
            answer.sources_at = now
            retrieved = [dict(s) for s in event.sources]
    done = await turn.result()
    answer.total = time.perf_counter() - started
    if len(model.calls) > before and model.first_piece_at is not None:
        answer.ttft = model.first_piece_at - started  # the model's first word, not a notice
    if not isinstance(done, Done):
        answer.text = f"(failed: {done.message})"
        return answer
    answer.text = done.answer
    answer.right = holds_gold(done.answer, q)
    score_citations(answer, [dict(s) for s in done.sources], q)
    answer.retrieved_gold = any(source_holds_gold(s, q) for s in retrieved)
    answer.passages = await searched_passages(container, q)
    answer.verdicts = [s["verdict"] for s in done.support or []]
    set_aside = done.searched.get("draft") if done.searched else None
    answer.draft = set_aside or done.draft
    answer.withheld = prompts.NOT_COVERED in done.answer or answer.draft is not None
    calls = model.calls[before:]
    answer.calls = len(calls)
    streams = [m for kind, m in calls if kind == "stream"]
    if streams:
        answer.prompt_tokens = tokens.count(streams[-1])
    if follow_up is not None:
        await ask_again(container, model, tokens, done.session_id, follow_up, answer)
    return answer


async def ask_again(
    container: Services,
    model: CountedModel,
    tokens: Tokenizer,
    session: str,
    question: str,
    answer: Answer,
) -> None:
    """A second question in the same chat, timed to its first token: what a server's
    prefix cache saves, with whatever calls (the rewriter's) come between."""
    before = len(model.calls)
    started = time.perf_counter()
    turn = container.chat.start_turn(session, question, "rag")
    async for _ in turn.events():
        pass
    await turn.result()
    if model.first_piece_at is not None and len(model.calls) > before:
        answer.follow_ttft = model.first_piece_at - started
    streams = [m for kind, m in model.calls[before:] if kind == "stream"]
    if streams:
        answer.follow_prompt_tokens = tokens.count(streams[-1])


async def ask_plain(
    way: str, model: CountedModel, tokens: Tokenizer, q: dict, messages: list[Message]
) -> Answer:
    answer = Answer(way, q["id"], calls=1, prompt_tokens=tokens.count(messages))
    started = time.perf_counter()
    pieces = []
    async for piece in model.inner.stream_chat(messages):
        if answer.ttft is None and piece.strip():
            answer.ttft = time.perf_counter() - started
        pieces.append(piece)
    answer.total = time.perf_counter() - started
    answer.text = "".join(pieces)
    answer.right = holds_gold(answer.text, q)
    return answer


async def searched_passages(container: Services, q: dict) -> list[dict[str, Any]]:
    """The passages Docent's search returns for the question, numbered as its sources."""
    top_k = container.settings.search.top_k
    found = await asyncio.to_thread(container.retriever.retrieve, q["question"], [], top_k)
    return [
        {"n": i, "path": p.path, "file": p.path, "start": p.start, "end": p.end, "text": p.text}
        for i, p in enumerate(found.passages, start=1)
    ]


async def ask_bare(container: Services, model: CountedModel, tokens: Tokenizer, q: dict) -> Answer:
    sources = await searched_passages(container, q)
    blocks = "\n\n".join(f"[{s['n']}] {s['text']}" for s in sources)
    messages: list[Message] = [
        {"role": "system", "content": BARE_SYSTEM},
        {"role": "user", "content": BARE_USER.format(sources=blocks, question=q["question"])},
    ]
    answer = await ask_plain("bare", model, tokens, q, messages)
    answer.passages = sources
    score_citations(answer, sources, q)
    answer.retrieved_gold = any(source_holds_gold(s, q) for s in sources)
    return answer


async def ask_oracle(model: CountedModel, tokens: Tokenizer, q: dict) -> Answer:
    user = ORACLE_USER.format(passage=q["paragraph"]["text"], question=q["question"])
    messages: list[Message] = [
        {"role": "system", "content": ORACLE_SYSTEM},
        {"role": "user", "content": user},
    ]
    return await ask_plain("oracle", model, tokens, q, messages)


# -- the report --------------------------------------------------------------------------------


def share(values: Sequence[bool]) -> float:
    return sum(values) / len(values) if values else 0.0


def p50(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return statistics.median(kept) if kept else None


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f} s"


def row(a: Answer) -> str:
    verdicts = ",".join(v[0] for v in a.verdicts) or "-"
    cited = {True: "yes", False: "no", None: "-"}[a.cited_gold]
    return (
        f"  {a.way:<7} right={'Y' if a.right else 'n'} valid={'Y' if a.valid else 'n'} "
        f"cited-gold={cited:<3} verdicts={verdicts:<8} withheld={'Y' if a.withheld else 'n'} "
        f"ttft={seconds(a.ttft):>7} total={seconds(a.total):>7} "
        f"prompt={a.prompt_tokens or '—':>5} calls={a.calls}"
        + (f" follow-up ttft={seconds(a.follow_ttft)}" if a.follow_ttft is not None else "")
    )


def summary(answers: dict[str, list[Answer]]) -> None:
    print(
        "\nway      right  valid[n]  cited-gold  withheld  ttft p50  total p50  prompt p50  calls"
    )
    for way, rows in answers.items():
        right = [a for a in rows if a.right]
        cited = [a.cited_gold for a in right if a.cited_gold is not None]
        print(
            f"{way:<8} {len(right):>2}/{len(rows):<3} {share([a.valid for a in rows]):>7.2f}"
            f"  {share(cited) if cited else float('nan'):>10.2f}"
            f"  {sum(a.withheld for a in rows):>8}"
            f"  {seconds(p50([a.ttft for a in rows])):>8}"
            f"  {seconds(p50([a.total for a in rows])):>9}"
            f"  {p50([a.prompt_tokens for a in rows]) or '—':>10}"
            f"  {statistics.mean(a.calls for a in rows):>5.2f}"
        )
    docent = answers.get("docent", [])
    if not docent:
        return
    rate = share([a.right for a in docent])
    print("\ntargets:")
    if "bare" in answers:
        bare = share([a.right for a in answers["bare"]])
        print(
            f"  right: docent {rate:.2f} >= bare {bare:.2f}: {'met' if rate >= bare else 'NOT met'}"
        )
    if "oracle" in answers:
        oracle = share([a.right for a in answers["oracle"]])
        retrieved = share([bool(a.retrieved_gold) for a in docent])
        goal = 0.9 * oracle * retrieved
        print(
            f"  right: docent {rate:.2f} >= 0.9 x oracle {oracle:.2f} x retrieved "
            f"{retrieved:.2f} = {goal:.2f}: {'met' if rate >= goal else 'NOT met'}"
        )
    valid = share([a.valid for a in docent])
    print(f"  every [n] valid: {valid:.2f} (>= .95: {'met' if valid >= 0.95 else 'NOT met'})")
    rights = [a for a in docent if a.right]
    citing = share([bool(a.cited_gold) for a in rights])
    print(f"  right answers citing a gold source: {citing:.2f} (>= .95)")
    lost = [a for a in rights if a.withheld or "unsupported" in a.verdicts]
    print(f"  right answers withheld or marked unsupported: {len(lost)}/{len(rights)} (<= 5%)")
    if "bare" in answers:
        ttft, bare_ttft = p50([a.ttft for a in docent]), p50([a.ttft for a in answers["bare"]])
        if ttft and bare_ttft:
            print(f"  ttft: docent {ttft:.1f} s vs 1.1 x bare {1.1 * bare_ttft:.1f} s")
    follow = p50([a.follow_ttft for a in docent])
    if follow is not None:
        print(
            f"  second question in the same chat: ttft p50 {follow:.1f} s "
            f"(first {seconds(p50([a.ttft for a in docent]))}), prompt p50 "
            f"{p50([a.follow_prompt_tokens for a in docent])}"
        )
    plain = [a.calls for a in docent]
    print(f"  model calls per plain question: mean {statistics.mean(plain):.2f} (target 1)")


def load_run(path: Path) -> dict[str, list[Answer]]:
    """A saved run's answers by way, in the order they were asked."""
    known = set(Answer.__dataclass_fields__)
    answers: dict[str, list[Answer]] = {}
    for line in path.open():
        saved = json.loads(line)
        answer = Answer(**{k: v for k, v in saved.items() if k in known})
        answers.setdefault(answer.way, []).append(answer)
    return answers


def before_after(before: list[Answer], after: list[Answer]) -> None:
    """Docent's answers of two runs on the questions both asked, side by side."""
    earlier = {a.qid: a for a in before}
    pairs = [(earlier[a.qid], a) for a in after if a.qid in earlier]
    if not pairs:
        print("\nbefore → after: no question in common")
        return
    print(f"\nbefore → after, docent, the {len(pairs)} questions both runs asked:")
    for label, pick in (
        ("right", lambda a: sum(x.right for x in a)),
        ("every [n] valid", lambda a: f"{share([x.valid for x in a]):.2f}"),
        ("withheld", lambda a: sum(x.withheld for x in a)),
        ("prompt tokens p50", lambda a: p50([x.prompt_tokens for x in a])),
        ("ttft p50", lambda a: seconds(p50([x.ttft for x in a]))),
        ("model calls mean", lambda a: f"{statistics.mean(x.calls for x in a):.2f}"),
    ):
        was, now = pick([b for b, _ in pairs]), pick([a for _, a in pairs])
        print(f"  {label:<18} {was!s:>8} → {now!s:<8}")
    was_tokens = p50([b.prompt_tokens for b, _ in pairs])
    now_tokens = p50([a.prompt_tokens for _, a in pairs])
    if was_tokens and now_tokens:
        fewer_right = sum(a.right for _, a in pairs) < sum(b.right for b, _ in pairs)
        met = now_tokens <= was_tokens / 2 and not fewer_right
        print(
            f"  prompt tokens at most half of before's ({now_tokens} <= {was_tokens / 2:.0f}), "
            f"right answers no fewer: {'met' if met else 'NOT met'}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--only", default="docent,bare,oracle")
    parser.add_argument("--save", type=Path, help="write every answer here as JSON lines")
    parser.add_argument("--label", default="", help="a name for this run, saved with it")
    parser.add_argument(
        "--focus-tokens",
        type=int,
        default=None,
        help="the passages' token budget (Docent's focus_tokens; 0: whole passages)",
    )
    parser.add_argument(
        "--follow-up",
        action="store_true",
        help="after each docent answer, ask the article's other question in the same chat "
        "and time its first token (the server's prefix cache)",
    )
    parser.add_argument("--report", type=Path, help="print a saved run's figures; no model")
    parser.add_argument("--before", type=Path, help="an earlier saved run to compare with")
    args = parser.parse_args()
    if args.report:
        saved = load_run(args.report)
        summary(saved)
        if args.before:
            before_after(load_run(args.before).get("docent", []), saved.get("docent", []))
        return
    ways = [w.strip() for w in args.only.split(",") if w.strip()]
    articles, questions = sample(args.questions)
    docs = WORK / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    for name in articles:
        if not (docs / name).exists():
            shutil.copy(SQUAD / "docs" / name, docs / name)
    inner = OpenAIChat(args.url, args.model, max_tokens=1024, options={"temperature": 0})
    model = CountedModel(inner)
    health = await inner.health()
    if not health.reachable or health.error:
        raise SystemExit(f"The model server is not ready: {health.error}")
    load = os.getloadavg()
    print(
        f"model {args.model} at {args.url}; {len(questions)} questions over {len(articles)} "
        f"articles; greedy decoding; machine: {os.cpu_count()} cores, load "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    focus = {} if args.focus_tokens is None else {"focus_tokens": args.focus_tokens}
    container = await indexed_container(
        docs, WORK / "data", llm=model, suggestions=False, expect=len(articles), **focus
    )
    print(f"focus_tokens {container.settings.turn.focus_tokens}", flush=True)
    siblings = follow_ups(questions)
    unready = [d.path for d in container.registry.list() if d.status != "ready"]
    if unready:
        await container.stop()
        raise SystemExit(f"These articles did not index: {unready}; run again.")
    tokens = Tokenizer(args.url)
    answers: dict[str, list[Answer]] = {w: [] for w in ways}
    out = args.save.open("w") if args.save else None
    try:
        for i, q in enumerate(questions, start=1):
            print(f"\n{i:>2}. {q['question']}  [gold: {q['answers'][0]['text']}]", flush=True)
            for way in ways:
                if way == "docent":
                    again = siblings.get(q["id"]) if args.follow_up else None
                    answer = await ask_docent(container, model, tokens, q, again)
                elif way == "bare":
                    answer = await ask_bare(container, model, tokens, q)
                else:
                    answer = await ask_oracle(model, tokens, q)
                answers[way].append(answer)
                print(row(answer), flush=True)
                if out is not None:
                    record = {
                        "label": args.label,
                        "question": q["question"],
                        "gold": [a["text"] for a in q["answers"]],
                        "doc_file": q["doc_file"],
                        **asdict(answer),
                    }
                    out.write(json.dumps(record) + "\n")
                    out.flush()
        load = os.getloadavg()
        print(f"\nmachine load at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        summary(answers)
        if args.before:
            before_after(load_run(args.before).get("docent", []), answers.get("docent", []))
    finally:
        if out is not None:
            out.close()
        await container.stop()


if __name__ == "__main__":
    asyncio.run(main())
