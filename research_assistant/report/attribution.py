"""The last check of every report: a quotation is cited only to sources whose text holds it.

It reads the rendered Markdown, after every other check, so it holds whatever a
reasoner wrote and however the renderer arranged it. Every quotation followed by
citation marks (see `quotations`) is looked up in the text of each source it cites,
and every quote listed under a Sources entry in that entry's source. A citation whose
source does not hold its quotation is taken off that spot. A quotation left with no
citation goes the way `verify_report` treats it: a quoted finding (the renderer's own
`“…”`) is dropped with its list item, or cut out of its paragraph (and a conflict left
with fewer than two sides goes too); a quotation inside a written statement stays,
marked `[unverified]`. A listed quote that its source does not hold is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from pydantic import Field

from research_assistant.report.citations import escape_markdown, unescape_markdown
from research_assistant.report.quotations import citation_marks, cited_quotations, quoted_in
from research_assistant.report.support import UNVERIFIED
from research_assistant.schemas import Record
from research_assistant.text.spaces import clip, collapse

_HEADING = re.compile(r"^#{1,2} ")
_ENTRY = re.compile(r"^\[(\d+)\] ")
_LISTED_QUOTE = re.compile(r"^[ \t]+- \u201c([^\u201c\u201d]*)\u201d[ \t]*$")
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]")
_UNVERIFIED = escape_markdown(UNVERIFIED)


class AttributionCheck(Record):
    """What `enforce_quote_citations` checked and what it took out of the report."""

    checked: int = Field(default=0, description="Citations of quotations checked: one per quotation and source.")
    removed: int = Field(default=0, description="Of those, citations taken off: the source does not hold the quote.")
    dropped: int = Field(default=0, description="Quotations dropped for having no citation left.")
    marked: int = Field(default=0, description="Quotations inside a statement marked unverified instead.")
    reasons: list[str] = Field(default_factory=list, description="One short line per citation taken off.")


class _Checker:
    def __init__(self, source_text: Callable[[str], str | None], locators: Mapping[int, str]) -> None:
        self._locators = dict(locators)
        self._source_text = source_text
        self._texts: dict[str, str | None] = {}
        self.checked = self.removed = self.dropped = self.marked = 0
        self.reasons: list[str] = []

    def holds(self, number: int, quotation: str) -> bool:
        """Whether source [number] holds `quotation`; counts the check and explains a failure."""
        self.checked += 1
        locator = self._locators.get(number)
        if locator is not None and locator not in self._texts:
            raw = self._source_text(locator)
            self._texts[locator] = None if raw is None else collapse(raw)
        text = self._texts.get(locator) if locator is not None else None
        if text is not None and quoted_in(quotation, text):
            return True
        self.removed += 1
        self.reasons.append(f"[{number}] does not hold \u201c{clip(quotation, 60)}\u201d")
        return False

    def line(self, line: str, item: bool) -> str | None:
        """The body line with each quotation cited only to the sources that hold it; None to drop the line."""
        pieces: list[str] = []
        position = 0
        cut = False
        for quotation in cited_quotations(line):
            numbers = list(dict.fromkeys(quotation.numbers))
            kept = [n for n in numbers if self.holds(n, quotation.text)]
            if kept == list(quotation.numbers):
                continue
            if kept:
                pieces += [line[position : quotation.end], " ", citation_marks(kept)]
            elif quotation.verbatim:
                self.dropped += 1
                if item:
                    return None
                pieces.append(line[position : quotation.start])
                cut = True
            else:
                self.marked += 1
                pieces += [line[position : quotation.end], " ", _UNVERIFIED]
            position = quotation.cited_end
        if not pieces:
            return line
        repaired = "".join(pieces) + line[position:]
        if cut:
            repaired = re.sub(r"[ \t]{2,}", " ", repaired).strip()
        return repaired if repaired.strip() else None

    def listed(self, line: str, number: int | None) -> bool:
        """Whether a Sources line may stay: a listed quote must be held by its entry's source."""
        quote = _LISTED_QUOTE.match(line)
        if quote is None or number is None:
            return True
        if self.holds(number, collapse(unescape_markdown(quote.group(1)))):
            return True
        self.dropped += 1
        return False


def _drop_orphaned_sides(lines: list[str | None], parents: dict[int, list[int]]) -> None:
    """A list item that lost nested items and has fewer than two left (a conflict with one side) goes too."""
    for parent, children in parents.items():
        left = [child for child in children if lines[child] is not None]
        if len(left) < len(children) and len(left) < 2:
            for index in (parent, *left):
                lines[index] = None


def enforce_quote_citations(
    markdown: str, source_text: Callable[[str], str | None], locators: Mapping[int, str]
) -> tuple[str, AttributionCheck]:
    """`markdown` with every quotation cited only to sources whose text holds it, and what was taken off.

    `locators` maps each citation number to its source's locator, as the renderer numbered them (a number it
    lacks cites no source that holds anything). `source_text(locator)` returns the text of that source, or None
    when it has none; it is called at most once per source. A report whose citations all check out comes back
    unchanged.
    """
    checker = _Checker(source_text, locators)
    lines: list[str | None] = []
    parents: dict[int, list[int]] = {}
    parent: int | None = None
    in_sources = False
    entry: int | None = None
    for line in markdown.split("\n"):
        if _HEADING.match(line):
            in_sources, entry, parent = line.rstrip() == "## Sources", None, None
            lines.append(line)
            continue
        if in_sources:
            number = _ENTRY.match(line)
            entry = int(number.group(1)) if number else entry
            lines.append(line if checker.listed(line, entry) else None)
            continue
        item = _LIST_ITEM.match(line)
        nested = item is not None and bool(item.group(1))
        if nested and parent is not None:
            parents.setdefault(parent, []).append(len(lines))
        elif not nested:
            parent = len(lines) if item is not None else None
        lines.append(checker.line(line, item is not None))
    _drop_orphaned_sides(lines, parents)
    repaired = "\n".join(line for line in lines if line is not None)
    return repaired, AttributionCheck(
        checked=checker.checked,
        removed=checker.removed,
        dropped=checker.dropped,
        marked=checker.marked,
        reasons=checker.reasons,
    )
