"""Quotations in report text: where they are, what cites them, and whether a source's text holds them.

A quotation is text between curly quotes (`“…”`, the renderer's own marks around
verbatim findings, or `&#8220;…&#8221;`, the same marks escaped inside document or
model text) or between straight double quotes (`"…"`; an inch mark such as `5"` is
not a quote). In rendered Markdown a quotation is cited by the citation marks right
after it: `[1]`, `[1][2]`, `[1, 2]`, never a backslash-escaped `\\[1\\]`.

A quotation is in a text when, with runs of whitespace collapsed to one space, it
occurs there character for character; a quotation with ellipses (`…`, `...`,
`[…]`) when each piece between them does, in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from research_assistant.report.citations import unescape_markdown
from research_assistant.text.spaces import collapse

_QUOTE = (
    r"(?:\u201c(?P<curly>[^\u201c\u201d\n]*)\u201d"
    r"|(?<!\\)&#8220;(?P<entity>(?:(?!&#822[01];)[^\n])*)(?<!\\)&#8221;"
    r'|(?<![\w"\\])"(?P<straight>(?:[^"\n\[\\]|\\.)+)"(?!\w))'
)
_MARKS = r"(?P<marks>(?:[ \t]*(?<!\\)\[[ \t]*\d+(?:[ \t]*,[ \t]*\d+)*[ \t]*\])+)"
QUOTATION = re.compile(_QUOTE)
"""A quotation in escaped (rendered) Markdown, cited or not."""
CITED_QUOTATION = re.compile(_QUOTE + _MARKS)
"""A quotation in rendered Markdown followed by its citation marks."""
_ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\u2026|\.\.\.)\s*\]|\u2026|\.\.\.)\s*")


def quoted_in(quotation: str, text: str) -> bool:
    """Whether `quotation` occurs in `text` (already collapsed): whole, or piece by piece around its ellipses."""
    wanted = collapse(quotation)
    if not wanted:
        return False
    if wanted in text:
        return True
    pieces = [piece for piece in _ELLIPSIS.split(wanted) if piece]
    position = 0
    for piece in pieces:
        found = text.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return bool(pieces)


@dataclass(frozen=True)
class Quotation:
    """One quotation of a rendered line, with the citation marks that follow it (if any)."""

    start: int
    """Where the opening quote mark is in the line."""
    end: int
    """Just after the closing quote mark."""
    cited_end: int
    """Just after the last citation mark (`end` when none follows)."""
    text: str
    """What the reader sees between the quote marks: escapes resolved, whitespace collapsed."""
    numbers: tuple[int, ...]
    """The source numbers cited right after it, in order."""
    verbatim: bool
    """True for the renderer's own `“…”` around a verbatim finding; False for quotes inside a statement."""


def _quotation(match: re.Match[str], cited: bool) -> Quotation:
    groups = (match.group("curly"), match.group("entity"), match.group("straight"))
    raw = next(group for group in groups if group is not None)
    marks = match.group("marks") if cited else ""
    end = match.start("marks") if cited else match.end()
    return Quotation(
        start=match.start(),
        end=end,
        cited_end=match.end(),
        text=collapse(unescape_markdown(raw)),
        numbers=tuple(int(n) for n in re.findall(r"\d+", marks)),
        verbatim=match.group("curly") is not None,
    )


def quotations(line: str) -> list[Quotation]:
    """Every quotation of one line of rendered Markdown, cited or not, left to right."""
    return [_quotation(m, cited=False) for m in QUOTATION.finditer(line)]


def cited_quotations(line: str) -> list[Quotation]:
    """Every quotation of one line of rendered Markdown that citation marks follow, left to right."""
    return [_quotation(m, cited=True) for m in CITED_QUOTATION.finditer(line)]


def citation_marks(numbers: Sequence[int]) -> str:
    """`[1][3]`: the marks for `numbers`, in the order given."""
    return "".join(f"[{n}]" for n in numbers)
