"""Scrubbing secrets from everything the assistant writes or shows.

Every key the process knows is remembered here: each `Settings` object's
`SecretStr` values (Gemini/Google, Tavily, Exa, ...), keys handed straight to
a client, and `*_API_KEY` variables of the environment (which LangChain's other
providers read). A provider may echo a key back in an error message; whatever
carries that text on (trace events, the run store, checkpoints, progress lines,
exports, the command line's error line) passes it through `scrub` first.

Scrubbing is one compiled regular expression of the known values, rebuilt
only when a new key becomes known, so it is cheap enough to run on every
event and every write.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TextIO
from urllib.parse import quote

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 6
"""Shorter values are not scrubbed: they would blank out ordinary words and numbers."""

_lock = threading.Lock()
_known: frozenset[str] = frozenset()
_pattern: re.Pattern[str] | None = None
_byte_pattern: re.Pattern[bytes] | None = None
_environment_seen = False


def _spellings(secret: str) -> set[str]:
    """How a key may appear in text: as is, JSON-escaped, URL-encoded."""
    return {secret, json.dumps(secret)[1:-1], quote(secret, safe="")}


def _compile(secrets: Iterable[str]) -> re.Pattern[str] | None:
    spellings = {spelling for secret in secrets for spelling in _spellings(secret)}
    if not spellings:
        return None
    return re.compile("|".join(re.escape(spelling) for spelling in sorted(spellings, key=len, reverse=True)))


def remember(*secrets: str | None) -> None:
    """Add keys to those scrubbed from now on (blank and very short values are ignored)."""
    global _known, _pattern, _byte_pattern
    fresh = {secret.strip() for secret in secrets if secret and len(secret.strip()) >= MIN_SECRET_LENGTH}
    if fresh <= _known:
        return
    with _lock:
        known = _known | fresh
        pattern = _compile(known)
        _byte_pattern = None if pattern is None else re.compile(pattern.pattern.encode())
        _pattern, _known = pattern, known


def _remember_environment() -> None:
    global _environment_seen
    if not _environment_seen:
        _environment_seen = True
        remember(*(value for name, value in os.environ.items() if name.upper().endswith("_API_KEY")))


def scrub(text: str) -> str:
    """`text` with every known key replaced by `[redacted]`."""
    _remember_environment()
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(REDACTED, text)


def _mask(match: re.Match[bytes]) -> bytes:
    size = len(match.group())
    return REDACTED.encode().ljust(size, b"*") if size >= len(REDACTED) else b"*" * size


def scrub_bytes(payload: bytes) -> bytes:
    """`payload` with every known key masked by as many bytes as it had.

    The length is kept so that length-prefixed formats (msgpack, as checkpoints are stored) stay valid.
    """
    _remember_environment()
    pattern = _byte_pattern
    if pattern is None or not payload or pattern.search(payload) is None:
        return payload
    return pattern.sub(_mask, payload)


def scrub_value(value: Any) -> Any:
    """A copy of plain data (str, dict, list, tuple) with every string scrubbed; other values as they are."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, Mapping):
        return {key: scrub_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(scrub_value(item) for item in value)
    return value


class ScrubbingWriter:
    """A text stream that scrubs whatever is written to it before passing it on (progress, error lines)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(scrub(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class ScrubbingFilter(logging.Filter):
    """A logging filter that scrubs a record's message and traceback (add it to a logger or a handler)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = scrub(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = scrub(logging.Formatter().formatException(record.exc_info))
        return True
