"""Chroma's ONNX sentence embedding. Imported only when the 'chroma-onnx' embedding is chosen."""

from __future__ import annotations

from llama_index.core.embeddings import BaseEmbedding


class ChromaOnnxEmbedding(BaseEmbedding):
    """Chroma's ONNX all-MiniLM-L6-v2 sentence embedding: semantic, but its model is downloaded on first
    use (to ~/.cache/chroma), so it works only where that download succeeded once; where it did not, making
    one raises."""

    def __init__(self) -> None:
        super().__init__(model_name="chroma-onnx-all-MiniLM-L6-v2")
        from chromadb.utils.embedding_functions import ONNXMiniLM_L6_V2

        self._function = ONNXMiniLM_L6_V2()
        self._function(["probe"])  # loads the model, downloading it if it is not there yet

    @classmethod
    def class_name(cls) -> str:
        return "ChromaOnnxEmbedding"

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in vector] for vector in self._function(texts)]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vectors([query])[0]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vectors([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._vectors(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)
