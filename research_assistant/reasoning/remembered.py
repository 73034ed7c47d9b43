"""The extractive reasoner's evidence, remembered: an identical re-run does not extract the same passages again.

Extraction is deterministic: the same question, sub-question, passages, limit and analysis, with the same
code and embedding, always give the same evidence. `RememberedExtraction` wraps the extractive reasoner and
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
from research_assistant.context import DepthProfile
from research_assistant.reasoning.base import Reasoner, Step
from research_assistant.schemas import (
    Evidence,
    Passage,
    ProgressAssessment,
    QueryAnalysis,
    ReportEvaluation,
    ResearchPlan,
    ResearchReport,
    SourceRecord,
    SubQuestion,
)
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


class RememberedExtraction:
    """`reasoner` (the extractive one), whose `extract` answers from `extractions` what it found before for the
    very same inputs; every other step is its own. `embedding` names the embedding model its vectors come from."""

    def __init__(self, reasoner: Reasoner, extractions: Extractions, embedding: str) -> None:
        self.reasoner = reasoner
        self.extractions = extractions
        self.embedding = embedding
        self.name = reasoner.name
        self.comparable_scores = reasoner.comparable_scores

    @property
    def confidence_threshold(self) -> float | None:
        return self.reasoner.confidence_threshold

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
            embedding=self.embedding,
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
        found = await self.reasoner.extract(question, sub_question, passages, limit, analysis)
        if not found.fallbacks and not found.notices and not found.usage.roles:
            self.extractions.put(key, found.value)  # only what was found plainly, with nothing to say or spend
        return found

    async def analyze(self, question: str) -> Step[QueryAnalysis]:
        return await self.reasoner.analyze(question)

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> Step[ResearchPlan]:
        return await self.reasoner.plan(question, analysis, profile)

    async def evaluate(
        self,
        question: str,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        iteration: int,
        search_history: list[str],
        analysis: QueryAnalysis | None = None,
    ) -> Step[ProgressAssessment]:
        return await self.reasoner.evaluate(question, plan, evidence, sources, iteration, search_history, analysis)

    async def synthesize(
        self,
        question: str,
        analysis: QueryAnalysis,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        assessment: ProgressAssessment | None,
    ) -> Step[ResearchReport]:
        return await self.reasoner.synthesize(question, analysis, plan, evidence, sources, assessment)

    async def evaluate_report(self, question: str, report_markdown: str) -> Step[ReportEvaluation | None]:
        return await self.reasoner.evaluate_report(question, report_markdown)

    def budget_reached(self) -> str | None:
        return self.reasoner.budget_reached()
