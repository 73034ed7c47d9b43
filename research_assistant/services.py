"""Wiring: the reasoner, providers, readers and stores one run uses.

The runner opens a run's `Services` once, from the run's `Context`, and hands
them to the graph on that context (`Context.services`); nodes take them from
the runtime with `services_of`. Tests inject ready-made `Services` (fakes) the
same way. What is expensive to open and safe to share between runs (the
embedding model, the research repository on a folder, the document cache, the
local corpus provider, the web reader with its per-host limits) is kept by its
own key and reused; what belongs to one run (its reasoner, with its models,
budget and usage, and its search providers) is made for it.

Opening the repository imports Chroma and LlamaIndex, seconds of work that a run's first steps (analysis,
planning) do not need: it is `Deferred`, opened by the first step that needs it, and the runner starts opening
it in the background (`Services.warm_up`) while those first steps run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from research_assistant.context import NO_SOURCE, ROLES, Context, SourceKind, source_refusal
from research_assistant.deferred import Deferred, warm
from research_assistant.settings import Settings, get_settings

if TYPE_CHECKING:
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.knowledge.documents import StoredDocument
    from research_assistant.knowledge.embeddings import Embedding
    from research_assistant.knowledge.repository import DocumentInfo, ResearchRepository
    from research_assistant.reading import SourceReader
    from research_assistant.reasoning.base import Reasoner
    from research_assistant.reasoning.extractive.vectors import TextEmbedding
    from research_assistant.schemas import ModelUsage, Notice, Passage, SearchResult, SourceRecord, SourceType
    from research_assistant.search.base import Progress, SearchProvider
    from research_assistant.search.routing import SearchAnswers

T = TypeVar("T")


class ConfigurationError(Exception):
    """The run's parameters cannot work (no source configured, a missing corpus); the message says why."""


class Passages(Protocol):
    """What nodes ask of the research repository: the passages that best match a need."""

    def retrieve(
        self,
        query: str,
        k: int,
        *,
        source_ids: Collection[str] | None = None,
        corpus: str | None = None,
        alternatives: Sequence[str] = (),
    ) -> list[Passage]: ...


class DocumentTexts(Protocol):
    """What nodes ask of the document cache: a read source's text, None when it is not kept."""

    def text(self, source_id: str) -> str | None: ...


@dataclass
class Services:
    reasoner: Reasoner
    repository: Passages
    documents: DocumentTexts
    providers: list[SearchProvider]
    """Search providers, in order of preference; providers serving the same kinds are fallbacks."""
    readers: dict[SourceType, SourceReader]
    notices: list[Notice] = field(default_factory=list)
    """What opening the services skipped (a source kind without its key)."""
    search_cache: SearchAnswers | None = None
    """Web search answers kept on disk; None keeps nothing (tests)."""
    deferred: list[Deferred[Any]] = field(default_factory=list)
    """What is opened on first use (the repository, the local corpus's provider, the embedding model), in the
    order `warm_up` opens it."""

    def warm_up(self) -> None:
        """Open what is deferred in a background thread, and load the sentence splitter extraction uses, while
        the first steps (which need none of it) run. Each step that needs one waits for it."""
        if not self.deferred:  # ready-made services (tests): nothing to open
            return
        from research_assistant.reasoning.extractive.sentences import split_sentences

        warm(self.deferred, lambda: split_sentences(""))

    async def opened(self) -> None:
        """Wait until everything deferred is open, raising what could not open; the event loop stays free."""
        for value in self.deferred:
            await value.wait()


WEB_KINDS: tuple[SourceKind, ...] = ("web", "news", "academic", "wiki")

_shared: dict[tuple[object, ...], object] = {}
_making: dict[tuple[object, ...], threading.RLock] = {}
_lock = threading.Lock()


def shared(key: tuple[object, ...], make: Callable[[], T]) -> T:
    """The one object kept under `key` (its kind first, then what identifies it), made on first use. Only those
    asking for the same key wait while it is made: the web reader is made while the repository opens."""
    with _lock:
        making = _making.setdefault(key, threading.RLock())
    with making:
        if key not in _shared:
            _shared[key] = make()
        return cast(T, _shared[key])


def services_of(context: Context) -> Services:
    """A run's services, as the runner opened them on its context (or a test injected them).

    A graph run without the runner (LangGraph's server, Studio) has none yet: they are opened here on its
    first step and kept on its context, so once per run as well.
    """
    if context.services is None:
        context.services = open_services(context)
    return cast(Services, context.services)


def open_services(context: Context, spent: ModelUsage | None = None) -> Services:
    """The services of one run, from its parameters; `spent`: what its models spent before it was resumed
    (from its checkpointed state), which its budget counts. Raises `ConfigurationError` when nothing can be
    searched."""
    from research_assistant.corpus.reader import LocalFileReader
    from research_assistant.schemas import Notice, SourceType
    from research_assistant.search.cache import SearchCache

    settings = get_settings()
    cache_dir, db_dir = context.cache_dir.resolve(), context.db_dir.resolve()
    if settings.embedding != "hashing":  # a model that may not load (a download, a key) is loaded, and refused, first
        embedding_model()
    # The repository imports Chroma and LlamaIndex (seconds): it opens when a step first needs it, or in `warm_up`.
    embedding = Deferred(embedding_model)
    repository = Deferred(lambda: repository_at(db_dir))
    deferred: list[Deferred[Any]] = [embedding, repository]
    documents = _documents(cache_dir)
    providers: list[SearchProvider] = []
    notices: list[Notice] = []
    readers: dict[SourceType, SourceReader] = {}
    if "local" in context.source_types:
        corpus = context.corpus_dir
        if corpus is None:
            raise ConfigurationError(source_refusal(["local"], has_corpus=False))
        local = Deferred(lambda: _local_provider(settings, corpus, db_dir, cache_dir))
        deferred.append(local)
        providers.append(_ProviderWhenReady(local, "local", frozenset({SourceType.LOCAL})))
        readers[SourceType.LOCAL] = LocalFileReader(documents)
    web_kinds = [kind for kind in WEB_KINDS if kind in context.source_types]
    if web_kinds:
        from research_assistant.search.providers import web_providers

        for kind in web_kinds:
            found, skipped = web_providers(kind, settings, context.providers)
            providers.extend(found)
            notices.extend(Notice(message=message) for message in skipped)
        web_reader = Deferred(lambda: _web_reader(settings, db_dir, cache_dir))
        deferred.insert(0, web_reader)  # opened first: browsing needs it before anything needs the repository
        reader = _ReaderWhenReady(web_reader)
        readers.update({SourceType(kind): reader for kind in WEB_KINDS})
    if not providers:
        raise ConfigurationError("; ".join([NO_SOURCE, *(notice.message for notice in notices)]))
    ttl = settings.cache_ttl_hours * 3600
    return Services(
        reasoner=_reasoner(settings, context, spent, _EmbeddingWhenNeeded(embedding)),
        repository=_PassagesWhenNeeded(repository),
        documents=documents,
        providers=providers,
        readers=readers,
        notices=notices,
        search_cache=shared(("searches", cache_dir, ttl), lambda: SearchCache(cache_dir, ttl)),
        deferred=deferred,
    )


class _PassagesWhenNeeded:
    """The research repository's `Passages`, opened on first use."""

    def __init__(self, repository: Deferred[ResearchRepository]) -> None:
        self._repository = repository

    def retrieve(self, query: str, k: int, **options: Any) -> list[Passage]:
        return self._repository.get().retrieve(query, k, **options)


class _ProviderWhenReady:
    """A search provider that is opened on first use; its steps wait for it without holding up the event loop."""

    def __init__(self, provider: Deferred[SearchProvider], name: str, source_types: frozenset[SourceType]) -> None:
        self._provider = provider
        self.name = name
        self.source_types = source_types

    async def prepare(self, run_id: str = "index", progress: Progress | None = None) -> list[Notice]:
        return await (await self._provider.wait()).prepare(run_id, progress)

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        return await (await self._provider.wait()).search(query, limit)

    async def where_word(self, word: str, holds: Callable[[str], bool], limit: int) -> list[SearchResult]:
        from research_assistant.search.base import WordLookup

        provider = await self._provider.wait()
        return await provider.where_word(word, holds, limit) if isinstance(provider, WordLookup) else []


class _ReaderWhenReady:
    """A source reader that is opened on first use; reading waits for it without holding up the event loop."""

    def __init__(self, reader: Deferred[SourceReader]) -> None:
        self._reader = reader

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> StoredDocument:
        return await (await self._reader.wait()).read(source, run_id=run_id, refresh=refresh)


class _EmbeddingWhenNeeded:
    """The configured embedding model's document vectors, the model loaded on first use: loading it may import
    Chroma's ONNX runtime or Google's client (any model but the hashing one), which analysis and planning never
    need."""

    def __init__(self, model: Deferred[Embedding]) -> None:
        self._model = model
        self._embed: Callable[[str], list[float]] | None = None

    def get_text_embedding(self, text: str) -> list[float]:
        if self._embed is None:
            self._embed = self._model.get().get_text_embedding
        return self._embed(text)


def embedding_model() -> Embedding:
    """The embedding model the settings name, loaded once per process."""
    from research_assistant.knowledge.embeddings import EmbeddingUnavailable, make_embedding

    name = get_settings().embedding
    try:
        return shared(("embedding", name), lambda: make_embedding(name))
    except EmbeddingUnavailable as error:
        raise ConfigurationError(str(error)) from None


def repository_at(db_dir: Path) -> ResearchRepository:
    """The research repository in `db_dir`, opened once per process (and embedding model)."""
    from research_assistant.knowledge.repository import ResearchRepository

    settings = get_settings()
    embedding = embedding_model()
    key = ("repository", db_dir.resolve(), settings.embedding, settings.chunk_size, settings.chunk_overlap)
    return shared(
        key,
        lambda: ResearchRepository(
            db_dir, embedding, chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap
        ),
    )


def _documents(cache_dir: Path) -> DocumentCache:
    """The document cache in `cache_dir`, one per process: every run and reader shares it."""
    from research_assistant.knowledge.document_cache import DocumentCache

    return shared(("documents", cache_dir), lambda: DocumentCache(cache_dir))


def _local_provider(settings: Settings, corpus: Path, db_dir: Path, cache_dir: Path) -> SearchProvider:
    """The local corpus's provider, one per corpus, repository and cache: it syncs the folder one run at a time."""
    from research_assistant.corpus.indexer import CorpusIndexer
    from research_assistant.search.local import LocalCorpusProvider

    def make() -> LocalCorpusProvider:
        repository = repository_at(db_dir)
        return LocalCorpusProvider(CorpusIndexer(corpus, repository, _documents(cache_dir)), repository)

    return shared(("local", corpus.resolve(), db_dir, cache_dir, settings.embedding), make)


def _web_reader(settings: Settings, db_dir: Path, cache_dir: Path) -> SourceReader:
    """The web reader, one per repository and cache: its fetcher keeps the per-host limits of every run. It reads
    pages while the repository opens, and waits for it only to index them."""
    from research_assistant.web.setup import build_web_reader

    def make() -> SourceReader:
        return build_web_reader(settings, _documents(cache_dir), _IndexWhenNeeded(db_dir))

    return shared(("web reader", db_dir, cache_dir, settings.embedding), make)


class _IndexWhenNeeded:
    """The repository in `db_dir` as the web reader uses it, opened when it first indexes a page."""

    def __init__(self, db_dir: Path) -> None:
        self._db_dir = db_dir

    def document_info(self, source_ids: Iterable[str]) -> Mapping[str, DocumentInfo]:
        return repository_at(self._db_dir).document_info(source_ids)

    def add_documents(self, docs: Sequence[StoredDocument], run_id: str) -> int:
        return repository_at(self._db_dir).add_documents(docs, run_id)


def _reasoner(settings: Settings, context: Context, spent: ModelUsage | None, embedding: TextEmbedding) -> Reasoner:
    """The LLM reasoner when models are configured (extractive as its fallback), otherwise the extractive one."""
    if not settings.uses_llm:
        from research_assistant.reasoning.remembered import Extractions, RememberedExtraction

        cache_dir = context.cache_dir.resolve()
        extractions = shared(("extractions", cache_dir), lambda: Extractions(cache_dir))
        return RememberedExtraction(embedding, extractions, settings.embedding)
    from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
    from research_assistant.reasoning.llm.cache import ResponseCache
    from research_assistant.reasoning.llm.caller import StructuredCaller
    from research_assistant.reasoning.llm.reasoner import LLMReasoner
    from research_assistant.reasoning.llm.surroundings import SurroundingsMemo

    caller = StructuredCaller(
        settings,
        ResponseCache(context.cache_dir / "llm"),
        models=context.models,
        budget_tokens=context.budget_tokens,
        budget_usd=context.budget_usd,
        spent=spent,
    )
    if settings.gemini_api_key is None and any(caller.spec(role).startswith("google_genai:") for role in ROLES):
        raise ConfigurationError("RESEARCH_REASONER=llm needs a model key: set GEMINI_API_KEY")
    # Evidence ids are content hashes: what surrounds a quote is the same in every run, so runs share the memo.
    memo = shared(("surroundings",), SurroundingsMemo)
    extractive = ExtractiveReasoner(embedding)
    return LLMReasoner(caller, extractive, settings.confidence_threshold, context=context, surroundings=memo)
