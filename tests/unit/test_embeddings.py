"""Embedding models: the offline hashing model, and Chroma's ONNX model behind the same interface."""

from __future__ import annotations

import numpy as np
import pytest

from research_assistant.knowledge.embeddings import EmbeddingUnavailable, HashingEmbedding, make_embedding
from research_assistant.knowledge.hashing import hashing_vector
from research_assistant.knowledge.onnx_embedding import ChromaOnnxEmbedding


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


def _per_occurrence(text: str, dim: int = 512) -> list[float]:
    """The hashing embedding as first written: every term, 4-gram and pair counted one occurrence at a time."""
    import hashlib
    import itertools

    from research_assistant.text.tokens import content_terms

    def bucket(feature: str) -> tuple[int, float]:
        value = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
        return value % dim, (1.0 if (value >> 63) & 1 else -1.0)

    terms = content_terms(text)
    counts: dict[str, float] = {}
    for term in terms:
        padded = f"<{term}>"
        counts["w:" + term] = counts.get("w:" + term, 0.0) + 1.0
        for gram in ("c:" + padded[i : i + 4] for i in range(len(padded) - 3)):
            counts[gram] = counts.get(gram, 0.0) + 0.25
    for left, right in itertools.pairwise(terms):
        counts[f"p:{left} {right}"] = counts.get(f"p:{left} {right}", 0.0) + 0.5
    if not counts:
        return [0.0] * dim
    slots, signs = zip(*(bucket(feature) for feature in counts), strict=True)
    weights = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    weights = np.where(weights >= 1.0, 1.0 + np.log(np.maximum(weights, 1.0)), weights) * np.array(signs)
    vector = np.bincount(np.array(slots), weights=weights, minlength=dim)
    norm = float(np.linalg.norm(vector))
    return (vector / norm).tolist() if norm else vector.tolist()


@pytest.mark.parametrize(
    "text",
    [
        "The recursion limit of the Python interpreter: sys.setrecursionlimit(3000) raises the limit.",
        "gc gc gc collects collects cycles cycles; the the collector collector runs runs again again " * 5,
        "aaaaaaaa aaaaaaaa bbbbbbbbbbbb aaaaaaaa",  # 4-grams repeated within one term and across terms
        "x",
        "",
    ],
)
def test_hashing_vectors_are_exactly_those_of_counting_each_occurrence(text: str) -> None:
    # Counting per distinct term (the fast way) must give the very same floats, so an index built either way
    # ranks the same.
    assert HashingEmbedding().get_text_embedding(text) == _per_occurrence(text)
    assert HashingEmbedding(dim=64).get_text_embedding(text) == _per_occurrence(text, 64)


def _varied_texts(count: int) -> list[str]:
    """Texts of 0 to 300 words: prose, stopwords, identifiers, numbers, accents and other scripts, repeats."""
    import random

    rng = random.Random(15)
    vocabulary = (  # noqa: SIM905 (a word list reads best as words)
        "the recursion limit of a Python interpreter is raised by sys.setrecursionlimit(3000) while gc collects "
        "cycles; C++ and C# compilers, x86_64 registers, RFC-2616 headers, 1,024 bytes, 3.14, don't won't it's "
        "café naïve İstanbul STRASSE straße Ωmega 東京 データ ..dots.. under_score __init__ -flag --long-option "
        "a an is to of 42 7 0x1F e.g. i.e. U.S.A. path/to/file.txt user@example.org http://example.org/a?b=c"
    ).split()
    texts = []
    for _ in range(count):
        words = [rng.choice(vocabulary) for _ in range(rng.randint(0, 300))]
        if words and rng.random() < 0.3:
            words += words[: rng.randint(1, len(words))]  # the same terms and pairs again
        separator = rng.choice([" ", "\n", "  ", ", ", "\n\n"])
        texts.append(separator.join(words))
    return texts


@pytest.mark.parametrize("dim", [512, 64])
def test_texts_embedded_in_blocks_get_the_vectors_of_counting_each_occurrence_bit_for_bit(
    dim: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The block-wise numpy arithmetic, with features numbered and forgotten, gives the very floats of the plain
    way, whatever else the block holds: vectors stored before and after it are the same."""
    from research_assistant.knowledge import hashing

    texts = _varied_texts(300)
    expected = np.array([_per_occurrence(text, dim) for text in texts], dtype=np.float64)
    assert np.count_nonzero(np.abs(expected).sum(axis=1)) > 250  # the texts are not all empty
    blocks = hashing.hashing_vectors(texts, dim)
    assert blocks.dtype == np.float64 and blocks.shape == (300, dim)
    assert np.array_equal(blocks.view(np.int64), expected.view(np.int64))
    one_by_one = np.array([hashing_vector(text, dim) for text in reversed(texts)])[::-1]
    assert np.array_equal(one_by_one.view(np.int64), expected.view(np.int64))
    monkeypatch.setattr(hashing, "_FEATURES_KEPT", 500)  # forgotten between blocks, again and again
    monkeypatch.setattr(hashing, "_BLOCK", 7)
    forgetting = hashing.hashing_vectors(texts, dim)
    assert np.array_equal(forgetting.view(np.int64), expected.view(np.int64))
    assert len(hashing._features.numbered) < 500 + 7 * 2000


def test_a_text_embedded_again_gives_the_same_vector_as_a_list_of_its_own() -> None:
    model = HashingEmbedding()
    text = "The collector frees objects that are only reachable from reference cycles."
    first = model.get_text_embedding(text)
    first[0] = 99.0  # a caller's list is its own
    again = model.get_text_embedding(text)
    assert again == hashing_vector(text, 512).tolist() == model.get_text_embedding_batch([text])[0]
    assert HashingEmbedding(dim=64).get_text_embedding(text) == hashing_vector(text, 64).tolist()


def test_a_hashing_model_s_ranking_counts_less_than_bm25_s_in_fusion() -> None:
    """Of two chunks each ranked first by one ranking and about twentieth by the other, BM25's first wins when
    the vectors are hashed: they are lexical evidence much as BM25's, only noisier. A trained model counts in full."""
    from research_assistant.knowledge.embeddings import fusion_weight
    from research_assistant.knowledge.retrievers import Hit, fuse

    def ranking(*ids: str) -> list[Hit]:
        return [Hit(chunk_id, {}, float(len(ids) - rank)) for rank, chunk_id in enumerate(ids)]

    vectors = ranking("vector-first", *[f"v{n}" for n in range(19)], "bm25-first")
    lexical = ranking("bm25-first", *[f"b{n}" for n in range(17)], "vector-first")
    assert [hit.chunk_id for hit in fuse([vectors, lexical], 1)] == ["vector-first"]
    hashed = [fusion_weight(HashingEmbedding()), 1.0]
    assert [hit.chunk_id for hit in fuse([vectors, lexical], 1, hashed)] == ["bm25-first"]

    class Trained:
        model_name = "trained"

        def get_text_embedding(self, text: str) -> list[float]:
            return [1.0]

        def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
            return [[1.0] for _ in texts]

        def get_query_embedding(self, query: str) -> list[float]:
            return [1.0]

    assert fusion_weight(Trained()) == 1.0
