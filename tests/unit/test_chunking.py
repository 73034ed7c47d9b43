"""Chunks made outside the repository (in indexing workers) are the repository's own chunks."""

from __future__ import annotations

import pytest
from llama_index.core.schema import MetadataMode, TextNode

from research_assistant.knowledge.chunking import embed_text, pieces, sections


@pytest.mark.parametrize("title", ["Tram fares", "", "  padded  ", "Braces {x} and {{y}}", "two\nlines"])
def test_the_embedded_text_is_the_one_llamaindex_makes_from_the_title(title: str) -> None:
    node = TextNode(
        text="  The depot opened in 2009.\n",
        metadata={"title": title, "source_id": "S1", "chunk": 0},
        excluded_embed_metadata_keys=["source_id", "chunk"],
    )
    assert embed_text(title, node.text) == node.get_content(metadata_mode=MetadataMode.EMBED)


def test_pieces_cover_a_long_text_with_starts_that_point_at_them() -> None:
    text = "\n\n".join(f"Paragraph {n} says that item {n} weighs {n * 3} grams." * 3 for n in range(3000))
    made = list(pieces(text, 900, 120))
    assert len(made) > 100 and all(len(chunk) <= 900 for _, chunk, _ in made)
    assert all(text[start : start + len(chunk)] == chunk for start, chunk, _ in made)
    reached = [done for _, _, done in made]
    assert reached == sorted(reached) and reached[-1] == len(text)
    assert "".join(piece for _, piece in sections(text, 50_000)) == text
