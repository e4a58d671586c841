"""Follow-up suggestions: three questions the user might ask next, after the answer."""

from __future__ import annotations

from graph import prompts
from graph.deps import GraphDeps
from models.llm import LLMError

ANSWER_CHARS = 2000
"""Of the answer, the suggester reads this much: enough to know what it was about."""
SUGGESTION_CHARS = 200
COUNT = 3


async def suggest_followups(deps: GraphDeps, question: str, answer: str) -> list[str]:
    """Three follow-up questions, or none if the model fails or answers malformed JSON."""
    messages = [
        {"role": "system", "content": prompts.SUGGEST_SYSTEM},
        {
            "role": "user",
            "content": prompts.SUGGEST_USER.format(question=question, answer=answer[:ANSWER_CHARS]),
        },
    ]
    try:
        reply = await deps.llm.complete_json(
            messages, prompts.SUGGEST_SCHEMA, timeout=deps.options.suggestions_timeout
        )
    except LLMError:
        return []
    found = reply.get("suggestions")
    if not isinstance(found, list):
        return []
    clean = [" ".join(s.split())[:SUGGESTION_CHARS] for s in found if isinstance(s, str)]
    return [s for s in dict.fromkeys(clean) if s][:COUNT]
