"""The search node's provider fallback, its search cache and its choice of sources."""

from __future__ import annotations

from pathlib import Path

from langgraph.runtime import Runtime
from support.fakes import FakeDocuments, FakeProvider, FakeReasoner, fake_context, fake_services

from research_assistant.context import Context
from research_assistant.nodes.search import SearchPhase, run_query, select_sources
from research_assistant.schemas import ResearchPlan, SearchQuery, SearchResult, SourceType, SubQuestion
from research_assistant.search.cache import SearchCache
from research_assistant.search.routing import Hit
from research_assistant.state import SearchTask

WEB = frozenset({SourceType.WEB})
TASK = SearchTask(query=SearchQuery(text="tram fare", sub_question_id="q1"), limit=3)


def context_with(*providers: FakeProvider, cache: SearchCache | None = None, **overrides: object) -> Context:
    services = fake_services()
    services.providers = list(providers)
    services.search_cache = cache
    return fake_context(services, **overrides)


def documents() -> FakeDocuments:
    found = fake_services().documents
    assert isinstance(found, FakeDocuments)
    return found


async def test_a_failing_provider_falls_back_to_the_next_of_the_same_kind() -> None:
    docs = documents()
    tavily = FakeProvider(docs, fail=True, name="tavily", source_types=WEB)
    exa = FakeProvider(docs, name="exa", source_types=WEB)
    local = FakeProvider(docs, name="local")
    update = await run_query(TASK, Runtime(context=context_with(tavily, exa, local)))
    assert tavily.queries == ["tram fare"] and exa.queries == ["tram fare"] and local.queries == ["tram fare"]
    assert {hit.result.provider for hit in update["hits"]} == {"exa", "local"}
    assert [n.message for n in update["notices"]] == ["search provider 'tavily' failed: backend unavailable"]


async def test_a_fallback_is_not_asked_when_the_first_provider_answers() -> None:
    docs = documents()
    tavily = FakeProvider(docs, name="tavily", source_types=WEB)
    exa = FakeProvider(docs, name="exa", source_types=WEB)
    update = await run_query(TASK, Runtime(context=context_with(tavily, exa)))
    assert exa.queries == []
    assert [hit.rank for hit in update["hits"]] == list(range(len(update["hits"])))
    assert update["notices"] == []


async def test_web_answers_are_cached_and_refresh_asks_again(tmp_path: Path) -> None:
    docs = documents()
    web = FakeProvider(docs, name="tavily", source_types=WEB)
    local = FakeProvider(docs, name="local")
    cache = SearchCache(tmp_path, ttl_seconds=3600)
    first = await run_query(TASK, Runtime(context=context_with(web, local, cache=cache)))
    again = await run_query(TASK, Runtime(context=context_with(web, local, cache=cache)))
    assert web.queries == ["tram fare"], "the second identical search came from the cache"
    assert local.queries == ["tram fare", "tram fare"], "the local corpus is always searched live"
    assert [h.result for h in again["hits"]] == [h.result for h in first["hits"]]
    await run_query(TASK, Runtime(context=context_with(web, local, cache=cache, refresh=True)))
    assert web.queries == ["tram fare", "tram fare"]


async def test_a_stale_cached_answer_is_not_used(tmp_path: Path) -> None:
    web = FakeProvider(documents(), name="tavily", source_types=WEB)
    cache = SearchCache(tmp_path, ttl_seconds=0)
    await run_query(TASK, Runtime(context=context_with(web, cache=cache)))
    await run_query(TASK, Runtime(context=context_with(web, cache=cache)))
    assert len(web.queries) == 2


def hit(url: str, rank: int, provider: str = "tavily", sub_question_id: str = "q1") -> Hit:
    result = SearchResult(locator=url, title=url, provider=provider, source_type=SourceType.WEB, score=0.5)
    return Hit(result=result, sub_question_id=sub_question_id, rank=rank)


def test_select_sources_merges_urls_that_lead_to_the_same_page_and_prefers_credible_sources() -> None:
    state = SearchPhase(
        question="q",
        hits=[
            hit("https://www.reddit.com/r/trams/comments/1", 0),
            hit("https://transport.example.gov/fares", 0, provider="exa"),
            hit("https://TRANSPORT.example.gov:443/fares?utm_source=feed#top", 1),
        ],
    )
    update = select_sources(state, Runtime(context=fake_context(fake_services(), max_sources=1)))
    assert len(update["sources"]) == 2, "the two spellings of the .gov page are one source"
    [chosen] = update["to_browse"]
    chosen_source = update["sources"][chosen]
    assert chosen_source.locator == "https://transport.example.gov/fares"
    assert chosen_source.credibility is not None and chosen_source.credibility.category.value == "official"


def test_the_questions_own_best_sources_are_read_before_pages_every_sub_question_finds() -> None:
    """Pages that mention the topic everywhere serve every sub-question, but the page that answers the question
    as asked, found by its own search only, is read too."""
    background = [f"https://example.org/topic-{n}" for n in range(4)]
    answering = [background[0], "https://example.org/answer", *background[1:]]
    hits = [hit(url, rank, sub_question_id="q1") for rank, url in enumerate(answering)]
    hits += [hit(url, rank, sub_question_id=q) for q in ("q2", "q3") for rank, url in enumerate(background)]
    plan = ResearchPlan(
        sub_questions=[SubQuestion(id=q, text=f"{q}?", queries=[q]) for q in ("q1", "q2", "q3")],
        min_sources=1,
        min_evidence_per_question=1,
        completion_criteria="",
    )
    state = SearchPhase(question="q", plan=plan, hits=hits)
    update = select_sources(state, Runtime(context=fake_context(fake_services(), max_sources=4)))
    chosen = [update["sources"][source_id].locator for source_id in update["to_browse"]]
    assert chosen[:2] == ["https://example.org/topic-0", "https://example.org/answer"]
    assert len(chosen) == 4


def test_recency_keeps_recent_and_undated_results() -> None:
    from datetime import date

    from research_assistant.search.routing import is_recent

    today = date(2026, 11, 21)

    def result(published: str | None) -> SearchResult:
        return SearchResult(locator="https://a.example/x", title="x", provider="p", published=published)

    assert is_recent(result("2026-11-01"), 30, today) and is_recent(result("2026-10-22T08:00:00Z"), 30, today)
    assert not is_recent(result("2026-10-21"), 30, today) and not is_recent(result("2019-01-01"), 365, today)
    assert is_recent(result(None), 30, today) and is_recent(result("sometime"), 30, today)


async def test_results_older_than_the_recency_limit_are_left_out() -> None:
    class Dated(FakeProvider):
        async def search(self, query: str, limit: int) -> list[SearchResult]:
            return [
                SearchResult(locator="https://a.example/old", title="old", provider=self.name, published="2001-01-01"),
                SearchResult(locator="https://a.example/new", title="new", provider=self.name, published="2099-01-01"),
                SearchResult(locator="https://a.example/undated", title="undated", provider=self.name),
            ]

    provider = Dated(documents(), name="tavily", source_types=WEB)
    update = await run_query(TASK, Runtime(context=context_with(provider, recency_days=30)))
    assert [hit.result.title for hit in update["hits"]] == ["new", "undated"]
    everything = await run_query(TASK, Runtime(context=context_with(provider)))
    assert len(everything["hits"]) == 3


async def test_a_sub_question_searches_the_kinds_of_source_it_prefers() -> None:
    docs = documents()
    web = FakeProvider(docs, name="tavily", source_types=WEB)
    wiki = FakeProvider(docs, name="wikipedia", source_types=frozenset({SourceType.WIKI}))
    local = FakeProvider(docs, name="local")
    context = context_with(web, wiki, local)

    prefers_wiki = TASK.model_copy(update={"source_types": [SourceType.WIKI, SourceType.ACADEMIC]})
    await run_query(prefers_wiki, Runtime(context=context))
    assert (web.queries, wiki.queries, local.queries) == ([], ["tram fare"], [])

    prefers_news = TASK.model_copy(update={"source_types": [SourceType.NEWS]})  # no provider of the run serves it
    await run_query(prefers_news, Runtime(context=context))
    assert (web.queries, wiki.queries, local.queries) == (["tram fare"], ["tram fare"] * 2, ["tram fare"])


def test_each_query_carries_the_kinds_of_source_its_sub_question_prefers() -> None:
    from research_assistant.nodes.search import dispatch_queries
    from research_assistant.schemas import ResearchPlan, SubQuestion
    from research_assistant.state import ResearchState

    plan = ResearchPlan(
        sub_questions=[
            SubQuestion(id="q1", text="fare", source_types=[SourceType.WIKI]),
            SubQuestion(id="q2", text="history"),
        ],
        min_sources=1,
        min_evidence_per_question=1,
    )
    queries = [
        SearchQuery(text="tram fare", sub_question_id="q1"),
        SearchQuery(text="tram history", sub_question_id="q2"),
    ]
    state = ResearchState(question="q", plan=plan, pending_queries=queries)
    sends = dispatch_queries(state, Runtime(context=context_with()))
    assert isinstance(sends, list)
    assert [(send.arg.query.text, send.arg.source_types) for send in sends] == [
        ("tram fare", [SourceType.WIKI]),
        ("tram history", []),
    ]


def test_each_query_asks_a_search_api_for_as_many_results_as_the_round_may_read() -> None:
    """Queries of one question share an engine's best hits: each asks an API for enough to fill the round's
    reading alone; the local corpus's search keeps the depth's number."""
    from research_assistant.nodes.search import dispatch_queries
    from research_assistant.state import ResearchState

    plan = ResearchPlan(sub_questions=[SubQuestion(id="q1", text="fare")], min_sources=1, min_evidence_per_question=1)
    state = ResearchState(
        question="q", plan=plan, pending_queries=[SearchQuery(text="tram fare", sub_question_id="q1")]
    )
    for overrides, local, api in (
        ({"depth": "quick"}, 4, 6),
        ({"depth": "quick", "max_sources": 2}, 4, 4),
        ({"max_sources": 9}, 5, 9),
    ):
        sends = dispatch_queries(state, Runtime(context=context_with(**overrides)))
        assert isinstance(sends, list)
        assert [(send.arg.limit, send.arg.api_limit) for send in sends] == [(local, api)]


async def test_a_search_api_is_asked_for_its_own_number_of_results_and_the_local_corpus_for_the_depths() -> None:
    docs = documents()
    asked: dict[str, int] = {}

    class Counting(FakeProvider):
        async def search(self, query: str, limit: int) -> list[SearchResult]:
            asked[self.name] = limit
            return await super().search(query, limit)

    task = TASK.model_copy(update={"api_limit": 6})
    await run_query(
        task,
        Runtime(context=context_with(Counting(docs, name="tavily", source_types=WEB), Counting(docs, name="local"))),
    )
    assert asked == {"tavily": 6, "local": 3}


def test_the_abbreviation_looked_up_is_the_one_the_reasoner_reads_in_the_first_sub_question() -> None:
    """Nodes read no wording themselves: what to look up beside retrieval is the reasoner's `lookups`."""
    from research_assistant.nodes.search import dispatch_queries
    from research_assistant.reasoning.lookups import Lookups
    from research_assistant.state import ResearchState

    class ReadsAnAbbreviation(FakeReasoner):
        def lookups(self, question: str, sub_question: SubQuestion) -> Lookups:
            return Lookups(acronym="TTL" if sub_question.id == "q1" else "")

    plan = ResearchPlan(sub_questions=[SubQuestion(id="q1", text="expiry")], min_sources=1, min_evidence_per_question=1)
    state = ResearchState(question="q", plan=plan, pending_queries=[SearchQuery(text="expiry", sub_question_id="q1")])
    for reasoner, looked_up in ((FakeReasoner(), []), (ReadsAnAbbreviation(), ["TTL"])):
        sends = dispatch_queries(state, Runtime(context=fake_context(fake_services(reasoner))))
        assert isinstance(sends, list)
        assert [send.arg.acronym for send in sends if send.node == "look_up_expansion"] == looked_up
