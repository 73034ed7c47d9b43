"""The Chroma client the repository uses: the embedded one in a folder, or the team's Chroma server.

With `RESEARCH_CHROMA_URL` (http://host:port) the repository's collections live on that server under the
same names as embedded, so every worker pointed at it shares one repository; the BM25 side-indexes stay in
each worker's own `db_dir/bm25`, keyed by the collection's revision on the server, so a worker rebuilds its
copy whenever another one has written.
"""

from __future__ import annotations

import threading
from typing import Any
from urllib.parse import urlsplit

from research_assistant.servers import ServerUnavailable, chroma_url, connect_with_retries

CHROMA = "the Chroma server"

_clients: dict[str, Any] = {}
"""One client per server address and process (see `server_client`)."""
_clients_lock = threading.Lock()


def server_client(url: str) -> Any:
    """A `chromadb.HttpClient` for the server at `url`, checked with a heartbeat; `ServerUnavailable` if down.

    A server that does not answer is tried again twice within about a second (a server restarting, a connection
    dropped on the way). The client is made once per address and process, and checked at every call: making one
    costs about 60 ms of CPU (Chroma builds two HTTP clients and asks the server four questions), and opening the
    repository asks for it twice. A client whose server does not answer is dropped. For a plain `http` address
    Chroma's HTTP clients are made without certificate checks, which such connections never make: otherwise each
    would load the system's certificate bundle, about 20 ms of CPU.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    def connect() -> Any:
        with _clients_lock:
            client = _clients.get(url)
        try:
            if client is None:
                parts = urlsplit(url)
                https = parts.scheme == "https"
                client = chromadb.HttpClient(
                    host=parts.hostname or "localhost",
                    port=parts.port or (443 if https else 8000),
                    ssl=https,
                    settings=ChromaSettings(
                        anonymized_telemetry=False, chroma_server_ssl_verify=None if https else False
                    ),
                )
            client.heartbeat()
        except Exception:
            with _clients_lock:
                _clients.pop(url, None)
            raise
        return client

    try:
        client = connect_with_retries(connect, _unreachable)
    except Exception as error:
        raise ServerUnavailable(CHROMA, url, _reason(error)) from None
    with _clients_lock:
        return _clients.setdefault(url, client)


class RetryingCollection:
    """A collection on the Chroma server whose calls are tried again (`connect_with_retries`) when the server could
    not be reached at all: a call that never reached it changed nothing there, so it is safe to repeat whatever it
    does. An error the server answered with is raised as it is. Other attributes (`id`, `metadata`) pass through."""

    def __init__(self, collection: Any) -> None:
        self._collection = collection

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._collection, name)
        if not callable(value):
            return value

        def call(*args: Any, **kwargs: Any) -> Any:
            return connect_with_retries(lambda: value(*args, **kwargs), _unreachable)

        return call


def _unreachable(error: BaseException) -> bool:
    """Whether the server did not answer at all (rather than answering with an error)."""
    text = " ".join(str(error).split())
    return "Could not connect" in text or "Connection refused" in text or "ConnectError" in type(error).__name__


def _reason(error: BaseException) -> str:
    if _unreachable(error):
        return "no server answers there (is `chroma run` started?)"
    return " ".join(str(error).split())[:300] or type(error).__name__


def check_chroma(url: str) -> str:
    """A one-line description of the reachable server; `ServerUnavailable` when it is not."""
    client = server_client(url)
    return f"Chroma {client.get_version()}, {len(client.list_collections())} collections"


def configured_server() -> str:
    """The Chroma server's address, or "" for the embedded client."""
    return chroma_url()
