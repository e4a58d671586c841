"""The @mention syntax, for entry points that show or write mentions (the router owns it)."""

from graph.mentions import MENTION

__all__ = ["MENTION"]
