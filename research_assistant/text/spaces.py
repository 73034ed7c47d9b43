"""Whitespace collapsing and clipping, apart from the HTML extractor so that its users need not load an HTML parser."""

from __future__ import annotations

import re

_SPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Whitespace runs as single spaces, trimmed."""
    return _SPACE.sub(" ", text).strip()


def collapsed(value: object) -> str:
    """`value` collapsed when it is a string, "" when it is anything else (a field an API or a file fills at will)."""
    return collapse(value) if isinstance(value, str) else ""


def error_line(error: object, width: int | None = None) -> str:
    """An error's message on one line (cut to `width` characters), or its type's name when it says nothing."""
    return collapse(str(error))[:width] or type(error).__name__


def clip(text: str, width: int) -> str:
    """`text` cut to `width` characters, the last of them an ellipsis when it was longer."""
    return text if len(text) <= width else text[: width - 1] + "…"


def first_line(text: str) -> str:
    """The first non-blank line of `text`, stripped; "" when it has none."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def one_line(text: str, width: int = 300) -> str:
    """The first non-blank line of `text`, clipped to `width` characters."""
    return clip(first_line(text), width)
