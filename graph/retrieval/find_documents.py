"""Find: every document with a passage about the query, not the top few passages. The keyword index
scores every chunk, so none holding all the terms is missed; the dense index adds chunks in other
words. A quoted string or a code must appear literally. Nothing ranks documents to cut the list
short."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graph.retrieval.scored import Key
from graph.scope import in_scope
from ingest.document_parts import Chunk

if TYPE_CHECKING:
    from graph.retrieval.turn_search import Search

_QUOTED = re.compile(r'"([^"\n]{1,200})"|\u201c([^\u201d\n]{1,200})\u201d')
# A code mixes letters and digits in one token (ABC-123, FY2024, v1.2.3, 18F).
_TOKEN = re.compile(r"(?<![\w-])[A-Za-z0-9]+(?:[-_./][A-Za-z0-9]+)*(?![\w-])")
_WORDS = re.compile(r"\w+")
PHRASE_WORDS = 4
"""Queries of up to this many words are phrases: their words must stand together in a chunk
("require approval" is not every chunk that requires something and mentions an approval)."""
_ALL_ROWS = 1 << 40
"""Asks the keyword index for every chunk that holds a term: find has no top-k."""


@dataclass(frozen=True)
class FindSettings:
    """What makes a chunk a match; measured on the handbook by ``bench/find_eval.py``."""

    coverage: float = 0.99
    """Share of the query's idf mass a chunk must hold: in effect every term (stemmed)."""
    dense: float = 0.50
    """Cosine (all-MiniLM-L6-v2) at which a chunk is about the query in other words; above the
    answer floor (0.357), which asks whether anything is relevant. On the handbook
    (bench/find_eval.py) 0.50 keeps the terms' precision at 0.98; 0.45 and 0.40 drop it to 0.92 and
    0.83 for paraphrase recall of only 0.23 and 0.33 (from 0.15)."""
    dense_pool: int = 400
    """Nearest chunks the dense index is asked for; those past it are far below ``dense``."""


@dataclass
class ChunkMatch:
    """One chunk that matched, with its scores."""

    key: Key
    dense: float | None = None
    coverage: float = 0.0
    bm25: float = 0.0
    literal: bool = False
    chunk: Chunk | None = None

    @property
    def score(self) -> float:
        """The relevance the floor measures: the higher of cosine and coverage."""
        return max(self.dense or 0.0, self.coverage)

    def scores(self) -> dict[str, Any]:
        return {
            "dense": None if self.dense is None else round(self.dense, 4),
            "bm25": round(self.bm25, 4),
            "coverage": round(self.coverage, 4),
            "literal": self.literal,
        }


@dataclass
class FoundDocument:
    """A document with at least one matching passage."""

    doc_id: str
    """The content key both indexes use."""
    path: str
    file: str
    hits: int
    """Its chunks that match."""
    best: ChunkMatch
    """Its best matching chunk, text loaded."""
    matches: list[ChunkMatch] = field(default_factory=list)
    """Every matching chunk, best first."""


@dataclass
class Found:
    """What a find produced."""

    documents: list[FoundDocument]
    searched: int
    """Documents looked through (the scope's, or the library's)."""
    literals: list[str]
    """The quoted strings and codes every match had to hold."""


def literals_in(query: str) -> list[str]:
    """The quoted strings and codes of ``query``, each once, as written."""
    found = [m.group(1) or m.group(2) for m in _QUOTED.finditer(query)]
    unquoted = _QUOTED.sub(" ", query)
    for token in _TOKEN.findall(unquoted):
        if any(c.isdigit() for c in token) and any(c.isalpha() for c in token):
            found.append(token)
    return list(dict.fromkeys(f.strip() for f in found if f.strip()))


def holds(text: str, literal: str) -> bool:
    """Whether ``text`` contains ``literal`` as written (any case, spacing and markup aside), never
    inside a longer word or code: ABC-123 is not in ABC-1234, "healthy" is in "healthy-conflict"."""
    words = [re.escape(w) for w in _WORDS.findall(literal)] or [re.escape(literal)]
    code = any(c.isdigit() for c in literal)
    after = r"(?![\w]|-\w)" if code else r"(?![\w])"
    pattern = r"(?<![\w-])" + r"\W+".join(words) + after
    return re.search(pattern, text, re.IGNORECASE) is not None


def phrase(query: str) -> re.Pattern[str] | None:
    """A short query's words in order, singular or plural, as a pattern; None for a longer query."""
    words = _WORDS.findall(query)
    if not words or len(words) > PHRASE_WORDS:
        return None
    parts = [re.escape(_singular(w)) + r"(?:s|es)?" for w in words]
    return re.compile(r"(?<![\w-])" + r"[\W_]+".join(parts) + r"(?![\w])", re.IGNORECASE)


def _singular(word: str) -> str:
    low = word.lower()
    if len(low) > 4 and low.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if len(low) > 3 and low.endswith("s") and not low.endswith("ss"):
        return word[:-1]
    return word


def find(
    search: Search,
    query: str,
    library: Sequence[str],
    scope: Sequence[str] = (),
    settings: FindSettings | None = None,
) -> Found:
    """Documents in ``scope`` with a chunk matching ``query``, best first (blocking: a thread)."""
    settings = settings or FindSettings()
    literals = literals_in(query)
    within = in_scope(library, scope)
    doc_ids: list[str] | None = None
    allowed: set[str] | None = None
    if scope:  # the whole library needs no filter
        allowed = set(within)
        doc_ids = search.library.keys_for(within) if within else []
        if not doc_ids:
            return Found([], len(within), literals)
    if literals:
        matches = _literal_matches(search, literals, doc_ids)
    else:
        matches = _topic_matches(search, query, doc_ids, settings)
    return Found(_documents(search, matches, allowed), len(within), literals)


def _literal_matches(
    search: Search, literals: list[str], doc_ids: list[str] | None
) -> list[ChunkMatch]:
    """Chunks holding every literal: the keyword index narrows, the text decides."""
    scores = search.keyword.search(" ".join(literals), doc_ids)
    hits = [h for h in scores.top(_ALL_ROWS) if h.coverage >= 0.999]
    matches = [ChunkMatch((h.doc_id, h.index), None, h.coverage, h.score, True) for h in hits]
    _load(search, matches)
    return [m for m in matches if m.chunk and all(holds(m.chunk.text, lit) for lit in literals)]


def _topic_matches(
    search: Search, query: str, doc_ids: list[str] | None, settings: FindSettings
) -> list[ChunkMatch]:
    """Chunks holding the query's terms, or close to it in meaning."""
    found: dict[Key, ChunkMatch] = {}
    for h in search.keyword.search(query, doc_ids).top(_ALL_ROWS):
        found[(h.doc_id, h.index)] = ChunkMatch((h.doc_id, h.index), None, h.coverage, h.score)
    vector = search.vector(query)
    for key, cosine in search.reader.dense.nearest(vector, settings.dense_pool, doc_ids):
        match = found.setdefault(key, ChunkMatch(key))
        match.dense = cosine
    lexical = [m for m in found.values() if m.coverage >= settings.coverage]
    pattern = phrase(query)
    if pattern is not None and lexical:
        _load(search, lexical)
        lexical = [m for m in lexical if m.chunk is not None and pattern.search(m.chunk.text)]
    close = [m for m in found.values() if (m.dense or 0.0) >= settings.dense]
    return list({m.key: m for m in [*lexical, *close]}.values())


def _load(search: Search, matches: list[ChunkMatch]) -> None:
    """Read the texts of the ``matches`` that lack them, in one call to the store."""
    wanted = [m.key for m in matches if m.chunk is None]
    chunks = {(c.doc_id, c.index): c for c in search.reader.dense.get_chunks(wanted)}
    for m in matches:
        if m.chunk is None:
            m.chunk = chunks.get(m.key)


def _documents(
    search: Search, matches: list[ChunkMatch], allowed: set[str] | None
) -> list[FoundDocument]:
    """The matches grouped by document, each under its current paths (those in scope)."""
    by_doc: dict[str, list[ChunkMatch]] = {}
    for m in sorted(matches, key=lambda m: (-m.score, -m.bm25)):
        by_doc.setdefault(m.key[0], []).append(m)
    _load(search, [ms[0] for ms in by_doc.values()])
    out = []
    for doc_id, ms in by_doc.items():
        if ms[0].chunk is None:
            continue  # gone from the store since the search
        for path in search.library.paths_of(doc_id):
            if allowed is None or path in allowed:
                name = path.rsplit("/", 1)[-1]
                out.append(FoundDocument(doc_id, path, name, len(ms), ms[0], ms))
    out.sort(key=lambda d: (-d.best.score, -d.best.bm25, d.path))
    return out
