"""The reading of a page on lxml's tree keeps the text BeautifulSoup's tree gave, to the character, on markup where
the two trees differ: whitespace-only strings, text of string containers (<script>, <rt>), comments, the tail text
of a dropped element; and reads markup it once left to BeautifulSoup."""

from __future__ import annotations

import pytest

from research_assistant.text.html import ExtractedHtml, html_to_text

CASES = {
    # A dropped script and permalink leave a space between the words around them, as a removed tag does.
    "table cells": (
        '<table><tr><td>left<script>x()</script>right</td><td>a<a class="headerlink" href="#a">¶</a>b</td></tr>'
        "<tr><td> </td><td>  only\n cell </td></tr></table>",
        "",
        "left right | a b\n\nonly cell",
    ),
    # The title falls back to the first heading, read with spaces between its strings.
    "heading title": (
        '<html><body><h1>Intro<a class="headerlink" href="#i">¶</a>duction</h1>'
        "<p>Text <!-- c --> here</p></body></html>",
        "Intro duction",
        "Introduction\n\nText here",
    ),
    # Ruby text is inline text, but not a table cell's text (BeautifulSoup's `get_text()` leaves it out).
    "ruby": (
        "<body><p>Kanji <ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby> read</p>"
        "<table><tr><td>漢<rt>kan</rt></td></tr></table></body>",
        "",
        "Kanji 漢(kan) read\n\n漢",
    ),
    # Code keeps its whitespace; of two Sphinx bodies the longer is the content, whitespace counted as stored.
    "code": (
        '<body><div class="body"><pre>  x = 1\n\n  <span>y</span> = 2  </pre></div>'
        '<div class="body"><p>short</p>\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n</div></body>',
        "",
        "  x = 1\n\n  y = 2",
    ),
    # A line of navigation links goes (a comment among them counted); a single link that is no navigation word,
    # a list of related pages, and a line with code beside its link stay.
    "navigation": (
        '<body><p><a href="a.html">Prev</a> <!-- between -->|<a href="b.html">Next</a></p>'
        '<p>Next: <a href="c.html">Chapter</a></p><p>See <a href="d.html">d(1)</a>, <a href="e.html">e(1)</a></p>'
        '<p><a href="f.html">Home</a><code>f()</code></p></body>',
        "",
        "Next: Chapter\n\nSee d(1), e(1)\n\nHomef()",
    ),
    # A script inside a link is no text of it (a link's text read in C, quicker, is only trusted without one): the
    # line of buttons within the page and the permalink mark still go.
    "script in a link": (
        '<body><p><a href="#a">Up<script>var inside = "a long word"</script></a> | <a href="#b">Top</a></p>'
        '<h2>Usage<a href="#u">¶<script>track("usage")</script></a></h2><p>Text.</p></body>',
        "",
        "Usage\n\nText.",
    ),
    # Whitespace only counts as written inside <pre>, else as one character: beside 900 spaces of code a line of
    # links is not short, beside 900 spaces of markup it is.
    "whitespace counted": (
        '<body><div><a href="a.html">Prev</a> | <a href="b.html">Next</a><pre>' + " " * 900 + "</pre></div>"
        '<div><a href="c.html">Prev</a> | <a href="d.html">Next</a><span>' + " " * 900 + "</span></div>"
        "<p>End.</p></body>",
        "",
        "Prev | Next\n\nEnd.",
    ),
    "metadata": (
        '<html><head><title> A\n  page </title><meta name="author" content=" Ines  Larsson ">'
        '<link rel="alternate canonical" href=" https://x.org/p "><script type="application/ld+json">'
        '{"datePublished": "2024-01-02"}</script></head><body hidden><p>gone</p></body></html>',
        "A page",
        "A page",  # the body is hidden: the whole page is read, its title included
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_reading_gives_beautifulsoups_text(name: str) -> None:
    markup, title, text = CASES[name]

    page = html_to_text(markup)

    assert (page.title, page.text) == (title, text)


def test_the_reading_reads_metadata() -> None:
    page = html_to_text(CASES["metadata"][0])

    assert page == ExtractedHtml("A page", "A page", "Ines Larsson", "2024-01-02", "https://x.org/p")


@pytest.mark.parametrize(
    ("markup", "page"),
    [
        ("", ExtractedHtml("", "")),
        ("<!-- a comment only -->", ExtractedHtml("", "")),
        # The whole page is navigation: nothing is read of it but what its head says.
        (
            '<html role="navigation"><meta property="og:title" content="Site map"><p>a</p></html>',
            ExtractedHtml("Site map", ""),
        ),
        (
            '<html><head><script type="application/ld+json">{"author": "Ines"}</script></head><p>x</p></html>',
            ExtractedHtml("", "x", "Ines"),
        ),
        # A doctype inside the page is no string (BeautifulSoup's was, and split the title's words at it).
        ("<body><h1>Next<!DOCTYPE html>Up</h1></body>", ExtractedHtml("NextUp", "NextUp")),
        # Deeper than lxml's own tree goes (2048 elements), read as BeautifulSoup read it, names an lxml element
        # cannot hold included.
        (
            '<p xml:lang="en" @click="go">shallow</p><a:b x:y="1">named</a:b>' + "<div>" * 2100 + "deep text",
            ExtractedHtml("", "shallow\n\nnamed\n\ndeep text"),
        ),
    ],
)
def test_markup_once_left_to_beautifulsoup_is_read(markup: str, page: ExtractedHtml) -> None:
    assert html_to_text(markup) == page
