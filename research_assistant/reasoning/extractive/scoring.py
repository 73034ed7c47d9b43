"""Relevance of candidate quotes to a sub-question.

Each candidate gets features in 0..1 and a raw relevance

    raw = ( 0.45 * BM25 over the candidates, relative to the query's ideal score
          + 0.20 * cosine of embedding vectors (HashingEmbedding: 0.5 already counts as 1)
          + 0.10 * retrieval prior (the passage's rank among the retrieved passages)
          + 0.15 * concept coverage (see below)
          + 0.10 * focus: the subject appears in the sentence's first words (idf-weighted)
          + bonuses: the answer's expected shape (a figure for 'how many', a date for 'when',
            a definition or API signature for 'what is', a contrast for comparisons, an
            instruction for 'how do I') and the question's entities )
        * a length factor (very short or very long sentences lose a little)
        * (0.4 + 0.6 * concept coverage);

the reported score is `min(1, raw / SCORE_SCALE)`. Concepts are the question's
keyword and entity phrases the sub-question mentions plus the sub-question's own
phrases; coverage is the share of them a sentence holds, each weighted by 1 + idf
(shrunk for small pools), so a sentence must touch every part of the question to
score well, and the part that tells candidates apart ('threats') counts most.
Query terms weigh 1.5/sqrt(phrase length) for topic phrases, 1.0 for other
sub-question terms, 0.6 for template words, 0.3 for the question's other topic
terms, and synonyms half (never diluting the ideal). A candidate that shares no
specific term with the sub-question (or, for a generic one, with the question)
is never evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from research_assistant.knowledge.text import content_terms, words
from research_assistant.reasoning.extractive.bm25 import BM25
from research_assistant.reasoning.extractive.candidates import Candidate
from research_assistant.reasoning.extractive.query import Concept, build_query
from research_assistant.reasoning.extractive.shapes import entity_bonus, length_factor, shape_bonus
from research_assistant.reasoning.extractive.terms import synonyms, terms_of, with_identifier_matches
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Passage, SubQuestion

SCORE_SCALE = 1.3
"""Raw relevance (weighted parts plus bonuses) divided by this gives the 0..1 score."""
MIN_RELEVANCE = 0.3
"""Below this a sentence is not evidence."""
STRONG_RELEVANCE = 0.4
"""At or above this a sentence answers its sub-question well; progress counts such items."""


def _rank_prior(passages: list[Passage]) -> list[float]:
    order = sorted(range(len(passages)), key=lambda i: (-passages[i].score, i))
    prior = [0.0] * len(passages)
    for rank, index in enumerate(order):
        prior[index] = 1.0 - rank / max(len(passages), 1)
    return prior


@dataclass(frozen=True)
class Features:
    """The parts of a candidate's relevance, each in 0..1 except the bonuses."""

    bm25: float
    cosine: float
    prior: float
    concepts: float
    focus: float
    bonus: float
    length: float

    @property
    def raw(self) -> float:
        base = 0.45 * self.bm25 + 0.20 * self.cosine + 0.10 * self.prior + 0.15 * self.concepts + 0.10 * self.focus
        return (base + self.bonus) * self.length * (0.4 + 0.6 * self.concepts)

    @property
    def total(self) -> float:
        """The relevance in 0..1: the raw sum scaled so that a perfect match with its shape bonus is 1."""
        return round(min(1.0, self.raw / SCORE_SCALE), 4)


def _held(term: str, present: set[str]) -> float:
    if term in present:
        return 1.0
    return 0.5 if any(s in present for s in synonyms(term)) else 0.0


def concept_coverage(concepts: list[Concept], present: set[str], idf: Callable[[str], float] | None = None) -> float:
    """The weighted share of the query's concepts that the text holds; a concept held in part counts in part.

    With `idf`, a concept also weighs its terms' mean idf, so that the concept that sets candidates
    apart ('threats') counts more than the one they all share ('Great Barrier Reef').
    """
    total = held = 0.0
    for concept in concepts:
        rarity = sum(idf(t) for t in concept.terms) / len(concept.terms) if idf is not None else 1.0
        parts = [_held(t, present) for t in concept.terms]
        share = max(parts) if concept.any_term else sum(parts) / len(parts)
        total += concept.weight * rarity
        held += concept.weight * rarity * share
    return held / total if total else 0.0


def candidate_features(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    found: list[Candidate],
    embedder: Embedder,
) -> list[Features | None]:
    """The relevance features of every candidate; None for those that may never be evidence."""
    query = build_query(question, sub_question)
    query_vector = embedder.vector(query.text)
    terms = [with_identifier_matches(terms_of(c.quote), list(query.expanded)) for c in found]
    index = BM25(terms, b=0.5)
    prior = _rank_prior(passages)
    # Concepts weigh 1 + idf; with few candidates idf is noisy, so it is shrunk towards 0 (uniform weights).
    shrink = min(1.0, len(found) / 30)
    idf = index.rarity({t: 1.0 for concept in query.concepts for t in concept.terms})
    rarity = {t: 1.0 + shrink * value for t, value in idf.items()}
    top_idf = max((index.idf(t) for t in query.subject), default=1.0) or 1.0
    features: list[Features | None] = []
    for i, candidate in enumerate(found):
        present = set(terms[i])
        if not any(t in present for t in query.required):
            features.append(None)
            continue
        cosine = max(float(embedder.vector(text) @ query_vector) for text in (candidate.quote, candidate.focal))
        opening = set(content_terms(" ".join(words(candidate.focal)[:8])))
        features.append(
            Features(
                bm25=index.normalized(query.expanded, i, query.core),
                cosine=min(1.0, max(0.0, cosine) / 0.5),
                prior=prior[candidate.passage_index],
                concepts=concept_coverage(query.concepts, present, rarity.__getitem__),
                focus=max((index.idf(t) for t in query.subject if t in opening), default=0.0) / top_idf,
                bonus=shape_bonus(query.kind, candidate.quote, question, query.subject, present)
                + entity_bonus(query.entities, candidate.quote),
                length=length_factor(candidate.focal),
            )
        )
    return features


def score_candidates(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    found: list[Candidate],
    embedder: Embedder,
) -> list[float]:
    """Relevance of every candidate to the sub-question, 0..1; 0.0 for those that may never be evidence."""
    features = candidate_features(question, sub_question, passages, found, embedder)
    return [f.total if f is not None else 0.0 for f in features]
