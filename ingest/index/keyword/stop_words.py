"""English stop words: NLTK's list of 179, as bm25s 0.3.16 ships it (``STOPWORDS_EN_PLUS``).

Copied rather than installed: bm25s, a BM25 engine, was a dependency for this list only,
and importing it for the list loaded its corpus and progress-bar helpers at start-up.
bm25s takes the list from NLTK's stop-word corpus; its licence, which covers this copy:

    MIT License. Copyright (c) 2024 Xing Han Lu. Permission is hereby granted, free of
    charge, to any person obtaining a copy of this software and associated documentation
    files (the "Software"), to deal in the Software without restriction, including without
    limitation the rights to use, copy, modify, merge, publish, distribute, sublicense,
    and/or sell copies of the Software, and to permit persons to whom the Software is
    furnished to do so, subject to the following conditions: The above copyright notice
    and this permission notice shall be included in all copies or substantial portions of
    the Software. THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
    OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
    FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
    COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
    ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE
    SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
"""

from __future__ import annotations

STOP_WORDS = frozenset(
    """
a about above after again against ain all am an and any are aren aren't as at be because
been before being below between both but by can couldn couldn't d did didn didn't do
does doesn doesn't doing don don't down during each few for from further had hadn hadn't
has hasn hasn't have haven haven't having he her here hers herself him himself his how i
if in into is isn isn't it it's its itself just ll m ma me mightn mightn't more most
mustn mustn't my myself needn needn't no nor not now o of off on once only or other our
ours ourselves out over own re s same shan shan't she she's should should've shouldn
shouldn't so some such t than that that'll the their theirs them themselves then there
these they this those through to too under until up ve very was wasn wasn't we were
weren weren't what when where which while who whom why will with won won't wouldn
wouldn't y you you'd you'll you're you've your yours yourself yourselves
""".split()
)
"""NLTK's 179 English stop words (question words, auxiliaries, pronouns): Lucene's 33
leave "what", "does" and "which" in every question, where in a small library they weigh
as much as the rarest word and drown the share of the question a chunk holds."""
