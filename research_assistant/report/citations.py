"""Sources-list entries in three citation styles, and safe Markdown for untrusted text.

Titles, quotes and findings come from documents, so everything that is not ours is
written through `escape_markdown`: it backslash-escapes Markdown and HTML syntax so
that no link, image, HTML tag or emphasis can come out of it, while the visible
characters stay the same. `unescape_markdown` inverts it exactly, which is what lets
a checker compare a rendered quote with its source.

A Sources entry is one line, `[n] <style-specific text>`, optionally followed by its
quoted passages as `  - “quote”` lines. The locator appears exactly once as the first
*unescaped* `<http(s)://...>` autolink or backtick code span of the line, so
`parse_locator` can read it back.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from datetime import date

from research_assistant.context import CitationStyle
from research_assistant.schemas import SourceRecord, SourceType
from research_assistant.text.urls import is_linkable_url

_ESCAPED = frozenset("\\`*_[]<>!&~|$#{}^@")
"""Characters always escaped: emphasis, links, images, HTML, entities, code, GFM
strikethrough and tables, Streamlit's `$` math and `:color[...]`, autolinked e-mails."""
_PUNCT = r"""[!-/:-@\[-`{-~]"""
_UNESCAPE = re.compile(rf"\\({_PUNCT})|&(#[0-9]{{1,7}}|#[xX][0-9a-fA-F]{{1,6}}|[A-Za-z][A-Za-z0-9]{{1,31}});")
_OPEN_QUOTE, _CLOSE_QUOTE = "\u201c", "\u201d"
_WWW = re.compile(r"(www)\.", re.IGNORECASE)
_LINE_START = re.compile(r"^(\d{1,9})([.)])")

_MONTHS: tuple[str, ...] = ("January", "February", "March", "April", "May", "June")
_MONTHS += ("July", "August", "September", "October", "November", "December")
"""Fixed English names: `calendar.month_name` follows the locale, and output must not."""
_MLA_MONTHS = ("Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.")
_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?:$|[T ])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
TYPE_NAMES = {
    SourceType.LOCAL: "local document",
    SourceType.WEB: "web page",
    SourceType.NEWS: "news article",
    SourceType.ACADEMIC: "academic source",
    SourceType.WIKI: "wiki article",
}
"""What each type of source is called, in a Sources entry's note and on the page's source cards."""


def escape_markdown(text: str) -> str:
    """Inline Markdown that shows `text` literally, on one line (whitespace collapsed).

    Curly double quotes become numeric entities, so the only raw `“...”` pairs in a
    rendered report are the quotations the renderer itself writes. `://`, `www.` and
    `](` are broken up so that neither a GFM autolink nor a link destination can form.
    """
    out: list[str] = []
    prev = ""
    for char in " ".join(text.replace("\x00", "\ufffd").split()):
        if char in _ESCAPED or (char == "(" and prev == "]"):
            out.append("\\" + char)
        elif char in (_OPEN_QUOTE, _CLOSE_QUOTE):
            out.append(f"&#{ord(char)};")
        else:
            out.append(char)
        prev = char
    escaped = _WWW.sub(r"\1\\.", "".join(out).replace("://", "\\://"))
    if escaped[:1] in ("-", "+", "="):
        return "\\" + escaped
    return _LINE_START.sub(r"\1\\\2", escaped, count=1)


URL_LIKE = re.compile(
    r"\b(?:https?://|www\.)\S+"  # http(s):// and www. addresses
    r"|\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?::\d+)?/\S*"  # host/path without a scheme: evil.example/steal?q=1
    r"|\b(?:site|inurl|intitle|allinurl|allintitle|intext|link|cache|related|filetype|ext):\S+",  # operators
    re.IGNORECASE,
)
"""Anything that names an address: what untrusted text may not carry into queries or reports."""
MARKUP = re.compile(r"!?\[([^\]]*)\]\([^)]*\)|<!--.*?-->|</?[a-zA-Z][^>]*>", re.DOTALL)
"""A Markdown link or image (its text kept), an HTML comment or an HTML tag."""


def plain_text(text: str) -> str:
    """`text` as plain prose on one line: links and images reduced to their text; tags, comments and addresses
    removed. For titles and model-written text, which a page may have tried to fill with links."""
    unlinked = MARKUP.sub(lambda m: f" {m.group(1) or ''} ", text)
    return " ".join(URL_LIKE.sub(" ", unlinked).split())


def unescape_markdown(text: str) -> str:
    """What a CommonMark renderer shows for inline text: backslash escapes and entities resolved."""

    def replace(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)
        return html.unescape(match.group(0))

    return _UNESCAPE.sub(replace, text)


def format_locator(locator: str) -> str:
    """An http(s) URL as an autolink; anything else (paths, other schemes) as inert code.

    Control characters cannot be shown in one Markdown line and become U+FFFD, so such
    a locator does not round-trip through `parse_locator`.
    """
    shown = _CONTROL.sub("\ufffd", locator) if locator.strip() else "(no locator)"
    if is_linkable_url(shown):
        return f"<{shown}>"
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown[0] in " `" or shown[-1] in " `" else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


_LOCATOR_TOKEN = re.compile(rf"\\{_PUNCT}|<(https?://[^\s<>]+)>|(`+)(.+?)(?<!`)\2(?!`)", re.IGNORECASE)


def parse_locator(line: str) -> str | None:
    """The locator of one Sources entry line: its first unescaped autolink or code span."""
    for match in _LOCATOR_TOKEN.finditer(line):
        if match.group(1) is not None:
            return match.group(1)
        if match.group(3) is not None:
            content = match.group(3)
            if len(content) > 1 and content[0] == " " and content[-1] == " " and content.strip():
                content = content[1:-1]
            return content
    return None


def _parse_date(value: str | None) -> tuple[int, int | None, int | None] | None:
    """Year, month and day from an ISO-like string; None when it is not one."""
    match = _ISO_DATE.match((value or "").strip())
    if not match:
        return None
    year, month, day = int(match.group(1)), match.group(2), match.group(3)
    try:
        date(year, int(month or 1), int(day or 1))
    except ValueError:
        return None
    return year, int(month) if month else None, int(day) if day else None


def _apa_date(parts: tuple[int, int | None, int | None] | None) -> str:
    if parts is None:
        return "(n.d.)"
    year, month, day = parts
    if month is None:
        return f"({year})"
    return f"({year}, {_MONTHS[month - 1]}{f' {day}' if day else ''})"


def _mla_date(parts: tuple[int, int | None, int | None] | None) -> str | None:
    if parts is None:
        return None
    year, month, day = parts
    pieces = [str(day) if day and month else "", _MLA_MONTHS[month - 1] if month else "", str(year)]
    return " ".join(p for p in pieces if p)


def _full_date(value: str | None) -> date | None:
    parts = _parse_date(value)
    if parts is None or parts[1] is None or parts[2] is None:
        return None
    return date(parts[0], parts[1], parts[2])


def _site(locator: str) -> str | None:
    """The web site (host without `www.`) or, for a file, the folder it is in."""
    url = re.match(r"^https?://([^/?#:@\s]+@)?([^/?#:\s]+)", locator, re.IGNORECASE)
    if url:
        host = url.group(2).lower()
        return host[4:] if host.startswith("www.") else host
    path = re.sub(r"^file://", "", locator.strip(), flags=re.IGNORECASE)
    parts = [p for p in re.split(r"[\\/]", path) if p]
    return parts[-2] if len(parts) >= 2 else None


def _sentence(text: str) -> str:
    """`text` closed with a period unless it already ends with terminal punctuation."""
    return text if text.endswith((".", "?", "!")) else text + "."


def _note(source: SourceRecord) -> str:
    """`_(news article; news, credibility 0.80; via http)_`: what the source is and how it was read."""
    parts = [TYPE_NAMES.get(source.source_type, str(source.source_type))]
    if source.credibility is not None:
        parts.append(f"{source.credibility.category.value}, credibility {source.credibility.score:.2f}")
    if source.access_method:
        parts.append(f"via {source.access_method}")
    return f"_({escape_markdown('; '.join(parts))})_"


def format_source(source: SourceRecord, number: int, style: CitationStyle, quotes: Sequence[str] = ()) -> str:
    """One Sources-list entry: `[n] ...` in `style`, then its quoted passages as a nested list.

    Numeric: `[n] Title. <url>. Accessed 2026-11-21. _(web page, via fetch)_`
    APA:     `[n] *Title*. (2024, March 5). site. Retrieved November 21, 2026, from <url> _(...)_`
    MLA:     `[n] "Title." *site*, 5 Mar. 2024, <url>. Accessed 21 Nov. 2026. _(...)_`
    """
    title = escape_markdown(plain_text(source.title)) or "Untitled"
    locator = format_locator(source.locator)
    site = _site(source.locator)
    site_md = escape_markdown(site) if site else None
    accessed = _full_date(source.accessed_at)
    style = CitationStyle(style)
    if style is CitationStyle.APA:
        parts = [f"*{title}*" + _sentence(title)[len(title) :], _apa_date(_parse_date(source.published)) + "."]
        if site_md and is_linkable_url(source.locator.strip()):
            parts.append(_sentence(site_md))
        if accessed:
            parts.append(f"Retrieved {_MONTHS[accessed.month - 1]} {accessed.day}, {accessed.year}, from {locator}")
        else:
            parts.append(locator)
    elif style is CitationStyle.MLA:
        container = [f"*{site_md}*" if site_md else "", _mla_date(_parse_date(source.published)) or "", locator]
        parts = [f'"{_sentence(title)}"', ", ".join(p for p in container if p) + "."]
        if accessed:
            parts.append(f"Accessed {accessed.day} {_MLA_MONTHS[accessed.month - 1]} {accessed.year}.")
    else:
        parts = [_sentence(title), f"{locator}."]
        if accessed:
            parts.append(f"Accessed {accessed.isoformat()}.")
    lines = [f"[{number}] {' '.join(parts)} {_note(source)}"]
    lines.extend(f"  - {_OPEN_QUOTE}{escape_markdown(quote)}{_CLOSE_QUOTE}" for quote in quotes if quote.strip())
    return "\n".join(lines)
