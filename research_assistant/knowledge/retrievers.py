"""The retrievers the research repository fuses: BM25 over chunk ids, filtered vector search, and
reciprocal rank fusion over several phrasings of a query."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import bm25s
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.embeddings import BaseEmbedding
from llama_index.core.retrievers import QueryFusionRetriever
from llama_index.core.schema import BaseNode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores import MetadataFilters
from llama_index.retrievers.bm25 import BM25Retriever

from research_assistant.text.tokens import english_stemmer

MIN_SIMILARITY = 0.1
"""Cosine similarity below which a vector hit is noise (unrelated texts score about 0 ± 0.05 with the
hashing embedding); it keeps a query about something absent from returning arbitrary chunks."""


class GivenQueriesFusion(QueryFusionRetriever):
    """Reciprocal rank fusion over the caller's own alternative queries, where LlamaIndex would ask an LLM."""

    def __init__(self, *args: Any, alternatives: Sequence[str] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._alternatives = list(alternatives)

    def _get_queries(self, original_query: str) -> list[QueryBundle]:
        return [QueryBundle(query) for query in self._alternatives]


class ChunkBM25Retriever(BM25Retriever):
    """LlamaIndex's BM25 retriever over an index that stores only chunk ids.

    Matching chunks are read back from the vector store, so the index stays
    small on disk and in memory, and both retrievers return identical nodes,
    which is what lets the fusion merge their ranks. Chunks sharing no term
    with the query are not returned.
    """

    def __init__(self, bm25: bm25s.BM25, chunk_ids: list[str], fetch: Callable[[list[str]], list[BaseNode]]) -> None:
        super().__init__(existing_bm25=bm25, similarity_top_k=len(chunk_ids), stemmer=english_stemmer())
        self.chunk_ids = chunk_ids
        self._fetch = fetch

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        tokens = bm25s.tokenize(
            [query_bundle.query_str],
            stopwords="en",
            stemmer=self.stemmer,
            token_pattern=self.token_pattern,
            return_ids=False,
            show_progress=False,
        )
        if not tokens or not tokens[0]:
            return []
        k = min(self.similarity_top_k, len(self.chunk_ids))
        indexes, scores = self.bm25.retrieve(tokens, k=k, show_progress=False)
        ranked = [(self.chunk_ids[int(i)], float(s)) for i, s in zip(indexes[0], scores[0], strict=True) if s > 0]
        nodes = {node.node_id: node for node in self._fetch([chunk_id for chunk_id, _ in ranked])}
        return [NodeWithScore(node=nodes[chunk_id], score=score) for chunk_id, score in ranked if chunk_id in nodes]


class FilteredVectorRetriever(BaseRetriever):
    """Vector search through the index's retriever, with filters applied the fast way.

    A small filter (some sources) goes to Chroma as a metadata filter. A large
    one (a corpus that is most of the collection) is applied to a larger
    unfiltered search, falling back to Chroma's filter when too few hits pass.
    """

    def __init__(
        self,
        index: VectorStoreIndex,
        embedding: BaseEmbedding,
        top_k: int,
        filters: MetadataFilters | None,
        accept: Callable[[BaseNode], bool],
        overfetch: int | None,
    ) -> None:
        super().__init__()
        self._index = index
        self._embedding = embedding
        self._top_k = top_k
        self._filters = filters
        self._accept = accept
        self._overfetch = overfetch

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        vector = query_bundle.embedding or self._embedding.get_query_embedding(query_bundle.query_str)
        if not any(vector):  # nothing to compare, e.g. a query of stopwords only
            return []
        bundle = QueryBundle(query_str=query_bundle.query_str, embedding=vector)
        hits: list[NodeWithScore] | None = None
        if self._filters is None or self._overfetch:
            wanted = self._overfetch or self._top_k
            found = self._index.as_retriever(similarity_top_k=wanted).retrieve(bundle)
            hits = [hit for hit in found if self._accept(hit.node)]
            if len(hits) < self._top_k and len(found) == wanted:
                hits = None  # the filter is narrower than it looked: ask Chroma to apply it
        if hits is None:
            hits = self._index.as_retriever(similarity_top_k=self._top_k, filters=self._filters).retrieve(bundle)
        # ChromaVectorStore reports exp(-cosine distance); cosine similarity is 1 - distance.
        return [hit for hit in hits[: self._top_k] if 1.0 + math.log(max(hit.score or 0.0, 1e-12)) >= MIN_SIMILARITY]
