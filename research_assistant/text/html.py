"""Main-text extraction from HTML.

Pages carry navigation, sidebars, cookie banners and scripts around the text
worth reading. This keeps the main content only (navigation is dropped by its
markup, by its class or label, and as short blocks made of links and
separators only: "Prev | Up | Home | Next") and renders it as readable
plain text: one block per heading, paragraph, list item, table row or code
block, blocks separated by blank lines, and whitespace inside a paragraph
collapsed so sentences never contain stray line breaks (quotes taken from the
text then match what a reader sees).
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
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
from lxml import etree

from research_assistant.text.spaces import collapse

_DROP_TAGS = frozenset(
    ["script", "style", "noscript", "nav", "footer", "aside", "form", "svg", "iframe", "template", "button"]
)
_DROP_ROLES = frozenset(["navigation", "banner", "contentinfo"])
_DROP_DIV_CLASSES = frozenset(["sphinxsidebar", "related", "footer", "mobile-nav"])
"""Sphinx's sidebars, navigation bars and footer."""
_NAV_NAME = re.compile(
    r"^(?:nav(?:header|footer|bar|igation|links?)?|(?:main|sub)?menu|menubar|breadcrumbs?|pagination|pager)$"
    r"|breadcrumb"
)
"""Class or id of a navigation block: DocBook's navheader and navfooter, menus, breadcrumbs, pagers."""
_NAV_LABEL = re.compile(r"\b(?:next|previous|prev|up|home|top)\b\s*:?", re.IGNORECASE)
_NAV_WORDS = frozenset({"next", "previous", "prev", "up", "home", "top", "contents", "index"})
_ONLY_SEPARATORS = re.compile(r"^[\s|·•»›«‹/\\,:;\-–—\[\]()<>*]*$")
_NAV_SEPARATOR = re.compile(r"[|·»›«‹]")
_LINK_BLOCKS = frozenset({"p", "div", "table", "tr"})
"""Blocks that can be a line of navigation links. Lists are left alone: a list of links is as often content
(the functions of an API) as a menu, and menus are told by their class."""
_LINK_BLOCK_CHARS = 200
"""A block this short made of links and separators only is navigation ('Prev | Up | Home | Next')."""
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hgroup", "hr", "legend", "li", "main", "nav", "ol", "p", "section", "summary", "table",
        "tbody", "tfoot", "thead", "ul",
    }
)  # fmt: skip
_SKIP_STRINGS = (Comment, Declaration, Doctype, ProcessingInstruction)

_AUTHOR_KEYS = ("author", "article:author", "dc.creator", "citation_author", "parsely-author", "byl")
_PUBLISHED_KEYS = (
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
class ExtractedHtml:
    """The readable content of a page and what its markup says about it."""

    title: str
    text: str
    author: str | None = None
    published: str | None = None
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


def _table_row(row: Tag) -> str:
    cells = [collapse(cell.get_text(" ")) for cell in row.find_all(["td", "th"], recursive=False)]
    return " | ".join(cell for cell in cells if cell)


def _render(root: Tag) -> str:
    writer = BlockWriter()
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
                block = name in _BLOCK_TAGS
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
        found = _ld_author_date(data)
        if found is not None:
            return found
    return None, None


def _ld_author_date(data: Any) -> tuple[str | None, str | None] | None:
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


def _first(values: dict[str, str], keys: tuple[str, ...]) -> str | None:
    return next((values[key] for key in keys if key in values), None)


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
            if size > 4 * _LINK_BLOCK_CHARS:
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
    if not text or len(text) > _LINK_BLOCK_CHARS:
        return False
    named = any(collapse(link.get_text(" ")).lower() in _NAV_WORDS for link in links)
    if len(links) < 2 and not named:
        return False
    outside = " ".join(
        str(piece)
        for piece in tag.find_all(string=True)
        if piece.find_parent("a") is None and not isinstance(piece, _SKIP_STRINGS)
    )
    if not (named or _NAV_LABEL.search(outside) or _NAV_SEPARATOR.search(outside)):
        return False  # 'git-merge(1), git-pull(1)': a list of related pages, not a way around this one
    return bool(_ONLY_SEPARATORS.match(_NAV_LABEL.sub(" ", outside)))


def _is_navigation(tag: Tag) -> bool:
    names = [*tag.get_attribute_list("class"), *tag.get_attribute_list("id")]
    if any(isinstance(name, str) and _NAV_NAME.search(name.lower()) for name in names):
        return True
    label = " ".join(str(tag.get(attribute) or "") for attribute in ("aria-label", "summary")).lower()
    if "navigation" in label or "breadcrumb" in label:
        return True
    return tag.name in _LINK_BLOCKS and _links_only(tag)


_PERMALINK_MARKS = frozenset("¶§#🔗")
"""What documentation generators write as the text of a heading's permalink."""


def _is_permalink(tag: Tag) -> bool:
    """A heading's permalink ('Reverse Proxy ¶'): Sphinx's `headerlink`, Apache's `permalink`, or any link
    whose whole text is a permalink mark. Kept, the mark would become part of the heading's words."""
    classes: list[str] = tag.get_attribute_list("class")
    if "headerlink" in classes or "permalink" in classes:
        return True
    text = tag.get_text(strip=True)
    return bool(text) and set(text) <= _PERMALINK_MARKS


def _is_boilerplate(tag: Tag) -> bool:
    name = tag.name
    if name in _DROP_TAGS or tag.get("role") in _DROP_ROLES or tag.has_attr("hidden"):
        return True
    if name not in ("html", "body", "main", "article") and _is_navigation(tag):
        return True
    classes: list[str] = tag.get_attribute_list("class")
    if name == "div":
        return not _DROP_DIV_CLASSES.isdisjoint(classes)
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


def html_to_text(html: str) -> ExtractedHtml:
    """The main text of an HTML page, with its title, author, publication date and canonical URL.

    Read on lxml's own tree (`_lxml_to_text`), which gives exactly the text BeautifulSoup's tree gives
    (`_soup_to_text`) in a sixth of the time; BeautifulSoup reads the few pages that reading does not cover.
    """
    try:
        return _lxml_to_text(html)
    except _Unsupported:
        return _soup_to_text(html)


def _soup_to_text(html: str) -> ExtractedHtml:
    """`html_to_text` through BeautifulSoup's tree."""
    with warnings.catch_warnings():  # a feed or XHTML read as HTML on purpose, as browsers do: no warning
        warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
        soup = BeautifulSoup(html, "lxml")
    meta = _meta_values(soup)
    ld_author, ld_published = _json_ld(soup)
    canonical = _canonical(soup, meta)
    _drop_boilerplate(soup)
    title = _title(soup, meta)
    return ExtractedHtml(
        title=title,
        text=_render(_main_root(soup)),
        author=_first(meta, _AUTHOR_KEYS) or ld_author,
        published=_first(meta, _PUBLISHED_KEYS) or ld_published,
        canonical_url=canonical,
    )


# -- the same reading, on lxml's own tree ----------------------------------------------------------------------------
#
# BeautifulSoup builds its tree from the events of lxml's parser; lxml builds its own tree from them in a small
# fraction of the time. The functions below read lxml's tree as the ones above read BeautifulSoup's and give the
# same text to the character (checked on every page of Debian's Python, Apache, Git and SQLite manuals), so they
# keep BeautifulSoup's ways where the two trees differ:
#
# * a string of ASCII whitespace only, outside <pre> and <textarea>, is stored as one space or one newline;
# * text inside <script>, <style>, <template>, <rt> and <rp> is of another kind, which `get_text()` leaves out;
# * comments and processing instructions are strings: counted by `_small`, never read as text;
# * a removed element leaves the text after it (its tail) as a string of its own, so `get_text(" ")` still puts
#   a space where it was: a dropped element is replaced by an empty marker element that keeps its tail.

_PRESERVE_WHITESPACE = frozenset({"pre", "textarea"})
_STRING_CONTAINERS = ("rt", "rp", "style", "script", "template")
_ASCII_SPACES = "\x20\x0a\x09\x0c\x0d"
_TEXT, _CONTAINED, _COMMENT, _INSTRUCTION = range(4)
"""Kinds of string: text that `get_text()` reads, text inside a string container, a comment, a processing
instruction."""
_DROPPED = "_dropped"
"""The marker left where a dropped element was (no parsed tag name starts with an underscore)."""
_WORDS = re.compile(r"\S+")
_UNREAD_TEXT = re.compile(r"[^\s¶§#🔗]")
"""A character that no permalink's text holds."""


class _Unsupported(Exception):
    """Markup this reading of lxml's tree does not cover (no tree, an entity node, the whole page dropped):
    BeautifulSoup reads it."""


def _stored(text: str, preserve: bool) -> str:
    """A string as BeautifulSoup stores it: ASCII whitespace only, outside <pre>, becomes one space or newline."""
    if preserve or text.strip(_ASCII_SPACES):
        return text
    return "\n" if "\n" in text else " "


def _context(element: Any) -> tuple[bool, bool, bool]:
    """Whether text directly inside `element` keeps its whitespace, is in a string container, is in a link."""
    preserve = contained = link = False
    for node in (element, *element.iterancestors()):
        tag = node.tag
        if tag in _PRESERVE_WHITESPACE:
            preserve = True
        elif tag in _STRING_CONTAINERS:
            contained = True
        elif tag == "a":
            link = True
    return preserve, contained, link


def _strings(root: Any) -> Iterator[tuple[str, int, bool]]:
    """BeautifulSoup's strings inside `root` in document order, each with its kind and whether it is in a link."""
    preserve, contained, link = _context(root)
    if root.text:
        yield _stored(root.text, preserve), _CONTAINED if contained else _TEXT, link
    stack: list[Any] = []
    _push_children(stack, root, preserve, contained, link)
    while stack:
        node, preserve, contained, link = stack.pop()
        if node.__class__ is str:  # a tail
            yield _stored(node, preserve), _CONTAINED if contained else _TEXT, link
            continue
        tag = node.tag
        if tag.__class__ is not str:
            yield _special(node, preserve)
            continue
        if tag in _PRESERVE_WHITESPACE:
            preserve = True
        elif tag in _STRING_CONTAINERS:
            contained = True
        elif tag == "a":
            link = True
        if node.text:
            yield _stored(node.text, preserve), _CONTAINED if contained else _TEXT, link
        _push_children(stack, node, preserve, contained, link)


def _push_children(stack: list[Any], element: Any, preserve: bool, contained: bool, link: bool) -> None:
    for child in reversed(element):
        if child.tail:
            stack.append((child.tail, preserve, contained, link))
        stack.append((child, preserve, contained, link))


def _special(node: Any, preserve: bool) -> tuple[str, int, bool]:
    """A comment or processing instruction as BeautifulSoup's string."""
    if node.tag is etree.Comment:
        return _stored(node.text or "", preserve), _COMMENT, False
    if node.tag is etree.ProcessingInstruction:
        return _stored(f"{node.target} {node.text or ''}", preserve), _INSTRUCTION, False
    raise _Unsupported(f"a {type(node).__name__} node")


def _get_text(element: Any, separator: str = "", strip: bool = False) -> str:
    """BeautifulSoup's `get_text()`: the element's text strings, not comments nor script or ruby text."""
    texts = (text for text, kind, _ in _strings(element) if kind == _TEXT)
    if strip:
        return separator.join(text for text in (text.strip() for text in texts) if text)
    return separator.join(texts)


def _lx_small(tag: Any) -> bool:
    """`_small` on lxml's tree: at most 100 nodes (elements and strings) and 800 characters of strings."""
    count, size = 0, 0
    if tag.text:
        count, size = 1, len(_stored(tag.text, _context(tag)[0]))
    for node in tag.iterdescendants():
        count += 1
        text, tail = node.text, node.tail
        if node.tag.__class__ is not str:
            size += len(_special(node, _context(node.getparent())[0])[0])
        elif text:
            count += 1
            size += len(text) if text.strip(_ASCII_SPACES) else len(_stored(text, _context(node)[0]))
        if tail:
            count += 1
            size += len(tail) if tail.strip(_ASCII_SPACES) else len(_stored(tail, _context(node.getparent())[0]))
        if count > 100 or size > 4 * _LINK_BLOCK_CHARS:
            return False
    return True


def _lx_links_only(tag: Any) -> bool:
    """`_links_only` on lxml's tree (its tests in a cheaper order: the result is the same)."""
    links = list(tag.iterdescendants("a"))
    if not links or not _lx_small(tag):
        return False
    for link in links:
        href = link.get("href")
        if (href is not None and href.startswith("#")) or next(
            link.iterdescendants("code", "tt", "kbd"), None
        ) is not None:
            return False
    text = collapse(_get_text(tag, " "))
    if not text or len(text) > _LINK_BLOCK_CHARS:
        return False
    named = any(collapse(_get_text(link, " ")).lower() in _NAV_WORDS for link in links)
    if len(links) < 2 and not named:
        return False
    outside = " ".join(text for text, kind, link in _strings(tag) if not link and kind <= _CONTAINED)
    if not (named or _NAV_LABEL.search(outside) or _NAV_SEPARATOR.search(outside)):
        return False
    return bool(_ONLY_SEPARATORS.match(_NAV_LABEL.sub(" ", outside)))


_nav_classes: dict[str, bool] = {}


def _nav_class(value: str) -> bool:
    """Whether a class attribute names a navigation block (remembered: pages repeat their classes)."""
    found = _nav_classes.get(value)
    if found is None:
        found = any(_NAV_NAME.search(name.lower()) for name in _WORDS.findall(value))
        if len(_nav_classes) < 10_000:
            _nav_classes[value] = found
    return found


def _lx_is_boilerplate(tag: Any) -> bool:
    """`_is_boilerplate` on lxml's tree."""
    name = tag.tag
    get = tag.get
    if name in _DROP_TAGS or get("role") in _DROP_ROLES or get("hidden") is not None:
        return True
    value = get("class")
    if name not in ("html", "body", "main", "article"):
        ident = get("id")
        if (value and _nav_class(value)) or (ident and _NAV_NAME.search(ident.lower())):
            return True
        label = f"{get('aria-label') or ''} {get('summary') or ''}".lower()
        if "navigation" in label or "breadcrumb" in label:
            return True
        if name in _LINK_BLOCKS and _lx_links_only(tag):
            return True
    if name == "div":
        return value is not None and not _DROP_DIV_CLASSES.isdisjoint(_WORDS.findall(value))
    if name == "a":
        return _lx_is_permalink(tag, value)
    return name == "header" and next(tag.iterancestors("article", "main"), None) is None


def _lx_is_permalink(tag: Any, value: str | None) -> bool:
    if value is not None and not {"headerlink", "permalink"}.isdisjoint(_WORDS.findall(value)):
        return True
    if _UNREAD_TEXT.search("".join(tag.itertext())) and next(tag.iterdescendants(*_STRING_CONTAINERS), None) is None:
        return False  # a word of its own: not a permalink (the exact reading below says the same, slower)
    text = _get_text(tag, strip=True)
    return bool(text) and set(text) <= _PERMALINK_MARKS


_LOOKED_AT_TAGS = frozenset({*_DROP_TAGS, *_LINK_BLOCKS, "a", "header"})
_LOOKED_AT_ATTRIBUTES = frozenset({"role", "hidden", "id", "aria-label", "summary"})


def _lx_drop_boilerplate(root: Any) -> None:
    """Replace each element `_is_boilerplate` drops (and all inside it) by a marker that keeps its tail.

    Only elements with a tag, an attribute or a navigation class that `_lx_is_boilerplate` looks at are asked
    (a page of code is thousands of bare <span>s); and nothing inside an element already dropped."""
    dropped: list[Any] = []
    gone: set[Any] = set()
    for element in root.iter():
        tag = element.tag
        if tag.__class__ is not str or (gone and element in gone):
            continue
        if tag not in _LOOKED_AT_TAGS:
            for key, value in element.items():
                if key in _LOOKED_AT_ATTRIBUTES or (key == "class" and _nav_class(value)):
                    break
            else:
                continue
        if _lx_is_boilerplate(element):
            dropped.append(element)
            gone.update(element.iterdescendants())
    for element in dropped:
        parent = element.getparent()
        if parent is None:
            raise _Unsupported("the whole page is dropped")
        marker = parent.makeelement(_DROPPED)
        marker.tail = element.tail
        parent.replace(element, marker)


def _lx_text(element: Any, separator: str = "", ruby: bool = True) -> str:
    """`get_text(separator)` after boilerplate is dropped; `ruby`: whether the page has <rt> or <rp> elements,
    whose text is left out (without them, and with scripts and styles dropped, every string is text)."""
    if ruby:
        return _get_text(element, separator)
    return separator.join(element.itertext())


def _lx_string(tag: Any) -> str | None:
    """BeautifulSoup's `Tag.string`: the one string inside, or None (whitespace as parsed: callers strip it)."""
    contents: list[Any] = [tag.text] if tag.text else []
    for child in tag:
        if child.tag != _DROPPED:
            contents.append(child)
        if child.tail:
            contents.append(child.tail)
    if len(contents) != 1:
        return None
    child = contents[0]
    if isinstance(child, str):
        return child
    if child.tag.__class__ is not str:
        return _special(child, True)[0]
    return _lx_string(child)


_RENDER_TAGS = (*_BLOCK_TAGS, "pre", "tr", "br")
"""Elements `_render` does more with than read their strings."""


def _lx_render(root: Any, ruby: bool) -> str:
    """`_render` on lxml's tree."""
    structured: set[Any] = set()  # the elements with a block, row, code block or line break inside
    for element in root.iter(*_RENDER_TAGS):
        for parent in element.iterancestors():
            if parent in structured:
                break
            structured.add(parent)
    writer = BlockWriter()
    stack: list[Any] = [root]
    while stack:
        item = stack.pop()
        if item is None:
            writer.flush()
        elif item.__class__ is str:
            writer.inline(item)
        else:
            name = item.tag
            if name.__class__ is not str:
                _special(item, True)  # comments and instructions are not read; anything else is not known here
            elif name == "pre":
                writer.verbatim(_lx_text(item, "", ruby))
            elif name == "tr":
                writer.flush()
                cells = [collapse(_lx_text(cell, " ", ruby)) for cell in item if cell.tag in ("td", "th")]
                row = " | ".join(cell for cell in cells if cell)
                if row:
                    writer.blocks.append(row)
            elif name == "br":
                writer.line_break()
            else:
                block = name in _BLOCK_TAGS
                if block:
                    writer.flush()
                if item not in structured:
                    # No block, row, code block or line break inside: its strings, comments left out, in one go.
                    writer.inline("".join(item.itertext()))
                    if block:
                        writer.flush()
                    continue
                if block:
                    stack.append(None)
                for child in reversed(item):
                    if child.tail:
                        stack.append(child.tail)
                    stack.append(child)
                if item.text:
                    stack.append(item.text)
    writer.flush()
    return "\n\n".join(writer.blocks)


def _lx_json_ld(root: Any) -> tuple[str | None, str | None]:
    for script in root.iter("script"):
        if script.get("type") != "application/ld+json":
            continue
        if len(script):
            raise _Unsupported("elements inside a script")
        try:
            data = json.loads(script.text or "")
        except ValueError:
            continue
        found = _ld_author_date(data)
        if found is not None:
            return found
    return None, None


def _lx_meta(root: Any) -> dict[str, str]:
    values: dict[str, str] = {}
    for meta in root.iter("meta"):
        key = meta.get("name") or meta.get("property") or meta.get("itemprop")
        content = meta.get("content")
        if key is not None and content is not None and content.strip():
            values.setdefault(key.strip().lower(), collapse(content))
    return values


def _lx_canonical(root: Any, meta: dict[str, str]) -> str | None:
    link = next((link for link in root.iter("link") if "canonical" in _WORDS.findall(link.get("rel") or "")), None)
    href = link.get("href") if link is not None else None
    if href is not None and href.strip():
        return str(href.strip())
    return meta.get("og:url")


def _lx_title(root: Any, meta: dict[str, str], ruby: bool) -> str:
    if "og:title" in meta:
        return meta["og:title"]
    title = next(root.iter("title"), None)
    string = _lx_string(title) if title is not None else None
    if string and string.strip():
        return collapse(string)
    heading = next(root.iter("h1"), None)
    return collapse(_lx_text(heading, " ", ruby)) if heading is not None else ""


def _lx_main_root(root: Any) -> Any:
    """`_main_root` on lxml's tree."""
    found: tuple[list[Any], ...] = (
        list(root.iter("main")),
        root.xpath("//*[@role='main']"),
        list(root.iter("article")),
        [div for div in root.iter("div") if "body" in _WORDS.findall(div.get("class") or "")],
        [div for div in root.iter("div") if "document" in _WORDS.findall(div.get("class") or "")],
    )
    for candidates in found:
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            return max(candidates, key=lambda element: len(_get_text(element)))
    return next(root.iter("body"), root)


_DEPTH_LIMIT = 2048
"""How deep lxml's tree goes (with `huge_tree`; 256 without): elements nested deeper are left out of it."""
_AT_DEPTH_LIMIT = etree.XPath(f"boolean({'/*' * _DEPTH_LIMIT})")


_DOCTYPE = re.compile("<!doctype", re.IGNORECASE)
_PROLOGUE = re.compile(r"\ufeff?\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*", re.DOTALL)
"""What may come before the doctype."""


def _lxml_to_text(html: str) -> ExtractedHtml:
    """`html_to_text` on lxml's tree: the same result, about six times faster (python3-doc's 531 pages: 6 s of
    CPU instead of 35 s); raises `_Unsupported` for markup that BeautifulSoup must read."""
    # BeautifulSoup's lxml builder makes the same parser, without `huge_tree`: its parser hands over text nodes of
    # any length, where lxml's own tree would cut those over 10 MB short.
    parser = etree.HTMLParser(recover=True, huge_tree=True)
    doctypes = [found.start() for found in _DOCTYPE.finditer(html)]
    if len(doctypes) > 1 or (doctypes and not _PROLOGUE.fullmatch(html, 0, doctypes[0])):
        raise _Unsupported("a doctype after the start")  # a string of BeautifulSoup's, splitting the text around
    try:
        parser.feed(html[1:] if html.startswith("\ufeff") else html)
        root = parser.close()
    except (etree.LxmlError, ValueError, UnicodeError) as error:
        raise _Unsupported(str(error)) from None
    if root is None:
        raise _Unsupported("no tree")
    if _AT_DEPTH_LIMIT(root):  # lxml's tree stops there, where BeautifulSoup's goes on
        raise _Unsupported("nested too deep")
    meta = _lx_meta(root)
    ld_author, ld_published = _lx_json_ld(root)
    canonical = _lx_canonical(root, meta)
    _lx_drop_boilerplate(root)
    ruby = next(root.iter("rt", "rp"), None) is not None
    title = _lx_title(root, meta, ruby)
    return ExtractedHtml(
        title=title,
        text=_lx_render(_lx_main_root(root), ruby),
        author=_first(meta, _AUTHOR_KEYS) or ld_author,
        published=_first(meta, _PUBLISHED_KEYS) or ld_published,
        canonical_url=canonical,
    )
