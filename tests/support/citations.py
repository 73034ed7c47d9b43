"""The tests' own check of a rendered report's citations, apart from the product's.

The product repairs what it finds (`report.attribution.enforce_quote_citations`); this checker only lists
problems, so that a test can tell that the report the product wrote needs no repair.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from research_assistant.report.citations import parse_locator, unescape_markdown
from research_assistant.report.quotations import citation_marks, cited_quotations, quoted_in
from research_assistant.report.verify import split_sources
from research_assistant.text.spaces import clip, collapse

_ENTRY = re.compile(r"^\[(\d+)\] (.*)$")
_LISTED_QUOTE = re.compile(r"^[ \t]+- \u201c([^\u201c\u201d]*)\u201d[ \t]*$")
_CITATION = re.compile(r"(?<!\\)\[(\d+)\]")


def _entries(lines: Sequence[str]) -> list[tuple[int, str | None, list[str]]]:
    """(number, locator, listed quotes) for each `[n] ...` entry of a Sources section."""
    entries: list[tuple[int, str | None, list[str]]] = []
    for line in lines:
        entry = _ENTRY.match(line)
        quote = _LISTED_QUOTE.match(line)
        if entry:
            entries.append((int(entry.group(1)), parse_locator(entry.group(2)), []))
        elif quote and entries:
            entries[-1][2].append(quote.group(1))
    return entries


def check_rendered_citations(markdown: str, source_texts: Mapping[str, str]) -> list[str]:
    """Problems with a rendered report's citations; an empty list means every check passed.

    Every `[n]` in the body must have a Sources entry, and every quotation followed by
    citations (see `quotations`; and every quote listed under a Sources entry) must occur
    in the text of each source it cites. `source_texts` is keyed by locator, as
    `parse_sources` reads it. `attribution.enforce_quote_citations` repairs what this finds.
    """
    body, lines = split_sources(markdown)
    entries = _entries(lines)
    locators = {number: locator for number, locator, _ in entries if locator is not None}
    problems: list[str] = []
    numbers = [number for number, _, _ in entries]
    problems += [f"Sources entry [{n}] appears more than once" for n in sorted(set(numbers)) if numbers.count(n) > 1]
    problems += [f"Sources entry [{n}] has no readable locator" for n, loc, _ in entries if loc is None]
    cited = dict.fromkeys(int(n) for n in _CITATION.findall(body))
    problems += [f"citation [{n}] has no entry in Sources" for n in cited if n not in locators]

    missing: set[int] = set()
    normalised: dict[str, str] = {}

    def source(number: int) -> str:
        locator = locators[number]
        if locator not in normalised:
            normalised[locator] = collapse(source_texts[locator])
        return normalised[locator]

    def check_quote(text: str, numbers: Sequence[int], where: str) -> None:
        if not text:
            problems.append(f"empty quotation {where}")
            return
        available = [n for n in numbers if n in locators and locators[n] in source_texts]
        for n in numbers:
            if n in locators and n not in available and n not in missing:
                missing.add(n)
                problems.append(f"no text for source [{n}] ({locators[n]})")
        wrong = [n for n in dict.fromkeys(available) if not quoted_in(text, source(n))]
        if wrong:
            shown = clip(collapse(text), 60)
            problems.append(f"quotation {where} not found in {citation_marks(wrong)}: \u201c{shown}\u201d")

    for line in body.splitlines():
        for quotation in cited_quotations(line):
            check_quote(quotation.text, quotation.numbers, "in the body")
    for number, _, quotes in entries:
        for quote in quotes:
            check_quote(collapse(unescape_markdown(quote)), [number], f"listed under [{number}]")
    return problems
