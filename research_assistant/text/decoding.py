"""Bytes to text: a file's or a page's bytes decoded the way a reader would see them."""

from __future__ import annotations

import codecs
import re
from contextlib import suppress


class UnreadableText(Exception):
    """Bytes that hold no readable text; the message is a one-line reason without a traceback."""


_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def decode_text(data: bytes) -> str:
    """Bytes to text: UTF-8 (or a BOM's encoding), else the best charset guess, else Latin-1.

    Raises `UnreadableText` for bytes that look binary (NUL bytes near the start)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    if b"\x00" in data[:4096]:
        raise UnreadableText("looks like a binary file, not text")
    with suppress(UnicodeDecodeError):
        return data.decode("utf-8")
    try:
        from charset_normalizer import from_bytes  # comes with requests; only needed for legacy encodings
    except ImportError:
        return data.decode("latin-1", errors="replace")
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        return data.decode("latin-1", errors="replace")
    # Short samples fit several code pages equally well; among equals, the commonest (Windows Western) wins.
    western = next((m for m in matches if m.encoding == "cp1252" and m.chaos <= best.chaos), None)
    return data.decode((western or best).encoding, errors="replace")


_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_HEAD_BYTES = 8192  # browsers look for the declaration near the start; 8 KB leaves room for long heads


def declared_charset(markup: bytes) -> str | None:
    """The encoding an HTML page declares in a <meta> tag near its start, if Python knows it."""
    found = _META_CHARSET.search(markup[:_HEAD_BYTES])
    if not found:
        return None
    name = found.group(1).decode("ascii")
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


_SINGLE_BYTE = re.compile(r"^(?:iso8859-\d+|cp12\d\d|cp\d{3}|koi8-\w|mac-[\w-]+|latin-1|ascii)$")
"""Codec names (as `codecs.lookup` spells them) of single-byte charsets: Latin-1, Windows code pages, KOI8, ..."""


def decode_declared(data: bytes, charset: str | None) -> str | None:
    """The bytes in the charset a server or a page declares; None when Python does not know it or the bytes do
    not decode in it.

    A single-byte charset declared over bytes that are valid UTF-8 with characters beyond ASCII is a wrong label
    (Vim's HTML help says ISO-8859-1 over UTF-8 text, which would read 'Pensjö' as 'PensjÃ¶'): text written in a
    single-byte charset almost never forms valid UTF-8 sequences, so the bytes are read as UTF-8."""
    if not charset:
        return None
    try:
        name = codecs.lookup(charset).name
    except LookupError:
        return None
    if _SINGLE_BYTE.match(name) and not data.isascii():
        with suppress(UnicodeDecodeError):
            return data.decode("utf-8")
    with suppress(UnicodeDecodeError):
        return data.decode(name)
    return None


def decode_markup(markup: bytes) -> str:
    """HTML bytes as text: in the charset the page declares (`decode_declared`), else as `decode_text` reads
    them (also when the declaration is wrong). Raises `UnreadableText` like `decode_text`."""
    text = decode_declared(markup, declared_charset(markup))
    return text if text is not None else decode_text(markup)
