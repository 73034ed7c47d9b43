"""Reads web sources for the browse step: cache, fetch, render, archive.

A page's text is obtained by the first of these that works:

1. the document cache, when its copy is younger than the TTL (unless the run refreshes);
   likewise a failure remembered from a recent attempt is reported again, not retried;
2. a plain HTTP fetch (with its own retries), its main text extracted;
3. headless Chromium, when the static page holds too little text (a JavaScript app);
   without a browser the static text is used and the document says so;
4. the Wayback Machine's closest archived copy, when the live page is gone or failing.

The browser fetches every request through the same guarded fetcher, so when
the plain fetch of a page fails, rendering it would only repeat that failure:
a failed fetch goes straight to the archive. Refusals (a forbidden address,
robots.txt) are final, archive included. Every document records how it was
obtained (`access_method`) and what the analyst should know (`notes`).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from research_assistant.concurrency import in_thread
from research_assistant.knowledge.documents import StoredDocument
from research_assistant.reading import CACHE_METHOD, ReadError
from research_assistant.schemas import SourceRecord
from research_assistant.text.dates import iso_date
from research_assistant.text.reading import READING_VERSION
from research_assistant.web.extract import HTML_TYPES, ExtractedPage, decode_html, extract_page, looks_script_only
from research_assistant.web.failures import FailureLog
from research_assistant.web.fetched import FetchedPage, FetchError, FetchRefused, PageFetcher
from research_assistant.web.render import RenderUnavailable
from research_assistant.web.wayback import find_snapshot

if TYPE_CHECKING:
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.knowledge.repository import DocumentInfo
    from research_assistant.web.render import BrowserRenderer


class PageIndex(Protocol):
    """What the reader asks of the research repository: whether it holds a document, and to index one."""

    def document_info(self, source_ids: Iterable[str]) -> Mapping[str, DocumentInfo]: ...

    def add_documents(self, docs: Sequence[StoredDocument], run_id: str) -> int: ...


def worth_archive(error: FetchError) -> bool:
    """Whether an archived copy may help: the page is gone, failing or unreachable, not refused or unwanted."""
    if isinstance(error, FetchRefused):
        return False
    if error.status is not None:
        return error.status in (404, 410, 429) or error.status >= 500
    return error.retryable


class WebPageReader:
    """The `SourceReader` for web, news, academic and wiki sources."""

    def __init__(
        self,
        fetcher: PageFetcher,
        documents: DocumentCache,
        repository: PageIndex | None,
        *,
        renderer: BrowserRenderer | None,
        archive_base_url: str | None,
        ttl_seconds: float,
        render_min_chars: int,
        failures: FailureLog | None = None,
    ) -> None:
        self._fetcher = fetcher
        self._documents = documents
        self._repository = repository
        self._renderer = renderer
        self._archive_base_url = archive_base_url
        self._ttl = timedelta(seconds=ttl_seconds)
        self._render_min_chars = render_min_chars
        self._failures = failures

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> StoredDocument:
        cached = None if refresh else self.cached(source.id)
        if cached is not None:
            await in_thread(self._index, cached, run_id, if_missing=True)
            return cached.model_copy(update={"access_method": CACHE_METHOD})
        remembered = None if refresh or self._failures is None else self._failures.recent(source.id)
        if remembered is not None:
            raise ReadError(f"{remembered} (remembered from an earlier attempt; --refresh tries again)")
        try:
            document = await self._obtain(source)
        except FetchError as error:
            if self._failures is not None:
                self._failures.record(source.id, str(error))
            raise ReadError(str(error)) from None
        if self._failures is not None:
            self._failures.forget(source.id)
        self._documents.put(document)
        await in_thread(self._index, document, run_id)  # a cancelled run stops waiting for the lock
        return document

    async def aclose(self) -> None:
        """Close the browser and the fetcher's connections (the CLI's `fetch` does; services live on)."""
        if self._renderer is not None:
            await self._renderer.aclose()
        close = getattr(self._fetcher, "aclose", None)
        if close is not None:
            await close()

    def cached(self, source_id: str) -> StoredDocument | None:
        """The cached copy of a source when it is younger than the TTL and was read as pages are read now."""
        document = self._documents.get(source_id)
        if document is None or document.reading != READING_VERSION:
            return None
        try:
            fetched = datetime.fromisoformat(document.fetched_at)
        except ValueError:
            return None
        if fetched.tzinfo is None:
            fetched = fetched.replace(tzinfo=UTC)
        return document if datetime.now(UTC) - fetched <= self._ttl else None

    async def _obtain(self, source: SourceRecord) -> StoredDocument:
        url = source.locator
        try:
            page = await self._fetcher.fetch(url)
        except FetchError as error:
            if not worth_archive(error):
                raise
            return await self._from_archive(source, str(error))
        notes: list[str] = []
        extracted, method = await self._readable(page, notes)
        if extracted is None:
            return await self._from_archive(source, "no readable text on the page")
        return _document(source, page, extracted, method, notes)

    async def _readable(self, page: FetchedPage, notes: list[str]) -> tuple[ExtractedPage | None, str]:
        """The page's main text, rendering it in the browser when the static HTML holds too little."""
        extracted = await _extract(page)
        if page.content_type not in HTML_TYPES:
            return extracted, "http"
        if extracted is not None and not looks_script_only(decode_html(page), extracted.text, self._render_min_chars):
            return extracted, "http"
        if self._renderer is None:
            notes.append("read without running its JavaScript (the browser is turned off); text may be missing")
            return extracted, "http"
        try:
            rendered = await self._renderer.render(page.url, main=page)
        except RenderUnavailable as error:
            notes.append(f"read without running its JavaScript ({error}); text may be missing")
            return extracted, "http"
        except FetchError as error:
            notes.append(f"read without running its JavaScript: rendering failed ({error}); text may be missing")
            return extracted, "http"
        from_browser = await _extract(rendered)
        if from_browser is not None and (extracted is None or len(from_browser.text) > len(extracted.text)):
            return from_browser, "browser"
        return extracted, "http"

    async def _from_archive(self, source: SourceRecord, failure: str) -> StoredDocument:
        if not self._archive_base_url:
            raise FetchError(failure)
        snapshot = await find_snapshot(self._fetcher, self._archive_base_url, source.locator)
        if snapshot is None:
            raise FetchError(f"{failure}; no archived copy found")
        snapshot_url, timestamp = snapshot
        try:
            page = await self._fetcher.fetch(snapshot_url, check_robots=False)
        except FetchError as error:
            raise FetchError(f"{failure}; the archived copy failed too ({error})") from None
        extracted = await _extract(page)
        if extracted is None:
            raise FetchError(f"{failure}; the archived copy has no readable text")
        day = iso_date(timestamp[:8])  # Wayback timestamps: YYYYMMDDhhmmss
        note = f"the live page failed ({failure}); read an archived copy" + (f" from {day}" if day else "")
        return _document(source, page, extracted, f"archive (Wayback Machine{f', {day}' if day else ''})", [note])

    def _index(self, document: StoredDocument, run_id: str, *, if_missing: bool = False) -> None:
        """Index the document; `if_missing`: only when the repository lacks it (a new repository, another
        embedding model), as for a cached document."""
        if self._repository is None:
            return
        if if_missing:
            info = self._repository.document_info([document.source_id]).get(document.source_id)
            if info is not None and info.content_hash == document.content_hash:
                return
        self._repository.add_documents([document], run_id or "web")


async def _extract(page: FetchedPage) -> ExtractedPage | None:
    """The page's readable content, or None when there is none; parsing runs off the event loop."""
    try:
        return await asyncio.to_thread(extract_page, page)
    except FetchError:
        return None


def _document(
    source: SourceRecord, page: FetchedPage, extracted: ExtractedPage, method: str, notes: list[str]
) -> StoredDocument:
    return StoredDocument(
        source_id=source.id,
        locator=source.locator,
        title=extracted.title or source.title,
        text=extracted.text,
        content_hash=hashlib.sha256(page.body).hexdigest(),
        fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
        access_method=method,
        author=extracted.author,
        published=extracted.published,
        final_url=page.final_url,
        notes=notes,
        reading=READING_VERSION,
    )
