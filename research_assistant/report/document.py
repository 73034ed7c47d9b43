"""The rendered report Markdown as a list of blocks, for the PDF and Word exports.

The report is parsed as CommonMark (markdown-it-py), so its escapes and
entities come out as the characters a reader sees; raw HTML stays text. Each
`[n]` citation of a source in the Sources list becomes a span pointing at
that entry, and each Sources entry (`[n] ...`) says which number it is, so
that both exports can link a citation to its entry. Only http(s) addresses
become external links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from research_assistant.report.verify import parse_sources
from research_assistant.text.urls import is_web_url

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from markdown_it.token import Token

BlockKind = Literal["heading", "paragraph", "item", "quote", "code"]

CITATION_ANCHOR = "#source-"

_CODE_OR_CITATION = re.compile(r"(`+).*?(?<!`)\1(?!`)|(?<!\\)\[(\d+)\](?!\()")
_ENTRY = re.compile(r"^\[(\d+)\]\s*")


@dataclass(frozen=True)
class Span:
    """A run of text with one look: plain, bold, italic or code; an external link, or a citation."""

    text: str
    bold: bool = False
    italic: bool = False
    code: bool = False
    url: str = ""
    """An http(s) address the text links to."""
    source: int = 0
    """The Sources entry this citation links to; 0 for other text."""


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    spans: tuple[Span, ...]
    level: int = 0
    """A heading's level (1 for the title), or a list item's depth (1 for the outermost)."""
    marker: str = ""
    """A list item's marker: `1.` for a numbered item, `-` for a bullet."""
    source: int = 0
    """The number of the Sources entry this block is, which citations link to; 0 for other blocks."""

    @property
    def text(self) -> str:
        return "".join(span.text for span in self.spans)


def link_citations(markdown: str, numbers: Collection[int] | None = None) -> str:
    """Each `[n]` of a source the report cites, outside code spans and escapes, as a link to `#source-n`.
    `numbers`: the numbers the renderer gave (from the run's `cited_sources`); read from the Sources list when
    not given (a report saved before its state carried them)."""
    known = set(parse_sources(markdown)) if numbers is None else set(numbers)

    def link(match: re.Match[str]) -> str:
        number = match.group(2)
        if number is None or int(number) not in known:
            return match.group(0)
        return f"[\\[{number}\\]]({CITATION_ANCHOR}{number})"

    return _CODE_OR_CITATION.sub(link, markdown)


def report_blocks(markdown: str, cited: Collection[int] | None = None) -> list[Block]:
    """The report's blocks in reading order: headings, paragraphs, list items (flattened, with their depth),
    quotes and code; `cited`: the citation numbers, as `numbers` of `link_citations`."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark", {"html": False}).parse(link_citations(markdown, cited))
    blocks: list[Block] = []
    lists: list[str] = []  # the open lists' markers, innermost last
    numbers: list[int] = []
    pending: tuple[str, int, str] | None = None  # the kind, level and marker of the block whose text comes next
    quoted = 0
    section = ""
    for token in tokens:
        kind = token.type
        if kind == "heading_open":
            pending = ("heading", int(token.tag[1:]), "")
        elif kind == "bullet_list_open":
            lists.append("-")
            numbers.append(0)
        elif kind == "ordered_list_open":
            lists.append(".")
            numbers.append(int(token.attrGet("start") or 1) - 1)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            numbers.pop()
        elif kind == "list_item_open":
            numbers[-1] += 1
            marker = f"{numbers[-1]}." if lists[-1] == "." else "-"
            pending = ("item", len(lists), marker)
        elif kind == "blockquote_open":
            quoted += 1
        elif kind == "blockquote_close":
            quoted -= 1
        elif kind == "paragraph_open" and pending is None:
            pending = ("quote" if quoted else "paragraph", len(lists), "")
        elif kind in ("code_block", "fence"):
            blocks.append(Block("code", (Span(token.content.rstrip("\n"), code=True),), len(lists)))
        elif kind == "inline" and pending is not None:
            block_kind, level, marker = pending
            pending = None
            spans = _spans(token.children or [])
            block = Block(block_kind, spans, level, marker)  # type: ignore[arg-type]
            if block_kind == "heading":
                section = block.text.strip() if level == 2 else section
            elif section == "Sources" and block_kind == "paragraph":
                block = _entry(block)
            blocks.append(block)
        elif kind == "list_item_close":
            pending = None
    return blocks


def _entry(block: Block) -> Block:
    """A Sources entry (`[n] ...`) knows its number; its own `[n]` is its label, not a link."""
    first = block.spans[0] if block.spans else None
    if first is not None and first.source:
        return replace(block, spans=(Span(f"[{first.source}]", bold=True), *block.spans[1:]), source=first.source)
    match = _ENTRY.match(block.text)
    return replace(block, source=int(match.group(1))) if match else block


def _spans(children: Sequence[Token]) -> tuple[Span, ...]:
    spans: list[Span] = []
    bold = italic = 0
    url, source = "", 0
    for child in children:
        kind, content = child.type, child.content
        if kind == "strong_open":
            bold += 1
        elif kind == "strong_close":
            bold -= 1
        elif kind == "em_open":
            italic += 1
        elif kind == "em_close":
            italic -= 1
        elif kind == "link_open":
            href = str(child.attrGet("href") or "")
            if href.startswith(CITATION_ANCHOR) and href[len(CITATION_ANCHOR) :].isdigit():
                source = int(href[len(CITATION_ANCHOR) :])
            elif is_web_url(href):
                url = href
        elif kind == "link_close":
            url, source = "", 0
        elif kind in ("text", "code_inline", "html_inline"):
            spans.append(Span(content, bold > 0, italic > 0, kind == "code_inline", url, source))
        elif kind in ("softbreak", "hardbreak"):
            spans.append(Span(" " if kind == "softbreak" else "\n", bold > 0, italic > 0))
    return tuple(_merged(spans))


def _merged(spans: list[Span]) -> list[Span]:
    """Neighbouring spans of the same look as one."""
    merged: list[Span] = []
    for span in spans:
        if not span.text:
            continue
        last = merged[-1] if merged else None
        if last is not None and replace(last, text="") == replace(span, text=""):
            merged[-1] = replace(last, text=last.text + span.text)
        else:
            merged.append(span)
    return merged
