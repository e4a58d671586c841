"""The graph's nodes, in the order a turn meets them: route (with its rules), rewrite (only
what is not searched as typed), retrieve, generate; suggest runs after the answer."""
