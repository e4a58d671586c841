"""Where chunks are kept and found: the vector store (vectors), the keyword index
(keyword/), the registry of documents and contents, behind the write side in ports."""
