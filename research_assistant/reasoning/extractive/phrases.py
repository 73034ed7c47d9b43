"""Keywords and entities of a question.

Keywords are RAKE-style: candidate phrases are split at stopwords, framing
words ('difference', 'best', ...) and punctuation, each word is scored by
degree / frequency, and phrases by the sum of their words; multiword entities
('Bank of England', 'Python 3.12') stay whole. Entities are quoted terms,
identifiers (`sys.setrecursionlimit`), versions, years, acronyms and runs of
capitalized words, in order of appearance.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from research_assistant.reasoning.extractive.lexicon import FRAMING_WORDS, QUESTION_VERBS, TRAILING_FRAMING
from research_assistant.text.tokens import STOPWORDS, words

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'+#.-]*[A-Za-z0-9+#_)]|[A-Za-z0-9]")
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|“([^”]{2,80})”|(?<!\w)'([^'\s]|[^']{2,80})'(?!\w)|`([^`]{1,80})`")
_IDENTIFIER = re.compile(
    r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|\b[A-Za-z]\w*_\w+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b"
)
_VERSION = re.compile(r"\b([A-Z][\w+#-]*|[a-z]+[A-Z]\w*)\s+v?(\d+(?:\.\d+)*)(?![\w.])")
_YEAR = re.compile(r"\b(1[6-9]\d\d|20\d\d)\b")
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9&]*[A-Z0-9]s?\b")
_CAPITALIZED = re.compile(r"\b[A-Z](?:[\w'+#-]*[\w+#])?")
"""A capitalised word, without a closing quote or dash ('Ki' of "a suffix like 'Ki'")."""
_NAME_CONNECTORS = frozenset({"of", "de", "von", "van", "der", "la", "du", "del", "for", "the"})

_DO = frozenset({"do", "does", "did"})
_PAIRED_FIRST = re.compile(r"^([A-Z][\w+#.-]*)\s+(?:vs\.?|versus|or|and)\s+[A-Z]")


@dataclass(frozen=True)
class _Token:
    text: str
    start: int
    end: int


def _tokens(question: str) -> list[_Token]:
    return [
        _Token(m.group().rstrip("."), m.start(), m.start() + len(m.group().rstrip(".")))
        for m in _TOKEN.finditer(question)
    ]


_CONTRACTION = re.compile(r"^(?:\w+n['’]t|i['’](?:m|ve|d|ll)|(?:you|we|they|it|that|there)['’](?:re|s|ve|ll|d))$")
"""'won't', "doesn't", "I'm", "it's": function words however they are spelled, never part of a keyword."""


_HOW_MEASURES = frozenset(
    ("long", "many", "much", "often", "far", "old", "big", "large", "small", "high", "fast", "soon")
)
"""Words that ask, after 'how', for a measure ('how long'): what is asked, not what it is asked about."""


def _is_delimiter(word: str) -> bool:
    low = word.lower()
    return low in STOPWORDS or low in FRAMING_WORDS or low in QUESTION_VERBS or _CONTRACTION.match(low) is not None


def _multiword_spans(question: str) -> list[tuple[int, int]]:
    """Character spans of multiword entities ('Bank of England', 'Python 3.12'): keywords keep them whole."""
    found = ((question.find(entity), entity) for entity in extract_entities(question) if " " in entity)
    return [(at, at + len(entity)) for at, entity in found if at >= 0]


def _span_of(token: _Token, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    return next((span for span in spans if span[0] <= token.start and token.end <= span[1]), None)


_CODE_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?|[A-Za-z]\w*_\w+|[A-Za-z_][\w.]*\(\)")


def is_code_name(name: str) -> bool:
    """Whether a name is written as code: dotted, with an underscore, or called ('fs.watch()', 'yy_push_state',
    'setTimeout()'); not a camel-cased name alone, which products have too ('MySQL', 'FreeBSD')."""
    return _CODE_NAME.fullmatch(name) is not None


def extract_keywords(question: str, limit: int = 8) -> list[str]:
    """Candidate phrases split at stopwords, framing words and punctuation, ranked RAKE-style; a string a call in
    the question passes is left out (`_passed_strings`)."""
    for start, end in _passed_strings(question):
        question = question[:start] + " " * (end - start) + question[end:]
    spans = _multiword_spans(question)
    tokens = _tokens(question)
    phrases: list[list[_Token]] = []
    current: list[_Token] = []
    previous_end = 0
    for index, token in enumerate(tokens):
        span = _span_of(token, spans)
        if current and span != _span_of(current[-1], spans):
            phrases.append(current)
            current = []
        if span is not None:
            current.append(token)
            previous_end = token.end
            continue
        gap = question[previous_end : token.start]
        if current and (re.search(r"[^\s]", gap) or len(current) >= 4):
            phrases.append(current)
            current = []
        previous_end = token.end
        trailing = token.text.lower() in TRAILING_FRAMING and any(t.text.lower() in _DO for t in tokens[:index])
        measure = index > 0 and tokens[index - 1].text.lower() == "how" and token.text.lower() in _HOW_MEASURES
        if _is_delimiter(token.text) or trailing or measure:
            if current:
                phrases.append(current)
            current = []
        else:
            current.append(token)
    if current:
        phrases.append(current)
    frequency = Counter(token.text.lower() for phrase in phrases for token in phrase)
    degree: Counter[str] = Counter()
    for phrase in phrases:
        for token in phrase:
            degree[token.text.lower()] += len(phrase)
    ranked: list[tuple[float, int, str]] = []
    seen: set[str] = set()
    for phrase in phrases:
        text = question[phrase[0].start : phrase[-1].end]
        if text.count("(") != text.count(")"):
            text = text.strip("()")  # 'write-ahead logging (WAL) work': the '(WAL)' split off leaves 'WAL)'
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        score = sum(degree[t.text.lower()] / frequency[t.text.lower()] for t in phrase)
        ranked.append((-score, phrase[0].start, text))
    keywords = [text for _, _, text in sorted(ranked)][:limit]
    return keywords or [w for w in words(question) if w not in {"what", "how", "why"}][:limit]


_MODIFIER_SUFFIX = re.compile(
    r"-(?:based|like|style|specific|related|compatible|aware|enabled|powered|driven|friendly|wide|level)$", re.I
)
"""'CliRunner-based tests' are tests of CliRunner: the name is 'CliRunner'."""
_NOT_NAMES = frozenset({"OK", "OKAY"})
"""Capitalised words that are English, not names or acronyms ('Is it OK to ...?')."""
_CALL_ARGUMENTS = re.compile(r"(?<=\w\()[^()]*(?=\))")
_STRING_LITERAL = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def _passed_strings(question: str) -> list[tuple[int, int]]:
    """Where a call in the question passes a string (`get_app_dir('Foo Bar')`): an example value, not what the
    question is about (unlike a flag it passes: 'IntRange(0, 20, clamp=True)')."""
    return [
        (arguments.start() + found.start(), arguments.start() + found.end())
        for arguments in _CALL_ARGUMENTS.finditer(question)
        for found in _STRING_LITERAL.finditer(arguments.group())
    ]


def _add(found: list[tuple[int, str]], start: int, text: str) -> None:
    text = re.sub(r"['’]s$", "", text.strip(" .,;:"))  # 'Apache's event MPM': the name is 'Apache'
    text = _MODIFIER_SUFFIX.sub("", text)
    if len(text) >= 2 and text.upper() not in _NOT_NAMES and not _CONTRACTION.match(text.lower()):
        found.append((start, text))


def _name_runs(question: str) -> list[list[re.Match[str]]]:
    """Runs of capitalized words ('Bank of England'), without leading question words or a lone first word."""
    runs: list[list[re.Match[str]]] = []
    for m in _CAPITALIZED.finditer(question):
        gap = question[runs[-1][-1].end() : m.start()] if runs else "."
        if runs and len(gap.split()) <= 2 and all(w in _NAME_CONNECTORS for w in gap.split()):
            runs[-1].append(m)
        else:
            runs.append([m])
    kept = []
    for run in runs:
        while run and _is_delimiter(run[0].group()):
            run = run[1:]
        if run and (len(run) > 1 or run[0].start() > 0):
            kept.append(run)
    return kept


def extract_entities(question: str) -> list[str]:
    """Named things in order of appearance: quoted terms, identifiers, versions, years, acronyms and names."""
    found: list[tuple[int, str]] = []
    for m in _QUOTED.finditer(question):
        _add(found, m.start(), next(g for g in m.groups() if g))
    for m in _IDENTIFIER.finditer(question):
        parts = m.group().rstrip("()").split(".")
        if not all(len(p) == 1 for p in parts):
            _add(found, m.start(), m.group())
    for m in _VERSION.finditer(question):
        if not _is_delimiter(m.group(1)):
            _add(found, m.start(), m.group())
    for m in [*_YEAR.finditer(question), *_ACRONYM.finditer(question)]:
        _add(found, m.start(), m.group())
    paired = _PAIRED_FIRST.match(question)
    if paired and not _is_delimiter(paired.group(1)):
        _add(found, 0, paired.group(1))
    for run in _name_runs(question):
        _add(found, run[0].start(), question[run[0].start() : run[-1].end()])
    passed = _passed_strings(question)
    found = [(start, text) for start, text in found if not any(a <= start < b for a, b in passed)]
    found.sort(key=lambda item: (item[0], -len(item[1])))
    entities: list[str] = []
    for _, text in found:
        low = text.lower()
        if any(low == e.lower() or re.search(rf"(?<!\w){re.escape(low)}(?!\w)", e.lower()) for e in entities):
            continue
        entities = [e for e in entities if not re.search(rf"(?<!\w){re.escape(e.lower())}(?!\w)", low)]
        entities.append(text)
    return entities
