"""The local search provider: the right documents, best first, from this corpus only, indexed once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from support.corpora import written_corpus

from research_assistant.corpus.files import CorpusError
from research_assistant.corpus.indexer import CorpusIndexer, SyncReport
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository
from research_assistant.schemas import SourceType
from research_assistant.search.base import SearchProvider, trim_snippet
from research_assistant.search.local import LocalCorpusProvider

FILES = {
    "overview.md": "# The Tram Network\n\nThe network opened in 1987 and has six lines with 42.5 km of route.\n",
    "depot.md": "# Kallbacka Depot\n\nThe depot opened in 2009. It holds 52 trams on fourteen covered tracks.\n",
    "fares.md": "# Fares\n\nA single adult ticket costs 2.80 crowns. A monthly pass costs 58 crowns.\n",
    "history.md": "# History\n\n" + "Horse trams ran from 1896 and the old tramway closed in 1961. " * 12,
}


class CountingIndexer(CorpusIndexer):
    syncs = 0

    def sync(self, run_id: str | None = None, progress: Callable[[str], None] | None = None) -> SyncReport:
        self.syncs += 1
        return super().sync(run_id, progress)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return written_corpus(tmp_path / "corpus", FILES)


@pytest.fixture
def repository(tmp_path: Path) -> ResearchRepository:
    return ResearchRepository(tmp_path / "db", HashingEmbedding())


def provider_for(folder: Path, repository: ResearchRepository, tmp_path: Path) -> LocalCorpusProvider:
    indexer = CountingIndexer(folder, repository, DocumentCache(tmp_path / "cache"))
    return LocalCorpusProvider(indexer, repository)


async def test_search_finds_the_document_that_answers(
    corpus: Path, repository: ResearchRepository, tmp_path: Path
) -> None:
    provider: SearchProvider = provider_for(corpus, repository, tmp_path)

    results = await provider.search("How many trams does the Kallbacka depot hold?", 3)

    top = results[0]
    assert top.locator == f"{corpus.as_posix()}/depot.md"
    assert top.title == "Kallbacka Depot"
    assert "52 trams" in top.snippet
    assert (top.provider, top.source_type) == ("local", SourceType.LOCAL)
    assert len(results) <= 3
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    assert len({r.locator for r in results}) == len(results)  # one result per document


async def test_results_are_limited_deterministic_and_snippets_short(
    corpus: Path, repository: ResearchRepository, tmp_path: Path
) -> None:
    provider = provider_for(corpus, repository, tmp_path)

    first = await provider.search("tram network trams crowns tramway depot", 2)
    second = await provider.search("tram network trams crowns tramway depot", 2)
    history = await provider.search("When did the old tramway close?", 1)

    assert len(first) == 2
    assert first == second
    assert history[0].title == "History"
    assert len(history[0].snippet) <= 301
    assert history[0].snippet.endswith("…")
    assert await provider.search("anything", 0) == []
    assert await provider.search("   ", 5) == []


async def test_absent_topic_gives_no_results(corpus: Path, repository: ResearchRepository, tmp_path: Path) -> None:
    provider = provider_for(corpus, repository, tmp_path)

    assert await provider.search("zebra giraffe savanna", 5) == []


async def test_indexing_happens_once_even_for_concurrent_searches(
    corpus: Path, repository: ResearchRepository, tmp_path: Path
) -> None:
    provider = provider_for(corpus, repository, tmp_path)

    await asyncio.gather(*(provider.search(q, 3) for q in ("depot", "fares", "history", "lines")))
    report = await provider.ensure_indexed()

    assert isinstance(provider.indexer, CountingIndexer)
    assert provider.indexer.syncs == 1
    assert (report.indexed, report.skipped) == (4, [])
    assert await provider.ensure_indexed() is report


async def test_only_this_corpus_is_searched(corpus: Path, repository: ResearchRepository, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "buses.md").write_text("# Buses\n\nThe Kallbacka bus depot holds 52 buses.\n")
    await provider_for(other, repository, tmp_path).ensure_indexed()

    results = await provider_for(corpus, repository, tmp_path).search("Kallbacka depot", 5)

    assert results
    assert all(r.locator.startswith(f"{corpus.as_posix()}/") for r in results)


async def test_unusable_corpus_raises_a_clear_error(repository: ResearchRepository, tmp_path: Path) -> None:
    provider = provider_for(tmp_path / "missing", repository, tmp_path)

    with pytest.raises(CorpusError, match="does not exist"):
        await provider.search("trams", 3)


def test_snippets_are_cut_at_a_word_boundary() -> None:
    text = "word " * 100

    snippet = trim_snippet(text, 42)

    assert snippet == "word word word word word word word word…"
    assert trim_snippet("  short\n text ") == "short text"
