"""How the conversation behaves: budgets, thresholds and switches, set from Settings."""

from __future__ import annotations

from dataclasses import dataclass

FOCUS_TOKENS = 800
"""The focused context's default budget, measured with a 1.5B model in docs/focus.md."""


@dataclass(frozen=True)
class TurnOptions:
    """The router's, rewriter's and generator's knobs; defaults suit llama3.2 on a laptop."""

    context_tokens: int = 8192
    """Ollama's ``num_ctx``; the prompt plus ``answer_tokens`` always fits in it."""
    answer_tokens: int = 1024
    """Room kept free in the context for the answer."""
    history_tokens: int = 2048
    """Most of the context earlier messages may take; the newest are kept."""
    focus_tokens: int = FOCUS_TOKENS
    """Most a search turn's passages may take, cut to what bears on the question; 0: whole."""
    probe_chat_below: float = 0.30
    """A best chunk less similar than this means the question is not about the documents (MiniLM
    cosine: handbook document questions score 0.37 and up, chat mostly 0.14-0.30;
    bench/router_eval.py)."""
    probe_rag_above: float = 0.45
    """A best chunk at least this similar means it is; in between the LLM decides."""
    route_timeout: float = 20.0
    """Seconds the router's LLM call may take before the turn searches anyway."""
    rewrite_timeout: float = 20.0
    """Seconds the rewriter's LLM call may take before the raw question is searched."""
    expand_queries: bool = False
    """Also search ``expansion_variants`` rephrasings of the query, fused with it."""
    expansion_variants: int = 3
    max_calls_per_question: int = 24
    """Most model calls a whole-document question may make; the answer names what it left unread."""
    suggestions: bool = True
    """Offer three follow-up questions after each answer."""
    suggestions_timeout: float = 60.0
    """Seconds the suggestions may take; they come after ``done``, so nobody waits."""

    @property
    def rephrasings(self) -> int:
        """How many rephrasings the rewriter searches beside the query: 0 unless expanding."""
        return self.expansion_variants if self.expand_queries else 0
