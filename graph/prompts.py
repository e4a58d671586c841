"""Prompts and fixed answers; everything the model or the user reads from the graph."""

RAG_SYSTEM = """Answer the question from the numbered sources, which are excerpts of the \
user's own documents.
- Use only facts stated in the sources. Cite each fact with its number, like [1] or [2][3].
- If the sources are about the question but don't contain the answer, say in one sentence \
that the documents don't say.
- If the sources have nothing to do with the question, say so in one line, then answer \
briefly without citations.
- Be brief. Answer in the language of the question."""
"""Short, and the same in every search turn: it comes first, so a server that caches the
prompt's beginning (llama.cpp's ``cache_prompt``) reads it once."""

RAG_USER = """Sources:

{sources}

Question: {question}"""

SOURCE_BLOCK = "[{n}] {file}{page}:\n{text}"

FIND_SYSTEM = """You are Docent. A search of the user's own documents found the documents \
that match their question; you are given the best passage of each, numbered.

Rules:
- The number of matching documents is stated by the search and is exact. Never count the \
documents yourself and never give another number.
- The documents are already listed above your answer, by name, with their counts. In a \
few short sentences, say what their passages say about the topic, each with its source \
number in square brackets, like [1].
- Use only what the passages say. Be concise and answer in the language of the question."""

FIND_USER = """The search found {matched} of {searched} documents matching “{topic}”; \
the best passage of each follows, best match first.

Sources:

{sources}

Question: {question}"""

FIND_COUNT = "**{matched} of {searched} documents** {verb} “{topic}”{scope}."
"""The answer's first line, written by code: the count never comes from the model."""
FIND_COUNT_READ = " The {shown} best matches are listed below."
FIND_ITEM = "- `{name}`: {hits} {noun}"
"""One line of the find answer's list of files, written by code."""
FIND_MORE = "- and {more} more"
FIND_NONE = "**No document** of the {searched} searched{scope} mentions “{topic}”."

CHAT_SYSTEM = """You are Docent, a friendly assistant in a desktop app for chatting with \
the user's own documents. This message is not a question about the documents, so answer \
briefly and naturally. Never claim to know what the user's documents say."""

ROUTE_SYSTEM = """You decide whether a message to a document assistant needs a search of \
the user's own documents. The user's library holds files such as: {files}.

Answer "documents" when the message asks about facts, content, people, numbers, rules or \
topics that could be in those files, or follows up on an earlier answer from them. Answer \
"find" when it asks which of the files, or how many of them, mention or are about \
something, or asks to list every file of a kind. Answer "document" when it asks to \
summarise, outline or explain one whole file, and "compare" when it asks to compare two or \
more files. Answer "chat" for greetings, small talk, writing or translating something, \
arithmetic, general knowledge or advice that does not depend on the files.

Reply with JSON only: {{"route": "documents"}}, {{"route": "find"}}, {{"route": "document"}}, \
{{"route": "compare"}} or {{"route": "chat"}}."""

ROUTE_MODEL_SLOW = "the model server is slow: searched rather than asking it"

ROUTE_USER = """{history}Message: {question}"""

ROUTE_SCHEMA = {
    "type": "object",
    "properties": {
        "route": {"type": "string", "enum": ["documents", "find", "chat", "document", "compare"]}
    },
    "required": ["route"],
}

REWRITE_SYSTEM = """You turn the last message of a conversation into a standalone search \
query for the user's documents. Replace pronouns and references ("it", "its", "that one", \
"the second") with what they refer to in the conversation. Keep names, numbers and \
technical terms. Do not answer the question.{variants}

Reply with JSON only: {{"query": "..."{variants_key}}}."""

REWRITE_VARIANTS = """ Also write {count} different rephrasings of the query that could \
match other wordings in the documents."""

REWRITE_USER = """Conversation:
{history}

Last message: {question}"""


def rewrite_schema(variants: int) -> dict[str, object]:
    """JSON schema of the rewriter's reply: the query, and rephrasings when asked for."""
    properties: dict[str, object] = {"query": {"type": "string"}}
    required = ["query"]
    if variants:
        properties["variants"] = {
            "type": "array",
            "items": {"type": "string"},
            "minItems": variants,
            "maxItems": variants,
        }
        required.append("variants")
    return {"type": "object", "properties": properties, "required": required}


SUGGEST_SYSTEM = """You suggest what the user might ask next in a conversation with a \
document assistant. Write exactly three short follow-up questions the user could ask, \
each under 15 words, in the language of the conversation, that build on the last answer.

Reply with JSON only: {"suggestions": ["...", "...", "..."]}."""

SUGGEST_USER = """Question: {question}

Answer: {answer}"""

SUGGEST_SCHEMA = {
    "type": "object",
    "properties": {
        "suggestions": {
            "type": "array",
            "items": {"type": "string"},
            "minItems": 3,
            "maxItems": 3,
        }
    },
    "required": ["suggestions"],
}

NOT_RELEVANT = "Nothing in your documents bears on this, so this answer doesn't come from them."

NOT_COVERED = (
    "Not found in your documents: nothing the model wrote is in the passages found for "
    "this question, so its answer is set aside, unchecked."
)
"""What a turn answers when the check sets the model's answer aside (kept as ``draft``)."""

NO_WORDS = (
    "No answer in words: the model's reply held only the numbers of passages, or nothing, so "
    "it is set aside. The passages found for this question are listed with it."
)
"""What a search turn answers when the model's reply has no words (kept as ``draft``)."""

ADAPTIVE_SYSTEM = """You are Docent, a friendly assistant in a desktop app for chatting with \
the user's own documents. A search of the user's documents found nothing about this \
message, and the user has already been told so. Answer briefly and naturally from general \
knowledge. If the message asks what the user's own documents, files or records say, do \
not guess: say you can't tell without them. Never claim to know what the documents say."""

UNMATCHED_MENTION = "I found no document called {said}."
UNMATCHED_CLOSEST = " The closest are {names}."
UNMATCHED_EMPTY = " There are no indexed documents yet."

TRIMMED_QUESTION = "\n\n[… the message was cut here to fit the model's context]"

EMPTY_SCOPE = (
    "No indexed document is in {scope}, which this chat is limited to. Add files there, "
    "or remove the scope (the chip beside the message box) to ask the whole library."
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

ANSWER_AT_LIMIT = (
    "\n\n*(The answer stops here: it reached the most one answer may run to. Ask for the "
    "rest, or for less at a time.)*"
)

ANSWER_CUT_OFF = "\n\n*(The answer was cut off: {error})*"

DEGRADED_SOURCE = "[{n}] `{file}`{page}:\n\n{snippet}\n\n"

STATUS_ROUTE = "Reading the question…"
STATUS_REWRITE = "Preparing the search…"
STATUS_RETRIEVE = "Searching {count} documents…"
STATUS_RETRIEVE_ONE = "Searching 1 document…"
STATUS_RETRIEVE_FILES = "Searching {files}…"
STATUS_RERANK = "Reranking {count} passages…"
STATUS_RERANK_ONE = "Reranking 1 passage…"
STATUS_FIND = "Finding every document about “{topic}” in {scope}…"
STATUS_GENERATE = "Writing the answer…"
STATUS_GENERATE_CHAT = "Thinking…"
STATUS_READ_PASSAGES = "Reading the {count} passages found…"
STATUS_READ_PASSAGE = "Reading the passage found…"
"""While the model reads the prompt before its first token (a minute on a CPU)."""
STATUS_REWRITE_ASK = "Rewriting the follow-up as a search…"
STATUS_ROUTE_ASK = "Asking the model whether this needs your documents…"


ANSWER_REPEATING = "\n\n*(Stopped here: the model began repeating itself.)*"
ANSWER_LONG = "\n\n*(Stopped here: the answer reached the most Docent lets it run to.)*"
