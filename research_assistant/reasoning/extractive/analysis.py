"""Question analysis by rules: query type, domain, recency, intent and the shape of the answer.

Keywords and entities come from `phrases`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from research_assistant.reasoning.extractive.lexicon import (
    ATTRIBUTE_WORDS,
    CURRENT_OF_TIME,
    CURRENTLY_OF_TIME,
    DOMAINS,
    NUMERIC_CUES,
    RECENCY_WORDS,
)
from research_assistant.reasoning.extractive.phrases import extract_entities, extract_keywords
from research_assistant.reasoning.questions import asked_for, asking_part, without_premise
from research_assistant.schemas import Intent, QueryAnalysis, QueryType
from research_assistant.text.tokens import content_terms, words

_COMPARATIVE = re.compile(
    r"\b(?:compare[sd]?|comparing|comparison|vs\.?|versus|differences? between|differ(?:s|ence)? from|"
    r"(?:better|worse|faster|slower|cheaper|safer|easier|harder|bigger|smaller) than|more \w+ than|less \w+ than|"
    r"pros and cons of \w+ (?:and|or|vs))\b"
)
_HOW_TO_COMPARE = re.compile(r"\bhow (?:do|does|should|can|could|would) (?:i|we|you|one) compare\b|\bhow to compare\b")
"""'How should I compare the digest I compute with the one sent?' asks how to do the comparing: a procedure."""
_CHOICE = re.compile(r"^(?:which|should|is it better)\b.*\bor\b")
_NO_CHOICE = re.compile(
    r"\b(?:such as|for example|for instance|e\.g\.|including)\b[^,;?]*"
    r"|\b(?:on or off|off or on|(?:one|zero) or more|or not|more or less|and/or)\b"
)
"""An example clause ('such as before each prompt or after changing directory') or a set phrase ('switched on or
off', 'one or more'): its 'or' offers no choice between two things."""
_CAUSAL = re.compile(
    r"\bwhy\b|\bcause[sd]?\b|\bcausing\b|\beffects? (?:of|on)\b|\bimpacts? (?:of|on)\b|\baffect(?:s|ed)?\b|"
    r"\blead(?:s)? to\b|\bled to\b|\bresult(?:s|ed)? in\b|\bconsequences?\b|\breasons? (?:for|behind|why)\b|"
    r"\bcontribut\w* to\b"
)
_PROCEDURAL = re.compile(
    r"^how (?:do|can|should|would|could) (?:i|you|we|one)\b|\bhow to\b|\bsteps? (?:to|for)\b|\bguide to\b|"
    r"\btutorial\b|^(?:install|configure|set up|setup)\b"
)
_WHAT_IS = re.compile(r"^what (?:is|are|was|were) (?:a |an |the )?(.+?)[?.!]*$")
_DEFINITIONAL = re.compile(
    r"^(?:please )?define\b|\bdefinition of\b|\bmeaning of\b|\bwhat does .+ mean\b|\bwhat is meant by\b"
)
_FACTUAL = re.compile(
    r"^(?:who|when|where|which|whom|whose)\b|\bwhat (?:year|date|time|day|percentage|percent|size|version|number)\b|"
    r"^(?:is|are|was|were|does|do|did|can|has|have|will|could)\b"
)
_NUMERIC_ATTRIBUTES = ATTRIBUTE_WORDS - {"capital", "name", "version", "date"}
_LIST_WORDS = frozenset(
    {
        *("benefits", "advantages", "disadvantages", "drawbacks", "risks", "features", "challenges", "trends"),
        *("uses", "applications", "options", "alternatives", "types", "kinds", "examples", "problems", "issues"),
        "implications",
    }
)


def classify(question: str) -> QueryType:
    """The query type by ordered rules: comparative, causal, procedural, definitional/factual, exploratory.
    A statement leading the question only sets the scene: the type is read from the question after it."""
    whole = " ".join(question.lower().split())
    q = " ".join(asking_part(question).lower().split())
    if (_COMPARATIVE.search(whole) and not _HOW_TO_COMPARE.search(q)) or _CHOICE.search(_NO_CHOICE.sub("", q)):
        return QueryType.COMPARATIVE
    if _CAUSAL.search(q):
        return QueryType.CAUSAL
    if _PROCEDURAL.search(q) or asked_for(question).kind == "procedure":
        return QueryType.PROCEDURAL
    if any(cue in q for cue in NUMERIC_CUES):
        return QueryType.FACTUAL
    what_is = _WHAT_IS.match(q)
    if what_is:
        rest = words(what_is.group(1))
        if any(w in ATTRIBUTE_WORDS for w in rest):
            return QueryType.FACTUAL
        if not any(w in _LIST_WORDS for w in rest) and len(rest) <= 6:
            return QueryType.DEFINITIONAL
    if _DEFINITIONAL.search(q):
        return QueryType.DEFINITIONAL
    if _FACTUAL.search(q):
        return QueryType.FACTUAL
    return QueryType.EXPLORATORY


@lru_cache(maxsize=1)
def _domain_stems() -> tuple[tuple[str, frozenset[str]], ...]:
    return tuple((name, frozenset(t for w in vocab for t in content_terms(w))) for name, vocab in DOMAINS.items())


def detect_domain(question: str, entities: list[str]) -> str:
    terms = content_terms(question)
    best, best_hits = "general", 0
    for name, stems in _domain_stems():
        hits = sum(t in stems for t in terms)
        if name == "software":
            hits += sum(bool(re.search(r"[._]|\(\)", e)) for e in entities)
        if hits > best_hits:
            best, best_hits = name, hits
    return best


_NOT_OF_TIME = re.compile(
    r"\b(?:least|most) recently\b"  # an order of use: 'the least recently used templates'
    r"|\b(?:oldest|earliest|newest|latest) to (?:oldest|earliest|newest|latest)\b"  # an order: 'oldest to newest'
    r"|\b(?:newest|latest) first\b"
    r"|\b(?:bring|brings|brought|bringing|keep|keeps|kept|keeping)\b(?: [\w'-]+){0,5}? up[ -]to[ -]date\b"
)
"""Recency words that ask for no time: an order of use or of age, and an action ('brings the schema up to date')."""
_CURRENT = re.compile(r"\b(current(?:ly)?)\b(?:\s+(\w+))?", re.IGNORECASE)


def needs_recent_information(question: str) -> bool:
    """Whether the question asks for what is true now ('the latest release', 'current best practice', 'in 2024')."""
    q = _NOT_OF_TIME.sub(" ", " ".join(question.lower().split()))
    if any(re.search(rf"\b{re.escape(w)}\b", q) for w in RECENCY_WORDS) or re.search(r"\b202\d\b", q):
        return True
    return any(_current_of_time(match) for match in _CURRENT.finditer(" ".join(question.split())))


def _current_of_time(match: re.Match[str]) -> bool:
    """'current' before a word of time or a name ('a current Wireshark'), or 'currently' before a word of support
    or standing; either with nothing after it ('Is this still current?')."""
    word, following = match.group(1).lower(), match.group(2)
    if following is None:
        return True
    if word == "currently":
        return following.lower() in CURRENTLY_OF_TIME
    return following.lower() in CURRENT_OF_TIME or following[0].isupper()


_WHAT_DOES_IT_DO = re.compile(r"^what (?:does|do|did) .+ (?:do|does|mean|return)\b|^what (?:is|are) .+ used for\b")


def expected_answer(question: str) -> str | None:
    """What shape a direct answer takes: 'number', 'date', 'person', 'place', 'definition' or None."""
    q = " ".join(asking_part(question).lower().split())
    query_type = classify(question)
    if query_type is QueryType.DEFINITIONAL or _WHAT_DOES_IT_DO.match(q):
        return "definition"
    if query_type is not QueryType.FACTUAL or asked_for(question).kind == "yesno":
        return None  # 'Does httpd read .htaccess files by default?' is answered by yes or no, not a figure
    if q.startswith("when") or re.search(r"\bwhat (?:year|date|day|time)\b|\bin which year\b", q):
        return "date"
    # 'Which format specifier adds how long the request took?' asks for a name: the cue is in a clause of its own.
    selecting = q.startswith(("which ", "what ")) and asked_for(question).kind != "number"
    cued = not selecting and any(cue in q for cue in NUMERIC_CUES)
    if cued or any(w in _NUMERIC_ATTRIBUTES for w in words(q)[:10]):
        return "number"
    if re.search(r"\bcapital (?:city )?of\b", q):
        return "place"
    if q.startswith(("who ", "whom ", "whose ")):
        return "person"
    if q.startswith("where "):
        return "place"
    return None


@lru_cache(maxsize=256)
def cached_analysis(question: str) -> QueryAnalysis:
    """`analyze_question`, memoized for the reasoner's internal use; callers must not mutate the result."""
    return analyze_question(question)


def analyze_question(question: str) -> QueryAnalysis:
    """The full `QueryAnalysis` of a question (of what it asks, a statement before it aside: `without_premise`);
    deterministic and instant."""
    question = without_premise(question)
    entities = extract_entities(question)
    query_type = classify(question)
    quick = query_type in (QueryType.FACTUAL, QueryType.DEFINITIONAL) and len(words(question)) <= 14
    return QueryAnalysis(
        keywords=extract_keywords(question),
        entities=entities,
        query_type=query_type,
        domain=detect_domain(question, entities),
        needs_recent=needs_recent_information(question),
        intent=Intent.QUICK_ANSWER if quick else Intent.FULL_REPORT,
    )
