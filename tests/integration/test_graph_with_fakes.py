"""The compiled graph end to end with fake services: wiring, looping, stopping."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.citations import check_rendered_citations
from support.fakes import (
    TRAM_DOCUMENTS,
    FakeDocuments,
    FakeProvider,
    FakeReader,
    FakeReasoner,
    fake_context,
    fake_services,
)

from research_assistant.graph import build_graph
from research_assistant.report.verify import parse_sources
from research_assistant.runner import resume_research, run_research
from research_assistant.runs.store import RunStore
from research_assistant.schemas import Passage, SourceRecord, SourceStatus, SourceType
from research_assistant.services import Services


async def test_a_confident_run_goes_straight_through_to_a_cited_report() -> None:
    reasoner = FakeReasoner(confidence=95)
    result = await build_graph().ainvoke(
        {"question": "What is the tram fare?"}, context=fake_context(fake_services(reasoner))
    )
    assert reasoner.calls[:2] == ["analyze", "plan"]
    assert reasoner.calls.count("evaluate") == 1 and reasoner.calls[-1] == "synthesize"
    assert "threshold" in result["stop_reason"]
    markdown = result["report_markdown"]
    number = parse_sources(markdown)
    fares = next(n for n, locator in number.items() if locator == "/corpus/fares.md")
    assert f"“A single tram fare costs 2.40 euros” [{fares}]" in markdown
    assert check_rendered_citations(markdown, {d.locator: d.text for d in TRAM_DOCUMENTS}) == []


async def test_the_research_loop_ends_at_the_iteration_limit_even_if_the_reasoner_never_is_satisfied() -> None:
    class Insatiable(FakeReasoner):
        async def evaluate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.new_queries = [f"tram query {len(self.calls)}"]
            return await super().evaluate(*args, **kwargs)

    reasoner = Insatiable(confidence=5)
    services = fake_services(reasoner)
    result = await build_graph().ainvoke(
        {"question": "What is the tram fare?"}, context=fake_context(services, max_iterations=4)
    )
    assert reasoner.calls.count("evaluate") == 4
    assert result["stop_reason"] == "iteration limit reached (4)"
    [provider] = services.providers
    assert isinstance(provider, FakeProvider)
    assert len(provider.queries) == len(set(provider.queries))  # no query ran twice


async def test_a_source_that_fails_to_read_is_reported_and_the_run_goes_on() -> None:
    broken = TRAM_DOCUMENTS[0].locator
    services = fake_services(FakeReasoner(confidence=95, sub_questions=["tram fare network depot"]), broken={broken})
    result = await build_graph().ainvoke({"question": "tram fare network depot"}, context=fake_context(services))
    failed = [s for s in result["sources"].values() if s.status is SourceStatus.FAILED]
    assert [s.locator for s in failed] == [broken]
    assert result["evidence"] and all(e.source_id != failed[0].id for e in result["evidence"].values())


class LoggingReasoner(FakeReasoner):
    """Records which sources each extraction call was shown."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.extracted: list[tuple[str, ...]] = []
        self.two_extracted = asyncio.Event()

    async def extract(self, question: str, sub_question: Any, passages: list[Passage], *args: Any) -> Any:
        self.extracted.append(tuple(sorted({passage.source_id for passage in passages})))
        if len(self.extracted) >= 2:
            self.two_extracted.set()
        return await super().extract(question, sub_question, passages, *args)


class SlowDepot(FakeReader):
    """Reads the depot page only once `release` is set; records every read."""

    def __init__(self, reader: FakeReader) -> None:
        super().__init__(reader.documents)
        self.release = asyncio.Event()

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> Any:
        if "depot" in source.locator:
            await self.release.wait()
        return await super().read(source, run_id=run_id, refresh=refresh)


DEPOT = TRAM_DOCUMENTS[2]


def web_services(reasoner: FakeReasoner) -> tuple[Services, SlowDepot]:
    """Fake services whose sources are web pages: each page's evidence is found by its own browse task."""
    services = fake_services(reasoner)
    local, documents = services.readers.pop(SourceType.LOCAL), services.documents
    assert isinstance(local, FakeReader) and isinstance(documents, FakeDocuments)
    reader = SlowDepot(local)
    services.readers[SourceType.WEB] = reader
    services.providers = [FakeProvider(documents, source_types=frozenset({SourceType.WEB}))]
    return services, reader


async def test_pages_are_extracted_as_they_arrive_and_a_resumed_run_repeats_no_read_or_extraction(
    tmp_path: Path,
) -> None:
    reasoner = LoggingReasoner(confidence=95, sub_questions=["tram fare depot network"])
    reasoner.comparable_scores = True  # as a model's: the round keeps the pages' own evidence, calling no more
    services, reader = web_services(reasoner)
    context = fake_context(services, source_types=["web"], db_dir=tmp_path)
    task = asyncio.create_task(run_research("tram fare depot network", context, run_id="web"))
    await asyncio.wait_for(reasoner.two_extracted.wait(), 10)  # the quick pages' evidence ...
    assert (DEPOT.source_id,) not in reasoner.extracted  # ... while the depot is still loading
    await asyncio.sleep(0.2)  # their writes reach the checkpoint
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    before, reads_before = list(reasoner.extracted), list(reader.reads)
    reader.release.set()
    result = await resume_research(RunStore.at(tmp_path).find("web"), context)
    after, reads_after = reasoner.extracted[len(before) :], reader.reads[len(reads_before) :]
    assert all(len(ids) == 1 for ids in before + after)  # one page per call
    assert not set(before) & set(after) and not set(reads_before) & set(reads_after)
    assert sorted(before + after) == sorted((source_id,) for source_id in reader.reads)
    assert result["evidence"] and {e.source_id for e in result["evidence"].values()} <= set(reader.reads)
