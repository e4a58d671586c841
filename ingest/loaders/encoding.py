"""Which encoding a text file is in, and whether it is text at all, from a few samples.

A 200 MB file is judged from its head and three windows; decoding with ``errors="replace"``
means a wrong guess garbles a few characters but never crashes.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from typing import BinaryIO

from charset_normalizer import from_bytes

from ingest.loaders.errors import BINARY_CONTENT, UnreadableFile

HEAD_BYTES = 64 * 1024
_WINDOW_BYTES = 16 * 1024
_READ_BYTES = 1 << 20

_BOMS = (  # UTF-32 first: its little-endian mark begins with UTF-16's
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_ODD = re.compile("[\x00-\x08\x0e-\x19\x1c-\x1f\x7f-\x9f\ufffd]")
"""Control characters and undecodable bytes; text files carry only whitespace controls,
DOS end-of-file (\\x1a) and ANSI colours (\\x1b)."""
_MAX_CONTROL_SHARE = 0.01
_MAX_STRAY_UTF8 = 0.001
# Single-byte Latin code pages charset-normalizer confuses with each other; among them
# Windows-1252 (Western) is by far the most common, then Windows-1250 (Central Europe).
_LATIN_FAMILY = frozenset(
    {"cp1250", "cp1252", "cp1254", "cp1257", "latin_1", "cp437", "cp775", "cp850", "cp852"}
    | {"cp858", "hp_roman8", "mac_roman", "mac_latin2", "mac_iceland", "mac_turkish"}
    | {f"iso8859_{n}" for n in (2, 3, 4, 9, 10, 13, 14, 15, 16)}
)
_LATIN_PREFERENCE = ("cp1252", "cp1250")
_TYPOGRAPHY = frozenset("“”‘’„‚–—…•«»°€£§©®™·¿¡")


def samples(fh: BinaryIO, size: int) -> list[bytes]:
    """The file's head, plus three windows spread through it when it is large."""
    fh.seek(0)
    found = [fh.read(HEAD_BYTES)]
    if size > 4 * HEAD_BYTES:
        for quarter in (1, 2, 3):
            fh.seek((size * quarter // 4) & ~3)  # aligned, for UTF-16/32
            found.append(fh.read(_WINDOW_BYTES))
    fh.seek(0)
    return found


def detect(windows: list[bytes], declared: str | None = None) -> str:
    """The encoding of a file from its samples; raises UnreadableFile for binary content.
    Valid UTF-8 beats ``declared`` (HTML's charset), trusted only if the samples decode."""
    head = windows[0]
    encoding = next((name for bom, name in _BOMS if head.startswith(bom)), None)
    if encoding is None and b"\x00" not in b"".join(windows):
        if all(_is_utf8(window, i > 0) for i, window in enumerate(windows)):
            encoding = "utf-8"
    if encoding is None and declared and all(_looks_like_text(w, declared) for w in windows):
        encoding = declared
    if encoding is None:
        encoding = _guess(head)
    if encoding is None or not all(_looks_like_text(w, encoding) for w in windows):
        raise UnreadableFile(BINARY_CONTENT)
    return encoding


def decode_stream(fh: BinaryIO, encoding: str) -> Iterator[str]:
    """Decode the whole file from the start, a megabyte at a time, without its byte-order mark."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    fh.seek(0)
    first = True
    while raw := fh.read(_READ_BYTES):
        text = decoder.decode(raw)
        if first and text:
            text = text.removeprefix("\ufeff")
            first = False
        if text:
            yield text
    if tail := decoder.decode(b"", final=True):
        yield tail


def _is_utf8(window: bytes, mid_file: bool) -> bool:
    if mid_file:  # the window may start inside a multi-byte character
        skip = 0
        while skip < min(3, len(window)) and 0x80 <= window[skip] <= 0xBF:
            skip += 1
        window = window[skip:]
    try:
        codecs.getincrementaldecoder("utf-8")().decode(window, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _guess(head: bytes) -> str | None:
    """The likeliest legacy encoding, or None when nothing decodes the bytes sensibly."""
    text = head.decode("utf-8", errors="replace")
    if b"\x00" not in head and text.count("\ufffd") <= len(text) * _MAX_STRAY_UTF8:
        return "utf-8"  # a few stray bytes in a UTF-8 file: keep UTF-8 rather than garble accents
    best = from_bytes(head).best()
    if best is None and b"\x00" in head:
        return None
    if best is not None and best.encoding not in _LATIN_FAMILY:
        return best.encoding
    # charset-normalizer tells Latin code pages apart poorly, and gives up on short or
    # odd samples: pick the one whose non-ASCII bytes read as letters. Binary content
    # still fails the control-character check that follows.
    candidates = dict.fromkeys((*_LATIN_PREFERENCE, *([best.encoding] if best else [])))
    return max(candidates, key=lambda name: _latin_score(head, name))


def _latin_score(data: bytes, encoding: str) -> int:
    """How many non-ASCII bytes decode to letters or common typography (ties: earlier wins)."""
    text = data.decode(encoding, errors="replace")
    return sum(1 for ch in text if ord(ch) > 127 and (ch.isalpha() or ch in _TYPOGRAPHY))


def _looks_like_text(window: bytes, encoding: str) -> bool:
    text = codecs.decode(window, encoding, errors="replace")
    return len(_ODD.findall(text)) <= len(text) * _MAX_CONTROL_SHARE
