"""What a 'which X ...?' question asks for: the type of thing (its words after 'which'), the names that only
qualify it, the one-letter names it uses, and the sentences that speak of one thing of that type under a
section named after it."""

from __future__ import annotations

import re

from research_assistant.reasoning.answers import without_context
from research_assistant.reasoning.extractive.candidates import Candidate
from research_assistant.text.tokens import STOPWORDS, words

INSTANCE_ANSWER = 0.75
"""The answer strength of a sentence that speaks of one thing of the asked type ('This hook is invoked ...')
in a section named after that thing ('post-receive'), for 'Which hooks run ...?': the section's name is the
answer, and the report labels the quote with it."""

_ASKED_TYPE = re.compile(
    r"^\s*(?:(?:in|by|with|through|for|on|at)\s+)?(?:which|what)\s+"
    r"((?:(?!(?:do|does|did|is|are|was|were|can|could|should|will|would|has|have|had)\b)[a-z][\w./-]*\s+){1,3})",
    re.IGNORECASE,
)
_INSTANCE_SENTENCE = r"^(?:this|the|that|each|such an?)\s+(?:[\w-]+\s+)?(?:{types})\b"
_MAX_NAME_WORDS = 4


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if re.search(r"(?:ss|x|ch|sh)es$", word):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def asked_types(question: str) -> frozenset[str]:
    """The words that may name the type of thing a 'which X' question asks for, singular: 'hook' for 'Which
    hooks run on the remote repository ...?', 'format' and 'specifier' for 'Which mod_headers format specifier
    adds ...?' (the noun phrase's end is not known without a parser, so each of its first words may be it)."""
    phrase = asked_phrase(question)
    return frozenset(_singular(w) for w in words(phrase.lower()) if len(w) > 2 and w not in STOPWORDS)


def asked_phrase(question: str) -> str:
    """The words between 'which' (or 'what') and the verb: 'mod_headers format specifier' in 'Which mod_headers
    format specifier adds ...?'. Names in it qualify what is asked (a specifier of mod_headers); the answer is
    another name."""
    match = _ASKED_TYPE.match(without_context(question))
    return match.group(1).strip() if match else ""


def names_instance(types: frozenset[str], candidate: Candidate) -> bool:
    """Whether the candidate speaks of one thing of an asked type ('This hook ...', 'The directive ...') under a
    section whose heading is short enough to be that thing's name."""
    if len(candidate.section.split()) > _MAX_NAME_WORDS:
        return False
    pattern = _INSTANCE_SENTENCE.format(types="|".join(re.escape(t) for t in sorted(types)))
    return re.match(pattern, candidate.focal.strip(), re.IGNORECASE) is not None


_LETTER_NAME = re.compile(r"(?<![\w/-])(?![AI]\b)[A-Z](?![\w/-])")


def letter_names(question: str) -> set[str]:
    """Capital letters the question uses as names ('what does a file tagged K mean?', 'the B flag'): too short
    for a search term, but exactly what a one-letter table key or entry term ('K' / 'to be killed') is."""
    return set(_LETTER_NAME.findall(question))
