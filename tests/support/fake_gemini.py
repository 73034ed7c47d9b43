"""A fake Gemini (Generative Language API, v1beta and v1) server on 127.0.0.1, for driving the real clients offline.

`FakeGemini` is a small threaded HTTP server on an ephemeral port that answers what `google-genai` sends
for the Gemini Developer API, closely enough for `langchain-google-genai` to work unchanged when pointed
at its `base_url`:

- `POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent?alt=sse` (LangChain uses the
  latter when streaming: `astream`, `streaming=True`, or a LangGraph run in `stream_mode="messages"`);
- `POST /v1beta/models/{model}:batchEmbedContents` (what the SDK sends for every `embed_content` on this
  API) and `:embedContent`, answered with deterministic hashed bag-of-words vectors (`fake_embedding`);
- `POST /v1beta/models/{model}:countTokens`.

The test decides the replies: items put on `queue()` are used first, in order, then `responder`, which by
default answers the JSON text `{}`. Every request is recorded in `requests`, and the token counts in
`usageMetadata` are words, so tests can predict them. Errors have Google's shape
(`{"error": {"code", "message", "status"}}`).

    with FakeGemini() as gemini:
        gemini.queue(429, {"answer": 42})
        llm = ChatGoogleGenerativeAI(model="gemini-2.5-flash", api_key="test-key", base_url=gemini.base_url)

The SDK's retry backoff starts at one second; `fast_sdk_retries()` shrinks it for tests, and passing
`client_args=gemini.client_args` spares each client the SDK's loading of certificate bundles.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import ssl
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from types import TracebackType
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

_WORD = re.compile(r"\w+")
_ROUTE = re.compile(r"^/(?P<version>v1(?:alpha|beta)?)/(?:models|tunedModels)/(?P<model>[^/:]+):(?P<action>\w+)$")
_GENERATE = frozenset({"generateContent", "streamGenerateContent"})
_STATUS_NAMES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    408: "DEADLINE_EXCEEDED",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    502: "UNAVAILABLE",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
_MESSAGES = {
    429: "Resource has been exhausted (e.g. check quota).",
    500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
    503: "The model is overloaded. Please try again later.",
}
DEFAULT_EMBEDDING_DIMENSIONS = 768
"""The size of `text-embedding-004`'s vectors; a request's `outputDimensionality` overrides it."""


@dataclass(frozen=True)
class FakeGeminiFailure:
    """Answer with an HTTP error instead of a reply."""

    status: int = 500
    message: str | None = None
    """The error's message; a stock one per status when None."""
    retry_after: float | None = None
    """Seconds: sent as a `Retry-After` header and a `google.rpc.RetryInfo` detail, as Google does for 429s
    (google-genai's retries ignore both)."""
    body: str | None = None
    """A raw body sent instead of Google's JSON envelope (say, an HTML page from a proxy)."""
    echo_key: bool = False
    """Quote the key the request carried in the error's message (or raw body), as some endpoints and proxies
    do: `{key}` in `message` or `body` is replaced by it, else it is appended to the message."""


@dataclass(frozen=True)
class FakeGeminiReply:
    """A reply with more control than a bare value: see `FakeGemini` for how `content` becomes text."""

    content: Any = None
    finish_reason: str = "STOP"
    delay: float = 0.0
    """Seconds to wait before answering (for timeout tests; a closing server stops waiting)."""
    parts: tuple[Mapping[str, Any], ...] | None = None
    """Raw `parts` sent instead of one text part made from `content` (say, a `functionCall`); `()` sends a
    candidate without `content`, as a blocked answer has."""
    prompt_tokens: int | None = None
    """Overrides the counted `promptTokenCount`."""
    candidates_tokens: int | None = None
    """Overrides the counted `candidatesTokenCount`."""


Reply = FakeGeminiFailure | FakeGeminiReply | str | Any
"""What a responder returns or `queue()` takes. A `str` is the reply's text as-is (malformed JSON included);
a pydantic model is sent as its JSON; any other object (dict, list, number, None) as `json.dumps` of it."""
Responder = Callable[[str, dict[str, Any]], Reply]
"""Called with the model name (`gemini-2.5-flash`, without `models/`) and the request's JSON body."""


class RecordedRequest(NamedTuple):
    """One request the server received; unpacks as `(path, model, body, headers)`."""

    path: str
    """The path with its query string, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`."""
    model: str | None
    """The model named in the path, without `models/`; None for a path that names none."""
    body: Any
    """The decoded JSON body; None when there was none or it was not JSON."""
    headers: dict[str, str]
    """Header names in lower case."""

    @property
    def action(self) -> str | None:
        """`generateContent`, `streamGenerateContent`, `batchEmbedContents`, `embedContent`, `countTokens`."""
        match = _ROUTE.match(urlsplit(self.path).path)
        return match["action"] if match else None

    @property
    def text(self) -> str:
        """The text of every part of the request's contents and system instruction, one part per line."""
        return "\n".join(_request_texts(self.body))

    @property
    def generation_config(self) -> dict[str, Any]:
        config = self.body.get("generationConfig") if isinstance(self.body, dict) else None
        return config if isinstance(config, dict) else {}

    @property
    def response_schema(self) -> Any:
        """The JSON schema the request asked the answer to follow (`responseJsonSchema`, else `responseSchema`)."""
        config = self.generation_config
        return config.get("responseJsonSchema", config.get("responseSchema"))


class FakeGemini:
    """The fake server; use it as a context manager (it serves between `start()` and `close()`)."""

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        api_key: str | None = None,
        embedding_dimensions: int = DEFAULT_EMBEDDING_DIMENSIONS,
    ) -> None:
        self.responder: Responder = responder or default_responder
        """Answers generation requests once the queue is empty; tests may replace it at any time."""
        self.api_key = api_key
        """The only key accepted when set (another gets Google's 400 `API_KEY_INVALID`); when None any
        non-empty key is. A request without a key always gets Google's 403."""
        self.embedding_dimensions = embedding_dimensions
        self.requests: list[RecordedRequest] = []
        self.prompt_tokens = 0
        """`promptTokenCount`s answered so far, summed over generation requests."""
        self.candidates_tokens = 0
        """`candidatesTokenCount`s answered so far."""
        self._queue: deque[Reply] = deque()
        self._embed_failures: deque[FakeGeminiFailure] = deque()
        self._lock = threading.Lock()
        self._release = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> FakeGemini:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self
        self._server = server
        self._release.clear()
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self._release.set()  # delayed replies stop waiting
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeGemini:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    @property
    def client_args(self) -> dict[str, Any]:
        """Optional `client_args=` for `ChatGoogleGenerativeAI` and `GoogleGenerativeAIEmbeddings`: one shared
        TLS context that trusts no certificate authority, for the SDK's httpx (`verify`) and aiohttp (`ssl`)
        clients. It saves the SDK loading certifi's bundle three times per client (about 0.1 s each time),
        and makes any HTTPS request that escapes to the real API fail. Plain HTTP to the fake is unaffected."""
        context = _no_ca_context()
        return {"verify": context, "ssl": context}

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT`, what `base_url=` takes; the clients add `/v1beta/models/...`."""
        if self._server is None:
            raise RuntimeError("the fake Gemini server is not serving")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- scripting -------------------------------------------------------------------------------------

    def queue(self, *replies: Reply) -> FakeGemini:
        """Answer the next generation requests with these, in order, before asking `responder`.

        An `int` is an HTTP status (`queue(429, 500, {"ok": True})`): `FakeGeminiFailure(status=that)`.
        """
        with self._lock:
            self._queue.extend(_as_failure(reply) for reply in replies)
        return self

    def fail_embeddings(self, *failures: FakeGeminiFailure | int) -> FakeGemini:
        """Answer the next embedding requests with these failures, in order."""
        with self._lock:
            self._embed_failures.extend(
                failure if isinstance(failure, FakeGeminiFailure) else FakeGeminiFailure(failure)
                for failure in failures
            )
        return self

    @property
    def pending(self) -> int:
        """Queued replies not yet used."""
        with self._lock:
            return len(self._queue)

    # -- reading back ----------------------------------------------------------------------------------

    @property
    def generate_requests(self) -> list[RecordedRequest]:
        """The generation requests (streamed or not), in order of arrival."""
        with self._lock:
            return [request for request in self.requests if request.action in _GENERATE]

    @property
    def embed_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [request for request in self.requests if request.action in ("embedContent", "batchEmbedContents")]

    # -- used by the handler ---------------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_reply(self, model: str, body: dict[str, Any]) -> Reply:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        return self.responder(model, body)

    def _next_embed_failure(self) -> FakeGeminiFailure | None:
        with self._lock:
            return self._embed_failures.popleft() if self._embed_failures else None

    def _count(self, prompt: int, candidates: int) -> None:
        with self._lock:
            self.prompt_tokens += prompt
            self.candidates_tokens += candidates

    def _wait(self, seconds: float) -> None:
        self._release.wait(seconds)


def _as_failure(reply: Reply) -> Reply:
    """An `int` (not a bool) in the queue is an HTTP status."""
    if isinstance(reply, int) and not isinstance(reply, bool):
        return FakeGeminiFailure(status=reply)
    return reply


@cache
def _no_ca_context() -> ssl.SSLContext:
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def default_responder(model: str, request: dict[str, Any]) -> Reply:
    """Answers every request with the JSON text `{}`."""
    return {}


def word_count(text: str) -> int:
    """The fake's token count: whitespace-separated words."""
    return len(text.split())


def fake_embedding(text: str, dimensions: int = DEFAULT_EMBEDDING_DIMENSIONS) -> list[float]:
    """The fake's embedding of `text`: a signed, hashed bag of its lower-cased words, L2-normalized.

    The same text always gives the same vector, texts sharing words have a positive dot product, and a
    text without words gives the zero vector.
    """
    vector = [0.0] * dimensions
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "big") % dimensions
        vector[index] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(value * value for value in vector))
    return [value / norm for value in vector] if norm else vector


def error_body(status: int, message: str | None = None, details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Google's error envelope."""
    error: dict[str, Any] = {
        "code": status,
        "message": message or _MESSAGES.get(status, f"HTTP {status}"),
        "status": _STATUS_NAMES.get(status, "UNKNOWN"),
    }
    if details:
        error["details"] = details
    return {"error": error}


@contextmanager
def fast_sdk_retries(initial_delay: float = 0.01, max_delay: float = 0.05) -> Iterator[None]:
    """Shrink google-genai's default retry backoff (1 s, doubling, plus up to 1 s of jitter) while inside.

    LangChain sets only `HttpRetryOptions(attempts=max_retries)`, so the SDK's module defaults decide the
    delays; they are read when each request starts. A test that calls the SDK or the chat model directly
    can instead pass `http_options={"retry_options": {...}}`.
    """
    from google.genai import _api_client

    names = ("_RETRY_INITIAL_DELAY", "_RETRY_MAX_DELAY", "_RETRY_JITTER")
    saved = {name: getattr(_api_client, name) for name in names}
    for name, value in zip(names, (initial_delay, max_delay, 0.0), strict=True):
        setattr(_api_client, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(_api_client, name, value)


# -- the server ------------------------------------------------------------------------------------------


class _Server(ThreadingHTTPServer):
    request_queue_size = 128
    """A real API accepts a burst of connections; the standard library's backlog of 5 resets them."""
    fake: FakeGemini


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeGemini/1.0"
    server: _Server

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _serve(self) -> None:
        fake = self.server.fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        parts = urlsplit(self.path)
        route = _ROUTE.match(parts.path)
        model = unquote(route["model"]) if route else None
        headers = {name.lower(): value for name, value in self.headers.items()}
        fake._record(RecordedRequest(self.path, model, body, headers))
        with suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            self._answer(fake, route, model, body, headers, dict(parse_qsl(parts.query)))

    def _answer(
        self,
        fake: FakeGemini,
        route: re.Match[str] | None,
        model: str | None,
        body: Any,
        headers: dict[str, str],
        query: dict[str, str],
    ) -> None:
        key = headers.get("x-goog-api-key") or query.get("key")
        self._key = key or ""
        if not key:
            message = (
                "Method doesn't allow unregistered callers (callers without established identity). "
                "Please use API Key or other form of API consumer identity to call this API."
            )
            return self._json(403, error_body(403, message))
        if fake.api_key is not None and key != fake.api_key:
            detail = {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
            }
            return self._json(400, error_body(400, "API key not valid. Please pass a valid API key.", [detail]))
        if route is None or model is None or self.command != "POST":
            return self._json(404, error_body(404, f"Method not found: {self.command} {self.path}"))
        if not isinstance(body, dict):
            return self._json(400, error_body(400, "Invalid JSON payload received."))
        action = route["action"]
        if action in _GENERATE:
            return self._generate(fake, model, body, stream=action == "streamGenerateContent")
        if action in ("embedContent", "batchEmbedContents"):
            return self._embed(fake, model, body, batch=action == "batchEmbedContents")
        if action == "countTokens":
            return self._json(200, {"totalTokens": sum(map(word_count, _request_texts(body)))})
        return self._json(404, error_body(404, f"Method not found: {action}"))

    def _generate(self, fake: FakeGemini, model: str, body: dict[str, Any], *, stream: bool) -> None:
        reply = fake._next_reply(model, body)
        if isinstance(reply, FakeGeminiFailure):
            return self._failure(reply)
        if not isinstance(reply, FakeGeminiReply):
            reply = FakeGeminiReply(reply)
        if reply.delay:
            fake._wait(reply.delay)
        text = _reply_text(reply.content)
        if reply.parts is not None:
            parts = [dict(part) for part in reply.parts]
            text = "".join(str(part.get("text", "")) for part in parts)
        else:
            parts = [{"text": text}]
        prompt = reply.prompt_tokens if reply.prompt_tokens is not None else sum(map(word_count, _request_texts(body)))
        candidates = reply.candidates_tokens if reply.candidates_tokens is not None else word_count(text)
        fake._count(prompt, candidates)
        if not stream:
            return self._json(200, _response(model, parts, reply.finish_reason, prompt, candidates))
        # Server-sent events: the text in up to three chunks, usage cumulative on each, as Gemini sends it.
        pieces = _split(parts)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        sent = ""
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            sent += "".join(str(part.get("text", "")) for part in piece)
            chunk = _response(model, piece, reply.finish_reason if last else None, prompt, word_count(sent))
            if last:
                chunk["usageMetadata"]["candidatesTokenCount"] = candidates
                chunk["usageMetadata"]["totalTokenCount"] = prompt + candidates
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\r\n\r\n")
            self.wfile.flush()
        self.close_connection = True
        return None

    def _embed(self, fake: FakeGemini, model: str, body: dict[str, Any], *, batch: bool) -> None:
        failure = fake._next_embed_failure()
        if failure is not None:
            return self._failure(failure)
        items = body.get("requests") if batch else [body]
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            return self._json(400, error_body(400, "Invalid JSON payload received. Expected `requests`."))
        vectors = []
        for item in items:
            content = item.get("content") if isinstance(item.get("content"), dict) else {}
            text = " ".join(str(part.get("text", "")) for part in content.get("parts", []) if isinstance(part, dict))
            dimensions = item.get("outputDimensionality") or fake.embedding_dimensions
            vectors.append({"values": fake_embedding(text, int(dimensions))})
        return self._json(200, {"embeddings": vectors} if batch else {"embedding": vectors[0]})

    def _failure(self, failure: FakeGeminiFailure) -> None:
        if failure.echo_key:
            failure = _echoing(failure, getattr(self, "_key", ""))
        extra = {}
        details = None
        if failure.retry_after is not None:
            extra["Retry-After"] = str(math.ceil(failure.retry_after))
            details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{failure.retry_after:g}s"}]
        if failure.body is not None:
            return self._send(failure.status, "text/html; charset=UTF-8", failure.body.encode(), extra)
        envelope = error_body(failure.status, failure.message, details)
        return self._send(failure.status, "application/json; charset=UTF-8", _dump(envelope), extra)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, "application/json; charset=UTF-8", _dump(value))

    def _send(self, status: int, content_type: str, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)


def _echoing(failure: FakeGeminiFailure, key: str) -> FakeGeminiFailure:
    """`failure` with the request's key quoted in its message or body."""
    if failure.body is not None:
        return replace(failure, body=failure.body.replace("{key}", key), echo_key=False)
    message = failure.message or _MESSAGES.get(failure.status, f"HTTP {failure.status}")
    message = message.replace("{key}", key) if "{key}" in message else f"{message} (API key: {key})"
    return replace(failure, message=message, echo_key=False)


def _reply_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    dump = getattr(content, "model_dump_json", None)
    if callable(dump):
        return str(dump())
    return json.dumps(content)


def _response(
    model: str, parts: list[dict[str, Any]], finish_reason: str | None, prompt: int, candidates: int
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"index": 0}
    if parts:
        candidate["content"] = {"parts": parts, "role": "model"}
    if finish_reason:
        candidate["finishReason"] = finish_reason
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": prompt,
            "candidatesTokenCount": candidates,
            "totalTokenCount": prompt + candidates,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
        },
        "modelVersion": model,
        "responseId": hashlib.blake2b(json.dumps(parts).encode(), digest_size=8).hexdigest(),
    }


def _split(parts: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Stream chunks: a single text part cut into up to three pieces at spaces; other parts whole."""
    if len(parts) != 1 or set(parts[0]) != {"text"}:
        return [parts]
    text = str(parts[0]["text"])
    cuts = [0]
    for fraction in (1 / 3, 2 / 3):
        at = text.find(" ", int(len(text) * fraction))
        if at > cuts[-1]:
            cuts.append(at)
    cuts.append(len(text))
    return [[{"text": text[start:end]}] for start, end in pairwise(cuts) if end > start] or [parts]


def _request_texts(body: Any) -> list[str]:
    if not isinstance(body, dict):
        return []
    contents = list(body.get("contents") or [])
    if isinstance(body.get("systemInstruction"), dict):
        contents.append(body["systemInstruction"])
    texts = []
    for content in contents:
        for part in content.get("parts", []) if isinstance(content, dict) else []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                texts.append(part["text"])
    return texts


def _dump(value: Any) -> bytes:
    return json.dumps(value).encode()
