"""Candidate quotes: the informative sentences of retrieved passages, with the context they need.

A candidate is one contiguous span of its passage, so its text is always an exact
quote. Fragments cut off at a chunk's edges are skipped; a sentence that opens
with a bare pronoun keeps the sentence before it, and a description right under
a signature line (as in API documentation) keeps that line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.knowledge.text import words
from research_assistant.reasoning.extractive.lexicon import AUXILIARY_VERBS, PRONOUN_STARTS
from research_assistant.reasoning.extractive.sentences import Sentence, is_informative, split_sentences
from research_assistant.schemas import Passage

_SIGNATURE = re.compile(r"^@?(?:class\s+)?[A-Za-z_][\w.]*\([^()]{0,80}\)(?:\s*->\s*[\w.\[\], ]+)?:?$")
_DEMONSTRATIVES = frozenset({"this", "these", "that", "those", "such"})
_ENDS = re.compile(r"""[.!?:;]["'”’)\]]*$""")


@dataclass(frozen=True)
class Candidate:
    """A sentence (or a pronoun-led sentence with the one before it) of one passage."""

    passage_index: int
    start: int
    end: int
    quote: str
    """`passage.text[start:end]`, exactly."""
    focal: str
    """The sentence itself, without the context kept before it."""
    heading: str = ""
    """The nearest heading or term line above the sentence in its passage ('global interpreter lock' above
    its glossary definition): what the sentence is about when it does not say so itself."""
    lead: bool = False
    """Whether it is the first sentence under that heading: where a term's definition stands."""


def candidates(passages: list[Passage]) -> list[Candidate]:
    """Informative sentences of every passage, skipping fragments cut off at a chunk's edges."""
    found: list[Candidate] = []
    for index, passage in enumerate(passages):
        text = passage.text
        sentences = split_sentences(text)
        body_start = len(text) - len(text.lstrip())
        body_end = len(text.rstrip())
        heading, lead = "", False
        for position, sentence in enumerate(sentences):
            if _is_heading(sentence, sentences[position + 1] if position + 1 < len(sentences) else None):
                heading, lead = _SECTION_NUMBER.sub("", sentence.text.lstrip("#* ")).strip(), True
                continue
            if not is_informative(sentence.text):
                continue
            if sentence.start == body_start and sentence.text[:1].islower():
                continue  # starts mid-sentence: the chunk began inside it
            if sentence.end == body_end and not _ENDS.search(sentence.text):
                continue  # ends mid-sentence: the chunk was cut inside it
            start = _context_start(text, sentences, position)
            found.append(
                Candidate(index, start, sentence.end, text[start : sentence.end], sentence.text, heading, lead)
            )
            lead = False
    return found


_HEADING_MAX_WORDS = 10
_HEADING_START = re.compile(r"^(?:#+\s*)?(?:(?:\d+\.)+\d*\s+)?[A-Za-z_@]")
_SECTION_NUMBER = re.compile(r"^(?:\d+\.)+\d*\s+")
"""'3.3.2.4. ' before a heading's words."""


def _is_heading(sentence: Sentence, following: Sentence | None) -> bool:
    """A short line of its own with no closing punctuation, followed by another block: a heading or a term."""
    if following is None or following.segment == sentence.segment:
        return False
    text = sentence.text.strip()
    if not _HEADING_START.match(text):
        return False  # code ('>>> zip(a, b)'), output ('2 toe'), prompts
    return 0 < len(text.split()) <= _HEADING_MAX_WORDS and not re.search(r"[.!?;,]$", text)


def _context_start(text: str, sentences: list[Sentence], position: int) -> int:
    """Where the quote starts: earlier when the sentence needs the line or sentence before it.

    A description right under a signature line ('sys.setrecursionlimit(limit)') keeps the
    signature; a sentence opening with a bare pronoun ('It can be set by ...') keeps the
    sentence before it. The quote stays one contiguous span of the passage.
    """
    sentence = sentences[position]
    if position == 0:
        return sentence.start
    previous = sentences[position - 1]
    gap = text[previous.end : sentence.start]
    if previous.segment != sentence.segment and _SIGNATURE.match(previous.text) and gap.count("\n") <= 2:
        return previous.start if not gap.strip() else sentence.start
    joined = sentence.end - previous.start
    if _leans_on_previous(sentence.text) and previous.segment == sentence.segment and joined <= 500:
        return previous.start if is_informative(previous.text) else sentence.start
    return sentence.start


def _leans_on_previous(sentence: str) -> bool:
    """'It is 1000 by default.': a bare pronoun subject that needs the sentence before it."""
    head = words(sentence)[:2]
    if not head or head[0] not in PRONOUN_STARTS:
        return False
    return head[0] not in _DEMONSTRATIVES or (len(head) > 1 and head[1] in AUXILIARY_VERBS)
