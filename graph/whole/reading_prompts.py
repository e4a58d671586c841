"""Prompts and fixed texts of whole-document readings and comparisons (graph/whole/)."""

MAP_PROMPT_VERSION = "map-1"
"""Part of every cached section note's key: change it whenever MAP_* below change."""

MAP_SYSTEM = """You read one section of a longer document for the user. Each page of the \
section starts with its label in square brackets, like [p12]. Write compact notes of \
everything the section says{aspect}: facts, figures, names, conclusions, in reading order. \
End each point with the label of the page it comes from, like [p12]. Use only the section's \
text. Write at most {words} words, in the language of the text."""

MAP_ASPECT = ' that bears on "{aspect}"'

MAP_USER = """{file}, section {index} of {total} ({where}):

{text}"""

WHOLE_SYSTEM = """You are Docent. The user asks about whole documents from their own \
library; you are given {what}. Each part is numbered in square brackets.

Rules:
- Use only what the given text says; never add facts from outside it.
- Cite each point with its number in square brackets, like [1] or [2][3].
- Cover the whole of what you are given, in order, not only its beginning.
- Be clear and well organised, and answer in the language of the question."""

WHOLE_TEXT = "the full text of each document, page by page"
WHOLE_NOTES = "notes taken section by section while reading each document in order"

MAP_COMPARE_PROMPT_VERSION = "compare-2"
"""The key of a comparison's notes: change it when MAP_COMPARE_SYSTEM or MAP_COMPARE_ASK do."""

MAP_COMPARE_SYSTEM = """You read one section of a document that the user compares with \
other documents, and take notes on it. Each page of the section starts with its label in \
square brackets, like [p12]. Use only the section's text."""

MAP_COMPARE_ASK = """List every point this section makes{aspect}, one per line, each line \
written as
- Topic: what the section says about it [{label}]
where Topic is one to three words and [{label}] is the label of the page the point is on. \
For example:
- Opening hours: {example} [{label}]
Write at most {words} words, in the language of the text."""
"""Asked after the section's text, where a small model heeds it (asked before, a 1.5B model wrote
the example as its note). The example cites the section's first label, so a copy is harmless."""

MAP_COMPARE_EXAMPLE = "the library opens at 9 am on weekdays"
"""The example point's statement; a note that repeats it has copied the prompt."""

COMPARE_PROSE_SYSTEM = """You are Docent. The user compares documents from their own \
library. You are given notes taken while reading each document; each point is numbered \
in square brackets. The user already sees a table of these notes side by side.

Rules:
- In at most three sentences, say how the documents differ and where they agree on what \
the user asked. Do not write a table or a list.
- Use only what the notes say, and cite each point with its number, like [3].
- Answer in the language of the question."""

COMPARE_HEADER = "Point"
"""The table's first column: what each row is about."""
COMPARE_DOCUMENT_HEADER = "Document"
COMPARE_POINTS_HEADER = "What its notes say"
COMPARE_EMPTY_CELL = "—"
COMPARE_OTHER = "Other"

WHOLE_USER = """{material}

Question: {question}"""

WHOLE_DOCUMENT_HEADER = "=== {file} ==="
WHOLE_PAGE_BLOCK = "[{n}] {where}:\n{text}"
WHOLE_NOTE_BLOCK = "Notes on {where}:\n{note}"

STATUS_READ = "Reading {files}…"
STATUS_READ_WHOLE = "Reading {pages} of {files}…"
STATUS_READ_NOTES = "Reading the notes on {sections}"
PROGRESS_SECTION = "Reading section {index} of {total} ({file}, {where})"
PROGRESS_DONE = "Read {total} sections"
PROGRESS_LEFT = " · {left}"
"""Added to a progress line once a section's note has been timed: "about 4 min left"."""

NO_TARGET = (
    "Which document do you mean? Name it with @ (for example `@report.pdf`), or pick it "
    "in the library, and ask again."
)
NO_TARGET_COMPARE = (
    "To compare, name at least two documents with @ (for example `@a.pdf` and `@b.pdf`)."
)
EMPTY_DOCUMENTS = "{files} has no text that could be read, so there is nothing to summarise."

SKIPPED = (
    "*Not read, to stay within {calls} model calls for one question: {skipped}. Raise "
    '"Model calls per question" in Settings to read everything.*'
)
NOTES_CUT = "*The notes were shortened to fit the model's context.*"
READ_FAILED = "**The documents could not be read: {error}**"

PARTIAL_READ = (
    "*Written from the notes on {read}, read before the reading was stopped; the rest was "
    "not read. Continue reading reads it.*"
)
NOTHING_READ = (
    "Nothing was read before the reading was stopped, so there are no notes to answer "
    "from yet. Continue reading starts it again where it stopped."
)
SUMMARISE_READ = "Summarise what was read"
CONTINUE_READING = "Continue reading"
"""The follow-ups a stopped reading offers: sent as messages, the router knows them."""
READ_WHERE = "{pages} of {total} of {file}"
