"""New search queries for a sub-question that is not covered yet.

Candidates, in order of preference:

1. pseudo-relevance feedback: the sub-question's keywords plus the two most
   telling new words of its best evidence (or of the run's evidence most like it);
2. the sub-question's keywords without its least important word;
3. entity and keyword combinations, with the sub-question's aspect word;
4. the sub-question's own text and planned queries, if never run.

Before all of these come the titles its best evidence refers the reader to ('See Controlling the Prompt, for the
complete list of escape sequences'): manuals answer in the section they point to.

A candidate is kept only when its normalized form (lowercased, whitespace
collapsed, outer punctuation dropped) is in neither the history nor the queries
already chosen.
"""

from __future__ import annotations

import re

from research_assistant.reasoning.extractive.lexicon import AUXILIARY_VERBS, FRAMING_WORDS, NEGATIONS
from research_assistant.reasoning.extractive.planning import keyword_query, without_repeats
from research_assistant.reasoning.extractive.query import GENERIC_TERMS
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Evidence, QueryAnalysis, SubQuestion
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import STOPWORDS, content_terms, normalize_query, terms_of, words

_NOT_FEEDBACK = STOPWORDS | FRAMING_WORDS | AUXILIARY_VERBS | NEGATIONS


def _importance(word: str, position: int, analysis: QueryAnalysis) -> tuple[int, int]:
    low = word.lower()
    for rank, phrase in enumerate([*analysis.entities, *analysis.keywords]):
        if low in phrase.lower().split():
            return (3, -rank)
    stems = content_terms(word)
    if stems and stems[0] in GENERIC_TERMS:
        return (0, -position)
    return (1, -position)


def _drop_least_important(query: str, analysis: QueryAnalysis) -> str:
    tokens = query.split()
    if len(tokens) < 3:
        return ""
    weakest = min(range(len(tokens)), key=lambda i: (_importance(tokens[i], i, analysis), -i))
    return " ".join(t for i, t in enumerate(tokens) if i != weakest)


def _feedback_terms(documents: list[Evidence], query: str, count: int = 2) -> list[str]:
    """The words that best characterize the feedback documents and are not in the query yet."""
    known = set(content_terms(query))
    weights: dict[str, float] = {}
    surface: dict[str, str] = {}
    for document in documents:
        seen_here: set[str] = set()
        for word in words(document.claim):
            if word in _NOT_FEEDBACK or len(word) < 4 or any(c.isdigit() for c in word) or word.endswith("ing"):
                continue
            stems = content_terms(word)
            if not stems or stems[0] in known or stems[0] in GENERIC_TERMS or stems[0] in seen_here:
                continue
            seen_here.add(stems[0])
            weights[stems[0]] = weights.get(stems[0], 0.0) + max(document.score, 0.05)
            surface.setdefault(stems[0], word)
    order = {stem: position for position, stem in enumerate(weights)}
    ranked = sorted(weights, key=lambda stem: (-weights[stem], order[stem]))
    return [surface[stem] for stem in ranked[:count]]


_TITLE_WORD = r"(?:[A-Z0-9][\w'-]*|of|the|and|a|an|in|for|to|with|on|by)"
_REFERENCE = re.compile(
    r"\b(?i:see|refer to|described in|explained in|documented in)\s+(?i:also\s+)?(?i:the\s+)?"
    r"(?:(?i:section|chapter|node)\s+(?:[\d.]+,?\s+)?)?"
    rf"(?:[\"“‘']([^\"”’']{{3,80}})[\"”’']|({_TITLE_WORD}(?:\s+{_TITLE_WORD}){{0,7}}))"
)
"""A cross-reference to a section by its title: 'See Controlling the Prompt, for ...', '(see Completion System)',
'see Section 4.2, "Access Control"'."""
_SMALL_TITLE_WORDS = frozenset(["of", "the", "and", "a", "an", "in", "for", "to", "with", "on", "by"])


def referenced_titles(evidence: list[Evidence]) -> list[str]:
    """The section titles the evidence refers the reader to, in order, each once."""
    titles: list[str] = []
    for item in evidence:
        for match in _REFERENCE.finditer(item.quote):
            words_of = (match.group(1) or match.group(2)).split()
            while words_of and words_of[-1] in _SMALL_TITLE_WORDS:
                words_of.pop()
            title = " ".join(words_of)
            if any(len(word) >= 3 and word[0].isupper() for word in words_of) and title not in titles:
                titles.append(title)
    return titles


def _aspect(sub_question: SubQuestion) -> str:
    for word in words(sub_question.text):
        stems = content_terms(word)
        if stems and stems[0] in GENERIC_TERMS and word not in STOPWORDS:
            return word
    return ""


def _core(analysis: QueryAnalysis, sub_question: SubQuestion) -> str:
    """The sub-question's topic words, then up to two of its aspect words: 'default maxsize lru_cache details'."""
    topic = set(terms_of(" ".join([*analysis.keywords, *analysis.entities])))
    topic_words: list[str] = []
    aspect_words: list[str] = []
    for word in keyword_query(sub_question.text).split():
        stems = terms_of(word)
        if not stems or word.lower() in FRAMING_WORDS:
            continue
        bucket = topic_words if stems[0] in topic else aspect_words
        if word.lower() not in [w.lower() for w in bucket]:
            bucket.append(word)
    if not topic_words and analysis.keywords:
        topic_words = analysis.keywords[0].split()
    return " ".join([*topic_words[:5], *aspect_words[:2]])


def gap_queries(
    analysis: QueryAnalysis,
    sub_question: SubQuestion,
    evidence: list[Evidence],
    embedder: Embedder,
    blocked: set[str],
    limit: int = 2,
) -> list[str]:
    """Up to `limit` new queries for `sub_question`; adds their normalized forms to `blocked`."""
    core = _core(analysis, sub_question)
    own = [e for e in evidence if e.sub_question_id == sub_question.id]
    if own:
        feedback = sorted(own, key=lambda e: (-e.score, e.id))[:3]
    else:
        similarity = {e.id: embedder.similarity(sub_question.text, e.claim) for e in evidence}
        feedback = sorted(evidence, key=lambda e: (-similarity[e.id], e.id))[:3]
    aspect = _aspect(sub_question)
    references = referenced_titles(feedback)
    candidates: list[str] = [*references]
    expansion = _feedback_terms(feedback, f"{core} {sub_question.text}", count=6)
    if expansion:
        candidates.append(f"{core} {' '.join(expansion[:2])}")
    candidates.append(_drop_least_important(core, analysis))
    for entity in analysis.entities[:3]:
        for keyword in analysis.keywords[:3]:
            if keyword.lower() not in entity.lower() and entity.lower() not in keyword.lower():
                candidates.append(f"{entity} {keyword} {aspect}")
    candidates.extend(f"{keyword} {aspect}" for keyword in analysis.keywords[:3])
    candidates.extend([sub_question.text, core, *sub_question.queries])
    head = analysis.keywords[0] if analysis.keywords else core
    candidates.extend(f"{core} {' '.join(expansion[i : i + 2])}" for i in range(2, len(expansion), 2))
    candidates.extend(f"{head} {term}" for term in expansion)
    topic = set(terms_of(" ".join([*analysis.keywords, *analysis.entities])))
    needed = min(2, len(set(terms_of(core)) & topic) or 1)
    chosen: list[str] = []
    for candidate in candidates:
        text = without_repeats(collapse(candidate))
        key = normalize_query(text)
        on_topic = candidate in references or len(set(terms_of(text)) & topic) >= needed  # what its evidence names
        if len(key) < 3 or key in blocked or not on_topic:
            continue  # run already, or too little of the topic left to find anything relevant
        blocked.add(key)
        chosen.append(text)
        if len(chosen) >= limit:
            break
    return chosen
