"""Router accuracy on a labelled set of messages, tier by tier, and how often it asks the LLM.

The library is the 244-page handbook from the shared corpus, indexed once with the real
MiniLM embedder into /tmp/conversation-routerbench (kept between runs). Each message of
bench/data/router_messages.jsonl (with its earlier turns, for follow-ups) goes through the
real router node. No Ollama runs here, so the LLM tier is played twice: by an oracle that
answers with the label (the best the LLM tier can do) and by a model that answers
malformed JSON every time (the router then searches): the truth lies between.

    uv run python bench/router_eval.py [--data-dir /tmp/conversation-routerbench]

With ``--url`` (an OpenAI-compatible server's /v1) and ``--model``, the LLM tiers are a
real model instead, with no library indexed (bench/model_tiers.py): the router's and the
rewriter's model tiers and the follow-up suggestions, each with the share of JSON replies
that parse, the JSON mode the server took, accuracy beside the rules', and seconds:

    uv run python bench/router_eval.py --url http://127.0.0.1:8765/v1 \
        --model qwen2.5-coder-1.5b-instruct [--limit 5]

(A data dir indexed by an older Docent is re-embedded first; give a fresh one to compare
branches.)

Prints, for the rule tier alone (undecided → search, as before this router) and for the
whole router: documents → rag, chat → chat, overall accuracy, and the share of turns that
called the LLM; each also for the two halves of the set (even lines, odd lines), since
the probe's thresholds were chosen looking at the even half only.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402

from bench.library import HANDBOOK, indexed_container  # noqa: E402
from bench.model_tiers import measure  # noqa: E402
from graph.deps import GraphDeps  # noqa: E402
from graph.mentions import find_mentions, matched_paths, strip_mentions  # noqa: E402
from graph.nodes.route import route  # noqa: E402
from graph.nodes.rules import Verdict, judge  # noqa: E402
from graph.state import AgentState  # noqa: E402
from graph.turn_context import TurnContext  # noqa: E402
from models.protocols import Health, Message, Usage  # noqa: E402

DATA = Path(__file__).parent / "data" / "router_messages.jsonl"
ORACLE = {"rag": "documents", "find": "find", "document": "document", "compare": "compare"}
"""What the LLM tier answers for each label when it answers right (chat otherwise)."""


class ScriptedRouterLLM:
    """Answers the router's JSON question: with the label (oracle) or with garbage."""

    host = "bench"
    model = "scripted"

    def __init__(self, oracle: bool) -> None:
        self.oracle = oracle
        self.label = "rag"
        self.calls = 0

    async def complete_json(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        from models.llm import parse_json_object

        self.calls += 1
        if not self.oracle:
            return parse_json_object("{route: documents", self.model, self.host)
        return {"route": ORACLE.get(self.label, "chat")}

    async def stream_chat(self, messages: Sequence[Message], usage: Usage | None = None) -> Any:
        raise NotImplementedError
        yield ""

    async def health(self) -> Health:
        return Health(True, self.host)

    def use(self, model: str) -> None:
        self.model = model

    async def aclose(self) -> None:
        pass


def load_set() -> list[dict[str, Any]]:
    return [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]


def state_for(row: dict[str, Any]) -> AgentState:
    history = [
        HumanMessage(content=text) if role == "user" else AIMessage(content=text)
        for role, text in row.get("history", [])
    ]
    state: AgentState = {
        "messages": [*history, HumanMessage(content=row["text"])],
        "question": row["text"],
        "mode": "auto",
    }
    if row.get("previous_route"):
        state["route"] = row["previous_route"]
    return state


def rules_verdict(row: dict[str, Any], known: list[str]) -> tuple[Verdict, bool]:
    """The rules' verdict on the message, and whether it names a document."""
    mentioned = find_mentions(row["text"], known) if "@" in row["text"] else []
    text = strip_mentions(row["text"], mentioned) or row["text"]
    after = bool(row.get("history")) and row.get("previous_route") in ("rag", "find")
    named = len(matched_paths(mentioned))
    return judge(text, mentioned=named, after_search=after), named > 0


def rules_only(row: dict[str, Any], known: list[str]) -> str:
    """The rule tier as a router by itself: mentions and rules, else search."""
    verdict, named = rules_verdict(row, known)
    if verdict.whole is not None:
        return verdict.whole.route
    if named:
        return "rag"
    return verdict.rule.route if verdict.rule else "rag"


def rule_decides(row: dict[str, Any], known: list[str]) -> bool:
    """Whether the mention or rule tier settles the message by itself."""
    verdict, named = rules_verdict(row, known)
    return named or verdict.whole is not None or verdict.rule is not None


def rule_route(row: dict[str, Any], known: list[str]) -> str | None:
    """The mention or rule tier's route for the message, None where they leave it."""
    return rules_only(row, known) if rule_decides(row, known) else None


def summarise(
    name: str,
    rows: list[dict[str, Any]],
    got: list[str],
    llm: list[bool],
    cheap: list[bool] | None = None,
) -> None:
    """Recall of each label, accuracy, the LLM's share; and, given which turns a cheap tier
    (anything but the LLM) decided, the accuracy of those decisions."""

    def recall_of(label: str, picked: list[int]) -> float:
        mine = [i for i in picked if rows[i]["label"] == label]
        return sum(got[i] == label for i in mine) / max(len(mine), 1)

    def line(label: str, picked: list[int]) -> str:
        acc = sum(got[i] == rows[i]["label"] for i in picked) / max(len(picked), 1)
        share = sum(llm[i] for i in picked) / max(len(picked), 1)
        text = (
            f"  {label:10} docs→rag {recall_of('rag', picked):5.3f} (≥0.95)"
            f"   find→find {recall_of('find', picked):5.3f}"
            f"   document {recall_of('document', picked):5.3f}"
            f"   compare {recall_of('compare', picked):5.3f}"
            f"   chat→chat {recall_of('chat', picked):5.3f} (≥0.85)"
            f"   accuracy {acc:5.3f}   LLM called {share:5.1%} (≤25%)   n={len(picked)}"
        )
        if cheap is not None:
            decided = [i for i in picked if cheap[i]]
            right = sum(got[i] == rows[i]["label"] for i in decided) / max(len(decided), 1)
            text += f"\n  {'':10} cheap tiers decided {len(decided)}: accuracy {right:5.3f} (≥0.97)"
        return text

    every = list(range(len(rows)))
    print(name)
    print(line("all", every))
    print(line("even half", every[0::2]))
    print(line("odd half", every[1::2]))


async def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/conversation-routerbench"))
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--url", help="a real model server's /v1: measure the model tiers")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--limit", type=int, help="with --url: only the first N messages")
    args = parser.parse_args(argv)
    rows = load_set()
    if args.url:
        # The file names the router's prompt shows; no index is needed for them.
        known = sorted(str(p.relative_to(HANDBOOK)) for p in HANDBOOK.rglob("*") if p.is_file())
        await measure(
            args.url, args.model, rows, known, partial(rule_route, known=known), args.limit
        )
        return
    if not HANDBOOK.is_dir():
        raise SystemExit(f"The corpus is not at {HANDBOOK}; this benchmark needs it.")
    llm = ScriptedRouterLLM(oracle=True)
    container = await indexed_container(HANDBOOK, args.data_dir, llm=llm)
    try:
        known = container.registry.ready_paths()
        print(
            f"{len(rows)} labelled messages; library: {len(known)} handbook pages, "
            f"{container.embedding.store.count()} chunks\n"
        )
        got = [rules_only(row, known) for row in rows]
        decided = [rule_decides(row, known) for row in rows]
        summarise("rule tier alone (undecided → rag)", rows, got, [False] * len(rows), decided)

        deps = container.deps
        default = deps.options
        runs = [(True, default), (False, default)]
        for index, (oracle, options) in enumerate(runs):
            llm.oracle = oracle
            routed = await route_all(replace(deps, options=options), rows, llm)
            answers, asked, tiers, probes = routed
            what = "oracle LLM tier" if oracle else "LLM tier always malformed (→ rag)"
            what += (
                f", probe chat below {options.probe_chat_below:.2f}"
                f" / rag from {options.probe_rag_above:.2f}"
            )
            print()
            settled = [tier != "llm" for tier in tiers]
            summarise(f"whole router, {what}", rows, answers, asked, settled)
            counts = {t: tiers.count(t) for t in dict.fromkeys(tiers)}
            print("  decided by: " + ", ".join(f"{t} {n}" for t, n in counts.items()))
            cheap = cheap_tiers(rows, answers, tiers)
            print(
                f"  cheap tiers (all but the LLM): accuracy {cheap.accuracy:.3f} (≥0.97) on the"
                f" {cheap.decided} messages they decide; LLM share {cheap.llm_share:.1%} (≤15%);"
                f" chat sent to search by them: {cheap.chat_to_rag}"
            )
            if oracle:
                _probe_report(rows, probes)
            if index == 0:
                # Thresholds from the even half only; the odd half stays held out.
                tuned = _thresholds(rows[0::2], probes[0::2], default)
                runs += [(True, tuned), (False, tuned)]
            if args.show_misses:
                for row, answer, tier, score in zip(rows, answers, tiers, probes, strict=True):
                    if answer != row["label"]:
                        print(f"    miss [{tier} {score}] {row['label']}: {row['text']}")
    finally:
        await container.stop()


@dataclass(frozen=True)
class Cheap:
    """How the tiers before the LLM did on the messages they decided."""

    decided: int
    accuracy: float
    llm_share: float
    chat_to_rag: int


def cheap_tiers(rows: list[dict[str, Any]], answers: list[str], tiers: list[str]) -> Cheap:
    decided = [i for i, tier in enumerate(tiers) if tier != "llm"]
    right = sum(answers[i] == rows[i]["label"] for i in decided)
    wrong_rag = sum(answers[i] == "rag" and rows[i]["label"] == "chat" for i in decided)
    return Cheap(
        len(decided),
        right / max(len(decided), 1),
        (len(rows) - len(decided)) / max(len(rows), 1),
        wrong_rag,
    )


async def route_all(
    deps: GraphDeps, rows: list[dict[str, Any]], llm: ScriptedRouterLLM
) -> tuple[list[str], list[bool], list[str], list[float | None]]:
    """Each row through the router node: (route, asked the LLM, tier, probe score)."""
    graph = _router_graph()
    answers, asked, tiers, probes = [], [], [], []
    for row in rows:
        llm.label = row["label"]
        before = llm.calls
        context = deps.begin(row["text"])
        try:
            out = await graph.ainvoke(state_for(row), context=context)
        finally:
            context.search.close()
        answers.append(out["route"])
        asked.append(llm.calls > before)
        tiers.append(out["routed_by"])
        probes.append(out.get("probe_score"))
    return answers, asked, tiers, probes


def _probe_report(rows: list[dict[str, Any]], probes: list[float | None]) -> None:
    for label in ("rag", "find", "chat"):
        scores = sorted(
            s for r, s in zip(rows, probes, strict=True) if s is not None and r["label"] == label
        )
        if len(scores) >= 4:
            q = statistics.quantiles(scores, n=4)
            print(
                f"  probe scores of {label:4} messages it saw: n={len(scores)} "
                f"min {scores[0]:.2f} q1 {q[0]:.2f} median {q[1]:.2f} q3 {q[2]:.2f} "
                f"max {scores[-1]:.2f}"
            )


def _thresholds(rows: list[dict[str, Any]], probes: list[float | None], default: Any) -> Any:
    """The widest 'chat' band that keeps every document question of these rows above it,
    and a 'rag' line above every chat message's score."""
    rag = [s for r, s in zip(rows, probes, strict=True) if s is not None and r["label"] == "rag"]
    chat = [s for r, s in zip(rows, probes, strict=True) if s is not None and r["label"] == "chat"]
    low = round(min(rag) - 0.03, 2) if rag else default.probe_chat_below
    high = round(max(chat) + 0.01, 2) if chat else default.probe_rag_above
    return replace(default, probe_chat_below=low, probe_rag_above=max(high, low))


def _router_graph() -> Any:
    builder = StateGraph(AgentState, context_schema=TurnContext)
    builder.add_node("router", route)
    builder.add_edge(START, "router")
    builder.add_edge("router", END)
    return builder.compile()


if __name__ == "__main__":
    asyncio.run(main())
