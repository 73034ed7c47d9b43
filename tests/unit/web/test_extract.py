"""Page extraction: the article and its metadata without the page around it, PDFs, text, and pages to render."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from research_assistant.web.extract import LARGE_HTML, ExtractionError, extract_page, iso_date, looks_script_only
from research_assistant.web.fetched import FetchedPage, FetchError

URL = "https://news.example.com/2024/03/05/tram-fares"

ARTICLE = [
    "The city council voted on Tuesday to raise the price of a single tram ticket from 2.50 to 3 crowns, "
    "the first increase in six years.",
    "Council members said the extra revenue, estimated at 40 million crowns a year, would pay for new "
    "low-floor trams on the northern lines.",
    "Opposition members argued that the rise would hit commuters from the outer districts hardest, and "
    "proposed a discounted monthly pass instead.",
    "The new fares take effect on the first of May, and tickets bought before that date remain valid "
    "until the end of June.",
]
WRAPPED = ARTICLE[1].replace(" ", "\n      ", 3)
"""Hard-wrapped in the markup, as editors leave it; a reader sees one line."""
BOILERPLATE = [
    "We value your privacy",
    "Manage preferences",
    "Sponsored",
    "Best mortgage rates",
    "More from City",
    "Mayor opens new bridge",
    "Sign up for our daily briefing",
    "This is nonsense",
    "About us",
    "Share on Facebook",
]

NEWS_PAGE = f"""<html lang="en"><head><title>Tram fares to rise in May - City Tribune</title>
<script type="application/ld+json">{{"@type": "NewsArticle", "author": {{"@type": "Person", "name": "Ines Larsson"}},
"datePublished": "2024-03-05T08:00:00+01:00"}}</script>
<link rel="canonical" href="/news/tram-fares">
</head><body>
<div id="top"><div class="menu"><a href="/">Home</a> <a href="/city">City</a> <a href="/sport">Sport</a></div></div>
<div class="consent"><h2>We value your privacy</h2><p>We and our 842 partners store and access information on your
device for personalised ads.</p><a href="#">Manage preferences</a> <a href="#">Agree</a></div>
<div class="wrapper"><div class="col-left">
<div class="headline"><h1>Tram fares to rise in May</h1></div>
<div class="share"><a href="#">Share on Facebook</a> <a href="#">Share on X</a></div>
<div class="story-body">
<p>{ARTICLE[0]}</p>
<p>{WRAPPED}</p>
<div class="promo"><span>Sponsored</span><a href="/ad">Best mortgage rates this month: compare twelve banks</a></div>
<p>{ARTICLE[2]}</p>
<p>{ARTICLE[3]}</p>
</div>
<div class="more"><h3>More from City</h3>
<div><a href="/s1">Mayor opens new bridge across the river after two years of works</a></div>
<div><a href="/s2">Weather warning for the weekend as storms approach the coast</a></div></div>
<div class="signup"><p>Sign up for our daily briefing and get the top stories in your inbox every morning.</p></div>
<div id="comments"><div class="comment"><p>This is nonsense, my tram was late again this morning.</p></div></div>
</div></div>
<div id="footer"><a href="/about">About us</a> Copyright 2024 City Tribune</div>
</body></html>"""

CODE = "import asyncio\n\nasync def main() -> None:\n    await asyncio.sleep(1)"
DOCS_PAGE = f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />
<title>Runners — Example 1.0 documentation</title></head><body>
<div class="related" role="navigation"><a href="genindex.html">index</a> | <a href="modules.html">modules</a></div>
<div class="document"><div class="body" role="main">
<section><h1>Runners<a class="headerlink" href="#runners">¶</a></h1>
<p>This section outlines high-level asyncio primitives to run asyncio code.</p>
<dl class="py function"><dt><code>asyncio.run</code>(<em>coro</em>)</dt>
<dd><p>Execute the coroutine <em>coro</em> and return the result.</p>
<p>This function always creates a new event loop and closes it at the end.</p>
<div class="highlight"><pre><span>{CODE.replace(chr(10), "</span>" + chr(10) + "<span>")}</span></pre></div>
<div class="versionchanged"><p><span class="versionmodified">Changed in version 3.10: </span>debug is None by
default.</p></div></dd></dl></section></div></div>
<div class="sphinxsidebar" role="navigation"><h3>Table of Contents</h3></div>
<div class="footer">© Copyright 2001-2023.</div></body></html>"""


def html_page(html: str, *, url: str = URL, charset: str | None = "utf-8", encoding: str = "utf-8") -> FetchedPage:
    return FetchedPage(
        url=url, final_url=url, status=200, content_type="text/html", body=html.encode(encoding), charset=charset
    )


def make_pdf(lines: list[str], metadata: dict[str, str] | None = None) -> bytes:
    """A real one-page PDF whose text layer holds `lines`."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=612, height=792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})}
    )
    content = DecodedStreamObject()
    content.set_data(("BT /F1 11 Tf 14 TL 72 740 Td " + " ".join(f"({line}) Tj T*" for line in lines) + " ET").encode())
    page[NameObject("/Contents")] = writer._add_object(content)
    if metadata:
        writer.add_metadata(metadata)
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def test_article_is_kept_paragraph_by_paragraph_and_boilerplate_is_dropped() -> None:
    page = extract_page(html_page(NEWS_PAGE))

    blocks = page.text.split("\n\n")
    for paragraph in ARTICLE:  # the second one is hard-wrapped in the markup: a reader sees one line
        assert paragraph in blocks
    for phrase in BOILERPLATE:
        assert phrase not in page.text
    assert page.extractor == "trafilatura"


def test_metadata_comes_from_the_markup() -> None:
    page = extract_page(html_page(NEWS_PAGE))

    assert page.title == "Tram fares to rise in May"
    assert page.author == "Ines Larsson"
    assert page.published == "2024-03-05"
    assert page.canonical_url == "https://news.example.com/news/tram-fares"
    assert page.final_url == URL
    assert page.content_type == "text/html"
    assert page.language == "en"


@pytest.mark.parametrize("href", ["javascript:void(0)", "ftp://files.example.com/fares", "mailto:desk@example.com"])
def test_only_web_canonical_urls_are_kept(href: str) -> None:
    html = NEWS_PAGE.replace('href="/news/tram-fares"', f'href="{href}"')

    assert extract_page(html_page(html)).canonical_url is None


def test_documentation_pages_keep_notes_definitions_and_code_verbatim() -> None:
    page = extract_page(html_page(DOCS_PAGE, url="https://docs.example.org/library/runners.html"))

    assert page.extractor == "html_text"
    assert CODE in page.text
    assert "Changed in version 3.10: debug is None by default." in page.text
    assert "asyncio.run(coro)" in page.text
    for leaked in ("Table of Contents", "modules", "Copyright", "¶"):
        assert leaked not in page.text
    assert page.title == "Runners"


def test_a_manual_sized_page_is_read_whole_without_trafilatura() -> None:
    """Trafilatura's cost grows faster than the page (16 s of CPU for a 2.6 MB configuration manual, and a run gave
    up on the page); past `LARGE_HTML` the page is read as a documentation generator's is, every entry kept."""
    entries = "".join(
        f"<h3>option-{i}</h3><p>Sets limit {i} of the server; the default value is {i * 7} seconds.</p>"
        for i in range(LARGE_HTML // 90)
    )
    manual = f"<html><head><title>Manual</title></head><body><main>{entries}</main></body></html>"
    page = extract_page(html_page(manual))

    assert page.extractor == "html_text"
    assert page.title == "Manual"
    assert f"option-{LARGE_HTML // 90 - 1}" in page.text
    assert extract_page(html_page(NEWS_PAGE)).extractor == "trafilatura"  # smaller pages keep trafilatura


def test_only_a_generator_tag_marks_a_documentation_page() -> None:
    about_sphinx = NEWS_PAGE.replace("<head>", '<head><meta name="description" content="Sphinx makes docs">')
    reversed_tag = DOCS_PAGE.replace(
        '<meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />',
        '<meta content="Sphinx 7.2" name="generator">',
    )

    assert extract_page(html_page(about_sphinx)).extractor == "trafilatura"
    assert CODE in extract_page(html_page(reversed_tag)).text
    assert extract_page(html_page(reversed_tag)).extractor == "html_text"


def test_code_flattened_by_trafilatura_is_restored_verbatim() -> None:
    code = "total = 0\nfor n in range(10):\n    total += n\nprint(total)"
    html = NEWS_PAGE.replace(
        f"<p>{ARTICLE[3]}</p>",
        f"<p>{ARTICLE[3]}</p><ul><li><p>The fare model, step by step:</p><pre><span>{code}</span></pre></li></ul>",
    )

    page = extract_page(html_page(html))

    assert code in page.text
    assert ARTICLE[3] in page.text.split("\n\n")


def test_charset_declared_in_the_page_is_used_when_the_server_sent_none() -> None:
    html = NEWS_PAGE.replace("<head>", '<head><meta charset="windows-1252">').replace(
        "council", "conseil municipal été"
    )

    page = extract_page(html_page(html, charset=None, encoding="cp1252"))

    assert "conseil municipal été" in page.text


def test_utf8_page_the_server_labels_latin1_is_read_as_utf8() -> None:
    html = NEWS_PAGE.replace("council", "conseil municipal été")

    page = extract_page(html_page(html, charset="ISO-8859-1", encoding="utf-8"))

    assert "conseil municipal été" in page.text


def test_xhtml_with_an_xml_declaration_is_read_like_html(recwarn: pytest.WarningsRecorder) -> None:
    xhtml = '<?xml version="1.0" encoding="UTF-8"?>\n' + NEWS_PAGE
    page = FetchedPage(url=URL, final_url=URL, status=200, content_type="application/xhtml+xml", body=xhtml.encode())

    extracted = extract_page(page)

    assert ARTICLE[0] in extracted.text.split("\n\n")
    assert "Sponsored" not in extracted.text
    assert not [warning for warning in recwarn if "XML" in str(warning.message)]


def test_an_index_page_whose_links_trafilatura_drops_is_read_by_the_soup_extractor() -> None:
    items = "".join(
        f'<li><a href="/guide/{n}">Guide {n}: planning tram route {n} across the centre</a></li>' for n in range(12)
    )
    html = f"<html><body><main><h1>Route guides</h1><ul>{items}</ul></main></body></html>"

    page = extract_page(html_page(html))

    assert page.extractor == "html_text"
    assert "Guide 11: planning tram route 11 across the centre" in page.text.split("\n\n")
    assert page.title == "Route guides"


def test_a_page_without_text_is_an_error_with_a_one_line_reason() -> None:
    html = (
        "<html><head><title>App</title><script src='app.js'></script></head><body><div id='root'></div></body></html>"
    )

    with pytest.raises(ExtractionError) as error:
        extract_page(html_page(html))

    assert isinstance(error.value, FetchError)
    assert str(error.value) == "the page has no readable text"


def test_unreadable_content_types_are_refused() -> None:
    page = FetchedPage(url=URL, final_url=URL, status=200, content_type="image/png", body=b"\x89PNG")

    with pytest.raises(ExtractionError, match="cannot read image/png"):
        extract_page(page)


def test_pdf_text_and_metadata_title() -> None:
    body = make_pdf(
        ["Fare Review 2024", "Single tickets rise to 3 crowns."], {"/Title": "Fare review", "/Author": "Ines"}
    )
    page = FetchedPage(url=URL, final_url=URL + ".pdf", status=200, content_type="application/pdf", body=body)

    extracted = extract_page(page)

    assert extracted.title == "Fare review"
    assert extracted.author == "Ines"
    assert "Single tickets rise to 3 crowns." in extracted.text
    assert extracted.extractor == "pdf"


def test_pdf_without_title_metadata_is_titled_by_its_first_line() -> None:
    body = make_pdf(["Depot Memo", "The depot needs a new roof."])
    page = FetchedPage(url=URL, final_url=URL, status=200, content_type="application/pdf", body=body)

    assert extract_page(page).title == "Depot Memo"


@pytest.mark.parametrize(
    ("body", "reason"),
    [(b"%PDF-1.4 garbage without xref", "PDF"), (make_pdf([]), "no extractable text")],
)
def test_unreadable_pdfs_are_errors_with_a_reason(body: bytes, reason: str) -> None:
    page = FetchedPage(url=URL, final_url=URL, status=200, content_type="application/pdf", body=body)

    with pytest.raises(ExtractionError, match=reason) as error:
        extract_page(page)

    assert "\n" not in str(error.value)


def test_plain_text_and_markdown_are_read_as_they_are() -> None:
    text = FetchedPage(URL, URL, 200, "text/plain", b"Fares\r\n\r\nThe fare rises.\r\n", charset="utf-8")
    markdown = FetchedPage(URL, URL, 200, "text/markdown", b"# Fare rise\n\nThe *fare* rises.\n")

    assert (extract_page(text).title, extract_page(text).text) == ("Fares", "Fares\n\nThe fare rises.")
    assert (extract_page(markdown).title, extract_page(markdown).text) == (
        "Fare rise",
        "# Fare rise\n\nThe *fare* rises.",
    )
    assert extract_page(markdown).extractor == "text"


def test_empty_text_page_is_an_error() -> None:
    with pytest.raises(ExtractionError, match="no text"):
        extract_page(FetchedPage(URL, URL, 200, "text/plain", b" \n \n"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-03-05T08:00:00Z", "2024-03-05"),
        ("2024/3/5", "2024-03-05"),
        ("March 5, 2024", "2024-03-05"),
        ("Tue, 05 Mar 2024 08:00:00 +0000", "2024-03-05"),
        ("2024-02-30", None),
        ("last week", None),
        (None, None),
    ],
)
def test_dates_are_normalized_or_dropped(value: str | None, expected: str | None) -> None:
    assert iso_date(value) == expected


def test_python_documentation_page_keeps_its_code_examples() -> None:
    path = Path("/usr/share/doc/python3.11/html/library/asyncio-runner.html")
    if not path.is_file():
        pytest.skip("Debian's python3-doc is not installed")

    page = extract_page(
        html_page(path.read_text(encoding="utf-8"), url="https://docs.python.org/3/library/asyncio-runner.html")
    )

    assert page.title == "Runners"
    assert "async def main():\n    await asyncio.sleep(1)\n    print('hello')" in page.text
    assert "Changed in version 3.10: debug is None by default to respect the global debug mode settings." in page.text
    assert "Previous topic" not in page.text


# --- Pages that need a browser -----------------------------------------------------------------------------------

LONG_TEXT = "The council approved the new fares. " * 20


@pytest.mark.parametrize(
    ("html", "text", "expected"),
    [
        ('<body><div id="root"></div><script src="/app.js"></script></body>', "", True),
        (
            "<body><noscript>You need to enable JavaScript to run this app.</noscript><p>Loading…</p></body>",
            "Loading…",
            True,
        ),
        ('<body><div id="__next">  </div><p>Loading</p></body>', "Loading", True),
        ("<body><app-root></app-root><p>Loading</p></body>", "Loading", True),
        ("<body>" + "<script src='/x.js'></script>" * 6 + "<p>Loading</p></body>", "Loading", True),
        ("<body><p>Open 6-22.</p></body>", "Open 6-22.", False),
        ("<body><p>Open 6-22.</p><script>track()</script></body>", "Open 6-22.", False),
        ("<body><noscript><img src='/tr?js=1&x=fbevents.js'></noscript><p>Open 6-22.</p></body>", "Open 6-22.", False),
        ('<body><div id="root"></div><script src="/app.js"></script><p>' + LONG_TEXT + "</p></body>", LONG_TEXT, False),
    ],
)
def test_looks_script_only(html: str, text: str, expected: bool) -> None:
    assert looks_script_only(html, text, min_chars=400) is expected


def test_a_table_whose_rows_trafilatura_runs_together_is_read_by_the_soup_extractor() -> None:
    rows = "".join(
        f"<tr><td>%{code}</td><td></td><td>{meaning}</td></tr>"
        for code, meaning in [
            ("d", "day of month: 00"),
            ("H", "hour: 00-24"),
            ("m", "month: 01-12"),
            ("W", "week of year: 00-53"),
        ]
    )
    prose = "<p>The strftime() routine returns the date formatted according to the format string given first. " * 3
    html = (
        f"<html><body>{prose}The following is a complete list of valid substitutions:</p>"
        f"<blockquote><table>{rows}</table></blockquote><p>All other characters are copied into the result.</p>"
        "</body></html>"
    )

    page = extract_page(html_page(html))

    assert "%W | week of year: 00-53" in page.text.split("\n\n")


def test_paragraphs_trafilatura_drops_between_kept_ones_count_as_lost_and_edges_do_not() -> None:
    from research_assistant.web.extract import _blocks_lost_inside

    paragraphs = [f"Paragraph {n} says something about the server that is long enough to count." for n in range(8)]
    page = "\n\n".join(["Site menu: home, about, contact, and a line long enough to be counted.", *paragraphs])
    kept_all = "\n\n".join(paragraphs)
    assert _blocks_lost_inside(page, kept_all) == 0  # the menu before the article is boilerplate, not a loss
    holes = "\n\n".join(p for n, p in enumerate(paragraphs) if n not in (2, 3, 5))
    assert _blocks_lost_inside(page, holes) == 3


def test_headings_trafilatura_drops_between_kept_content_count_as_lost_and_edges_do_not() -> None:
    from research_assistant.web.extract import _headings_lost_inside

    body = "The server keeps several spare processes ready to serve incoming requests at any time."
    sections = ["Summary", "How it Works", "Directives"]
    html = "<h1>Apache MPM prefork</h1>" + "".join(
        f"<h2>{s} <a class='permalink'>¶</a></h2><p>{body}</p>" for s in sections
    )
    page = "\n\n".join(["Apache MPM prefork", *(f"{s}\n\n{n} {body}" for n, s in enumerate(sections))])
    without = "\n\n".join(f"{n} {body}" for n in range(3))
    with_them = "\n\n".join(f"{s}\n\n{n} {body}" for n, s in enumerate(sections))
    # 'Summary' stands before the first kept paragraph, at the edge: only the two inside are lost.
    assert _headings_lost_inside(html, page, without) == 2
    assert _headings_lost_inside(html, page, with_them) == 0
