"""Chroma's ONNX sentence embedding. Imported only when the 'chroma-onnx' embedding is chosen."""

from __future__ import annotations

BATCH = 10
"""Texts per run of the model (the batch LlamaIndex's embeddings used, which this model was measured with)."""


class ChromaOnnxEmbedding:
    """Chroma's ONNX all-MiniLM-L6-v2 sentence embedding: semantic, but its model is downloaded on first
    use (to ~/.cache/chroma), so it works only where that download succeeded once; where it did not, making
    one raises."""

    model_name = "chroma-onnx-all-MiniLM-L6-v2"

    def __init__(self) -> None:
        from chromadb.utils.embedding_functions import ONNXMiniLM_L6_V2

        self._function = ONNXMiniLM_L6_V2()
        self._function(["probe"])  # loads the model, downloading it if it is not there yet

    def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
        return [
            [float(x) for x in vector]
            for start in range(0, len(texts), BATCH)
            for vector in self._function(texts[start : start + BATCH])
        ]

    def get_text_embedding(self, text: str) -> list[float]:
        return self.get_text_embedding_batch([text])[0]

    def get_query_embedding(self, query: str) -> list[float]:
        return self.get_text_embedding(query)
