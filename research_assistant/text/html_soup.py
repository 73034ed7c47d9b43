"""`html_to_text` through BeautifulSoup's tree: the reading for the pages lxml's own tree does not cover."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from typing import Any

from bs4 import (
    BeautifulSoup,
    Comment,
    Declaration,
    Doctype,
    NavigableString,
    ProcessingInstruction,
    Tag,
    XMLParsedAsHTMLWarning,
)

from research_assistant.text import html_markup as markup
from research_assistant.text.spaces import collapse

_SKIP_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction)


def _table_row(row: Tag) -> str:
    cells = [collapse(cell.get_text(" ")) for cell in row.find_all(["td", "th"], recursive=False)]
    return " | ".join(cell for cell in cells if cell)


def _render(root: Tag) -> str:
    writer = markup.BlockWriter()
    # An explicit stack instead of recursion: deeply nested markup must not hit the recursion limit.
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if item is None:  # end of a block element
            writer.flush()
        elif isinstance(item, NavigableString):
            if not isinstance(item, _SKIP_STRINGS):
                writer.inline(str(item))
        elif isinstance(item, Tag):
            name = item.name
            if name == "pre":
                writer.verbatim(item.get_text())
            elif name == "tr":
                writer.flush()
                row = _table_row(item)
                if row:
                    writer.blocks.append(row)
            elif name == "br":
                writer.line_break()
            else:
                block = name in markup.BLOCK_TAGS
                if block:
                    writer.flush()
                    stack.append(None)
                stack.extend(reversed(item.contents))
    writer.flush()
    return "\n\n".join(writer.blocks)


def _meta_values(soup: BeautifulSoup) -> dict[str, str]:
    values: dict[str, str] = {}
    for meta in soup.find_all("meta"):
        key = meta.get("name") or meta.get("property") or meta.get("itemprop")
        content = meta.get("content")
        if isinstance(key, str) and isinstance(content, str) and content.strip():
            values.setdefault(key.strip().lower(), collapse(content))
    return values


def _json_ld(soup: BeautifulSoup) -> tuple[str | None, str | None]:
    """Author and publication date from schema.org JSON-LD, common on news and blog pages."""
    for script in soup.find_all("script", attrs={"type": "application/ld+json"}):
        try:
            data = json.loads(script.get_text())
        except ValueError:
            continue
        found = markup.ld_author_date(data)
        if found is not None:
            return found
    return None, None


def _main_candidates(soup: BeautifulSoup) -> Iterator[list[Tag]]:
    """Containers of the main content, most specific first."""
    yield soup.find_all("main")
    yield soup.find_all(role="main")
    yield soup.find_all("article")
    yield soup.find_all("div", class_="body")  # Sphinx
    yield soup.find_all("div", class_="document")


def _main_root(soup: BeautifulSoup) -> Tag:
    for candidates in _main_candidates(soup):
        if candidates:
            # Several <article>s (a blog index, comments): the longest is the content.
            return max(candidates, key=lambda tag: len(tag.get_text()))
    return soup.body or soup


def _cross_reference(link: Tag) -> bool:
    """A link within the page, or one naming code: content (a list of functions), never navigation."""
    href = link.get("href")
    return (isinstance(href, str) and href.startswith("#")) or link.find(["code", "tt", "kbd"]) is not None


def _small(tag: Tag) -> bool:
    """Whether a tag holds few elements and little text; it stops early, so a page's containers cost little."""
    size, count = 0, 0
    stack: list[Any] = list(tag.contents)
    while stack:
        node = stack.pop()
        count += 1
        if count > 100:
            return False
        if isinstance(node, NavigableString):
            size += len(node)
            if size > 4 * markup.LINK_BLOCK_CHARS:
                return False
        elif isinstance(node, Tag):
            stack.extend(node.contents)
    return True


def _links_only(tag: Tag) -> bool:
    """A short line of links and separators only that names a way around the site ('Prev | Up | Home | Next',
    'Next: A, Previous: B, Up: C', 'Docs » Library'): two links or more, or one whose text is a navigation word."""
    if not _small(tag):
        return False
    links = tag.find_all("a")
    if not links or any(_cross_reference(link) for link in links):
        return False
    text = collapse(tag.get_text(" "))
    if not text or len(text) > markup.LINK_BLOCK_CHARS:
        return False
    named = any(collapse(link.get_text(" ")).lower() in markup.NAV_WORDS for link in links)
    if len(links) < 2 and not named:
        return False
    outside = " ".join(
        str(piece)
        for piece in tag.find_all(string=True)
        if piece.find_parent("a") is None and not isinstance(piece, _SKIP_STRINGS)
    )
    if not (named or markup.NAV_LABEL.search(outside) or markup.NAV_SEPARATOR.search(outside)):
        return False  # 'git-merge(1), git-pull(1)': a list of related pages, not a way around this one
    return bool(markup.ONLY_SEPARATORS.match(markup.NAV_LABEL.sub(" ", outside)))


def _is_navigation(tag: Tag) -> bool:
    names = [*tag.get_attribute_list("class"), *tag.get_attribute_list("id")]
    if any(isinstance(name, str) and markup.NAV_NAME.search(name.lower()) for name in names):
        return True
    label = " ".join(str(tag.get(attribute) or "") for attribute in ("aria-label", "summary")).lower()
    if "navigation" in label or "breadcrumb" in label:
        return True
    return tag.name in markup.LINK_BLOCKS and _links_only(tag)


def _is_permalink(tag: Tag) -> bool:
    """A heading's permalink ('Reverse Proxy ¶'): Sphinx's `headerlink`, Apache's `permalink`, or any link
    whose whole text is a permalink mark. Kept, the mark would become part of the heading's words."""
    classes: list[str] = tag.get_attribute_list("class")
    if "headerlink" in classes or "permalink" in classes:
        return True
    text = tag.get_text(strip=True)
    return bool(text) and set(text) <= markup.PERMALINK_MARKS


def _is_boilerplate(tag: Tag) -> bool:
    name = tag.name
    if name in markup.DROP_TAGS or tag.get("role") in markup.DROP_ROLES or tag.has_attr("hidden"):
        return True
    if name not in ("html", "body", "main", "article") and _is_navigation(tag):
        return True
    classes: list[str] = tag.get_attribute_list("class")
    if name == "div":
        return not markup.DROP_DIV_CLASSES.isdisjoint(classes)
    if name == "a":
        return _is_permalink(tag)
    # A page-level <header> is a banner; a <header> inside the article holds its title and byline.
    return name == "header" and tag.find_parent(["article", "main"]) is None


def _drop_boilerplate(soup: BeautifulSoup) -> None:
    # Collect first, then remove: one pass over the tree (CSS selectors are several times slower).
    for tag in [tag for tag in soup.find_all(True) if _is_boilerplate(tag)]:
        if not tag.decomposed:
            tag.decompose()


def _title(soup: BeautifulSoup, meta: dict[str, str]) -> str:
    if "og:title" in meta:
        return meta["og:title"]
    if soup.title and soup.title.string and soup.title.string.strip():
        return collapse(soup.title.string)
    heading = soup.find("h1")
    return collapse(heading.get_text(" ")) if heading else ""


def _canonical(soup: BeautifulSoup, meta: dict[str, str]) -> str | None:
    link = soup.find("link", rel="canonical")
    href = link.get("href") if isinstance(link, Tag) else None
    if isinstance(href, str) and href.strip():
        return href.strip()
    return meta.get("og:url")


def soup_to_text(html: str) -> markup.ExtractedHtml:
    """`html_to_text` through BeautifulSoup's tree."""
    with warnings.catch_warnings():  # a feed or XHTML read as HTML on purpose, as browsers do: no warning
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "lxml")
    meta = _meta_values(soup)
    ld = _json_ld(soup)
    canonical = _canonical(soup, meta)
    _drop_boilerplate(soup)
    title = _title(soup, meta)
    return markup.extracted(title, _render(_main_root(soup)), meta, ld, canonical)
