"""The @mention syntax, for entry points that show or write mentions (the router owns it)."""

from graph.routing import MENTION, find_mentions

__all__ = ["MENTION", "find_mentions"]
