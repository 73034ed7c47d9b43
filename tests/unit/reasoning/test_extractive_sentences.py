"""Sentence splitting and the real-sentence test used to pick evidence."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.extractive.candidates import candidates
from research_assistant.reasoning.extractive.sentences import is_informative, is_table_row, split_sentences
from research_assistant.schemas import Passage

DOC_PAGE = """sys.getrecursionlimit()
Return the current value of the recursion limit, the maximum depth of the Python interpreter stack. \
This limit prevents infinite recursion from causing an overflow of the C stack and crashing Python.

Installation
- Download the installer from python.org, e.g. the 64-bit version for Windows.
- Run the installer and tick "Add python.exe to PATH".

Python was conceived in the late 1980s by Guido van Rossum at Centrum Wiskunde & Informatica in the
Netherlands as a successor to the ABC programming language, and its implementation began in
December 1989.[1] Python 3.0 was released in 2008.
"""


def test_every_span_is_exact() -> None:
    sentences = split_sentences(DOC_PAGE)
    assert sentences
    for s in sentences:
        assert DOC_PAGE[s.start : s.end] == s.text
        assert s.text == s.text.strip()


def test_headings_and_list_items_are_their_own_units() -> None:
    texts = [s.text for s in split_sentences(DOC_PAGE)]
    assert "sys.getrecursionlimit()" in texts
    assert "Installation" in texts
    assert "Download the installer from python.org, e.g. the 64-bit version for Windows." in texts
    assert 'Run the installer and tick "Add python.exe to PATH".' in texts


def test_abbreviation_does_not_end_a_sentence() -> None:
    texts = [s.text for s in split_sentences("Use a recent release, e.g. Python 3.12 or later. Then run it.")]
    assert texts == ["Use a recent release, e.g. Python 3.12 or later.", "Then run it."]


def test_etc_ends_a_sentence_only_before_a_capital() -> None:
    texts = [s.text for s in split_sentences("Which file types, attributes, etc. are not preserved? Sockets.")]
    assert texts == ["Which file types, attributes, etc. are not preserved?", "Sockets."]
    texts = [s.text for s in split_sentences("It reads files, pipes, etc. The rest is ignored.")]
    assert texts == ["It reads files, pipes, etc.", "The rest is ignored."]


def test_wrapped_lines_are_joined_into_one_sentence() -> None:
    texts = [s.text for s in split_sentences(DOC_PAGE)]
    wrapped = next(t for t in texts if t.startswith("Python was conceived"))
    assert wrapped.endswith("December 1989.")
    assert "\n" in wrapped  # the span crosses the line breaks of the original text
    assert "Python 3.0 was released in 2008." in texts


def test_leading_citation_marks_and_list_markers_are_dropped() -> None:
    text = "It was popular.[2] Its syntax is simple and readable for newcomers.\n* Another item is here now."
    texts = [s.text for s in split_sentences(text)]
    assert "Its syntax is simple and readable for newcomers." in texts
    assert "Another item is here now." in texts


@pytest.mark.parametrize(
    "fragment",
    [
        "Table of contents",
        "sys.getrecursionlimit()",
        ">>> import sys",
        "x = compute(a, b) + offset[3]",
        "Home » Library » sys",
        "What is the default recursion limit?",
        "Installing Python Packages",
        "Privacy policy About Wikipedia Disclaimers",
        "1000",
        "Origin, Providers and Subscribers",
        "What Is New In This Release",
    ],
)
def test_fragments_are_not_evidence(fragment: str) -> None:
    assert not is_informative(fragment)


@pytest.mark.parametrize(
    "sentence",
    [
        "The default recursion limit is 1000 in CPython.",
        "Run the installer and tick the box to add Python to PATH.",
        "Python 3.0 was released in 2008.",
        'slonik is Russian for "little elephant"',  # a list item without a full stop, joined by its copula
    ],
)
def test_real_sentences_are_evidence(sentence: str) -> None:
    assert is_informative(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "This requires that the chunk data appears in the same order as the table of contents.",
        "For this example to work, you must be able to log in to the remote machine without a password.",
        "Due to a misdesign in ASS aspect ratio arithmetic, this is necessary to correctly scale the fonts.",
        "<timeout> is the time the connection needs to remain idle before TCP starts sending keepalive probes.",
        "[Well, the truth is, the counter is incremented every time an entry is selected.",
        "AND and OR lists are sequences of pipelines separated by the control operators '&&' and '||'.",
        "If this many milliseconds nothing is typed the swap file will be written to disk (see |crash-recovery|).",
        "An (unofficial) wiki can be found at https://gitlab.com/muttmua/mutt/wikis/home for the curious.",
        'Docutils is short for "Python Documentation Utilities".',  # capitals in quotes are a name, not a title
        "The state sockets default to /var/state/ups on most systems.",  # a path is a name, not code
    ],
)
def test_prose_that_mentions_navigation_words_operators_links_or_placeholders_is_evidence(sentence: str) -> None:
    assert is_informative(sentence)


def test_a_help_files_link_opening_a_line_is_no_list_item() -> None:
    text = "The swap file is written when this many milliseconds pass.  Also used for the\n|CursorHold| event."
    assert split_sentences(text)[-1].text == "Also used for the\n|CursorHold| event."


def test_a_synopsis_with_alternatives_in_brackets_is_not_a_table_row() -> None:
    assert not is_table_row("prompt [ -p | -h ] [ theme ... ]")
    assert not is_table_row("git [--version | --help] <command>")
    assert is_table_row("--opt [a | b] | what the option does")
    assert is_table_row("h | short | integer | 2")


def test_a_value_wrapped_onto_the_next_line_after_its_label_stays_with_it() -> None:
    """Manuals wrapped at a fixed width may break 'Default: 32.' after its colon; a lead-in's colon still ends its
    line ('The options are:' above '-a')."""
    text = "Metric 0 means undefined, or per-route metric is set with an attribute. Default:\n32.\n\nThe options are:"
    text += "\n-a"
    assert [s.text for s in split_sentences(text)] == [
        "Metric 0 means undefined, or per-route metric is set with an attribute.",
        "Default:\n32.",
        "The options are:",
        "-a",
    ]


def test_a_value_field_that_ends_a_paragraph_is_quoted_with_the_sentence_before_it() -> None:
    text = "metric number\n\nMetric 0 means undefined, or per-route metric is set with an attribute. Default: 32."
    quotes = [c.quote for c in candidates([Passage(source_id="s", text=text)])]
    assert "Metric 0 means undefined, or per-route metric is set with an attribute. Default: 32." in quotes
