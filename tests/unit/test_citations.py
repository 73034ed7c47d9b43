"""Sources-list entries: each style's format, locators, and hostile titles."""

from __future__ import annotations

import pytest

from research_assistant.context import CitationStyle
from research_assistant.report.citations import (
    escape_markdown,
    format_locator,
    format_source,
    parse_locator,
    unescape_markdown,
)
from research_assistant.schemas import SourceRecord, SourceStatus, SourceType

WEB = SourceRecord(
    id="s1",
    locator="https://www.example.com/guide?x=1",
    title="Python 3.12 Guide",
    provider="tavily",
    source_type=SourceType.WEB,
    status=SourceStatus.READ,
    accessed_at="2026-11-21T09:30:00+00:00",
    access_method="fetch",
    published="2024-03-05",
)
LOCAL = SourceRecord(
    id="s2",
    locator="/data/corpus/notes.md",
    title="Team notes",
    provider="local",
    status=SourceStatus.READ,
    accessed_at="2026-11-21",
    access_method="local-file",
)

HOSTILE = "Click ![x](http://evil/x.png) <script>alert(1)</script> [link](javascript:alert(1)) `code` *em*"


def _html(markdown: str) -> str:
    markdown_it = pytest.importorskip("markdown_it")
    return str(markdown_it.MarkdownIt("commonmark").render(markdown))


def test_numeric_style() -> None:
    assert format_source(WEB, 1, CitationStyle.NUMERIC) == (
        "[1] Python 3.12 Guide. <https://www.example.com/guide?x=1>. Accessed 2026-11-21. _(web page; via fetch)_"
    )
    assert format_source(LOCAL, 2, CitationStyle.NUMERIC) == (
        "[2] Team notes. `/data/corpus/notes.md`. Accessed 2026-11-21. _(local document; via local-file)_"
    )


def test_apa_style_with_and_without_dates() -> None:
    assert format_source(WEB, 3, CitationStyle.APA) == (
        "[3] *Python 3.12 Guide*. (2024, March 5). example.com. "
        "Retrieved November 21, 2026, from <https://www.example.com/guide?x=1> _(web page; via fetch)_"
    )
    undated = LOCAL.model_copy(update={"accessed_at": None, "access_method": None})
    assert (
        format_source(undated, 1, CitationStyle.APA)
        == "[1] *Team notes*. (n.d.). `/data/corpus/notes.md` _(local document)_"
    )


def test_mla_style() -> None:
    assert format_source(WEB, 1, CitationStyle.MLA) == (
        '[1] "Python 3.12 Guide." *example.com*, 5 Mar. 2024, <https://www.example.com/guide?x=1>. '
        "Accessed 21 Nov. 2026. _(web page; via fetch)_"
    )
    assert format_source(LOCAL, 2, CitationStyle.MLA) == (
        '[2] "Team notes." *corpus*, `/data/corpus/notes.md`. Accessed 21 Nov. 2026. _(local document; via local-file)_'
    )


def test_partial_and_odd_dates_degrade_gracefully() -> None:
    year_only = WEB.model_copy(update={"published": "2019", "accessed_at": "not a date"})
    assert "(2019)." in format_source(year_only, 1, CitationStyle.APA)
    assert "Retrieved" not in format_source(year_only, 1, CitationStyle.APA)
    mla = format_source(year_only, 1, CitationStyle.MLA)
    assert "*example.com*, 2019, <https://" in mla
    assert "Accessed" not in mla


def test_title_ending_in_punctuation_gets_no_extra_period() -> None:
    asked = WEB.model_copy(update={"title": "Is it fast?"})
    assert format_source(asked, 1, CitationStyle.NUMERIC).startswith("[1] Is it fast? <https://")
    assert format_source(asked, 1, CitationStyle.APA).startswith("[1] *Is it fast?* (2024")
    assert format_source(asked, 1, CitationStyle.MLA).startswith('[1] "Is it fast?" *example.com*')


def test_quotes_follow_the_entry_as_a_nested_list() -> None:
    entry = format_source(LOCAL, 1, CitationStyle.NUMERIC, ["first  passage\nwrapped", "second"])
    assert entry.splitlines()[1:] == ["  - \u201cfirst passage wrapped\u201d", "  - \u201csecond\u201d"]


def test_hostile_title_cannot_inject_markup() -> None:
    entry = format_source(WEB.model_copy(update={"title": HOSTILE}), 1, CitationStyle.APA)
    for raw in ("<script>", "![", "](javascript:", "](http", "`code`"):
        assert raw not in entry
    html = _html(entry)
    assert "<img" not in html and "<script" not in html and "<code" not in html
    assert html.count("<a ") == 1  # only the source's own URL
    assert "alert(1)" in html  # the characters are still shown


def test_escape_round_trips_and_renders_literally() -> None:
    nasty = "1. \\[x\\] & &amp; \u201cq\u201d www.evil.com a@b.co $5 ~~s~~ | # _u_ - <b>"
    escaped = escape_markdown(nasty)
    assert "\n" not in escape_markdown("two\nlines")
    assert unescape_markdown(escaped) == nasty
    html = _html(f"- {escaped}")
    for tag in ("<a ", "<em>", "<del>", "<ol", "<b>", "<h1"):
        assert tag not in html


@pytest.mark.parametrize(
    ("locator", "shown"),
    [
        ("https://example.com/a_b*c", "<https://example.com/a_b*c>"),
        ("javascript:alert(1)", "`javascript:alert(1)`"),
        ("file:///etc/passwd", "`file:///etc/passwd`"),
        ("/docs/odd`name`.md", "``/docs/odd`name`.md``"),
        ("C:\\docs\\a b.pdf", "`C:\\docs\\a b.pdf`"),
        ("http://has space", "`http://has space`"),
    ],
)
def test_locators_are_autolinks_only_for_http_and_parse_back(locator: str, shown: str) -> None:
    assert format_locator(locator) == shown
    line = f"[1] \\<https://decoy.example\\> \\`decoy\\` {shown}. Accessed 2026-11-21."
    assert parse_locator(line) == locator
