"""Rank fusion: the hits of every query merged by source, and the best new sources chosen to read.

Providers score on different scales, so a source's relevance is reciprocal-rank fusion over every answer
it appears in, weighted by the source's credibility; the providers' own scores only break ties. Hits
whose URLs lead to the same page are one source, and a source the run has already read or given up on
is not chosen again.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from research_assistant.knowledge.documents import source_id_for
from research_assistant.schemas import SourceRecord, SourceStatus
from research_assistant.search.routing import Hit
from research_assistant.state import union
from research_assistant.text.urls import normalize_url
from research_assistant.web.credibility import assess_credibility

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


def select(hits: Iterable[Hit], sources: Mapping[str, SourceRecord], source_limit: int) -> Selection:
    """Merge hits by source, keep what is new, and choose the best within what is left of `source_limit`."""
    candidates: dict[str, SourceRecord] = {
        source_id: source for source_id, source in sources.items() if source.status is SourceStatus.FOUND
    }
    relevance: dict[str, float] = defaultdict(float)
    for hit in hits:
        source_id = source_id_for(hit.result.locator)
        known = sources.get(source_id)
        if known is not None and known.status is not SourceStatus.FOUND:
            continue
        relevance[source_id] += 1.0 / (RANK_CONSTANT + hit.rank)
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

    def priority(source: SourceRecord) -> tuple[float, ...]:
        trust = source.credibility.score if source.credibility else 0.5
        weighted = relevance.get(source.id, 0.0) * (0.5 + trust)
        # Sources that serve more sub-questions first; the locator breaks ties deterministically.
        return (-len(source.sub_question_ids), -round(weighted, 9), -source.score)

    ranked = sorted(candidates.values(), key=lambda s: (*priority(s), s.locator))
    new = sum(1 for source_id in candidates if source_id not in sources)
    return Selection(candidates, [source.id for source in ranked[:budget]], new)
