"""The graph's nodes, in the order a turn meets them: route (with its rules), rewrite,
retrieve, generate; suggest runs after the answer."""
