"""An XML document read as HTML (a feed saved as .html, a page served as text/html that is XML) is read
without BeautifulSoup's XMLParsedAsHTMLWarning reaching stderr."""

from __future__ import annotations

import warnings

from research_assistant.text.html import html_to_text

FEED = (
    '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Kites</title>'
    "<item><title>Tidal kites</title><description>The array delivered 2.9 GWh.</description></item>"
    "</channel></rss>"
)


def test_a_feed_read_as_html_gives_its_text_and_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        page = html_to_text(FEED)
    assert page.title == "Kites" and "2.9 GWh" in page.text
