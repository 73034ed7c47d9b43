"""Synonym groups: a question's words and the words a manual answers in."""

from __future__ import annotations

from research_assistant.text.synonyms import synonym_words, synonyms


def test_the_words_of_a_texts_synonym_groups_that_it_does_not_use() -> None:
    extra = synonym_words("What is the largest message the server will accept by default?")
    assert {"maximum", "size", "initial"} <= set(extra)
    assert "largest" not in extra and "default" not in extra
    assert synonym_words("How are tram fares paid?") == []


def test_synonyms_are_stems_of_the_same_group() -> None:
    assert "maximum" in synonyms("largest") and "size" in synonyms("largest")
    assert synonyms("tram") == ()


def test_a_gzipped_file_is_a_compressed_one() -> None:
    assert "compressed" in synonym_words("Can the copyright file be shipped gzipped?")


def test_a_reply_is_a_response_and_an_encoding_a_charset() -> None:
    assert "respond" in synonym_words("How long until we should expect a first reply?")
    assert "charset" in synonym_words("What encoding does it fall back to?")
