"""Archived copies: the Wayback Machine's availability API, the last resort for a dead page."""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

from research_assistant.text.urls import is_web_url
from research_assistant.web.fetched import FetchError, PageFetcher

_SNAPSHOT = re.compile(r"^(?P<prefix>https?://[^/]+/web/)(?P<timestamp>\d{1,14})(?:[a-z]{2}_)?/(?P<target>.+)$")


async def find_snapshot(fetcher: PageFetcher, base_url: str, url: str) -> tuple[str, str] | None:
    """The closest archived copy of `url` as (raw-content snapshot URL, timestamp), or None.

    The raw form (`<timestamp>id_/<url>`) serves the page as it was archived, without the archive's
    toolbar, so extraction sees only the page.
    """
    query = urlencode({"url": url})
    try:
        answer = await fetcher.fetch(f"{base_url.rstrip('/')}/wayback/available?{query}", accept=None)
        closest = json.loads(answer.text()).get("archived_snapshots", {}).get("closest") or {}
    except (FetchError, ValueError, AttributeError):
        return None
    snapshot = str(closest.get("url") or "")
    if not closest.get("available") or not is_web_url(snapshot):
        return None
    match = _SNAPSHOT.match(snapshot)
    if match is None:
        return snapshot, str(closest.get("timestamp") or "")
    raw = f"{match['prefix']}{match['timestamp']}id_/{match['target']}"
    return raw, match["timestamp"]
