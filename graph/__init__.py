"""The question-answering graph: router → rewriter → retriever → generator."""
