"""Main-text extraction from HTML.

Pages carry navigation, sidebars, cookie banners and scripts around the text
worth reading. This keeps the main content only (navigation is dropped by its
markup, by its class or label, and as short blocks made of links and
separators only: "Prev | Up | Home | Next") and renders it as readable
plain text: one block per heading, paragraph, list item, table row or code
block, blocks separated by blank lines, and whitespace inside a paragraph
collapsed so sentences never contain stray line breaks (quotes taken from the
text then match what a reader sees).

The page is read on lxml's own tree, six times faster than BeautifulSoup's (python3-doc's 531 pages: 6 s of CPU
instead of 35 s), which read pages before; the text is BeautifulSoup's `get_text()` to the character (checked on
every page of the Debian manuals the quality benchmark reads), so this reading keeps its ways:

* a string of ASCII whitespace only, outside <pre> and <textarea>, is stored as one space or one newline;
* text inside <script>, <style>, <template>, <rt> and <rp> is of another kind, which is not read;
* comments and processing instructions are strings: counted by `_small`, never read as text;
* a removed element leaves the text after it (its tail) as a string of its own, so reading with a separator
  still puts one where it was: a dropped element is replaced by an empty marker element that keeps its tail.

Two differences are made on purpose: a definition list's field label is read in front of its value
('Default value: None', `_join_field_labels`), as the page shows them, not as two paragraphs; and an <aside>
that Docutils wrote (a topic, a footnote: `ASIDE_CONTENT_CLASSES`) is read as part of the text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from lxml import etree

from research_assistant.text.document import DocumentText
from research_assistant.text.spaces import collapse

__all__ = ["BlockWriter", "ExtractedHtml", "collapse", "html_to_text"]

DROP_TAGS = frozenset(
    ["script", "style", "noscript", "nav", "footer", "aside", "form", "svg", "iframe", "template", "button"]
)
ASIDE_CONTENT_CLASSES = frozenset(["topic", "footnote", "footnote-list", "admonition"])
"""Classes of an <aside> that is part of the text: Docutils (and so Sphinx) writes its topics ('Overview' with
the definitions of a page's terms), footnotes and some admonitions as <aside>, which elsewhere is a sidebar."""
DROP_ROLES = frozenset(["navigation", "banner", "contentinfo"])
DROP_DIV_CLASSES = frozenset(["sphinxsidebar", "related", "footer", "mobile-nav"])
"""Sphinx's sidebars, navigation bars and footer."""
NAV_NAME = re.compile(
    r"^(?:nav(?:header|footer|bar|igation|links?)?|(?:main|sub)?menu|menubar|breadcrumbs?|pagination|pager)$"
    r"|breadcrumb|^index-[a-z]{2}$|^(?:gen|mod)?indextable$"
)
"""Class or id of a navigation block: DocBook's navheader and navfooter, menus, breadcrumbs, pagers, and the
tables of an index, whose every entry is a link to a section (Texinfo's 'index-cp' with 'Libraries : | Add-on
packages', Sphinx's 'genindextable')."""
NAV_LABEL = re.compile(r"\b(?:next|previous|prev|up|home|top)\b\s*:?", re.IGNORECASE)
NAV_WORDS = frozenset({"next", "previous", "prev", "up", "home", "top", "contents", "index"})
_NAV_WORD_LENGTH = max(map(len, NAV_WORDS))
ONLY_SEPARATORS = re.compile(r"^[\s|·•»›«‹/\\,:;\-–—\[\]()<>*]*$")
NAV_SEPARATOR = re.compile(r"[|·»›«‹]|\s>\s")
LINK_BLOCKS = frozenset({"p", "div", "table", "tr"})
"""Blocks that can be a line of navigation links. Lists are left alone: a list of links is as often content
(the functions of an API) as a menu, and menus are told by their class."""
POPUP_HOSTS = frozenset(
    {"a", "abbr", "b", "cite", "code", "em", "font", "i", "kbd", "label", "pre", "q", "samp", "small", "span",
     "strong", "sub", "sup", "tt", "var"}
)  # fmt: skip
"""Phrasing elements: a list cannot be a part of them in HTML, so one placed there is a menu or tooltip that
scripts show on demand ('ca-file' with a drop-down of the sections naming it), not a part of the sentence."""
LIST_TAGS = frozenset({"ul", "ol", "dl", "menu"})
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
        if len(self._lines) > 1:
            lines = map(collapse, map("".join, self._lines))
            block = "\n".join(line for line in lines if line)
        else:  # most blocks are one line, and most of them the whitespace between two others
            text = "".join(self._lines[0])
            block = "" if text.isspace() else collapse(text)
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


_PRESERVE_WHITESPACE = frozenset({"pre", "textarea"})
_STRING_CONTAINERS = frozenset({"rt", "rp", "style", "script", "template"})
_CODE_TAGS = frozenset({"code", "tt", "kbd"})
_ASCII_SPACES = "\x20\x0a\x09\x0c\x0d"
_TEXT, _CONTAINED, _COMMENT, _INSTRUCTION = range(4)
"""Kinds of string: text that `get_text()` reads, text inside a string container, a comment, a processing
instruction."""
_DROPPED = "_dropped"
"""The marker left where a dropped element was (no parsed tag name starts with an underscore)."""
_WORDS = re.compile(r"\S+")
_WORD_CHARACTER = re.compile(r"\w")
_UNREAD_TEXT = re.compile(r"[^\s¶§#🔗]")
"""A character that no permalink's text holds."""


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
    """A processing instruction, or a comment (any other node without a tag name counts as one), as a string."""
    if node.tag is etree.ProcessingInstruction:
        return _stored(f"{node.target} {node.text or ''}", preserve), _INSTRUCTION, False
    return _stored(node.text or "", preserve), _COMMENT, False


def _all_text(element: Any) -> str:
    """Every string inside `element` (script and ruby text too, not comments) as `"".join(element.itertext())`
    gives them, read by lxml in C: several times faster."""
    return etree.tostring(element, method="text", encoding=str, with_tail=False)


def _get_text(element: Any, separator: str = "", strip: bool = False) -> str:
    """BeautifulSoup's `get_text()`: the element's text strings, not comments nor script or ruby text."""
    texts = (text for text, kind, _ in _strings(element) if kind == _TEXT)
    if strip:
        return separator.join(text for text in (text.strip() for text in texts) if text)
    return separator.join(texts)


def _small(tag: Any) -> bool:
    """Whether a tag holds few elements and little text: at most 100 nodes (elements and strings) and 800
    characters of strings. It stops early, so a page's containers cost little."""
    count, size = 0, 0
    if tag.text:
        count, size = 1, _stored_length(tag.text, tag)
    for node in tag.iterdescendants():
        count += 1
        text, tail = node.text, node.tail
        if node.tag.__class__ is not str:
            size += len(_special(node, _context(node.getparent())[0])[0])
        elif text:
            count += 1
            size += _stored_length(text, node)
        if tail:
            count += 1
            size += _stored_length(tail, node.getparent())
        if count > 100 or size > 4 * LINK_BLOCK_CHARS:
            return False
    return True


def _stored_length(string: str, parent: Any) -> int:
    """The length of a string directly inside `parent` as stored (`_stored`); whether it keeps its whitespace
    (`_context`, which walks up the tree) is looked up only when that changes its length."""
    if len(string) == 1 or string.strip(_ASCII_SPACES):
        return len(string)
    return len(_stored(string, _context(parent)[0]))


def _links_only(tag: Any) -> bool:
    """A short line of links and separators only that names a way around the site ('Prev | Up | Home | Next',
    'Next: A, Previous: B, Up: C', 'Docs » Library', 'Apache > HTTP Server > Modules'): two links or more, or
    one whose text is a navigation word, and no link of content (`_content_link`)."""
    first = next(tag.iterdescendants("a"), None)
    if first is None or _content_link(first) or not _small(tag):  # the first link tells most blocks of content
        return False
    links = list(tag.iterdescendants("a"))
    if any(map(_content_link, links[1:])):
        return False
    text = collapse(_get_text(tag, " "))
    if not text or len(text) > LINK_BLOCK_CHARS:
        return False
    named = any(collapse(_get_text(link, " ")).lower() in NAV_WORDS for link in links)
    if len(links) < 2 and not named:
        return False
    outside = " ".join(text for text, kind, link in _strings(tag) if not link and kind <= _CONTAINED)
    if not (named or NAV_LABEL.search(outside) or NAV_SEPARATOR.search(outside)):
        return False  # 'git-merge(1), git-pull(1)': a list of related pages, not a way around this one
    return bool(ONLY_SEPARATORS.match(NAV_LABEL.sub(" ", outside)))


def _content_link(link: Any) -> bool:
    """A link within the page, or one naming code: content (a list of functions), never navigation, unless it is
    a button (`_button`: Texinfo's '[ << ] [ < ] [ Up ] [ > ]' buttons lead within the page)."""
    within = (link.get("href") or "").startswith("#")
    return (within or _holds(link, _CODE_TAGS)) and not _button(link)


def _holds(element: Any, tags: frozenset[str]) -> bool:
    """Whether one of these tags is inside a small element (a link, a permalink): its few descendants looked at in
    Python, faster than lxml sets up its tag matcher."""
    return any(node.tag in tags for node in element.iterdescendants())


def _button(link: Any) -> bool:
    """Whether a link is a navigation word or a button without a word ('Up', '<<', '>', '?'): Texinfo's
    '[ << ] [ < ] [ Up ] [ > ] [ >> ] [ Top ] [ Contents ]' leads within the page too."""
    everything = _all_text(link)  # the text read, when the link holds no script or ruby text
    wordy = len("".join(everything.split())) > _NAV_WORD_LENGTH and _WORD_CHARACTER.search(everything)
    if wordy and not _holds(link, _STRING_CONTAINERS):
        return False  # longer than a navigation word, with a word character (the reading below says the same)
    text = collapse(_get_text(link, " ")).lower()
    return text in NAV_WORDS or (bool(text) and not _WORD_CHARACTER.search(text))


def _is_popup(tag: Any) -> bool:
    """A list inside a phrasing element (`POPUP_HOSTS`) that stands within a sentence, text right before or after
    it: a drop-down menu or tooltip ('"<span>ca-file<ul>...</ul></span>", "ca-verify-file"'). A phrasing element
    standing alone as a box ('<var>See Also: <ul>...</ul></var>') is left alone."""
    host = tag.getparent()
    if host is None or host.tag not in POPUP_HOSTS:
        return False
    if host.tail and host.tail.strip():
        return True
    before = host.getprevious()
    if before is not None:
        return bool(before.tail and before.tail.strip())
    outer = host.getparent()
    return outer is not None and bool(outer.text and outer.text.strip())


@lru_cache(maxsize=10_000)
def _nav_class(value: str) -> bool:
    """Whether a class attribute names a navigation block (remembered: pages repeat their classes)."""
    return any(NAV_NAME.search(name.lower()) for name in _classes(value))


@lru_cache(maxsize=10_000)
def _classes(value: str) -> frozenset[str]:
    """The names in a class attribute (remembered: pages repeat their classes)."""
    return frozenset(_WORDS.findall(value))


def _is_boilerplate(tag: Any) -> bool:
    """Whether an element is no content: a dropped tag or role, hidden, navigation by its class, id, label or
    links, a Sphinx sidebar or footer, a heading's permalink, a page-level <header> (a banner; a <header> inside
    the article holds its title and byline)."""
    name = tag.tag
    get = dict(tag.items()).get  # faster than asking the element for each attribute
    value = get("class")
    if name == "aside" and value and not ASIDE_CONTENT_CLASSES.isdisjoint(_classes(value)):
        name = "div"  # a Docutils topic or footnote: read as a block of the text
    if name in DROP_TAGS or get("role") in DROP_ROLES or get("hidden") is not None:
        return True
    if name not in ("html", "body", "main", "article"):
        ident = get("id")
        if (value and _nav_class(value)) or (ident and NAV_NAME.search(ident.lower())):
            return True
        label = f"{get('aria-label') or ''} {get('summary') or ''}".lower()
        if "navigation" in label or "breadcrumb" in label:
            return True
        if name in LINK_BLOCKS and _links_only(tag):
            return True
        if name in LIST_TAGS and _is_popup(tag):
            return True
    if name == "div":
        return value is not None and not DROP_DIV_CLASSES.isdisjoint(_classes(value))
    if name == "a":
        return _is_permalink(tag, value)
    return name == "header" and next(tag.iterancestors("article", "main"), None) is None


def _is_permalink(tag: Any, value: str | None) -> bool:
    """A heading's permalink ('Reverse Proxy ¶'): Sphinx's `headerlink`, Apache's `permalink`, or any link
    whose whole text is a permalink mark. Kept, the mark would become part of the heading's words."""
    if value is not None and not {"headerlink", "permalink"}.isdisjoint(_classes(value)):
        return True
    if _UNREAD_TEXT.search(_all_text(tag)) and not _holds(tag, _STRING_CONTAINERS):
        return False  # a word of its own: not a permalink (the exact reading below says the same, slower)
    text = _get_text(tag, strip=True)
    return bool(text) and set(text) <= PERMALINK_MARKS


_LOOKED_AT_TAGS = frozenset({*DROP_TAGS, *LINK_BLOCKS, *LIST_TAGS, "a", "header"})
_LOOKED_AT_ATTRIBUTES = frozenset({"role", "hidden", "id", "aria-label", "summary"})


def _drop_boilerplate(root: Any) -> None:
    """Replace each element `_is_boilerplate` drops (and all inside it) by a marker that keeps its tail.

    Only elements with a tag, an attribute or a navigation class that `_is_boilerplate` looks at are asked
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
        if _is_boilerplate(element):
            dropped.append(element)
            gone.update(element.iterdescendants())
    for element in dropped:
        parent = element.getparent()
        if parent is None:  # the whole page: nothing is left of it
            element.clear()
            continue
        marker = parent.makeelement(_DROPPED)
        marker.tail = element.tail
        parent.replace(element, marker)


_FIELD_LABEL = re.compile(r"[^\W\d][\w ./'-]{0,30}:")
"""A definition list's term that is a field's label ('Default value:', 'Effect if unset:', 'Return type:')."""
_FIELD_LABEL_WORDS = 4


def _join_field_labels(root: Any) -> None:
    """Put each field label of a definition list in front of its value's first paragraph.

    DocBook's variable lists and Sphinx's field lists write an entry's fields as <dt>Default value:</dt>
    <dd><p>None</p></dd>; read as blocks of their own, the label and its value are two paragraphs, and the value
    ('None', 'trustedCAs.pem') reads as a heading over what follows. 'Default value: None' is one line, as the
    page shows it. Only a label (a few words ending in a colon) is joined: a term ('--depth <n>') heads its
    description, as before."""
    for term in list(root.iter("dt")):
        value = term.getnext()
        if value is None or value.tag != "dd":
            continue
        label = collapse(_all_text(term))
        if not _FIELD_LABEL.fullmatch(label) or len(label.split()) > _FIELD_LABEL_WORDS:
            continue
        first = value[0] if len(value) and not (value.text or "").strip() else None
        target = first if first is not None and first.tag == "p" else value
        target.text = f"{label} {target.text or ''}"
        marker = term.makeelement(_DROPPED)
        marker.tail = term.tail
        term.getparent().replace(term, marker)


def _text(element: Any, separator: str = "", ruby: bool = True) -> str:
    """`get_text(separator)` after boilerplate is dropped; `ruby`: whether the page has <rt> or <rp> elements,
    whose text is left out (without them, and with scripts and styles dropped, every string is text)."""
    if ruby:
        return _get_text(element, separator)
    return _all_text(element) if separator == "" else separator.join(element.itertext())


def _string(tag: Any) -> str | None:
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
    return _string(child)


_RENDER_TAGS = (*BLOCK_TAGS, "pre", "tr", "br")
"""Elements `_render` does more with than read their strings."""


def _render(root: Any, ruby: bool) -> str:
    """The text of `root` in blocks: one per block element, table row (its cells joined by ' | ') and code block
    (verbatim); an explicit stack instead of recursion, so deeply nested markup cannot hit the recursion limit."""
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
                writer.verbatim(_text(item, "", ruby))
            elif name == "tr":
                writer.flush()
                cells = [collapse(_text(cell, " ", ruby)) for cell in item if cell.tag in ("td", "th")]
                row = " | ".join(cell for cell in cells if cell)
                if row:
                    writer.blocks.append(row)
            elif name == "br":
                writer.line_break()
            else:
                block = name in BLOCK_TAGS
                if block:
                    writer.flush()
                if item not in structured:
                    # No block, row, code block or line break inside: its strings, comments left out, in one go.
                    writer.inline(_all_text(item))
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


def _json_ld(root: Any) -> tuple[str | None, str | None]:
    for script in root.iter("script"):
        if script.get("type") != "application/ld+json":
            continue
        try:
            data = json.loads("".join(script.itertext()))
        except ValueError:
            continue
        found = ld_author_date(data)
        if found is not None:
            return found
    return None, None


def _meta(root: Any) -> dict[str, str]:
    values: dict[str, str] = {}
    for meta in root.iter("meta"):
        key = meta.get("name") or meta.get("property") or meta.get("itemprop")
        content = meta.get("content")
        if key is not None and content is not None and content.strip():
            values.setdefault(key.strip().lower(), collapse(content))
    return values


def _canonical(root: Any, meta: dict[str, str]) -> str | None:
    link = next((link for link in root.iter("link") if "canonical" in _WORDS.findall(link.get("rel") or "")), None)
    href = link.get("href") if link is not None else None
    if href is not None and href.strip():
        return str(href.strip())
    return meta.get("og:url")


def _title(root: Any, meta: dict[str, str], ruby: bool) -> str:
    if "og:title" in meta:
        return meta["og:title"]
    title = next(root.iter("title"), None)
    string = _string(title) if title is not None else None
    if string and string.strip():
        return collapse(string)
    heading = next(root.iter("h1"), None)
    return collapse(_text(heading, " ", ruby)) if heading is not None else ""


def _main_root(root: Any) -> Any:
    """The container of the main content, the most specific found: <main>, role="main", <article>, Sphinx's body
    and document divisions (of several, the longest: a blog index, comments); else the body. Each kind is looked
    for only when none of the kinds before it is found; role="main" by its attributes, which XPath finds three
    times faster than the elements that have one."""
    found: tuple[Callable[[], list[Any]], ...] = (
        lambda: list(root.iter("main")),
        lambda: [role.getparent() for role in root.xpath("//@role") if role == "main"],
        lambda: list(root.iter("article")),
        lambda: [div for div in root.iter("div") if "body" in _classes(div.get("class") or "")],
        lambda: [div for div in root.iter("div") if "document" in _classes(div.get("class") or "")],
    )
    for find in found:
        candidates = find()
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            return max(candidates, key=lambda element: len(_get_text(element)))
    return next(root.iter("body"), root)


_DEPTH_LIMIT = 2048
"""How deep lxml's own tree goes (with `huge_tree`; 256 without): elements nested deeper are left out of it."""
_AT_DEPTH_LIMIT = etree.XPath(f"boolean({'/*' * _DEPTH_LIMIT})")


class _TreeBuilder:
    """A parser target that builds the tree from the parser's events, as BeautifulSoup builds its own: with no
    depth limit, 1.2 times the CPU of lxml's own tree. An attribute whose name an lxml element cannot hold
    ('xml:lang', '@click' in HTML) is left out; such an element name is read as an unknown element's."""

    def __init__(self) -> None:
        self._builder = etree.TreeBuilder()
        self.data, self.close = self._builder.data, self._builder.close
        self.comment, self.pi = self._builder.comment, self._builder.pi
        self._unknown: set[str] = set()

    def start(self, tag: str, attrib: dict[str, str]) -> Any:
        try:
            return self._builder.start(tag, attrib)
        except ValueError:
            if not _holdable(tag):
                self._unknown.add(tag)
            held = {key: value for key, value in attrib.items() if _holdable("_", key)}
            return self._builder.start("_unknown" if tag in self._unknown else tag, held)

    def end(self, tag: str) -> Any:
        return self._builder.end("_unknown" if tag in self._unknown else tag)


def _holdable(tag: str, attribute: str | None = None) -> bool:
    """Whether an lxml element can have this tag, and this attribute."""
    try:
        etree.Element(tag, {attribute: ""} if attribute else {})
    except ValueError:
        return False
    return True


def _parse(html: str, target: _TreeBuilder | None = None) -> Any:
    """The page's tree, or None for no markup at all (empty, or a comment only). `huge_tree`: without it text
    nodes over 10 MB would be cut short."""
    parser = etree.HTMLParser(recover=True, huge_tree=True, target=target)
    try:
        parser.feed(html[1:] if html.startswith("\ufeff") else html)
        return parser.close()
    except etree.LxmlError:
        return None


def html_to_text(html: str) -> ExtractedHtml:
    """The main text of an HTML page, with its title, author, publication date and canonical URL."""
    root = _parse(html)
    if root is not None and _AT_DEPTH_LIMIT(root):  # lxml's own tree stops there: built from the events instead
        root = _parse(html, _TreeBuilder())
    if root is None:
        return ExtractedHtml(title="", text="")
    meta = _meta(root)
    ld = _json_ld(root)
    canonical = _canonical(root, meta)
    _drop_boilerplate(root)
    _join_field_labels(root)
    ruby = next(root.iter("rt", "rp"), None) is not None
    title = _title(root, meta, ruby)
    return extracted(title, _render(_main_root(root), ruby), meta, ld, canonical)
