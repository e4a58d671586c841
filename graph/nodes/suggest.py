"""Follow-up suggestions: three questions the user might ask next, after the answer."""

from __future__ import annotations

from graph import prompts
from graph.deps import GraphDeps
from models.llm import LLMError
from models.protocols import ChatModel

ANSWER_CHARS = 2000
"""Of the answer, the suggester reads this much: enough to know what it was about."""
SUGGESTION_CHARS = 200
COUNT = 3


async def suggest_followups(deps: GraphDeps, question: str, answer: str) -> list[str]:
    """Three follow-up questions, or none if the model fails or answers malformed JSON."""
    return await ask_followups(deps.llm, question, answer, deps.options.suggestions_timeout)


async def ask_followups(
    llm: ChatModel, question: str, answer: str, timeout: float | None
) -> list[str]:
    """Up to three follow-up questions from ``llm``; none on any error or malformed JSON."""
    messages = [
        {"role": "system", "content": prompts.SUGGEST_SYSTEM},
        {
            "role": "user",
            "content": prompts.SUGGEST_USER.format(question=question, answer=answer[:ANSWER_CHARS]),
        },
    ]
    try:
        reply = await llm.complete_json(messages, prompts.SUGGEST_SCHEMA, timeout=timeout)
    except LLMError:
        return []
    found = reply.get("suggestions")
    if not isinstance(found, list):
        return []
    clean = [" ".join(s.split())[:SUGGESTION_CHARS] for s in found if isinstance(s, str)]
    return [s for s in dict.fromkeys(clean) if s][:COUNT]
