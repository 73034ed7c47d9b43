"""Evidence for one sub-question: the passages' sentences that best answer it, quoted exactly.

Candidates (see `candidates`) are scored (see `scoring`); those at or above the
minimum relevance are taken best first, with a mild penalty for each item
already taken from the same source (so that sources vary) and, for a list
question, from under the same heading, skipping overlaps and near-duplicates. Every
quote is an exact span of its passage's text.
"""

from __future__ import annotations

from research_assistant.reasoning.answers import asked_for
from research_assistant.reasoning.extractive.candidates import Candidate, candidates
from research_assistant.reasoning.extractive.scoring import MIN_RELEVANCE, STRONG_RELEVANCE, score_candidates
from research_assistant.reasoning.extractive.signals import evidence_id
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Evidence, Passage, QueryAnalysis, SubQuestion
from research_assistant.text.spaces import collapse

SAME_SOURCE_PENALTY = 0.85
"""Each item already taken from a source multiplies that source's next candidates by this."""
SAME_SECTION_PENALTY = 0.6
"""For a list question, each item already taken from under a heading multiplies its next candidates by this as
well: a list's items stand under headings of their own ('High Concurrency', 'Very large datasets')."""
DUPLICATE_COSINE = 0.9


def _source(passages: list[Passage], candidate: Candidate) -> str:
    return passages[candidate.passage_index].source_id


def extract_evidence(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    limit: int,
    embedder: Embedder,
    min_relevance: float = MIN_RELEVANCE,
    *,
    analysis: QueryAnalysis | None = None,
) -> list[Evidence]:
    """At most `limit` evidence items, best first, from different sources where possible."""
    if limit <= 0 or not passages:
        return []
    found = candidates(passages)
    scored = score_candidates(question, sub_question, passages, found, embedder, analysis)
    scores = [relevance for relevance, _ in scored]
    pool = sorted((i for i in range(len(found)) if scores[i] >= min_relevance), key=lambda i: (-scores[i], i))
    listing = asked_for(sub_question.text).kind == "list"
    chosen: list[int] = []
    per_source: dict[str, int] = {}
    per_item: dict[tuple[str, str], int] = {}

    def item_of(i: int) -> tuple[str, str]:
        """Where a candidate stands: its source, and the heading it is under (a list's item) or its section."""
        return _source(passages, found[i]), found[i].heading or found[i].section

    def adjusted(i: int) -> tuple[float, int]:
        penalty = SAME_SOURCE_PENALTY ** per_source.get(_source(passages, found[i]), 0)
        if listing:
            penalty *= SAME_SECTION_PENALTY ** per_item.get(item_of(i), 0)
        return scores[i] * penalty, -i

    def repeats(i: int, j: int) -> bool:
        a, b = found[i], found[j]
        if a.passage_index == b.passage_index and a.start < b.end and b.start < a.end:
            return True  # overlapping spans of one passage
        if listing and a.section and a.section != b.section:
            return False  # the same words said of two items of a list ('This hook is invoked by ...')
        return (
            collapse(b.quote).lower() == collapse(a.quote).lower()
            or embedder.similarity(a.quote, b.quote) >= DUPLICATE_COSINE
        )

    while pool and len(chosen) < limit:
        best = max(pool, key=adjusted)
        pool.remove(best)
        if any(repeats(best, j) for j in chosen):
            continue
        chosen.append(best)
        place = item_of(best)
        per_source[place[0]] = per_source.get(place[0], 0) + 1
        per_item[place] = per_item.get(place, 0) + 1
    evidence = []
    for i in chosen:
        candidate = found[i]
        source_id = passages[candidate.passage_index].source_id
        evidence.append(
            Evidence(
                id=evidence_id(source_id, sub_question.id, candidate.quote, candidate.section),
                claim=collapse(candidate.quote),
                quote=candidate.quote,
                source_id=source_id,
                sub_question_id=sub_question.id,
                score=round(min(1.0, scores[i]), 4),
                # How surely the quote answers: less when it is only loosely relevant ('Defaults to 78.' about
                # e-mail lines, for a question on a style guide's line length).
                answer=round(scored[i][1] * min(1.0, scores[i] / STRONG_RELEVANCE), 4),
                section=candidate.section,
            )
        )
    return evidence
