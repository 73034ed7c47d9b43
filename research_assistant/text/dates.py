"""Publication dates as the pipeline keeps them: YYYY-MM-DD, or None when a value holds no real date.

Search APIs, page metadata and PDFs write dates in many ways (ISO 8601, RFC 2822 as in HTTP and RSS,
'March 5, 2024'); every one of them goes through `iso_date`, so sources compare and cite alike.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from email.utils import parsedate_to_datetime

_DATE_PREFIX = re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%Y%m%d")


def iso_date(value: object) -> str | None:
    """The YYYY-MM-DD date written in `value` (as written: no time-zone shift), else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    value = value.strip()
    found = _DATE_PREFIX.match(value)
    if found:
        try:
            return date(*(int(part) for part in found.groups())).isoformat()
        except ValueError:
            return None
    try:
        return parsedate_to_datetime(value).date().isoformat()  # RFC 2822: HTTP headers, RSS, Tavily
    except (TypeError, ValueError, IndexError):
        pass
    for form in _DATE_FORMATS:
        try:
            return datetime.strptime(value, form).date().isoformat()
        except ValueError:
            continue
    return None
