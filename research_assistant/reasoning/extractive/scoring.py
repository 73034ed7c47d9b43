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

import re
from collections.abc import Callable
from dataclasses import dataclass

from research_assistant.knowledge.text import content_terms, names_in, quoted_literals, words
from research_assistant.reasoning.answers import Asked, answer_strength, asked_for
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
MISSING_SHAPE_FIT = 0.8
"""A 'how many' or 'when' question is not answered by a sentence without a figure or a date."""
VERSION_NOTE = re.compile(r"^(?:changed|new|added|deprecated|removed) (?:in|since) version\b", re.IGNORECASE)
VERSION_NOTE_FIT = 0.6
"""'Changed in version 3.7: ...' notes in reference documentation record history; they rarely answer."""
ANSWER_WEIGHT = 0.3
"""How much holding the asked-for thing adds to a span's raw relevance."""
NO_VALUE_FIT = 0.7
"""A question that asks for a value is not answered by a span without one."""
EXTENSION_FIT = 0.75
"""A two-sentence span (or a lead-in with its list) that holds no more of the answer than its first part."""
SHAPED_ANSWERS = {"definition": 0.2, "comparison": 0.16, "procedure": 0.16}
"""`shape_bonus` at which a span answers these kinds outright: a definition of the subject (a glossary or API
entry, '<subject> is a ...'). A contrast naming both sides (0.12) or an instruction with its command (0.12)
reach three quarters: their form alone does not prove they answer."""
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
    shape_fit: float = 1.0
    """Below 1 when the question asks for a value (a figure, a default, a date, an expansion) and the span has
    none, or when a two-sentence span adds nothing its parts lack."""
    answer: float = 0.0
    """How clearly the span holds what the sub-question asks for (see `reasoning.answers`)."""

    @property
    def raw(self) -> float:
        base = 0.45 * self.bm25 + 0.20 * self.cosine + 0.10 * self.prior + 0.15 * self.concepts + 0.10 * self.focus
        base += ANSWER_WEIGHT * self.answer
        return (base + self.bonus) * self.length * self.shape_fit * (0.4 + 0.6 * self.concepts)

    @property
    def rank(self) -> float:
        """The relevance before it is capped at 1: candidates that all reach 1 still rank apart."""
        return self.raw / SCORE_SCALE

    @property
    def total(self) -> float:
        """The relevance in 0..1: the raw sum scaled so that a perfect match with its shape bonus is 1."""
        return round(min(1.0, self.raw / SCORE_SCALE), 4)


CONTEXT_CREDIT = 0.5
"""How much a term counts when it is not in the sentence but in the passage around it: documents name
their subject once ('The Halvorsby network ...') and then state facts without repeating it ('It has six
lines.'), so such a sentence still answers a question about that subject."""


def _held(term: str, present: set[str], context: frozenset[str] = frozenset()) -> float:
    if term in present:
        return 1.0
    if any(s in present for s in synonyms(term)):
        return 0.5
    return CONTEXT_CREDIT if term in context else 0.0


def concept_coverage(
    concepts: list[Concept],
    present: set[str],
    idf: Callable[[str], float] | None = None,
    context: frozenset[str] = frozenset(),
) -> float:
    """The weighted share of the query's concepts that the text holds; a concept held in part counts in part.

    With `idf`, a concept also weighs its terms' mean idf, so that the concept that sets candidates
    apart ('threats') counts more than the one they all share ('Great Barrier Reef').
    """
    total = held = 0.0
    for concept in concepts:
        rarity = sum(idf(t) for t in concept.terms) / len(concept.terms) if idf is not None else 1.0
        parts = [_held(t, present, context) for t in concept.terms]
        share = max(parts) if concept.any_term else sum(parts) / len(parts)
        total += concept.weight * rarity
        held += concept.weight * rarity * share
    return held / total if total else 0.0


CONTEXT_COSINE = 0.8
"""Similarity that comes from the title and heading around a sentence counts for less than its own."""
PHRASE_BONUS = 0.08


def phrase_bonus(concepts: list[Concept], sequences: list[list[str]]) -> float:
    """A bonus for each multi-word concept found as a phrase (its terms in order, side by side), as in
    phrase search: 'global interpreter lock' is the concept; 'the interpreter's global import lock' is not."""
    found = 0
    for concept in concepts:
        size = len(concept.terms)
        if size < 2 or concept.any_term:
            continue
        if any(tuple(sequence[i : i + size]) == concept.terms for sequence in sequences for i in range(len(sequence))):
            found += 1
    return min(2, found) * PHRASE_BONUS


def candidate_features(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    found: list[Candidate],
    embedder: Embedder,
) -> list[Features | None]:
    """The relevance features of every candidate; None for those that may never be evidence."""
    query = build_query(question, sub_question)
    asked = asked_for(sub_question.text)
    literals = quoted_literals(sub_question.text)
    names = names_in(sub_question.text)
    query_vector = embedder.vector(query.text)
    terms = [with_identifier_matches(terms_of(c.quote), list(query.expanded)) for c in found]
    # Each sentence is indexed with its source's title, as a title field is in document search: the
    # subject a document names once still counts for the sentences that state facts about it.
    titles = [terms_of(f"{passages[c.passage_index].title}\n{c.heading}") for c in found]
    index = BM25(
        [sentence + [t for t in title if t not in sentence] for sentence, title in zip(terms, titles, strict=True)],
        b=0.5,
    )
    prior = _rank_prior(passages)
    # Concepts weigh 1 + idf; with few candidates idf is noisy, so it is shrunk towards 0 (uniform weights).
    shrink = min(1.0, len(found) / 30)
    idf = index.rarity({t: 1.0 for concept in query.concepts for t in concept.terms})
    rarity = {t: 1.0 + shrink * value for t, value in idf.items()}
    top_idf = max((index.idf(t) for t in query.subject), default=1.0) or 1.0
    contexts = [frozenset(terms_of(f"{passage.title} {passage.text}")) for passage in passages]
    features: list[Features | None] = []
    for i, candidate in enumerate(found):
        # The first sentence under a term line reads with it ('global interpreter lock' / 'The mechanism ...').
        present = set(terms[i]) | (set(terms_of(candidate.heading)) if candidate.lead else set())
        if not any(t in present for t in query.required):
            features.append(None)
            continue
        titled = f"{passages[candidate.passage_index].title}. {candidate.heading}. {candidate.focal}"
        cosine = max(
            *(float(embedder.vector(text) @ query_vector) for text in (candidate.quote, candidate.focal)),
            CONTEXT_COSINE * float(embedder.vector(titled) @ query_vector),
        )
        opening = set(content_terms(" ".join(words(candidate.focal)[:8])))
        defined = candidate.heading if candidate.lead else ""
        shape = shape_bonus(query.kind, candidate.quote, question, query.subject, present, defined)
        # A table row is read with its header row ('Item | Upper Limit' over 'field size | 1 GB').
        answered = f"{candidate.heading}\n{candidate.quote}" if candidate.row else candidate.quote
        answer = answer_strength(asked, answered, sub_question.text)
        keyed = key_fit(names, candidate)
        if query.kind in SHAPED_ANSWERS and asked.kind in (None, query.kind):  # `shape_bonus` knows the subject
            answer = max(answer, min(1.0, shape / SHAPED_ANSWERS[query.kind]))
        phrases = phrase_bonus(query.concepts, [terms_of(candidate.heading), terms_of(candidate.quote)])
        features.append(
            Features(
                answer=answer,
                bm25=index.normalized(query.expanded, i, query.core),
                cosine=min(1.0, max(0.0, cosine) / 0.5),
                prior=prior[candidate.passage_index],
                # A row or entry keyed by the asked name is about the asked thing, whatever words it repeats.
                concepts=max(
                    KEYED_CONCEPTS if keyed[0] else 0.0,
                    concept_coverage(query.concepts, present, rarity.__getitem__, contexts[candidate.passage_index]),
                ),
                focus=max((index.idf(t) for t in query.subject if t in opening), default=0.0) / top_idf,
                bonus=shape
                + phrases
                + entity_bonus(query.entities, candidate.quote)
                + literal_bonus(literals, candidate.quote)
                + keyed[0],
                length=1.0 if row_key(candidate) is not None else length_factor(candidate.focal),  # short by nature
                shape_fit=_answer_fit(asked, answer, candidate, sub_question.text, literals)
                * keyed[1]
                * (MISSING_SHAPE_FIT if query.kind in ("number", "date") and not shape else 1.0)
                * (VERSION_NOTE_FIT if VERSION_NOTE.match(candidate.focal) else 1.0),
            )
        )
    return features


LITERAL_BONUS = 0.15
"""For a span that holds a literal the question quotes ('the 'x' mode'): too short to be a search term, it
is still what the question is about."""


def literal_bonus(literals: list[str], quote: str) -> float:
    found = set(quoted_literals(quote))
    return LITERAL_BONUS if any(literal in found for literal in literals) else 0.0


KEY_BONUS = 0.5
KEYED_CONCEPTS = 0.75
OTHER_KEY_FIT = 0.6
"""For a table row whose first cell, or a definition-list entry whose term, is a name the question uses:
the row or entry is about exactly what was asked ('h | short | integer | 2' for the 'h' format character,
'%ar' / 'author date, relative' for the %ar placeholder)."""


def row_key(candidate: Candidate) -> str | None:
    """What a table row or a definition-list entry is keyed by: its first cell, or its term line."""
    if candidate.row:
        key = candidate.quote.split(" | ", 1)[0]
    elif candidate.lead and candidate.heading and candidate.quote.startswith(candidate.heading):
        key = candidate.heading
    else:
        return None
    return key.strip().strip("'\"`‘’“” ")


def key_fit(names: set[str], candidate: Candidate) -> tuple[float, float]:
    """(bonus, factor) for a row or entry: `KEY_BONUS` when its key is a name the question uses, and
    `OTHER_KEY_FIT` when the question names something and the row is keyed by something else."""
    key = row_key(candidate)
    if key is None or not names:
        return 0.0, 1.0
    if key in names or key.rstrip("()") in names or f"{key}()" in names:
        return KEY_BONUS, 1.0
    return 0.0, OTHER_KEY_FIT


def _answer_fit(asked: Asked, answer: float, candidate: Candidate, question: str, literals: list[str]) -> float:
    """The factor for what the span holds of the answer: less for a value question answered by no value, and
    less for a longer span whose first part alone holds as much (of the answer and of the quoted literals)."""
    fit = NO_VALUE_FIT if asked.wants_value and answer == 0.0 else 1.0
    if candidate.split:
        first = candidate.quote[: candidate.split - candidate.start]
        whole = (answer, literal_bonus(literals, candidate.quote))
        if whole <= (answer_strength(asked, first, question), literal_bonus(literals, first)):
            fit *= EXTENSION_FIT
    return fit


def score_candidates(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    found: list[Candidate],
    embedder: Embedder,
) -> list[tuple[float, float]]:
    """(relevance, answer strength) of every candidate for the sub-question; relevance uncapped (see
    `Features.rank`), (0.0, 0.0) for those that may never be evidence."""
    features = candidate_features(question, sub_question, passages, found, embedder)
    return [(f.rank, f.answer) if f is not None else (0.0, 0.0) for f in features]
