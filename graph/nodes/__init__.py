"""The graph's nodes: route (with its rules), rewrite, retrieve or find, read, generate, suggest."""
