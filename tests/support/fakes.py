"""Fakes for node and graph tests: a scripted reasoner, an in-memory corpus."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from research_assistant.context import Context, DepthProfile
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.reading import ReadError
from research_assistant.reasoning.base import Step, WithoutModels
from research_assistant.schemas import (
    Coverage,
    Evidence,
    Finding,
    Notice,
    Passage,
    ProgressAssessment,
    QueryAnalysis,
    ReportSection,
    ResearchPlan,
    ResearchReport,
    SearchQuery,
    SearchResult,
    SourceRecord,
    SourceType,
    SubQuestion,
)
from research_assistant.search.base import Progress, ProviderError
from research_assistant.services import Services


class FakeDocuments:
    """A dict-backed document cache."""

    def __init__(self, documents: dict[str, StoredDocument]) -> None:
        self.documents = documents

    def get(self, source_id: str) -> StoredDocument | None:
        return self.documents.get(source_id)

    def text(self, source_id: str) -> str | None:
        document = self.documents.get(source_id)
        return document.text if document else None


class FakeRepository:
    """Retrieval by word overlap over whole documents."""

    def __init__(self, documents: FakeDocuments) -> None:
        self.documents = documents
        self.calls: list[tuple[str, tuple[str, ...]]] = []

    def retrieve(
        self,
        query: str,
        k: int,
        *,
        source_ids: Collection[str] | None = None,
        corpus: str | None = None,
        alternatives: Sequence[str] = (),
    ) -> list[Passage]:
        self.calls.append((query, tuple(sorted(source_ids or ()))))
        words = set(query.lower().split())
        passages = []
        for source_id, document in sorted(self.documents.documents.items()):
            if source_ids is not None and source_id not in source_ids:
                continue
            score = len(words & set(document.text.lower().split()))
            if score:
                passages.append(
                    Passage(source_id=source_id, text=document.text, score=float(score), chunk_id=source_id)
                )
        return sorted(passages, key=lambda p: -p.score)[:k]


class FakeProvider:
    def __init__(
        self,
        documents: FakeDocuments,
        fail: bool = False,
        *,
        name: str = "fake",
        source_types: frozenset[SourceType] = frozenset({SourceType.LOCAL}),
    ) -> None:
        self.documents = documents
        self.fail = fail
        self.name = name
        self.source_types = source_types
        self.queries: list[str] = []

    async def prepare(self, run_id: str = "index", progress: Progress | None = None) -> list[Notice]:
        return [Notice(level="info", message="fake provider ready")]

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        self.queries.append(query)
        if self.fail:
            raise ProviderError("backend unavailable")
        words = set(query.lower().split())
        hits = [
            SearchResult(
                locator=d.locator,
                title=d.title,
                snippet=d.text[:80],
                score=float(len(words & set(d.text.lower().split()))),
                provider=self.name,
                source_type=next(iter(self.source_types)),
            )
            for d in self.documents.documents.values()
        ]
        return sorted((h for h in hits if h.score), key=lambda h: (-h.score, h.locator))[:limit]


class FakeReader:
    def __init__(self, documents: FakeDocuments, broken: Collection[str] = ()) -> None:
        self.documents = documents
        self.broken = set(broken)
        self.reads: list[str] = []

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> StoredDocument:
        self.reads.append(source.id)
        if source.locator in self.broken:
            raise ReadError("the file is unreadable")
        document = self.documents.get(source.id)
        if document is None:
            raise ReadError("not found")
        return document


@dataclass
class FakeReasoner(WithoutModels):
    """Plans one sub-question per given text and quotes the first sentence of each passage."""

    sub_questions: list[str] = field(default_factory=lambda: ["What is the tram fare?"])
    confidence: float = 90.0
    new_queries: list[str] = field(default_factory=list)
    name: str = "fake"
    calls: list[str] = field(default_factory=list)

    async def analyze(self, question: str) -> Step[QueryAnalysis]:
        self.calls.append("analyze")
        return Step(QueryAnalysis(keywords=question.lower().rstrip("?").split()[-2:]))

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> Step[ResearchPlan]:
        self.calls.append("plan")
        subs = [SubQuestion(id=f"q{i}", text=t, queries=[t]) for i, t in enumerate(self.sub_questions, 1)]
        return Step(ResearchPlan(sub_questions=subs, min_sources=1, min_evidence_per_question=1))

    async def extract(
        self,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None = None,
    ) -> Step[list[Evidence]]:
        self.calls.append("extract")
        found = []
        for passage in passages[:limit]:
            quote = passage.text.split(". ")[0]
            found.append(
                Evidence(
                    id=f"E-{passage.source_id}-{sub_question.id}",
                    claim=quote,
                    quote=quote,
                    source_id=passage.source_id,
                    sub_question_id=sub_question.id,
                )
            )
        return Step(found)

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
        self.calls.append("evaluate")
        coverage = [
            Coverage(
                sub_question_id=s.id,
                evidence_count=len(evidence),
                source_count=1,
                score=1.0 if evidence else 0.0,
                covered=bool(evidence),
            )
            for s in plan.sub_questions
        ]
        queries = [SearchQuery(text=t, sub_question_id="q1") for t in self.new_queries]
        return Step(
            ProgressAssessment(iteration=iteration, coverage=coverage, confidence=self.confidence, new_queries=queries)
        )

    async def synthesize(
        self,
        question: str,
        analysis: QueryAnalysis,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        assessment: ProgressAssessment | None,
    ) -> Step[ResearchReport]:
        self.calls.append("synthesize")
        findings = [Finding(text=e.quote, evidence_ids=[e.id], verbatim=True) for e in evidence]
        return Step(
            ResearchReport(
                title="Report",
                question=question,
                key_findings=findings,
                sections=[ReportSection(heading=s.text, findings=findings) for s in plan.sub_questions[:1]],
            )
        )


def make_document(locator: str, text: str, title: str | None = None) -> StoredDocument:
    return StoredDocument(
        source_id=source_id_for(locator),
        locator=locator,
        title=title or locator,
        text=text,
        content_hash="0" * 64,
        fetched_at="2026-11-21T10:00:00+00:00",
    )


TRAM_DOCUMENTS = [
    make_document("/corpus/fares.md", "A single tram fare costs 2.40 euros. Children under six ride free.", "Fares"),
    make_document("/corpus/history.md", "The tram network opened in 1911. It has five lines.", "History"),
    make_document("/corpus/depot.md", "The depot at Norrvik maintains 42 trams. It opened in 1978.", "Depot"),
]


def fake_services(
    reasoner: FakeReasoner | None = None, *, failing_provider: bool = False, broken: Collection[str] = ()
) -> Services:
    documents = FakeDocuments({d.source_id: d for d in TRAM_DOCUMENTS})
    return Services(
        reasoner=reasoner or FakeReasoner(),
        repository=FakeRepository(documents),
        documents=documents,
        providers=[FakeProvider(documents, fail=failing_provider)],
        readers={SourceType.LOCAL: FakeReader(documents, broken)},
    )


def fake_context(services: Services, **overrides: Any) -> Context:
    return Context(services=services, corpus_dir=None, **overrides)
