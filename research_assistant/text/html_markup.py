"""What the two HTML readers share: the markup that is not content, and the blocks they write.

Both readers (`html_soup` on BeautifulSoup's tree, `html_lxml` on lxml's) drop the same elements, tell
navigation by the same names and labels, and write their text through `BlockWriter`, so that they give the
same text to the character.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from research_assistant.text.document import DocumentText
from research_assistant.text.spaces import collapse

DROP_TAGS = frozenset(
    ["script", "style", "noscript", "nav", "footer", "aside", "form", "svg", "iframe", "template", "button"]
)
DROP_ROLES = frozenset(["navigation", "banner", "contentinfo"])
DROP_DIV_CLASSES = frozenset(["sphinxsidebar", "related", "footer", "mobile-nav"])
"""Sphinx's sidebars, navigation bars and footer."""
NAV_NAME = re.compile(
    r"^(?:nav(?:header|footer|bar|igation|links?)?|(?:main|sub)?menu|menubar|breadcrumbs?|pagination|pager)$"
    r"|breadcrumb"
)
"""Class or id of a navigation block: DocBook's navheader and navfooter, menus, breadcrumbs, pagers."""
NAV_LABEL = re.compile(r"\b(?:next|previous|prev|up|home|top)\b\s*:?", re.IGNORECASE)
NAV_WORDS = frozenset({"next", "previous", "prev", "up", "home", "top", "contents", "index"})
ONLY_SEPARATORS = re.compile(r"^[\s|·•»›«‹/\\,:;\-–—\[\]()<>*]*$")
NAV_SEPARATOR = re.compile(r"[|·»›«‹]")
LINK_BLOCKS = frozenset({"p", "div", "table", "tr"})
"""Blocks that can be a line of navigation links. Lists are left alone: a list of links is as often content
(the functions of an API) as a menu, and menus are told by their class."""
LINK_BLOCK_CHARS = 200
"""A block this short made of links and separators only is navigation ('Prev | Up | Home | Next')."""
BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hgroup", "hr", "legend", "li", "main", "nav", "ol", "p", "section", "summary", "table",
        "tbody", "tfoot", "thead", "ul",
    }
)  # fmt: skip
AUTHOR_KEYS = ("author", "article:author", "dc.creator", "citation_author", "parsely-author", "byl")
PUBLISHED_KEYS = (
    "article:published_time",
    "datepublished",
    "citation_publication_date",
    "dc.date",
    "dc.date.issued",
    "date",
    "pubdate",
    "publish-date",
)


@dataclass(frozen=True)
class ExtractedHtml(DocumentText):
    """The readable content of a page and what its markup says about it."""

    canonical_url: str | None = None


class BlockWriter:
    """Collects inline text and emits it as blocks at block boundaries (also used by `web.extract`)."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self._lines: list[list[str]] = [[]]

    def inline(self, text: str) -> None:
        self._lines[-1].append(text)

    def line_break(self) -> None:
        self._lines.append([])

    def flush(self) -> None:
        lines = [collapse("".join(parts)) for parts in self._lines]
        block = "\n".join(line for line in lines if line)
        if block:
            self.blocks.append(block)
        self._lines = [[]]

    def verbatim(self, text: str) -> None:
        self.flush()
        text = text.strip("\n").rstrip()
        if text.strip():
            self.blocks.append(text)


def ld_author_date(data: Any) -> tuple[str | None, str | None] | None:
    """Author and publication date of the first item of a JSON-LD document that has either."""
    items = data if isinstance(data, list) else data.get("@graph", [data]) if isinstance(data, dict) else []
    for item in items:
        if not isinstance(item, dict):
            continue
        author = item.get("author")
        if isinstance(author, list):
            author = author[0] if author else None
        if isinstance(author, dict):
            author = author.get("name")
        published = item.get("datePublished")
        if author or published:
            return (
                collapse(author) if isinstance(author, str) else None,
                published if isinstance(published, str) else None,
            )
    return None


def extracted(
    title: str, text: str, meta: dict[str, str], ld: tuple[str | None, str | None], canonical: str | None
) -> ExtractedHtml:
    """The page's content with its author and date from its meta tags, else from its JSON-LD (`ld`)."""
    author = next((meta[key] for key in AUTHOR_KEYS if key in meta), None) or ld[0]
    published = next((meta[key] for key in PUBLISHED_KEYS if key in meta), None) or ld[1]
    return ExtractedHtml(title=title, text=text, author=author, published=published, canonical_url=canonical)


PERMALINK_MARKS = frozenset("¶§#🔗")
"""What documentation generators write as the text of a heading's permalink."""
