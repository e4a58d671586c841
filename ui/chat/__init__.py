"""The conversation: the composer, the turn streaming in, each question and answer, past chats."""
