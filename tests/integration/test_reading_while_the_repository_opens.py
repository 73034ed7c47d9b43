"""A web run reads its pages while the research repository is still opening (importing Chroma and LlamaIndex and
reaching a team's Chroma server take seconds): the web reader waits for the repository only to index what it read,
so the run's waits on the web overlap that work instead of following it."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from support.miniweb import MiniWeb

import research_assistant.services
from research_assistant.context import Context
from research_assistant.knowledge.documents import source_id_for
from research_assistant.knowledge.repository import ResearchRepository
from research_assistant.schemas import SourceRecord, SourceType
from research_assistant.services import open_services, repository_at

PAGE = "/articles/normal.html"

pytestmark = pytest.mark.slow


async def test_a_page_is_fetched_while_the_repository_opens_and_indexed_once_it_is_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opening = threading.Event()
    gate = threading.Event()
    reader_made = threading.Event()
    reader_first: list[bool] = []
    open_repository = ResearchRepository.__init__
    make_reader = research_assistant.services._web_reader

    def recorded_reader(*args: Any) -> Any:
        reader = make_reader(*args)
        reader_made.set()
        return reader

    def slow_open(self: ResearchRepository, *args: Any, **kwargs: Any) -> None:
        reader_first.append(reader_made.is_set())
        opening.set()
        assert gate.wait(60), "the test never let the repository open"
        open_repository(self, *args, **kwargs)

    monkeypatch.setattr(ResearchRepository, "__init__", slow_open)
    monkeypatch.setattr(research_assistant.services, "_web_reader", recorded_reader)
    monkeypatch.setenv("RESEARCH_TAVILY_API_KEY", "tvly-test")
    monkeypatch.setenv("RESEARCH_ALLOW_PRIVATE_NETWORKS", "127.0.0.0/8")
    monkeypatch.setenv("RESEARCH_BROWSER", "false")
    with MiniWeb() as web:
        context = Context(source_types=["web"], db_dir=tmp_path / "db", cache_dir=tmp_path / "cache")
        services = open_services(context)
        services.warm_up()  # the repository starts opening, and stays at it until the gate opens
        assert await asyncio.to_thread(opening.wait, 60)
        assert reader_first == [True], "the warm-up opened the repository before the web reader"
        url = web.url(PAGE)
        source = SourceRecord(
            id=source_id_for(url), locator=url, title="", provider="tavily", source_type=SourceType.WEB
        )
        reading = asyncio.create_task(services.readers[SourceType.WEB].read(source, run_id="r1"))
        await asyncio.wait({reading}, timeout=5)  # time to fetch it: the reading itself cannot end before indexing
        fetched_while_opening = web.hits[PAGE] == 1 and not reading.done()
        gate.set()
        document = await asyncio.wait_for(reading, 60)

    assert fetched_while_opening, "the page was not fetched until the repository had opened"
    assert document.access_method == "http" and document.text
    assert source.id in repository_at(context.db_dir).document_info([source.id])  # indexed once it opened
