"""Rank fusion: the hits of every query merged by source, and the best new sources chosen to read.

Providers score on different scales, so a source's relevance is reciprocal-rank fusion over every answer
it appears in, weighted by the source's credibility; the providers' own scores only break ties. Hits
whose URLs lead to the same page are one source, and a source the run has already read or given up on
is not chosen again.

Each sub-question's best source is chosen first, in the plan's order, and the question itself (the first
sub-question) has its best for half the budget; the rest of the budget goes to the sources that serve the
most sub-questions. Ranking by coverage alone let the background sub-questions outvote the question itself:
pages that mention the topic everywhere filled the budget, and the page that answers, found by one
sub-question only, was never read.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from research_assistant.knowledge.documents import source_id_for
from research_assistant.schemas import SourceRecord, SourceStatus
from research_assistant.search.credibility import assess_credibility
from research_assistant.search.routing import Hit
from research_assistant.state import union
from research_assistant.text.urls import normalize_url

RANK_CONSTANT = 10
"""Reciprocal-rank damping: a source's relevance is the sum of 1 / (10 + rank) over the answers it is in."""


@dataclass(frozen=True)
class Selection:
    candidates: dict[str, SourceRecord]
    """Every source found and not yet read, the run's earlier ones included, with the sub-questions it serves."""
    chosen: list[str]
    """Ids of the sources to read now, best first, within the source budget."""
    new: int
    """Candidates the run did not know before."""


def select(
    hits: Iterable[Hit], sources: Mapping[str, SourceRecord], source_limit: int, order: Sequence[str] = ()
) -> Selection:
    """Merge hits by source, keep what is new, and choose the best within what is left of `source_limit`:
    first the best source of each sub-question, in `order` (the plan's sub-question ids), then the rest."""
    candidates: dict[str, SourceRecord] = {
        source_id: source for source_id, source in sources.items() if source.status is SourceStatus.FOUND
    }
    relevance: dict[str, float] = defaultdict(float)
    per_sub_question: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for hit in hits:
        source_id = source_id_for(hit.result.locator)
        known = sources.get(source_id)
        if known is not None and known.status is not SourceStatus.FOUND:
            continue
        relevance[source_id] += 1.0 / (RANK_CONSTANT + hit.rank)
        per_sub_question[hit.sub_question_id][source_id] += 1.0 / (RANK_CONSTANT + hit.rank)
        current = candidates.get(source_id)
        if current is None:
            result = hit.result
            current = SourceRecord(
                id=source_id,
                locator=normalize_url(result.locator),
                title=result.title,
                provider=result.provider,
                source_type=result.source_type,
                snippet=result.snippet,
                score=result.score,
                published=result.published,
                author=result.author,
                credibility=assess_credibility(
                    result.locator, source_type=result.source_type, author=result.author, published=result.published
                ),
            )
        candidates[source_id] = current.model_copy(
            update={
                "score": max(current.score, hit.result.score),
                "sub_question_ids": union(current.sub_question_ids, [hit.sub_question_id]),
            }
        )
    read = sum(1 for source in sources.values() if source.status is SourceStatus.READ)
    budget = max(source_limit - read, 0)

    def trust(source_id: str) -> float:
        credibility = candidates[source_id].credibility
        return 0.5 + (credibility.score if credibility else 0.5)

    def priority(source: SourceRecord) -> tuple[float, ...]:
        weighted = relevance.get(source.id, 0.0) * trust(source.id)
        # Sources that serve more sub-questions first; the locator breaks ties deterministically.
        return (-len(source.sub_question_ids), -round(weighted, 9), -source.score)

    ranked = [s.id for s in sorted(candidates.values(), key=lambda s: (*priority(s), s.locator))]
    place = {source_id: position for position, source_id in enumerate(ranked)}
    # The question as asked (the plan's first sub-question) has half the budget: its best sources come first.
    subs = [*order, *(s for s in per_sub_question if s not in order)]
    firsts: list[str] = []
    for sub_question_id in [*subs[:1] * max(1, budget // 2), *subs[1:]]:
        found = {s: r * trust(s) for s, r in per_sub_question.get(sub_question_id, {}).items() if s not in firsts}
        if found and len(firsts) < budget:
            firsts.append(min(found, key=lambda s: (-round(found[s], 9), place[s])))
    chosen = [*firsts, *(s for s in ranked if s not in firsts)][:budget]
    new = sum(1 for source_id in candidates if source_id not in sources)
    return Selection(candidates, chosen, new)
