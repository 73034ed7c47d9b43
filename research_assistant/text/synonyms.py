"""Small, general synonym groups, so that a question's words find the words a manual answers in ('the
largest message' / 'the maximum size of message'). Used to widen a query, never to gate relevance."""

from __future__ import annotations

from functools import lru_cache

from research_assistant.text.tokens import content_terms

SYNONYM_GROUPS: tuple[str, ...] = (
    "increase higher boost grow enlarge",
    "decrease reduce lower lessen shrink",
    "change modify alter adjust set configure",
    "remove delete eliminate",
    "create generate build",
    "start begin launch",
    "stop halt terminate",
    "fast quick rapid speed",
    "slow latency delay",
    "error exception failure fault",
    "big large huge size largest biggest",
    "long length duration",
    "small little tiny",
    "benefit advantage",
    "drawback disadvantage downside",
    "cost price expense",
    "buy purchase",
    "problem issue",
    "method approach technique",
    "goal aim purpose",
    "illness disease sickness",
    "doctor physician",
    "car automobile vehicle",
    "install installation setup",
    "maximum max maximal highest largest biggest longest most",
    "minimum min minimal lowest smallest shortest least",
    "default initial built-in builtin",
    "compress compressed compression gzip gzipped",
    "reply replies respond responds",
    "encoding charset",
    "password passphrase passwd",
)
"""Each group's words stand for one another; a word may be in several groups ('largest')."""


@lru_cache(maxsize=1)
def _group_stems() -> tuple[tuple[tuple[str, frozenset[str]], ...], ...]:
    """Each group's words with their stems, worked out once: `synonym_words` reads them for every sub-question."""
    return tuple(tuple((word, frozenset(content_terms(word))) for word in group.split()) for group in SYNONYM_GROUPS)


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for group in SYNONYM_GROUPS:
        stems = list(dict.fromkeys(t for word in group.split() for t in content_terms(word)))
        for stem in stems:
            table.setdefault(stem, []).extend(s for s in stems if s != stem and s not in table[stem])
    return {stem: tuple(others) for stem, others in table.items()}


def synonyms(term: str) -> tuple[str, ...]:
    """Other stems of the term's synonym group, if any."""
    return _synonyms().get(term, ())


def synonym_words(text: str) -> list[str]:
    """The words of the synonym groups that the text's words belong to and the text does not hold, in group
    order: 'the largest message' gives 'big large huge size biggest maximum max ...'."""
    held = set(content_terms(text))
    extra: list[str] = []
    for group in _group_stems():
        if any(word_stems & held for _, word_stems in group):
            extra.extend(word for word, word_stems in group if word not in extra and not word_stems & held)
    return extra
