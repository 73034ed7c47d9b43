"""Builds the web reader of a run's services from the settings: guarded fetcher, browser, archive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from research_assistant.settings import Settings

if TYPE_CHECKING:
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.web.fetcher import Fetcher
    from research_assistant.web.reader import PageIndex, WebPageReader


def build_fetcher(settings: Settings) -> Fetcher:
    from research_assistant.web.fetcher import Fetcher, FetchLimits
    from research_assistant.web.guard import AddressPolicy

    return Fetcher(FetchLimits.from_settings(settings), AddressPolicy(settings.private_networks))


def build_web_reader(settings: Settings, documents: DocumentCache, repository: PageIndex | None) -> WebPageReader:
    """The reader for web sources: guarded fetcher, browser when enabled, archive fallback, cache TTL."""
    from research_assistant.web.failures import FailureLog
    from research_assistant.web.reader import WebPageReader
    from research_assistant.web.render import BrowserRenderer

    fetcher = build_fetcher(settings)
    renderer = None
    if settings.browser:
        renderer = BrowserRenderer(
            fetcher,
            settings.chromium_executable(),
            timeout=settings.fetch_total_timeout,
            max_bytes=settings.fetch_max_bytes,
        )
    return WebPageReader(
        fetcher,
        documents,
        repository,
        renderer=renderer,
        archive_base_url=settings.wayback_base_url or None,
        ttl_seconds=settings.cache_ttl_hours * 3600,
        render_min_chars=settings.render_min_chars,
        failures=FailureLog(documents.directory.parent, settings.failure_ttl_hours * 3600),
    )
