"""A router rule: a pattern and the route it implies."""

from __future__ import annotations

import re
from dataclasses import dataclass

from graph.state import Route


@dataclass(frozen=True)
class Rule:
    """A pattern and the route it implies; ``name`` goes into the trace."""

    name: str
    route: Route
    pattern: re.Pattern[str]
    library_first: bool = False
    """A chat rule the library may overrule: a question it holds is searched instead."""


def compile_rule(name: str, route: Route, pattern: str, *, library_first: bool = False) -> Rule:
    """A rule whose pattern matches regardless of case."""
    return Rule(name, route, re.compile(pattern, re.IGNORECASE), library_first)
