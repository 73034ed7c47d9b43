"""The team's servers, when settings name them: a PostgreSQL database and a Chroma server.

With neither set, everything lives in the embedded files of one working directory. A server that
cannot be reached is `ServerUnavailable`, whose message is the one line the command line and the page
show: which server, where (its password masked), and what went wrong.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from research_assistant.settings import get_settings, redact_url
from research_assistant.text.spaces import clip, collapse, first_line

CONNECT_SECONDS = 5
"""How long connecting to a server may take before it counts as down."""
CONNECT_ATTEMPTS = 3
"""How many times connecting to a server is tried before it counts as down: a server that is restarting, or a
connection dropped on the way, is reached by the second or third try within a second."""
CONNECT_BACKOFF_SECONDS = 0.2
"""The scale of the random, exponentially growing pause between connection tries."""

T = TypeVar("T")


class ServerUnavailable(RuntimeError):
    """A configured server cannot be reached or refused us; the message is one line saying which and why."""

    def __init__(self, what: str, url: str, problem: BaseException | str) -> None:
        reason = problem if isinstance(problem, str) else describe(problem)
        super().__init__(f"{what} at {redact_url(url)} cannot be used: {reason}")


def connect_with_retries(connect: Callable[[], T], transient: Callable[[BaseException], bool]) -> T:
    """`connect()`, tried again (tenacity) while it fails with an error `transient` accepts; the last error is
    raised as it is. Only for calls that change nothing on the server (a connection, a heartbeat), so a try that
    reached it and lost its reply is harmless to repeat, or for errors that say the server was never reached. A
    connect that timed out is not tried again: the server has already had `CONNECT_SECONDS` to answer."""
    from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_random_exponential

    retrying = Retrying(
        stop=stop_after_attempt(CONNECT_ATTEMPTS),
        wait=wait_random_exponential(multiplier=CONNECT_BACKOFF_SECONDS, max=1.0),
        retry=retry_if_exception(lambda error: transient(error) and "timeout" not in str(error).lower()),
        reraise=True,
    )
    return retrying(connect)


def describe(error: BaseException) -> str:
    """A driver's error as one short line (its first line; psycopg's messages run over several)."""
    return clip(collapse(first_line(str(error))) or type(error).__name__, 300)


def database_url() -> str:
    """The team's PostgreSQL URL, or "" for the embedded stores. A bad setting raises `SettingsError`: a worker
    whose URL has a typo must say so, not write to its own files instead."""
    return get_settings().database_url


def chroma_url() -> str:
    """The team's Chroma server address, or "" for the embedded repository (`SettingsError` as above)."""
    return get_settings().chroma_url
