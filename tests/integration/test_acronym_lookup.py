"""An acronym is spelled out once in a whole manual, often on a page about something else: the question
'What does KTR stand for?' finds that page by scanning the chunks that hold the acronym, not by ranking."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

import pytest
from langgraph.runtime import Runtime
from support.corpora import written_corpus
from support.fakes import fake_context, fake_services

from research_assistant.context import Context, Depth
from research_assistant.corpus.indexer import CorpusIndexer
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository
from research_assistant.nodes.search import ExpansionTask, look_up_expansion
from research_assistant.reasoning.answers import expanded_in
from research_assistant.runner import run_research
from research_assistant.search.local import LocalCorpusProvider

TOPICS = (
    "ports",
    "timers",
    "queues",
    "logging",
    "replication",
    "backups",
    "certificates",
    "quotas",
    "tracing",
    "archives",
)
FILES = {
    **{
        f"ktr-{topic}.md": f"# KTR {topic}\n\nThe KTR handles {topic} for every depot. Configure KTR {topic} in "
        f"the KTR settings file; KTR {topic} stay enabled after a restart of the KTR service.\n"
        for topic in TOPICS
    },
    "depot-history.md": "# Depot history\n\nThe Kallbacka depot opened in 2009 with fourteen covered tracks. "
    "Since 2015 every tram movement is recorded by the KTR (Kallbacka Tram Registry), which the depot staff "
    "consult each morning. The depot holds 52 trams.\n",
}


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return written_corpus(tmp_path / "corpus", FILES)


@pytest.fixture
def provider(corpus: Path, tmp_path: Path) -> LocalCorpusProvider:
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding())
    return LocalCorpusProvider(CorpusIndexer(corpus, repository, DocumentCache(tmp_path / "cache")), repository)


async def test_the_provider_finds_the_one_document_that_spells_the_acronym_out(
    provider: LocalCorpusProvider, corpus: Path
) -> None:
    found = await provider.where_word("KTR", functools.partial(expanded_in, "KTR"), 5)
    assert [result.locator for result in found] == [f"{corpus.as_posix()}/depot-history.md"]
    ranked = await provider.search("What does KTR stand for?", 10)
    assert ranked[0].locator != found[0].locator, "ranking alone puts the pages about the KTR first"


async def test_the_look_up_gives_hits_for_the_question_itself(provider: LocalCorpusProvider, corpus: Path) -> None:
    services = fake_services()
    services.providers = [provider]
    task = ExpansionTask(acronym="KTR", sub_question_id="q1", limit=4)
    update = await look_up_expansion(task, Runtime(context=fake_context(services)))
    assert [(hit.sub_question_id, hit.rank, hit.result.locator) for hit in update["hits"]] == [
        ("q1", 0, f"{corpus.as_posix()}/depot-history.md")
    ]


def test_the_report_opens_with_the_expansion(corpus: Path, tmp_path: Path) -> None:
    context = Context(depth=Depth.QUICK, corpus_dir=corpus, db_dir=tmp_path / "db", cache_dir=tmp_path / "cache")
    result = asyncio.run(run_research("What does KTR stand for?", context))
    answer = result["report_markdown"].split("## Answer", 1)[1].split("\n## ", 1)[0]
    assert "Kallbacka Tram Registry" in answer
