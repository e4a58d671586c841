"""Where chunks are kept and found: the vector store, the keyword index, the registry."""
