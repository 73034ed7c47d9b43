"""Large inputs: a 60 MB text file is indexed in bounded memory, a file over the size cap is skipped with a
warning naming it and the cap, and Ctrl-C while a large corpus is indexed ends the run at once, leaving the
repository usable."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import default_ctrl_c

from research_assistant.corpus.loaders import load_file

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python-memory"
MEMORY_LIMIT_MB = 1024

pytestmark = pytest.mark.slow

_INDEX = """
import hashlib
import sys
import numpy as np
from llama_index.core.embeddings import BaseEmbedding
from pathlib import Path
from research_assistant.corpus.indexer import CorpusIndexer
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.repository import ResearchRepository
from research_assistant.settings import get_settings

class QuickEmbedding(BaseEmbedding):
    # Vectors as large as the default model's, made from a hash of the text: the default model embeds 60 MB in
    # over a minute, which CI cannot spare; its caches are bounded (about 110 MB at most).
    def _vector(self, text):
        seed = int(hashlib.sha1(text.encode()).hexdigest()[:8], 16)
        return np.random.default_rng(seed).standard_normal(512).tolist()

    def _get_text_embedding(self, text):
        return self._vector(text)

    def _get_query_embedding(self, query):
        return self._vector(query)

    async def _aget_query_embedding(self, query):
        return self._vector(query)


settings = get_settings()
repository = ResearchRepository(
    settings.db_dir,
    QuickEmbedding(model_name="quick-512"),
    chunk_size=settings.chunk_size,
    chunk_overlap=settings.chunk_overlap,
)
report = CorpusIndexer(Path(sys.argv[1]), repository, DocumentCache(settings.cache_dir)).sync(
    progress=lambda line: print(line, file=sys.stderr, flush=True)
)
print(report.indexed, len(report.skipped), repository.chunk_count())
print(len(repository.retrieve("How does the garbage collector reclaim reference cycles?", 5)))
# The peak resident memory of this program, in MB. Not getrusage's ru_maxrss: Linux carries it over an exec from
# the process that forked this one (the test runner, often larger than 1 GB late in a full run).
status = Path("/proc/self/status").read_text()
print(int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) // 1024)
"""


def _env(workdir: Path, **settings: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("RESEARCH_")}
    env.update(
        RESEARCH_REASONER="extractive",
        RESEARCH_DB_DIR=str(workdir / "research_db"),
        RESEARCH_CACHE_DIR=str(workdir / "cache"),
        **settings,
    )
    return env


def _prose(size: int) -> str:
    """`size` characters or so of shuffled paragraphs of real prose, with curly quotes and an emoji, so that
    Python holds the text at four bytes a character, as it does for much real-world text."""
    paragraphs = [
        part.strip()
        for path in sorted(EXAMPLES.glob("*"))
        for part in load_file(path).text.split("\n\n")
        if len(part.split()) >= 8
    ]
    paragraphs.append("“Quoted” text, an em dash — and a wink 😉 appear now and then.")
    rng = random.Random(7)
    pieces: list[str] = []
    total = 0
    while total < size:
        piece = rng.choice(paragraphs)
        pieces.append(piece)
        total += len(piece) + 2
    return "\n\n".join(pieces)


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "research_assistant.cli", *args]


def test_a_60_mb_text_file_is_indexed_in_less_than_a_gigabyte(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "big.txt").write_text(_prose(60 * 10**6), encoding="utf-8")
    # Bigger chunks than the default (and a quick embedding) keep the test within CI's time budget; the text is
    # as large, and it is the text, split and embedded in pieces, that must not be held more than once. With the
    # defaults, indexing this file peaks at about 980 MB.
    env = _env(tmp_path, RESEARCH_CHUNK_SIZE="4000")
    process = subprocess.Popen(
        [sys.executable, "-c", _INDEX, str(corpus)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, errors = process.communicate(timeout=300)
    assert process.returncode == 0, errors
    counts, retrieved, peak_mb = out.splitlines()
    indexed, skipped, chunks = (int(part) for part in counts.split())
    assert (indexed, skipped) == (1, 0) and chunks > 10_000
    assert int(retrieved) == 5
    assert re.search(r"^indexing big.txt: 50% of \d+ MB$", errors, re.MULTILINE), errors
    assert "Traceback" not in errors
    assert int(peak_mb) < MEMORY_LIMIT_MB, f"indexing a 60 MB file took {peak_mb} MB"


def test_a_file_over_the_size_cap_is_skipped_with_a_warning_naming_it_and_the_cap(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(EXAMPLES, corpus)
    (corpus / "huge.txt").write_text(_prose(2 * 2**20), encoding="utf-8")
    done = subprocess.run(
        _cli("run", "How does Python reclaim reference cycles?", "--corpus", str(corpus), "--depth", "quick"),
        cwd=tmp_path,
        env=_env(tmp_path, RESEARCH_MAX_FILE_MB="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "huge.txt" in line]
    assert len(warnings) == 1
    assert re.fullmatch(
        rf"\[search\] warning: skipped {re.escape((corpus / 'huge.txt').resolve().as_posix())}: "
        r"file too large \(2\.\d+ MB; the limit is 1 MB, set by RESEARCH_MAX_FILE_MB\)",
        warnings[0],
    ), warnings
    report, sources = done.stdout.split("## Sources")
    assert "huge.txt: file too large" in report and "huge.txt" not in sources  # the report says what was left out


def test_ctrl_c_while_indexing_many_files_ends_the_run_at_once(tmp_path: Path) -> None:
    corpus = tmp_path / "many"
    for number in range(10_000):
        folder = corpus / f"part{number // 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"note{number}.md").write_text(
            f"# Note {number}\n\nReference counting frees object {number} when its count drops to zero.\n"
        )
    process = subprocess.Popen(
        _cli("run", "How does Python free memory?", "--corpus", str(corpus), "--out", str(tmp_path / "x.md")),
        cwd=tmp_path,
        env=_env(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_ctrl_c,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "indexing 10,000 files" in line:  # Ctrl-C as indexing starts: worker processes index 10,000 notes
            break  # in about a second
    assert process.poll() is None, "the corpus was indexed before Ctrl-C"
    pressed = time.monotonic()
    process.send_signal(signal.SIGINT)
    errors = process.stderr.read()
    process.wait(timeout=30)
    latency = time.monotonic() - pressed
    assert process.returncode == 130, errors
    assert "research-assistant: cancelled run" in errors and "Traceback" not in errors
    assert latency < 3, f"the run took {latency:.1f} s to end after Ctrl-C"  # about 0.2 s on a quiet machine

    # The repository stays usable: a run over another corpus in the same folder researches as usual.
    other = tmp_path / "python-memory"
    shutil.copytree(EXAMPLES, other)
    done = subprocess.run(
        _cli("run", "How does Python reclaim reference cycles?", "--corpus", str(other), "--depth", "quick"),
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "## Sources" in done.stdout
