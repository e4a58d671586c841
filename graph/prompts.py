"""Prompts and fixed answers; everything the model or the user reads from the graph."""

RAG_SYSTEM = """You are Docent. You answer questions using only the numbered sources \
below, which come from the user's own documents.

Rules:
- Use only facts stated in the sources. Never use outside knowledge and never guess.
- If the sources do not contain the answer, say that the documents don't say, in one sentence.
- Cite each fact with its source number in square brackets, like [1] or [2][3].
- Be concise and answer in the language of the question."""

RAG_USER = """Sources:

{sources}

Question: {question}"""

SOURCE_BLOCK = "[{n}] {file}{page}:\n{text}"

CHAT_SYSTEM = """You are Docent, a friendly assistant in a desktop app for chatting with \
the user's own documents. This message is not a question about the documents, so answer \
briefly and naturally. Never claim to know what the user's documents say."""

NOT_FOUND = (
    "I couldn't find anything about that in your documents, so I won't guess. "
    "Try other words, or check that the right files are in your documents folder."
)

NO_DOCUMENTS = (
    "There are no indexed documents yet. Drop PDF, .txt or .md files into your "
    "documents folder and ask again."
)

DEGRADED_HEADER = (
    "**No answer could be written: {error}**\n\n"
    "Here are the most relevant passages from your documents instead:\n\n"
)

DEGRADED_CHAT = "**No answer could be written: {error}**"

DEGRADED_SOURCE = "[{n}] `{file}`{page}: {snippet}\n\n"

STATUS_ROUTE = "Reading the question…"
STATUS_REWRITE = "Preparing the search…"
STATUS_RETRIEVE = "Searching {count} documents…"
STATUS_RETRIEVE_FILES = "Searching {files}…"
STATUS_GENERATE = "Writing the answer…"
STATUS_GENERATE_CHAT = "Thinking…"
