"""Main-text extraction: what a reader of the page would call its text, and nothing around it."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_assistant.text.html import html_to_text

SPHINX_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>asyncio.run — Example 1.0 documentation</title>
<link rel="canonical" href="https://docs.example.org/library/run.html">
<script>var navigation = "Quick search";</script><style>.body { color: red }</style></head>
<body>
<div class="related" role="navigation"><h3>Navigation</h3><ul><li><a href="genindex.html">index</a></li>
<li><a href="modules.html">modules</a> |</li></ul></div>
<div class="document"><div class="documentwrapper"><div class="bodywrapper">
<div class="body" role="main">
<section id="running"><h1>Running coroutines<a class="headerlink" href="#running" title="Permalink">¶</a></h1>
<p>The <code>asyncio.run()</code> function
   runs the passed coroutine,
   taking care of managing the event loop.</p>
<dl class="py function">
<dt id="asyncio.run"><code>asyncio.run</code>(<em>coro</em>)<a class="headerlink" href="#x">¶</a></dt>
<dd><p>Execute the coroutine <em>coro</em> and return the result.</p></dd></dl>
<div class="highlight"><pre>async def main():
    await asyncio.sleep(1)

asyncio.run(main())</pre></div>
<ul><li>First item</li><li>Second   item</li></ul>
<table><tr><th>Mode</th><th>Meaning</th></tr><tr><td>debug</td><td>slow callbacks are logged</td></tr></table>
<!-- a comment nobody should read -->
</section></div></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3><p>This Page</p>
<form class="search"><input type="text" name="q"></form></div></div>
<div class="related" role="navigation"><a href="prev.html">previous</a></div>
<div class="footer">© Copyright 2001-2023, Example Foundation.</div>
</body></html>"""

NEWS_PAGE = """<html><head>
<title>Tram fares rise | City News</title>
<meta name="author" content="Ines Larsson">
<meta property="article:published_time" content="2024-03-05T08:00:00Z">
<meta property="og:url" content="https://news.example.com/fares">
</head><body>
<header><a href="/">City News</a><nav><a href="/sport">Sport</a><a href="/weather">Weather</a></nav></header>
<div class="cookie-banner" role="banner">We use cookies.</div>
<main><article>
<header><h1>Tram fares rise</h1><p class="byline">By Ines Larsson</p></header>
<p>The single ticket will cost<br>3 crowns from May.</p>
<aside>Related: bus timetables</aside>
<p>The council approved the rise on Tuesday.</p>
</article></main>
<footer>Contact us · Privacy</footer>
<noscript>Enable JavaScript</noscript>
</body></html>"""


def test_sphinx_page_keeps_the_document_and_drops_navigation() -> None:
    page = html_to_text(SPHINX_PAGE)

    assert page.title == "asyncio.run — Example 1.0 documentation"
    assert page.canonical_url == "https://docs.example.org/library/run.html"
    for leaked in ("Navigation", "modules", "Table of Contents", "This Page", "Copyright", "previous", "¶", "color"):
        assert leaked not in page.text
    assert "comment nobody should read" not in page.text
    blocks = page.text.split("\n\n")
    assert blocks[0] == "Running coroutines"
    assert "The asyncio.run() function runs the passed coroutine, taking care of managing the event loop." in blocks
    assert "asyncio.run(coro)" in blocks
    assert "Execute the coroutine coro and return the result." in blocks


def test_code_is_kept_verbatim_and_lists_and_table_rows_are_separate_blocks() -> None:
    page = html_to_text(SPHINX_PAGE)
    blocks = page.text.split("\n\n")

    assert "async def main():\n    await asyncio.sleep(1)" in page.text
    assert "asyncio.run(main())" in page.text
    assert "First item" in blocks
    assert "Second item" in blocks
    assert "Mode | Meaning" in blocks
    assert "debug | slow callbacks are logged" in blocks


def test_article_page_keeps_its_heading_and_reads_metadata() -> None:
    page = html_to_text(NEWS_PAGE)

    assert page.author == "Ines Larsson"
    assert page.published == "2024-03-05T08:00:00Z"
    assert page.canonical_url == "https://news.example.com/fares"
    assert page.text.startswith("Tram fares rise\n\nBy Ines Larsson")
    assert "The council approved the rise on Tuesday." in page.text
    for leaked in ("Sport", "Weather", "cookies", "Related: bus", "Privacy", "JavaScript", "City News"):
        assert leaked not in page.text


def test_line_break_inside_a_paragraph_stays_in_its_block() -> None:
    page = html_to_text(NEWS_PAGE)

    assert "The single ticket will cost\n3 crowns from May." in page.text.split("\n\n")


def test_json_ld_supplies_author_and_date_when_meta_tags_do_not() -> None:
    html = """<html><head><title>Report</title><script type="application/ld+json">
    {"@context": "https://schema.org", "@type": "NewsArticle", "author": [{"@type": "Person", "name": "Ola Berg"}],
     "datePublished": "2023-11-02"}</script></head><body><article><p>Body text.</p></article></body></html>"""

    page = html_to_text(html)

    assert (page.author, page.published, page.text) == ("Ola Berg", "2023-11-02", "Body text.")


def test_longest_article_is_the_content() -> None:
    html = """<html><body><article><p>Teaser one.</p></article>
    <article><p>The real story is considerably longer than any teaser on the page.</p></article></body></html>"""

    assert html_to_text(html).text == "The real story is considerably longer than any teaser on the page."


def test_title_falls_back_to_the_first_heading_and_text_to_the_body() -> None:
    page = html_to_text("<html><body><h1>Only  heading</h1><div>Loose text</div></body></html>")

    assert page.title == "Only heading"
    assert page.text == "Only heading\n\nLoose text"


def test_empty_and_broken_markup_do_not_fail() -> None:
    assert html_to_text("").text == ""
    assert html_to_text("<p>unclosed <b>bold").text == "unclosed bold"


def test_deeply_nested_markup_does_not_hit_the_recursion_limit() -> None:
    html = "<div>" * 3000 + "deep text" + "</div>" * 3000

    assert html_to_text(html).text == "deep text"


DOCBOOK_PAGE = """<html><head><title>25.1. SQL Dump</title></head><body>
<div class="navheader"><table width="100%" summary="Navigation header">
<tr><th colspan="3" align="center">25.1.6. Using pg_dumpall</th></tr>
<tr><td><a accesskey="p" href="a.html">Prev</a> </td><th>Chapter 25. Backup and Restore</th>
<td><a accesskey="n" href="b.html">Next</a></td></tr></table><hr></div>
<div class="breadcrumbs"><a href="index.html">Docs</a> » <a href="backup.html">Backup</a> » 25.1.6</div>
<div class="sect2"><h3>25.1.6. Using pg_dumpall</h3>
<p>The dump script should be restored with psql, connected to the postgres database.</p>
<p><a href="p.html">Prev</a> | <a href="u.html">Up</a> | <a href="/">Home</a> | <a href="n.html">Next</a></p>
<p>Next: <a href="x.html">Missing Features</a>, Previous: <a href="y.html">Using libffi</a>, Up: <a href="/">libffi</a>
[<a href="i.html">Index</a>]</p>
<p>The core routines are:</p>
<ul><li><a href="c3ref/open.html">sqlite3_open()</a></li><li><a href="c3ref/close.html">sqlite3_close()</a></li></ul>
<p><a href="git-merge.html">git-merge(1)</a>, <a href="git-pull.html">git-pull(1)</a></p>
</div>
<div class="menu mainmenu"><ul><li><a href="index.html">Home</a></li><li><a href="about.html">About</a></li></ul></div>
<div class="navfooter"><hr><table width="100%" summary="Navigation footer">
<tr><td><a href="a.html">Prev</a> </td><td><a href="c.html">Up</a></td><td> <a href="b.html">Next</a></td></tr>
<tr><td>25.1.5. Restoring the Dump </td><td><a href="index.html">Home</a></td><td> 25.2. File System Level Backup</td>
</tr></table></div>
</body></html>"""


def test_navigation_lines_and_blocks_are_dropped_but_lists_of_links_in_the_text_are_kept() -> None:
    text = html_to_text(DOCBOOK_PAGE).text

    for navigation in ("Prev", "Next", "Home", "Chapter 25", "Docs", "25.1.5", "Missing Features", "About"):
        assert navigation not in text
    assert text.split("\n\n") == [
        "25.1.6. Using pg_dumpall",
        "The dump script should be restored with psql, connected to the postgres database.",
        "The core routines are:",
        "sqlite3_open()",
        "sqlite3_close()",
        "git-merge(1), git-pull(1)",
    ]


PYTHON_DOCS = [Path("/usr/share/doc/python3.11/html"), Path("/usr/share/doc/python3-doc/html")]


@pytest.mark.parametrize(
    ("page", "sentence"),
    [
        (
            "library/asyncio-task.html",
            "Coroutines declared with the async/await syntax is the preferred way of writing asyncio applications.",
        ),
        (
            "library/sys.html",
            "Return the current value of the recursion limit, the maximum depth of the Python interpreter stack.",
        ),
        (
            "tutorial/classes.html",
            "Compared with other programming languages, Python’s class mechanism adds classes with a minimum of new "
            "syntax and semantics.",
        ),
    ],
)
def test_real_python_documentation_pages(page: str, sentence: str) -> None:
    root = next((folder for folder in PYTHON_DOCS if (folder / page).is_file()), None)
    if root is None:
        pytest.skip("Python documentation not installed (apt-get install python3-doc)")

    extracted = html_to_text((root / page).read_text(encoding="utf-8"))

    assert extracted.title.endswith("documentation")
    assert any(sentence in line for line in extracted.text.splitlines())  # whole, on one line
    for leaked in ("Quick search", "Show Source", "Report a Bug", "Previous topic", "Next topic", "Navigation", "¶"):
        assert leaked not in extracted.text


def test_a_heading_keeps_its_words_without_the_permalink_mark_of_any_generator() -> None:
    page = html_to_text(
        "<html><body><h2><a id='rp'></a>Reverse Proxy <a class='permalink' href='#rp'>&para;</a></h2>"
        "<p>httpd can act as a gateway.</p><h3>Marks <a href='#m'>#</a></h3><p>See <a href='#x'>section 4</a>.</p>"
        "</body></html>"
    )
    assert page.text.split("\n\n")[:2] == ["Reverse Proxy", "httpd can act as a gateway."]
    assert "Marks\n\nSee section 4." in page.text


def test_a_drop_down_list_inside_a_sentence_is_not_read_but_a_box_of_links_beside_it_is() -> None:
    page = html_to_text(
        '<html><body><pre>Paths are relative to "<span class="dropdown"><a href="#">ca-file</a><ul>'
        '<li>This keyword is available in sections :</li><li><a href="#b">Bind options</a></li></ul></span>", '
        '"<a href="#v">ca-verify-file</a>" or "crl-file".</pre>'
        "<div><span><ul><li><a href='docs.html'>Categorical Document List</a></li></ul></span></div></body></html>"
    )
    assert page.text.split("\n\n") == [
        'Paths are relative to "ca-file", "ca-verify-file" or "crl-file".',
        "Categorical Document List",
    ]


def test_a_breadcrumb_of_links_between_angle_brackets_is_dropped_but_a_comparison_in_a_sentence_is_not() -> None:
    page = html_to_text(
        '<html><body><div id="path"><a href="https://www.apache.org/">Apache</a> &gt; '
        '<a href="https://httpd.apache.org/">HTTP Server</a> &gt; <a href="../index.html">Version 2.4</a> &gt; '
        '<a href="./index.html">Modules</a></div><h1>Apache Core Features</h1>'
        '<p><a href="a.html">MaxClients</a> &gt; <a href="b.html">ServerLimit</a> is refused at start-up.</p>'
        "</body></html>"
    )
    assert page.text.split("\n\n") == ["Apache Core Features", "MaxClients > ServerLimit is refused at start-up."]


def test_a_row_of_navigation_buttons_is_dropped_even_when_its_buttons_lead_within_the_page() -> None:
    page = html_to_text(
        '<html><body><table><tr><td>[<a href="#Expansion" title="Beginning of this chapter"> &lt;&lt; </a>]</td>'
        '<td>[<a href="#Expansion" title="Previous section"> &lt; </a>]</td><td>[<a href="#Top"> Up </a>]</td>'
        '<td>[<a href="zsh_abt.html"> ? </a>]</td></tr></table><h2>14 Expansion</h2>'
        '<p>See <a href="#Globbing">Globbing</a> | <a href="#Filename">Filename Generation</a></p></body></html>'
    )
    assert page.text.split("\n\n") == ["14 Expansion", "See Globbing | Filename Generation"]


def test_a_definition_lists_field_label_reads_with_its_value_and_a_term_heads_its_description() -> None:
    page = (
        "<html><body><h4>socket-timeout</h4><dl><dt>Default value:</dt><dd><p>None</p></dd>"
        "<dt>Effect if unset:</dt><dd><p>A default value of 300 seconds\n is used.</p></dd>"
        "<dt>Return type<span class='colon'>:</span></dt><dd><p>str</p></dd>"
        "<dt><code>--depth &lt;n&gt;</code></dt><dd><p>Limit the history.</p></dd></dl></body></html>"
    )
    blocks = html_to_text(page).text.split("\n\n")
    assert blocks == [
        "socket-timeout",
        "Default value: None",
        "Effect if unset: A default value of 300 seconds is used.",
        "Return type: str",
        "--depth <n>",
        "Limit the history.",
    ]


def test_a_docutils_topic_or_footnote_is_text_though_written_as_an_aside() -> None:
    page = html_to_text(
        "<html><body><div class='body'><h1>Canvas</h1>"
        "<aside class='topic'><p class='topic-title'>Overview</p>"
        "<p>A chord is just like a group but with a callback.</p></aside>"
        "<aside class='footnote brackets'><p>The header is a group.</p></aside>"
        "<aside class='sidebar'><p>Related pages</p></aside></div></body></html>"
    )
    assert "A chord is just like a group but with a callback." in page.text
    assert "The header is a group." in page.text
    assert "Related pages" not in page.text


def test_an_index_table_is_navigation_and_a_table_of_content_is_kept() -> None:
    page = (
        "<html><body><h2>Add-on packages</h2><p>Use R CMD INSTALL -l to install into a library of your own.</p>"
        '<table class="index-cp"><tr><th>Index Entry</th><th>Section</th></tr>'
        '<tr><td><a href="#L">Libraries</a>:</td><td><a href="#A">Add-on packages</a></td></tr></table>'
        "<table><tr><td>lib.loc</td><td>the library trees to search</td></tr></table></body></html>"
    )
    text = html_to_text(page).text
    assert "Libraries" not in text and "Index Entry" not in text
    assert "lib.loc | the library trees to search" in text
    assert "Use R CMD INSTALL -l to install into a library of your own." in text
