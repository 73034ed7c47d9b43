"""The extractive reasoner's evidence, remembered: an identical re-run does not extract the same passages again.

Extraction is deterministic: the same question, sub-question, passages, limit and analysis, with the same
code and embedding, always give the same evidence. `RememberedExtraction` is the extractive reasoner that
keeps what each `extract` call found under a hash of exactly those inputs and of `extractive_version()`, in
memory for the process and on disk beside the run's other caches (`cache/extractions/`), so a re-run in
another process finds it too. The version is a digest of the package's source and of the libraries that split
sentences and compute vectors: any change to the code gives new keys, so nothing found by other code is ever
read back.

The entries stay in files even for a team: they are cheap to find again, and one round trip to the team's
database per extraction would cost about what it saves.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from collections import OrderedDict
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel

from research_assistant.caches import CacheEntries
from research_assistant.reasoning.base import Step
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.extractive.vectors import TextEmbedding
from research_assistant.schemas import Evidence, Passage, QueryAnalysis, SubQuestion
from research_assistant.storage import StorageError

FORMAT = "1"
"""Bumped when what is kept, or how its key is made, changes."""
LIBRARIES = ("nltk", "numpy", "llama-index-core")
"""Libraries whose version can change what extraction finds: the sentence splitter (NLTK's Punkt, with the
punkt_tab files LlamaIndex bundles) and the vectors."""
IN_MEMORY = 2048
"""Extractions a process keeps in memory, the most recently used."""


@functools.cache
def extractive_version() -> str:
    """A digest of everything that decides what the extractive reasoner finds, besides its inputs: the package's
    source files and the versions of `LIBRARIES`."""
    return source_digest(Path(__file__).resolve().parents[1], LIBRARIES)


def source_digest(package: Path, libraries: tuple[str, ...]) -> str:
    """16 hex digits of a digest of every Python file under `package` (name and content) and of the installed
    versions of `libraries`."""
    digest = hashlib.sha256(f"extractive {FORMAT}".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    for library in libraries:
        try:
            found = metadata.version(library)
        except metadata.PackageNotFoundError:
            found = "absent"
        digest.update(f"{library}={found}\0".encode())
    return digest.hexdigest()[:16]


class _Inputs(BaseModel):
    version: str
    embedding: str
    question: str
    sub_question: SubQuestion
    passages: list[Passage]
    limit: int
    analysis: QueryAnalysis | None


class _Found(BaseModel):
    evidence: list[Evidence]


class Extractions:
    """Extractions kept under their key: the latest `IN_MEMORY` in memory, all in `<cache_dir>/extractions/`.
    One per cache folder, shared by a process's runs."""

    def __init__(self, cache_dir: Path) -> None:
        self.entries = CacheEntries(Path(cache_dir) / "extractions", None, fan_out=True)
        self._recent: OrderedDict[str, tuple[Evidence, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> list[Evidence] | None:
        with self._lock:
            found = self._recent.get(key)
            if found is not None:
                self._recent.move_to_end(key)
                return list(found)
        kept = self.entries.load(key, _Found)
        if kept is None:
            return None
        self._remember(key, kept.evidence)
        return kept.evidence

    def put(self, key: str, evidence: list[Evidence]) -> None:
        self._remember(key, evidence)
        with contextlib.suppress(StorageError):  # a full or read-only disk: the next run extracts again
            self.entries.store(key, _Found(evidence=evidence).model_dump_json().encode())

    def _remember(self, key: str, evidence: list[Evidence]) -> None:
        with self._lock:
            self._recent[key] = tuple(evidence)
            self._recent.move_to_end(key)
            while len(self._recent) > IN_MEMORY:
                self._recent.popitem(last=False)


class RememberedExtraction(ExtractiveReasoner):
    """The extractive reasoner, whose `extract` answers from `extractions` what it found before for the very same
    inputs. `embedding_name` names the embedding model its vectors come from."""

    def __init__(self, embedding: TextEmbedding | None, extractions: Extractions, embedding_name: str) -> None:
        super().__init__(embedding)
        self.extractions = extractions
        self.embedding_name = embedding_name

    def key(
        self,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None,
    ) -> str:
        inputs = _Inputs(
            version=extractive_version(),
            embedding=self.embedding_name,
            question=question,
            sub_question=sub_question,
            passages=passages,
            limit=limit,
            analysis=analysis,
        )
        return hashlib.sha256(inputs.model_dump_json().encode()).hexdigest()

    async def extract(
        self,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None = None,
    ) -> Step[list[Evidence]]:
        key = self.key(question, sub_question, passages, limit, analysis)
        kept = self.extractions.get(key)
        if kept is not None:
            return Step(kept)
        found = await super().extract(question, sub_question, passages, limit, analysis)
        if not found.fallbacks and not found.notices and not found.usage.roles:
            self.extractions.put(key, found.value)  # only what was found plainly, with nothing to say or spend
        return found
