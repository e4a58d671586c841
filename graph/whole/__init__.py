"""Questions about whole documents: sections, their cached notes, and reading them."""
