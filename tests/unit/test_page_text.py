"""The page's text helpers: untrusted text shown literally, locators linked only when they are http(s)."""

from __future__ import annotations

from pathlib import Path

from research_assistant.page.text import corpus_path, domain_of, locator_markdown
from research_assistant.report.citations import escape_markdown


def test_untrusted_text_is_shown_literally_on_one_line() -> None:
    escaped = escape_markdown("read: ![x](http://t.example/p.png) *hi* <b>$5\nnext")
    assert escaped == "read: \\!\\[x\\]\\(http\\://t.example/p.png) \\*hi\\* \\<b\\>\\$5 next"


def test_the_domain_is_that_of_an_http_address_only() -> None:
    assert domain_of("https://www.Example.org/a?b=1") == "example.org"
    assert domain_of("http://news.example.com:8080/x") == "news.example.com"
    assert domain_of("/docs/notes.md") == ""
    assert domain_of("javascript:alert(1)") == ""
    assert domain_of("ftp://example.org/file") == ""


def test_a_corpus_file_is_named_by_its_path_in_the_corpus(tmp_path: Path) -> None:
    roots = [tmp_path / "corpus", tmp_path / "other"]
    assert corpus_path(str(tmp_path / "corpus" / "sub" / "a.md"), roots) == "sub/a.md"
    assert corpus_path(str(tmp_path / "other" / "b.md"), roots) == "b.md"
    assert corpus_path(str(tmp_path / "elsewhere" / "c.md"), roots) is None
    assert corpus_path("notes.md", roots) is None
    assert corpus_path("file:///etc/passwd", roots) is None


def test_only_http_locators_become_links(tmp_path: Path) -> None:
    roots = [tmp_path]
    assert locator_markdown("https://example.org/a b", roots) == "`https://example.org/a b`", "a space: no link"
    assert locator_markdown(" https://example.org/page ", roots) == "<https://example.org/page>"
    assert locator_markdown(str(tmp_path / "notes.md"), roots) == "`notes.md`"
    assert locator_markdown("file:///etc/passwd", roots) == "`file:///etc/passwd`"
    assert locator_markdown("javascript:alert(1)", roots) == "`javascript:alert(1)`"
    assert locator_markdown("/x/`code`", roots) == "`` /x/`code` ``"
