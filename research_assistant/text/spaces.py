"""Whitespace collapsing, apart from the HTML extractor so that its users need not load an HTML parser."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Whitespace runs as single spaces, trimmed."""
    return _SPACE.sub(" ", text).strip()
