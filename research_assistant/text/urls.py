"""URL normalization: one spelling per page, so a page is searched, fetched and cached once.

Two URLs that lead to the same page (different case in the host, a default
port, a fragment, tracking parameters, a trailing `?`) normalize to the same
string, which keys the run's source ids and the document cache.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}
_TRACKING_PREFIXES = ("utm_", "mc_", "pk_")
_TRACKING_KEYS = frozenset({"fbclid", "gclid", "dclid", "msclkid", "yclid", "igshid", "ref_src", "_hsenc", "_hsmi"})
_LINKABLE = re.compile(r"^https?://[^\s<>\x00-\x1f\x7f]+$", re.IGNORECASE)


def is_web_url(locator: str) -> bool:
    """Whether `locator` is an http(s) URL (rather than a file path)."""
    return locator[:8].lower().startswith(("http://", "https://"))


def is_linkable_url(text: str) -> bool:
    """Whether `text` is, as it stands, an http(s) address that Markdown can show as an autolink: nothing around
    it, and no space, angle bracket or control character in it."""
    return bool(_LINKABLE.match(text))


def normalize_url(url: str) -> str:
    """The canonical spelling of an http(s) URL; anything else is returned stripped but unchanged."""
    url = url.strip()
    if not is_web_url(url):
        return url
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").rstrip(".")
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port if parts.port not in (None, _DEFAULT_PORTS[scheme]) else None
    netloc = host + (f":{port}" if port else "")
    path = quote(unquote(parts.path or "/"), safe="/:@!$&'()*+,;=-._~%")
    query_items = [
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not key.lower().startswith(_TRACKING_PREFIXES) and key.lower() not in _TRACKING_KEYS
    ]
    query = urlencode(sorted(query_items), doseq=True)
    return urlunsplit((scheme, netloc, path, query, ""))


def host_of(url: str) -> str:
    """The lower-case host name of a URL, '' when it has none."""
    return (urlsplit(url).hostname or "").rstrip(".").lower()
