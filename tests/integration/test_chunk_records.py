"""What a chunk stores in Chroma: the document's fields once, and a repository stored in the earlier layout (every
field on every chunk, the text inside LlamaIndex's node JSON) still answering as before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.utils import node_to_metadata_dict

from research_assistant.knowledge.chunk_records import DOCUMENT_KEYS
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository
from tests.integration.test_repository import TEXTS, doc

_EARLIER_KEYS = ("source_id", "locator", "title", "fetched_at", "run_id", "corpus", "content_hash", "start", "chunk")


def _repository(folder: Path) -> ResearchRepository:
    return ResearchRepository(folder, HashingEmbedding(), chunk_size=300, chunk_overlap=40)


def _earlier(meta: dict[str, Any], first: dict[str, Any]) -> dict[str, Any]:
    """A chunk's metadata as the earlier layout stored it: LlamaIndex's node JSON, every field on every chunk."""
    fields = {key: (meta[key] if key in meta else first[key]) for key in _EARLIER_KEYS}
    node = TextNode(
        id_=f"{meta['source_id']}#{meta['chunk']}",
        text=str(meta["text"]),
        metadata=fields,
        excluded_embed_metadata_keys=[key for key in _EARLIER_KEYS if key != "title"],
        excluded_llm_metadata_keys=list(_EARLIER_KEYS),
    )
    stored = node_to_metadata_dict(node, remove_text=False, flat_metadata=True)
    unused = {"_node_type", "document_id", "doc_id", "ref_doc_id"}
    return {key: value for key, value in stored.items() if value is not None and key not in unused}


def _copied_in_earlier_layout(current: ResearchRepository, folder: Path) -> ResearchRepository:
    """A repository in `folder` holding `current`'s chunks and vectors, stored in the earlier layout."""
    stored = current._collection.get(include=["metadatas", "embeddings"])
    first = {meta["source_id"]: meta for meta in stored["metadatas"] or [] if meta["chunk"] == 0}
    earlier = _repository(folder)
    earlier._collection.add(
        ids=stored["ids"],
        embeddings=stored["embeddings"],
        metadatas=[_earlier(dict(meta), first[meta["source_id"]]) for meta in stored["metadatas"] or []],
    )
    return earlier


def test_only_the_first_chunk_holds_the_documents_fields(tmp_path: Path) -> None:
    repository = _repository(tmp_path / "db")
    repository.add_documents([doc("faults")], run_id="r1")
    metadatas = repository._collection.get(include=["metadatas"])["metadatas"] or []
    assert len(metadatas) > 2
    for meta in metadatas:
        assert set(DOCUMENT_KEYS) <= set(meta) if meta["chunk"] == 0 else not set(DOCUMENT_KEYS) & set(meta)
        assert {"source_id", "corpus", "chunk", "start", "title", "text"} <= set(meta)


def test_a_repository_stored_in_the_earlier_layout_answers_as_before(tmp_path: Path) -> None:
    current = _repository(tmp_path / "current")
    current.add_documents([doc(name) for name in TEXTS], run_id="r1")
    earlier = _copied_in_earlier_layout(current, tmp_path / "earlier")
    first = [meta["source_id"] for meta in current._collection.get(where={"chunk": 0})["metadatas"] or []]
    assert all("_node_content" in meta for meta in earlier._collection.get(include=["metadatas"])["metadatas"] or [])

    for question in ("ZX-4471 pantograph", "When did the depot open?", "ticket fares", "low-floor trams speed"):
        assert earlier.retrieve(question, 4) == current.retrieve(question, 4) != []
        assert earlier.retrieve(question, 2, corpus="C1") == current.retrieve(question, 2, corpus="C1")
    assert earlier.indexed_hashes("C1") == current.indexed_hashes("C1")
    assert earlier.document_info(first) == current.document_info(first)


def test_a_document_stored_in_the_earlier_layout_takes_the_new_one_whole_when_indexed_again(tmp_path: Path) -> None:
    current = _repository(tmp_path / "current")
    current.add_documents([doc("faults")], run_id="r1")
    earlier = _copied_in_earlier_layout(current, tmp_path / "earlier")

    earlier.add_documents([doc("faults", "Fault code QW-9000 means the doors are blocked.")], run_id="r2")

    metadatas = earlier._collection.get(include=["metadatas"])["metadatas"] or []
    assert len(metadatas) == 1
    assert "_node_content" not in metadatas[0] and metadatas[0]["run_id"] == "r2"
