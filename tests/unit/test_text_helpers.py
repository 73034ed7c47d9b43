"""The ground floor's small text helpers that every layer shares: one line of a text, collapsed fields, links."""

from __future__ import annotations

from research_assistant.text.spaces import clip, collapsed, first_line, one_line
from research_assistant.text.tokens import compound_pairs, index_words, terms_of
from research_assistant.text.urls import is_linkable_url


def test_one_line_keeps_the_first_line_and_clips_it() -> None:
    assert first_line("\n  first  \nsecond") == "first"
    assert first_line(" \n\t\n") == ""
    assert one_line("\n  first  \nsecond") == "first"
    assert one_line("x" * 400, width=10) == "x" * 9 + "…"
    assert one_line("") == ""
    assert clip("short", 10) == "short"


def test_a_field_is_collapsed_when_it_is_text_and_empty_when_it_is_not() -> None:
    assert collapsed("  A \n title\twith  gaps ") == "A title with gaps"
    assert collapsed(None) == ""
    assert collapsed(["a list"]) == ""


def test_only_a_bare_http_address_without_spaces_or_brackets_is_linkable() -> None:
    assert is_linkable_url("https://example.org/a?b=1")
    assert is_linkable_url("HTTP://Example.org")
    assert not is_linkable_url(" https://example.org/page "), "surrounding space: the caller strips it"
    assert not is_linkable_url("https://example.org/a b")
    assert not is_linkable_url("https://example.org/<script>")
    assert not is_linkable_url("https://example.org/\x07")
    assert not is_linkable_url("ftp://example.org/file")
    assert not is_linkable_url("/docs/notes.md")


def test_a_hyphenated_name_is_found_by_its_parts_as_well() -> None:
    terms = terms_of("Linux-PAM (Pluggable Authentication Modules for Linux)")
    assert "linux-pam" in terms and "pam" in terms and "linux" in terms


def test_two_words_side_by_side_may_be_one_name() -> None:
    pairs = compound_pairs("What program does Mutt use to send mail, by default?")
    assert pairs["sendmail"] == ("send", "mail")
    assert not any(joined.startswith("mail") for joined in pairs)  # a comma parts 'mail' from 'by'


def test_one_letter_options_and_version_numbers_become_words() -> None:
    assert index_words("diff -U or -u (-n), ‘-U’ again") == "shortoptucap shortoptu shortoptn"
    assert index_words("-Cem, --unified, x-y, a - b, e-mail, 2023, a.b.c") == ""
    assert index_words("Release notes for v3.4.1 (see 3.4).") == "ver3d4d1 ver3d4"
