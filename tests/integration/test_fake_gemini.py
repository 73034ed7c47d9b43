"""The real Gemini clients (langchain-google-genai over google-genai) against the fake Gemini server.

These pin down what the project relies on when it talks to Gemini: how a client is pointed at another
endpoint, what a call sends, how usage, retries and failures come back. No internet: the fake listens
on 127.0.0.1, and the SDK's retry backoff is shrunk to milliseconds.
"""

from __future__ import annotations

import gc
import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from google.genai import errors as genai_errors
from langchain_core.exceptions import ModelAPIError, ModelRateLimitError, OutputParserException
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_google_genai import ChatGoogleGenerativeAI, GoogleGenerativeAIEmbeddings
from langchain_google_genai._common import GoogleGenerativeAIError
from langchain_google_genai.chat_models import (
    ChatGoogleGenerativeAIError,
    GoogleAPIError,
    GoogleInvalidRequestError,
    GoogleRateLimitError,
)
from pydantic import BaseModel, Field
from support.fake_gemini import (
    FakeGemini,
    FakeGeminiFailure,
    FakeGeminiReply,
    error_body,
    fake_embedding,
    fast_sdk_retries,
    word_count,
)

pytestmark = [
    # On a 5xx, langchain-core calls `response.json()` on the SDK's aiohttp response without awaiting it;
    # the warning comes when the coroutine is collected, so tests that meet a 5xx use `collect_garbage`.
    pytest.mark.filterwarnings("ignore:coroutine 'ClientResponse.json' was never awaited:RuntimeWarning"),
]

MODEL = "gemini-2.5-flash"
KEY = "test-key"


class Finding(BaseModel):
    claim: str = Field(description="One sentence.")
    sources: list[int]
    confidence: float


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini() as server, fast_sdk_retries():
        yield server


@pytest.fixture
def collect_garbage() -> Iterator[None]:
    """Collect garbage before the test ends, while its warning filters still apply."""
    yield
    gc.collect()


def chat(server: FakeGemini, **options: Any) -> ChatGoogleGenerativeAI:
    options = {"model": MODEL, "max_retries": 3, "timeout": 5, "client_args": server.client_args, **options}
    return ChatGoogleGenerativeAI(api_key=KEY, base_url=server.base_url, **options)


async def ask(runnable: Any, prompt: str) -> dict[str, Any]:
    """`ainvoke` of a `with_structured_output(..., include_raw=True)` runnable: `raw`, `parsed`, `parsing_error`."""
    result = await runnable.ainvoke(prompt)
    assert isinstance(result, dict)
    return result


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _without_api_version(path: str) -> str:
    """A request's path after its API version: google-genai's releases call `/v1beta/...` or `/v1/...`."""
    version, _, rest = path.lstrip("/").partition("/")
    assert version in ("v1", "v1beta"), path
    return f"/{rest}"


def post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


# -- plain calls -------------------------------------------------------------------------------------------


async def test_ainvoke_returns_the_reply_text_and_word_counted_usage(gemini: FakeGemini) -> None:
    gemini.queue("The tram network opened in 1987.")

    llm = ChatGoogleGenerativeAI(model=MODEL, api_key=KEY, base_url=gemini.base_url, max_retries=3, timeout=5)

    reply = await llm.ainvoke([SystemMessage("Answer briefly."), HumanMessage("When did the trams open?")])

    assert isinstance(reply, AIMessage)
    assert reply.content == "The tram network opened in 1987."
    assert reply.usage_metadata == {
        "input_tokens": 7,  # "Answer briefly." + "When did the trams open?"
        "output_tokens": 6,
        "total_tokens": 13,
        "input_token_details": {"cache_read": 0},
    }
    assert reply.response_metadata["finish_reason"] == "STOP"
    assert reply.response_metadata["model_name"] == MODEL
    (request,) = gemini.requests
    path, model, body, headers = request
    assert _without_api_version(path) == f"/models/{MODEL}:generateContent"
    assert model == MODEL
    assert headers["x-goog-api-key"] == KEY
    assert headers["x-server-timeout"] == "5"
    assert body["contents"] == [{"parts": [{"text": "When did the trams open?"}], "role": "user"}]
    assert body["systemInstruction"]["parts"] == [{"text": "Answer briefly."}]
    assert (gemini.prompt_tokens, gemini.candidates_tokens) == (7, 6)


async def test_the_default_reply_is_an_empty_json_object(gemini: FakeGemini) -> None:
    reply = await chat(gemini).ainvoke("Anything?")

    assert reply.content == "{}"


async def test_a_responder_sees_the_model_and_request(gemini: FakeGemini) -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def responder(model: str, request: dict[str, Any]) -> str:
        seen.append((model, request))
        return request["contents"][-1]["parts"][0]["text"].upper()

    gemini.responder = responder
    gemini.queue("queued first")
    llm = chat(gemini, model="gemini-2.5-pro", temperature=0)

    assert (await llm.ainvoke("one")).content == "queued first"
    assert (await llm.ainvoke("two")).content == "TWO"
    assert [model for model, _ in seen] == ["gemini-2.5-pro"]
    assert seen[0][1]["generationConfig"]["temperature"] == 0


def test_sync_invoke_works_too(gemini: FakeGemini) -> None:
    gemini.queue({"ok": True})

    assert chat(gemini).invoke("Sync?").content == '{"ok": true}'


async def test_astream_uses_server_sent_events_and_sums_usage(gemini: FakeGemini) -> None:
    gemini.queue("one two three four five six seven eight nine")

    chunks = [chunk async for chunk in chat(gemini).astream("count to nine")]

    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    assert len([chunk for chunk in chunks if chunk.content]) == 3
    assert total.content == "one two three four five six seven eight nine"
    assert total.usage_metadata is not None
    assert (total.usage_metadata["input_tokens"], total.usage_metadata["output_tokens"]) == (3, 9)
    assert _without_api_version(gemini.requests[0].path) == f"/models/{MODEL}:streamGenerateContent?alt=sse"


# -- structured output -------------------------------------------------------------------------------------


async def test_structured_output_sends_the_json_schema_and_parses_the_reply(gemini: FakeGemini) -> None:
    finding = Finding(claim="Trams opened in 1987.", sources=[1, 2], confidence=0.9)
    gemini.queue(finding)
    structured = chat(gemini).with_structured_output(Finding, method="json_schema", include_raw=True)

    result = await ask(structured, "What did the sources say?")

    assert result["parsed"] == finding
    assert result["parsing_error"] is None
    assert result["raw"].content == finding.model_dump_json()
    assert result["raw"].usage_metadata["output_tokens"] == word_count(finding.model_dump_json())
    (request,) = gemini.generate_requests
    assert request.generation_config["responseMimeType"] == "application/json"
    assert request.response_schema == Finding.model_json_schema()
    assert "responseSchema" not in request.generation_config


async def test_malformed_json_sets_parsing_error_with_include_raw(gemini: FakeGemini) -> None:
    gemini.queue("Sure! Here is the finding you asked for.")
    structured = chat(gemini).with_structured_output(Finding, method="json_schema", include_raw=True)

    result = await ask(structured, "Find something.")

    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], OutputParserException)
    assert "Invalid json output" in str(result["parsing_error"])
    assert result["raw"].content == "Sure! Here is the finding you asked for."


async def test_json_of_the_wrong_shape_sets_parsing_error(gemini: FakeGemini) -> None:
    gemini.queue({"claim": "No sources given."})
    structured = chat(gemini).with_structured_output(Finding, method="json_schema", include_raw=True)

    result = await ask(structured, "Find something.")

    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], OutputParserException)
    assert "validation error" in str(result["parsing_error"])


async def test_malformed_json_without_include_raw_raises(gemini: FakeGemini) -> None:
    gemini.queue("not JSON at all")
    structured = chat(gemini).with_structured_output(Finding, method="json_schema")

    with pytest.raises(OutputParserException, match="Invalid json output"):
        await structured.ainvoke("Find something.")


async def test_truncated_json_is_completed_by_the_lenient_parser(gemini: FakeGemini) -> None:
    """The parser closes an unfinished JSON object, so a reply cut off at the token limit can still parse:
    only the finish reason tells."""
    gemini.queue(FakeGeminiReply('{"claim": "Trams opened in 1987.", "sources": [1], "confidence": 0.5', "MAX_TOKENS"))
    structured = chat(gemini).with_structured_output(Finding, method="json_schema", include_raw=True)

    result = await ask(structured, "Find something.")

    assert result["parsed"] == Finding(claim="Trams opened in 1987.", sources=[1], confidence=0.5)
    assert result["raw"].response_metadata["finish_reason"] == "MAX_TOKENS"


# -- retries and failures ----------------------------------------------------------------------------------


async def test_a_429_is_retried_by_the_client(gemini: FakeGemini) -> None:
    gemini.queue(FakeGeminiFailure(429, retry_after=30), "after the rate limit")
    started = time.perf_counter()

    reply = await chat(gemini, max_retries=3).ainvoke("Retry me.")

    assert reply.content == "after the rate limit"
    assert len(gemini.generate_requests) == 2
    assert time.perf_counter() - started < 2  # the Retry-After of 30 s is ignored by the SDK


@pytest.mark.usefixtures("collect_garbage")
async def test_500s_that_outlast_the_retries_raise_google_api_error(gemini: FakeGemini) -> None:
    gemini.queue(500, 500, 500, "never reached")

    with pytest.raises(GoogleAPIError) as raised:
        await chat(gemini, max_retries=3).ainvoke("Fail.")

    assert len(gemini.generate_requests) == 3  # max_retries is the SDK's `attempts`, the first call included
    assert isinstance(raised.value, genai_errors.ServerError)
    assert isinstance(raised.value, ModelAPIError)
    assert raised.value.code == 500
    assert raised.value.status == "INTERNAL"


async def test_429s_that_outlast_the_retries_raise_google_rate_limit_error(gemini: FakeGemini) -> None:
    gemini.queue(429, 429)

    with pytest.raises(GoogleRateLimitError) as raised:
        await chat(gemini, max_retries=2).ainvoke("Fail.")

    assert isinstance(raised.value, ChatGoogleGenerativeAIError)
    assert isinstance(raised.value, ModelRateLimitError)
    cause = raised.value.__cause__
    assert isinstance(cause, genai_errors.ClientError)
    assert (cause.code, cause.status) == (429, "RESOURCE_EXHAUSTED")


@pytest.mark.usefixtures("collect_garbage")
@pytest.mark.parametrize("max_retries", [0, 1])
async def test_max_retries_zero_or_one_makes_a_single_attempt(gemini: FakeGemini, max_retries: int) -> None:
    gemini.queue(503, "not reached")

    with pytest.raises(GoogleAPIError):
        await chat(gemini, max_retries=max_retries).ainvoke("Once.")

    assert len(gemini.generate_requests) == 1


@pytest.mark.usefixtures("collect_garbage")
async def test_a_non_json_error_page_is_still_a_server_error(gemini: FakeGemini) -> None:
    gemini.queue(FakeGeminiFailure(502, body="<html><body>Bad gateway</body></html>"))

    with pytest.raises(GoogleAPIError) as raised:
        await chat(gemini, max_retries=1).ainvoke("Proxy?")

    assert raised.value.code == 502
    assert "Bad gateway" in str(raised.value)


async def test_a_slow_reply_times_out_without_retrying(gemini: FakeGemini) -> None:
    gemini.queue(FakeGeminiReply("too late", delay=10))
    started = time.perf_counter()

    with pytest.raises(TimeoutError):
        await chat(gemini, timeout=0.2, max_retries=3).ainvoke("Slowly.")

    assert time.perf_counter() - started < 2
    assert len(gemini.generate_requests) == 1  # aiohttp's timeout is not among the SDK's retried errors


async def test_connection_refused_is_retried_then_raised_unwrapped() -> None:
    llm = ChatGoogleGenerativeAI(
        model=MODEL, api_key=KEY, base_url=f"http://127.0.0.1:{closed_port()}", max_retries=2, timeout=5
    )

    with fast_sdk_retries(), pytest.raises(aiohttp.ClientConnectorError):
        await llm.ainvoke("Anyone there?")


async def test_a_wrong_key_is_refused_as_google_does(gemini: FakeGemini) -> None:
    gemini.api_key = "the-right-key"

    with pytest.raises(GoogleInvalidRequestError, match="API key not valid"):
        await chat(gemini).ainvoke("Let me in.")

    assert len(gemini.requests) == 1  # a 400 is not retried


def test_requests_without_a_key_get_googles_403(gemini: FakeGemini) -> None:
    url = f"{gemini.base_url}/v1beta/models/{MODEL}:generateContent"

    status, _, body = post(url, {"contents": [{"parts": [{"text": "hi"}]}]}, {})

    assert status == 403
    assert body["error"]["status"] == "PERMISSION_DENIED"
    assert gemini.pending == 0


def test_errors_have_googles_shape(gemini: FakeGemini) -> None:
    gemini.queue(FakeGeminiFailure(429, retry_after=7))
    url = f"{gemini.base_url}/v1beta/models/{MODEL}:generateContent"

    status, headers, body = post(url, {"contents": [{"parts": [{"text": "hi"}]}]}, {"x-goog-api-key": KEY})
    missing, _, unknown = post(f"{gemini.base_url}/v1beta/models/{MODEL}:dance", {}, {"x-goog-api-key": KEY})

    assert status == 429
    assert headers["Retry-After"] == "7"
    assert body["error"]["code"] == 429
    assert body["error"]["status"] == "RESOURCE_EXHAUSTED"
    assert body["error"]["details"] == [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]
    assert (missing, unknown["error"]["status"]) == (404, "NOT_FOUND")
    assert error_body(503)["error"]["status"] == "UNAVAILABLE"


# -- init_chat_model ---------------------------------------------------------------------------------------


async def test_init_chat_model_builds_the_same_client(gemini: FakeGemini) -> None:
    from langchain.chat_models import init_chat_model

    llm = init_chat_model(
        f"google_genai:{MODEL}", api_key=KEY, base_url=gemini.base_url, temperature=0, timeout=5, max_retries=2
    )
    gemini.queue(429, Finding(claim="It works.", sources=[], confidence=1.0))

    result = await ask(llm.with_structured_output(Finding, method="json_schema", include_raw=True), "Check.")

    assert isinstance(llm, ChatGoogleGenerativeAI)
    assert result["parsed"] == Finding(claim="It works.", sources=[], confidence=1.0)
    assert len(gemini.generate_requests) == 2
    assert gemini.generate_requests[-1].generation_config["temperature"] == 0
    assert gemini.generate_requests[-1].response_schema == Finding.model_json_schema()


# -- embeddings --------------------------------------------------------------------------------------------


async def test_embeddings_are_deterministic_hashed_vectors(gemini: FakeGemini) -> None:
    embeddings = GoogleGenerativeAIEmbeddings(
        model="models/gemini-embedding-001", google_api_key=KEY, base_url=gemini.base_url
    )
    texts = ["Trams opened in 1987.", "A single ticket costs 2.80 crowns."]

    documents = await embeddings.aembed_documents(texts)
    query = embeddings.embed_query("Trams opened in 1987.")

    assert documents == [fake_embedding(text) for text in texts]
    assert query == documents[0]
    assert len(query) == 768
    assert sum(value * value for value in query) == pytest.approx(1.0)
    batch, single = gemini.embed_requests
    assert _without_api_version(batch.path) == "/models/gemini-embedding-001:batchEmbedContents"
    assert [item["taskType"] for item in batch.body["requests"]] == ["RETRIEVAL_DOCUMENT"] * 2
    assert batch.body["requests"][0]["model"] == "models/gemini-embedding-001"
    assert single.body["requests"][0]["taskType"] == "RETRIEVAL_QUERY"
    assert single.headers["x-goog-api-key"] == KEY


async def test_embeddings_honour_output_dimensionality(gemini: FakeGemini) -> None:
    embeddings = GoogleGenerativeAIEmbeddings(
        model="gemini-embedding-001",
        api_key=KEY,
        base_url=gemini.base_url,
        output_dimensionality=64,
        client_args=gemini.client_args,
    )

    (vector,) = await embeddings.aembed_documents(["tram tram ticket"])

    assert vector == fake_embedding("tram tram ticket", 64)
    assert fake_embedding("Tram ticket!", 64) != fake_embedding("bus pass", 64)


def test_the_single_embed_content_route_answers_too(gemini: FakeGemini) -> None:
    url = f"{gemini.base_url}/v1beta/models/text-embedding-004:embedContent"

    status, _, body = post(url, {"content": {"parts": [{"text": "tram"}]}}, {"x-goog-api-key": KEY})

    assert status == 200
    assert body == {"embedding": {"values": fake_embedding("tram")}}


async def test_embedding_failures_are_wrapped_and_not_retried(gemini: FakeGemini) -> None:
    embeddings = GoogleGenerativeAIEmbeddings(
        model="gemini-embedding-001", api_key=KEY, base_url=gemini.base_url, client_args=gemini.client_args
    )
    gemini.fail_embeddings(429)

    with pytest.raises(GoogleGenerativeAIError, match="RESOURCE_EXHAUSTED") as raised:
        await embeddings.aembed_documents(["tram"])

    assert isinstance(raised.value.__cause__, genai_errors.ClientError)
    assert len(gemini.embed_requests) == 1
    assert await embeddings.aembed_documents(["tram"]) == [fake_embedding("tram")]


def test_the_repository_can_embed_with_gemini(monkeypatch: pytest.MonkeyPatch) -> None:
    from research_assistant.knowledge.embeddings import make_embedding
    from research_assistant.settings import get_settings

    with FakeGemini() as server:
        monkeypatch.setenv("GEMINI_API_KEY", "test-key")
        monkeypatch.setenv("RESEARCH_GEMINI_BASE_URL", server.base_url)
        get_settings.cache_clear()
        try:
            embedding = make_embedding("gemini")
            vectors = embedding.get_text_embedding_batch(["reference counting", "tram fares"])
            query = embedding.get_query_embedding("reference counting")
        finally:
            get_settings.cache_clear()
    assert vectors[0] == pytest.approx(fake_embedding("reference counting", len(vectors[0])))
    assert query == pytest.approx(vectors[0]) and vectors[0] != vectors[1]
    assert [r.action for r in server.embed_requests] == ["batchEmbedContents", "batchEmbedContents"]


def test_the_repository_s_gemini_embedding_retries_a_busy_server_as_often_as_the_settings_say(
    gemini: FakeGemini,
) -> None:
    from research_assistant.knowledge.gemini_embedding import GeminiEmbedding

    embedding = GeminiEmbedding(api_key=KEY, base_url=gemini.base_url, timeout=10, max_retries=2)
    gemini.fail_embeddings(503, 429)

    assert embedding.get_text_embedding("tram") == pytest.approx(fake_embedding("tram"))
    assert len(gemini.embed_requests) == 3

    gemini.fail_embeddings(503, 503, 503)
    with pytest.raises(GoogleGenerativeAIError, match="503"):
        embedding.get_text_embedding("bus")
    assert len(gemini.embed_requests) == 6


def test_gemini_embeddings_without_a_key_are_refused_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from research_assistant.knowledge.embeddings import EmbeddingUnavailable, make_embedding
    from research_assistant.settings import get_settings

    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "RESEARCH_GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    try:
        with pytest.raises(EmbeddingUnavailable, match="set GEMINI_API_KEY"):
            make_embedding("gemini")
    finally:
        get_settings.cache_clear()
