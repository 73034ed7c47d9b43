"""Which thing a question is about, read from its names: the type a 'which X ...?' question asks for (its
words after 'which') and the names that only qualify it, the one-letter names it uses ('tagged K'), the
sentences that speak of one thing of the asked type under a section named after it, and the settings whose
names are built on the asked one ('RequestReadTimeout' beside 'Timeout'), whose values are not its value."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from research_assistant.reasoning.extractive.candidates import Candidate
from research_assistant.reasoning.questions import without_context
from research_assistant.text.tokens import STOPWORDS, content_terms, words

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


def singular(word: str) -> str:
    """'hooks' -> 'hook', 'entries' -> 'entry', 'classes' -> 'class'; a word not in the plural as it is."""
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
    return frozenset(singular(w) for w in words(phrase.lower()) if len(w) > 2 and w not in STOPWORDS)


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
    return _instance_sentence(types).match(candidate.focal.strip()) is not None


@lru_cache(maxsize=256)
def _instance_sentence(types: frozenset[str]) -> re.Pattern[str]:
    """Compiled once per question: it is matched against every candidate."""
    return re.compile(_INSTANCE_SENTENCE.format(types="|".join(re.escape(t) for t in sorted(types))), re.IGNORECASE)


_LABEL_WORDS = r"(?i:tag|tagged|flag|flagged|letter|code|status|mode|option|column|marker|signal|level|key|field)"
_LETTER_NAME = re.compile(
    r"[‘'\"]([A-Z])[’'\"]"  # 'K'
    rf"|\b{_LABEL_WORDS}\s+([A-Z])(?![\w/-])"  # tagged K
    rf"|(?<![\w/-])([A-Z])\s+{_LABEL_WORDS}\b"  # the K flag
)


def letter_names(question: str) -> set[str]:
    """Capital letters the question uses as names: quoted ('D'), or beside a word for a label ('a file tagged K',
    'the B flag'). Too short for a search term, each is exactly what a one-letter table key or entry term ('K' /
    'to be killed') is. A letter in other company is a word or a language ('the C API', 'A and I')."""
    return {letter for match in _LETTER_NAME.findall(question) for letter in match if letter}


SIBLING_FIT = 0.6
"""The factor on the answer strength of a value stated for a setting whose name is built on the asked one
('RequestReadTimeout 20', 'RedisTimeout 5s' for the default Timeout): the value of another setting."""
_IDENTIFIER = re.compile(r"\b(?:[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b")
"""A setting's or function's name: CamelCase ('KeepAliveTimeout', 'TimeOut') or snake_case ('cache_size')."""
_PART = re.compile(r"[A-Z]?[a-z0-9]+")
_MEASURE_PARTS = frozenset(
    "max min maximum minimum limit size count num number len length total default "  # noqa: SIM905
    "second sec millisecond ms minut hour day byte".split()
)
"""Parts of a setting's name that say which measure it holds, or in which unit, not which thing it is about:
'message_size_limit' is the asked setting for 'the maximum size of a message', 'max_connections' for 'the maximum
number of connections'; 'peek_lock_seconds' is no neighbour of the asked setting for 'how many seconds pass'."""


_ENTRY_OPENING = re.compile(
    rf"[ \t]*({_IDENTIFIER.pattern})[ \t]*(?:¶[ \t]*)?(?:\([^()\n]{{1,40}}\)[ \t]*)?(?:[–—]|--?|:)[ \t]+\S"
)
"""A paragraph that is one setting's or parameter's entry: 'max_overflow – The maximum overflow size ...'."""


def entry_owner(text: str, offset: int) -> str | None:
    """The setting whose entry the paragraph holding `offset` is, when that paragraph opens with its name
    ('max_overflow – The maximum overflow size of the pool. ... pool_size ... Defaults to 10.'): every value in
    it is that setting's, whatever other names its sentences mention."""
    match = _ENTRY_OPENING.match(text, text.rfind("\n", 0, offset) + 1)
    return match.group(1) if match else None


def names_setting(text: str) -> bool:
    """Whether the text names a setting or function: a CamelCase or snake_case name."""
    return _IDENTIFIER.search(text) is not None


def setting_named(question: str, text: str) -> Literal["asked", "sibling"] | None:
    """Which setting `text` names: 'asked' when one is built of the question's words (one at least not a measure
    word) and measure words ('message_size_limit' for 'the largest message': what it states is the asked value);
    else 'sibling' when one is built on a question's word ('RequestReadTimeout' on 'Timeout',
    'superuser_reserved_connections' on 'connections': the value of a neighbouring setting); else None."""
    asked = _asked_words(question)
    asked_things = asked - _MEASURE_PARTS
    siblings = False
    for name in _IDENTIFIER.findall(text):
        parts = _name_parts(name)
        if name.lower() in asked or parts <= asked | _MEASURE_PARTS:
            # 'TimeOut 60', 'page_size' for the page size: the asked setting itself
            return "asked" if name.lower() in asked or parts - _MEASURE_PARTS else None
        siblings = siblings or any(len(part) >= 4 and part in asked_things for part in parts)
    return "sibling" if siblings else None


@lru_cache(maxsize=4096)
def _name_parts(name: str) -> frozenset[str]:
    """A setting name's words, lower case and stemmed ('FileCreateMode' -> file, creat, mode: 'file' for 'files');
    the same names stand in many candidates, so each is split once."""
    parts = {part.lower() for part in _PART.findall(name)}
    return frozenset(stem for part in parts for stem in content_terms(part) or [part])


@lru_cache(maxsize=256)
def _asked_words(question: str) -> frozenset[str]:
    """The question's words and the parts of the setting names it uses, lower case and stemmed; read once per
    question, not once per candidate."""
    words_ = {w.lower() for w in re.findall(r"[\w.-]+", question)}
    words_ |= {part.lower() for name in _IDENTIFIER.findall(question) for part in _PART.findall(name)}
    return frozenset(words_ | {stem for word in words_ for stem in content_terms(word)})
