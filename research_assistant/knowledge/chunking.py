"""Cutting a document's text into the repository's chunks, and the text each chunk is embedded as.

Kept free of Chroma and LlamaIndex imports, so that the worker processes that parse, chunk and embed
files while a corpus is indexed (`corpus/workers.py`) start quickly; the repository chunks with the same
functions, so a chunk made in a worker is the chunk the repository would have made.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from langchain_text_splitters import RecursiveCharacterTextSplitter

SECTION = 1 << 20
"""Characters of a document split at a time: a long text's chunks are never all in memory together."""


def sections(text: str, size: int = SECTION) -> Iterator[tuple[int, str]]:
    """(offset, piece) of a text cut into pieces of at most `size` characters, at a paragraph break where the
    second half of a piece has one (else at a line break, else at a space), as the splitter would cut."""
    start = 0
    while len(text) - start > size:
        end = start + size
        for separator in ("\n\n", "\n", " "):
            found = text.rfind(separator, start + size // 2, end)
            if found >= 0:
                end = found + len(separator)
                break
        yield start, text[start:end]
        start = end
    yield start, text[start:]


@lru_cache(maxsize=8)
def splitter(chunk_size: int, chunk_overlap: int) -> RecursiveCharacterTextSplitter:
    """The splitter for these settings (one per process: it holds no state between calls)."""
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap)


def pieces(text: str, chunk_size: int, chunk_overlap: int) -> Iterator[tuple[int, str, int]]:
    """(start in `text` or -1, chunk text, characters split so far) of each chunk, in order, a section at a time.

    A chunk's start is looked for where the splitter's `create_documents` looks for it with `add_start_index`
    (from the previous chunk's end less the overlap), without the documents it would make, which took as long
    as the splitting; where that finds nothing (the guess can miss), from the section's beginning."""
    split = splitter(chunk_size, chunk_overlap)
    for offset, section in sections(text):
        guess, previous = 0, 0
        for chunk in split.split_text(section):
            guess = section.find(chunk, max(0, guess + previous - chunk_overlap))
            previous = len(chunk)
            start = guess if guess >= 0 else section.find(chunk)
            yield (offset + start if start >= 0 else -1), chunk, offset + len(section)


def embed_text(title: str, text: str) -> str:
    """What a chunk is embedded as: its title, then its text; the form LlamaIndex's `TextNode.get_content`
    gives for embedding when the title is the one metadata key embedded (the repository checks that it is)."""
    return f"{f'title: {title}'.strip()}\n\n{text}".strip()


@dataclass(frozen=True)
class Chunked:
    """A document's chunks made ahead of indexing (in a worker process), for `ResearchRepository.add_documents`.

    The repository uses them only when they were made with its own chunk size and overlap, and the vectors
    only when its embedding is the hashing one of `dim` and each chunk's embedded text is `embed_text`'s.
    """

    chunk_size: int
    chunk_overlap: int
    pieces: list[tuple[int, str, int]]
    """(start or -1, text, characters split so far) of each chunk, as `pieces` gives them."""
    dim: int | None = None
    vectors: np.ndarray | None = None
    """One row per piece: the hashing embedding of `embed_text(title, piece)`."""
    terms: list[list[str]] | None = None
    """Each piece's BM25 terms (`bm25_terms.terms`)."""
