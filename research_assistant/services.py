"""Wiring: the reasoner, providers, reader and stores a run uses.

Services are built from a run's `Context` once per process and reused, since
the repository and the indexed corpus are expensive to open. Tests pass
ready-made `Services` (with fakes) in the context instead.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, cast

from research_assistant.context import Context, SourceKind
from research_assistant.reasoning.llm.models import ROLES, model_spec
from research_assistant.settings import Settings, get_settings

if TYPE_CHECKING:
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.knowledge.repository import ResearchRepository
    from research_assistant.reading import SourceReader
    from research_assistant.reasoning.base import Reasoner
    from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
    from research_assistant.schemas import Notice, SourceType
    from research_assistant.search.base import SearchProvider
    from research_assistant.search.cache import SearchCache


class ConfigurationError(Exception):
    """The run's parameters cannot work (no source configured, a missing corpus); the message says why."""


@dataclass
class Services:
    reasoner: Reasoner
    repository: ResearchRepository
    documents: DocumentCache
    providers: list[SearchProvider]
    """Search providers, in order of preference; providers serving the same kinds are fallbacks."""
    readers: dict[SourceType, SourceReader]
    notices: list[Notice] = field(default_factory=list)
    """What building the services skipped (a source kind without its key)."""
    search_cache: SearchCache | None = None
    """Web search answers kept on disk; None keeps nothing (tests)."""


_cache: dict[tuple[object, ...], Services] = {}
_lock = threading.Lock()

WEB_KINDS: tuple[SourceKind, ...] = ("web", "news", "academic", "wiki")


def services_for(context: Context) -> Services:
    """The run's services: the injected ones, or built and cached per configuration."""
    if context.services is not None:
        return cast(Services, context.services)
    key = (
        context.db_dir.resolve(),
        context.cache_dir.resolve(),
        context.corpus_dir.resolve() if context.corpus_dir else None,
        tuple(sorted(context.source_types)),
        None if context.providers is None else tuple(sorted(context.providers)),
    )
    with _lock:
        if key not in _cache:
            _cache[key] = _build(context)
        return _cache[key]


def _build(context: Context) -> Services:
    from research_assistant.corpus.indexer import CorpusIndexer
    from research_assistant.corpus.reader import LocalFileReader
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.knowledge.embeddings import EmbeddingUnavailable, make_embedding
    from research_assistant.knowledge.repository import ResearchRepository
    from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
    from research_assistant.schemas import Notice, SourceType
    from research_assistant.search.cache import SearchCache
    from research_assistant.search.local import LocalCorpusProvider

    settings = get_settings()
    try:
        embedding = make_embedding(settings.embedding)
    except EmbeddingUnavailable as error:
        raise ConfigurationError(str(error)) from None
    repository = ResearchRepository(
        context.db_dir, embedding, chunk_size=settings.chunk_size, chunk_overlap=settings.chunk_overlap
    )
    documents = DocumentCache(context.cache_dir)
    providers: list[SearchProvider] = []
    notices: list[Notice] = []
    readers: dict[SourceType, SourceReader] = {}
    if "local" in context.source_types:
        corpus = _require_corpus(context.corpus_dir)
        providers.append(LocalCorpusProvider(CorpusIndexer(corpus, repository, documents), repository))
        readers[SourceType.LOCAL] = LocalFileReader(documents)
    web_kinds = [kind for kind in WEB_KINDS if kind in context.source_types]
    if web_kinds:
        from research_assistant.web.setup import build_web_reader, web_providers

        for kind in web_kinds:
            found, skipped = web_providers(kind, settings, context.providers)
            providers.extend(found)
            notices.extend(Notice(message=message) for message in skipped)
        reader = build_web_reader(settings, documents, repository)
        readers.update({SourceType(kind): reader for kind in WEB_KINDS})
    if not providers:
        raise ConfigurationError("; ".join([_NO_SOURCE, *(notice.message for notice in notices)]))
    return Services(
        reasoner=_reasoner(settings, ExtractiveReasoner(embedding), context.cache_dir),
        repository=repository,
        documents=documents,
        providers=providers,
        readers=readers,
        notices=notices,
        search_cache=SearchCache(context.cache_dir, settings.cache_ttl_hours * 3600),
    )


def _reasoner(settings: Settings, extractive: ExtractiveReasoner, cache_dir: Path) -> Reasoner:
    """The LLM reasoner when models are configured (extractive as its fallback), otherwise the extractive one."""
    if not settings.uses_llm:
        return extractive
    if settings.gemini_api_key is None and any(
        model_spec(settings, role).startswith("google_genai:") for role in ROLES
    ):
        raise ConfigurationError("RESEARCH_REASONER=llm needs a model key: set GEMINI_API_KEY")
    from research_assistant.reasoning.llm.cache import ResponseCache
    from research_assistant.reasoning.llm.caller import StructuredCaller
    from research_assistant.reasoning.llm.reasoner import LLMReasoner

    caller = StructuredCaller(settings, ResponseCache(cache_dir / "llm"))
    return LLMReasoner(caller, extractive, settings.confidence_threshold)


_NO_SOURCE = (
    "no source is configured: pass --corpus DIR to research local documents, or set TAVILY_API_KEY or "
    "EXA_API_KEY for web search"
)


def _require_corpus(corpus_dir: Path | None) -> Path:
    if corpus_dir is None:
        raise ConfigurationError("'local' sources need a corpus folder: pass --corpus DIR or set RESEARCH_CORPUS_DIR")
    return corpus_dir
