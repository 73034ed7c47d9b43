"""Worker processes for indexing: they make what the repository would, start without re-running the caller's
script, and a worker that dies costs nothing but a reload in the main process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import numpy as np
import pytest

from research_assistant.corpus import workers
from research_assistant.corpus.workers import Chunking, Prepared, prepare
from research_assistant.knowledge.chunking import embed_text
from research_assistant.knowledge.embeddings import HashingEmbedding


def test_prepare_makes_the_chunks_and_vectors_the_repository_would(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("# Collector\n\n" + "The cyclic collector finds unreachable cycles. " * 60)
    prepared = prepare(page, 10**6, Chunking(300, 50, 512))
    assert isinstance(prepared, Prepared) and prepared.chunked is not None and prepared.chunked.vectors is not None
    texts = [text for _, text, _ in prepared.chunked.pieces]
    assert len(texts) > 3 and all(page.read_text().find(text) >= 0 for text in texts)
    expected = HashingEmbedding().get_text_embedding_batch([embed_text("Collector", text) for text in texts])
    assert prepared.chunked.vectors.tolist() == np.array(expected, dtype=np.float32).tolist()
    assert prepare(tmp_path / "missing.md", 10**6, None) == "cannot read file: No such file or directory"


def test_few_files_or_one_core_need_no_processes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    assert workers.process_pool(workers.MIN_FILES - 1) is None
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 1)
    assert workers.process_pool(1000) is None


def test_a_script_without_a_main_guard_is_not_run_again_in_the_workers(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text("# Note\n\nReference counting frees memory.\n")
    script = tmp_path / "index.py"
    script.write_text(
        textwrap.dedent(f"""
        import os
        from unittest import mock
        from pathlib import Path
        from research_assistant.corpus import workers
        print("script ran", flush=True)
        with mock.patch.object(workers.os, "cpu_count", lambda: 2):
            pool = workers.process_pool(100)
        assert pool is not None
        print(pool.submit(workers.prepare, Path({str(note)!r}), 10**6, None).result().loaded.title, flush=True)
        workers.stop(pool)
        """)
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["script ran", "Note"]


def test_a_file_whose_worker_died_is_loaded_in_the_main_process(tmp_path: Path) -> None:
    from research_assistant.corpus.indexer import CorpusIndexer, _File

    note = tmp_path / "note.md"
    note.write_text("# Note\n\nReference counting frees memory.\n")
    died: Future[Prepared | str] = Future()
    died.set_exception(BrokenProcessPool("a worker process died"))
    indexer = CorpusIndexer.__new__(CorpusIndexer)
    indexer._max_bytes = 10**6
    outcome = indexer._outcome(_File(path=note, locator=note.as_posix(), source_id="S1"), died)
    assert isinstance(outcome, Prepared) and outcome.loaded.title == "Note" and outcome.chunked is None
