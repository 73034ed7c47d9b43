"""Embedding models: the offline hashing model, and Chroma's ONNX model behind the same interface."""

from __future__ import annotations

import numpy as np
import pytest

from research_assistant.knowledge.embeddings import (
    ChromaOnnxEmbedding,
    EmbeddingUnavailable,
    HashingEmbedding,
    make_embedding,
)


def cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_hashing_vectors_are_unit_length_deterministic_and_lexically_meaningful() -> None:
    model = HashingEmbedding()
    limit = model.get_text_embedding("The recursion limit of the Python interpreter")
    assert len(limit) == 512 and abs(np.linalg.norm(limit) - 1) < 1e-9
    assert limit == HashingEmbedding().get_text_embedding("The recursion limit of the Python interpreter")
    related = model.get_query_embedding("python recursion depth limits")
    unrelated = model.get_query_embedding("bananas are a yellow fruit")
    assert cosine(limit, related) > 0.4 > 0.1 > cosine(limit, unrelated)
    assert model.get_text_embedding("") == [0.0] * 512


def test_the_onnx_model_is_used_through_chroma_and_named_for_its_collection(monkeypatch: pytest.MonkeyPatch) -> None:
    class FakeOnnx:
        def __call__(self, texts: list[str]) -> list[np.ndarray]:
            return [np.array([float(len(text)), 1.0]) for text in texts]

    monkeypatch.setattr("chromadb.utils.embedding_functions.ONNXMiniLM_L6_V2", FakeOnnx)
    model = make_embedding("chroma-onnx")
    assert isinstance(model, ChromaOnnxEmbedding)
    assert model.model_name == "chroma-onnx-all-MiniLM-L6-v2" != HashingEmbedding().model_name
    assert model.get_text_embedding_batch(["ab", "abcd"]) == [[2.0, 1.0], [4.0, 1.0]]


def test_an_unknown_model_name_is_refused() -> None:
    with pytest.raises(EmbeddingUnavailable, match="choose one of: hashing, chroma-onnx"):
        make_embedding("word2vec")
