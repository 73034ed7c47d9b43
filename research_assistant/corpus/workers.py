"""Parsing, chunking and embedding corpus files in worker processes while the indexer stores what they make.

Parsing HTML and hashing chunk vectors are pure-Python work: in threads they would take turns on the GIL.
So a sync with many files to index hands each file to a pool of processes (one per core) that loads it
(`loaders.load_file`), cuts it into the repository's chunks (`knowledge.chunking`) and, for the offline
hashing embedding, computes their vectors, and gives each chunk's BM25 terms (`knowledge.bm25_terms`), while
the main process writes the results to the document cache and Chroma. The workers import only the loaders, the
splitter, the hashing arithmetic and bm25s's tokenizer: no Chroma, no LlamaIndex, so they start in about a second.

Processes are started with `spawn`, never `fork`: the main process runs threads (Chroma's, the event
loop's) that a forked child would inherit mid-flight. And they are started without the parent's main
script: `spawn` would run it again in each child, and a script with no `if __name__ == "__main__"` guard
that indexes a corpus would then wait in every child for the repository lock its parent holds.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from research_assistant.corpus.loaders import CorpusFileError, load_file
from research_assistant.knowledge import bm25_terms
from research_assistant.knowledge.chunking import Chunked, embed_text, pieces
from research_assistant.knowledge.hashing import hashing_vectors
from research_assistant.text.document import DocumentText

MIN_FILES = 40
"""Fewer files to index than this are loaded in threads: starting each process (about 0.5 s of imports) would
cost more than it saves, as on the sample corpus of a first run."""


@dataclass(frozen=True)
class Chunking:
    """How the repository chunks and embeds: what a worker needs to make the same chunks and vectors."""

    chunk_size: int
    chunk_overlap: int
    dim: int | None
    """The hashing embedding's vector size, or None when the embedding is another model (embedded later)."""


@dataclass(frozen=True)
class Prepared:
    """A loaded file, with its chunks (and vectors) when made ahead."""

    loaded: DocumentText
    chunked: Chunked | None = None


def prepare(path: Path, max_bytes: int, chunking: Chunking | None) -> Prepared | str:
    """A file loaded and, given `chunking`, cut into chunks with their vectors; or the reason it cannot be read.

    Runs in a worker process (or a thread, without `chunking`).
    """
    try:
        loaded = load_file(path, max_bytes)
    except CorpusFileError as error:
        return str(error)
    if chunking is None:
        return Prepared(loaded)
    made = list(pieces(loaded.text, chunking.chunk_size, chunking.chunk_overlap))
    vectors = None
    if chunking.dim is not None:
        # float32 crosses the process boundary at half the size, and is what Chroma stores anyway.
        texts = [embed_text(loaded.title, text) for _, text, _ in made]
        vectors = hashing_vectors(texts, chunking.dim).astype(np.float32)
    # So that the main process only numbers them:
    terms = bm25_terms.terms([bm25_terms.bm25_text(loaded.title, text) for _, text, _ in made])
    return Prepared(loaded, Chunked(chunking.chunk_size, chunking.chunk_overlap, made, chunking.dim, vectors, terms))


def process_pool(files: int) -> Executor | None:
    """A pool of worker processes for indexing `files` files, or None when threads will do: few files, one
    core, or a process that may not start others (a daemonic one)."""
    workers = min(os.cpu_count() or 1, files)
    if files < MIN_FILES or workers < 2 or multiprocessing.current_process().daemon:
        return None
    try:
        pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupts
        )
        with _main_not_rerun():
            for _ in range(workers):  # a pool starts one process per task submitted while none is idle
                pool.submit(_started)
    except (OSError, ValueError, RuntimeError):  # no processes to be had here: the threads still work
        return None
    return pool


def _started() -> None:
    """A task that only makes the pool start a process."""


def _ignore_interrupts() -> None:
    """Ctrl-C reaches every process of the terminal's group: the parent cancels the sync and stops its workers
    (`stop`), which must not each print a traceback of their own."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def stop(pool: Executor) -> None:
    """Stop a pool at once: drop the files still queued and end the workers' processes in the middle of
    theirs (a cancelled sync must end within moments, not when the files in hand are parsed)."""
    pool.shutdown(wait=False, cancel_futures=True)
    # `ProcessPoolExecutor` has no public way to end its processes before Python 3.14 (`terminate_workers`).
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()


@contextmanager
def _main_not_rerun() -> Iterator[None]:
    """While worker processes start, hide where the main module came from, so `spawn` does not run it again
    in them (the workers need nothing from it: their task is a function of this module)."""
    main = sys.modules["__main__"]
    names = ("__file__", "__spec__")
    hidden: dict[str, object] = {name: main.__dict__.pop(name) for name in names if name in main.__dict__}
    main.__spec__ = None
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(hidden)
