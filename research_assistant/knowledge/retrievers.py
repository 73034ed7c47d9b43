"""The rankings the research repository fuses, straight from Chroma and bm25s: BM25 over chunk ids, vector
search with filters applied the fast way, and reciprocal rank fusion over several phrasings of a query."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import bm25s

from research_assistant.knowledge import bm25_terms
from research_assistant.knowledge.chunk_records import chunk_text
from research_assistant.text.tokens import compound_pairs, english_stemmer

MIN_SIMILARITY = 0.1
"""Cosine similarity below which a vector hit is noise (unrelated texts score about 0 ± 0.05 with the
hashing embedding); it keeps a query about something absent from returning arbitrary chunks."""
FUSION_K = 60.0
"""Reciprocal rank fusion's constant: a chunk ranked r-th (from 0) in a ranking scores 1 / (r + 60) there."""
_TOKENS = r"(?u)\b\w\w+\b"
"""What counts as a word of a query: two or more word characters."""

Where = dict[str, Any]
"""A Chroma `where` filter."""


@dataclass(frozen=True)
class Hit:
    """A chunk a ranking found: its id, its Chroma metadata and its score in that ranking."""

    chunk_id: str
    metadata: Mapping[str, Any]
    score: float

    @property
    def text(self) -> str:
        """The chunk's text, from its metadata."""
        return chunk_text(self.metadata)


@dataclass
class ChunkBM25:
    """A BM25 index (bm25s) whose rows are chunk ids; the chunks are read back from Chroma, so the index stays
    small on disk and in memory. Chunks sharing no term with the query are not returned."""

    bm25: bm25s.BM25
    chunk_ids: list[str]

    def rank(self, collection: Any, query: str, top_k: int) -> list[Hit]:
        tokens = bm25s.tokenize(
            [bm25_terms.bm25_query(query)],
            stopwords="en",
            stemmer=english_stemmer(),
            token_pattern=_TOKENS,
            return_ids=False,
            show_progress=False,
        )
        if not tokens or not tokens[0]:
            return []
        # A name may join two of the query's words ('send mail' -> the 'sendmail' setting): look for it too.
        tokens = [tokens[0] + [joined for joined in compound_pairs(query) if joined not in tokens[0]]]
        indexes, scores = self.bm25.retrieve(tokens, k=min(top_k, len(self.chunk_ids)), show_progress=False)
        ranked = [(self.chunk_ids[int(i)], float(s)) for i, s in zip(indexes[0], scores[0], strict=True) if s > 0]
        if not ranked:
            return []
        found = collection.get(ids=[chunk_id for chunk_id, _ in ranked], include=["metadatas"])
        metadatas = dict(zip(found["ids"], found["metadatas"] or [], strict=True))
        return [Hit(chunk_id, metadatas[chunk_id], score) for chunk_id, score in ranked if chunk_id in metadatas]


def vector_rank(
    collection: Any,
    vector: Sequence[float],
    top_k: int,
    where: Where | None,
    accept: Callable[[Mapping[str, Any]], bool],
    overfetch: int | None,
) -> list[Hit]:
    """The `top_k` chunks nearest `vector` that `where` admits, and similar enough to count.

    A small filter (some sources) goes to Chroma as its `where`. A large one (a corpus that is most of the
    collection), for which `overfetch` is set, is applied by `accept` to a larger unfiltered search, falling
    back to Chroma's filter when too few hits pass."""
    if not any(vector):  # nothing to compare, e.g. a query of stopwords only
        return []
    hits: list[Hit] | None = None
    if where is None or overfetch:
        wanted = overfetch or top_k
        found = _nearest(collection, vector, wanted, None)
        hits = [hit for hit in found if accept(hit.metadata)]
        if len(hits) < top_k and len(found) == wanted:
            hits = None  # the filter is narrower than it looked: ask Chroma to apply it
    if hits is None:
        hits = _nearest(collection, vector, top_k, where)
    # A hit's score is exp(-cosine distance); cosine similarity is 1 - distance.
    return [hit for hit in hits[:top_k] if 1.0 + math.log(max(hit.score, 1e-12)) >= MIN_SIMILARITY]


def _nearest(collection: Any, vector: Sequence[float], n: int, where: Where | None) -> list[Hit]:
    found = collection.query(
        query_embeddings=[list(vector)],
        n_results=n,
        include=["metadatas", "distances"],
        **({"where": where} if where else {}),
    )
    return [
        Hit(chunk_id, metadata, math.exp(-distance))
        for chunk_id, metadata, distance in zip(
            found["ids"][0], found["metadatas"][0], found["distances"][0], strict=True
        )
    ]


def fuse(rankings: Sequence[Sequence[Hit]], top_k: int, weights: Sequence[float] | None = None) -> list[Hit]:
    """Reciprocal rank fusion: the `top_k` chunks by the sum, over the rankings that hold them, of
    weight / (rank + `FUSION_K`), each ranking's weight 1 unless `weights` says otherwise; each scored so.
    Ties keep the order in which the chunks were first found."""
    fused: dict[str, float] = {}
    hits: dict[str, Hit] = {}
    for position, ranking in enumerate(rankings):
        weight = weights[position] if weights is not None else 1.0
        for rank, hit in enumerate(sorted(ranking, key=lambda hit: hit.score, reverse=True)):
            hits[hit.chunk_id] = hit
            fused[hit.chunk_id] = fused.get(hit.chunk_id, 0.0) + weight / (rank + FUSION_K)
    best = sorted(fused.items(), key=lambda item: item[1], reverse=True)[:top_k]
    return [replace(hits[chunk_id], score=score) for chunk_id, score in best]
