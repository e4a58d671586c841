"""What an answer shows under and inside it: rendered text, sources, checked claims, coverage."""
