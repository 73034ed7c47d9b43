"""Keys are scrubbed wherever text is written or shown: the scrubber itself, and the real stores it guards."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from research_assistant.context import Context
from research_assistant.progress import SourceOutcome, emit
from research_assistant.runs.checkpoints import safe_serializer
from research_assistant.runs.records import EventKind, RunRecord, RunStatus, TraceEvent
from research_assistant.runs.store import RunStore
from research_assistant.runs.trace import TraceRecorder
from research_assistant.schemas import Notice
from research_assistant.secrets import REDACTED, remember, scrub, scrub_bytes, scrub_value
from research_assistant.settings import Settings

KEY = "canary-UNIT-1234567890"


@pytest.fixture(autouse=True)
def known_key() -> None:
    remember(KEY)


def test_every_secret_setting_is_scrubbed_once_a_settings_object_holds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    keys = {"GEMINI_API_KEY": "gem-canary-0001", "TAVILY_API_KEY": "tvly-canary-0002", "EXA_API_KEY": "exa-canary-0003"}
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    settings = Settings()
    secret_fields = [name for name, field in Settings.model_fields.items() if "SecretStr" in str(field.annotation)]
    assert {"gemini_api_key", "tavily_api_key", "exa_api_key"} <= set(secret_fields)
    text = " / ".join(keys.values())
    assert scrub(f"echo: {text}") == f"echo: {REDACTED} / {REDACTED} / {REDACTED}"
    assert all(isinstance(getattr(settings, name), SecretStr | None) for name in secret_fields)


def test_escaped_spellings_and_plain_data_are_scrubbed_and_short_values_are_not() -> None:
    remember("abc", "", None)
    assert scrub("abc abc") == "abc abc", "a value too short to be a key is left alone"
    assert scrub(f"https://x.test/v1?key={KEY}&q=1") == f"https://x.test/v1?key={REDACTED}&q=1"
    value = {"message": f"401: {KEY}", "items": [KEY, 3, None], "pair": ("x", KEY)}
    assert scrub_value(value) == {"message": f"401: {REDACTED}", "items": [REDACTED, 3, None], "pair": ("x", REDACTED)}


def test_masked_bytes_keep_their_length() -> None:
    payload = f"\xd9\x20{KEY}!".encode()
    masked = scrub_bytes(payload)
    assert len(masked) == len(payload) and KEY.encode() not in masked and REDACTED.encode() in masked


def test_checkpoints_are_written_without_the_key_and_still_read_back() -> None:
    serializer = safe_serializer()
    state = {"notices": [Notice(message=f"Search failed: API key {KEY} is not valid")], "error": repr(KeyError(KEY))}
    kind, payload = serializer.dumps_typed(state)
    assert KEY.encode() not in payload
    back = serializer.loads_typed((kind, payload))
    assert back["notices"][0].message.startswith(f"Search failed: API key {REDACTED}")
    assert KEY not in back["error"]


def test_the_trace_the_run_store_and_progress_never_hold_the_key(tmp_path: Path) -> None:
    store = RunStore.at(tmp_path)
    shown: list[TraceEvent] = []
    trace = TraceRecorder("run1", store, shown.append)
    source = SourceOutcome(source_id="s1", locator="https://x.test", outcome="failed", reason=f"401 for {KEY}")
    trace.record(EventKind.SOURCE, node="browse", message=f"failed: {KEY}", source=source)
    trace.task((), {"name": "search", "id": "t1", "input": {}})
    trace.task((), {"name": "search", "id": "t1", "error": f"ClientError('key {KEY} refused')"})
    now = 1.0
    record = RunRecord(
        run_id="run1",
        question="q",
        parameters=Context(depth="quick", source_types=["local"], citation_style="numeric", max_seconds=60),
        status=RunStatus.FAILED,
        started_at=now,
        updated_at=now,
        error=f"ClientError: key {KEY} refused",
    )
    store.save(record)
    assert all(KEY not in event.model_dump_json() for event in shown)
    assert shown[0].source is not None and shown[0].source.reason == f"401 for {REDACTED}"
    assert KEY not in (store.get("run1") or record).error
    store.close()
    for path in tmp_path.iterdir():
        assert KEY.encode() not in path.read_bytes(), path.name
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    rows = [row[0] for row in db.execute("SELECT event FROM events")]
    db.close()
    assert len(rows) == 3 and all(KEY not in row for row in rows)

    class Runtime:
        def __init__(self) -> None:
            self.written: list[dict[str, Any]] = []

        def stream_writer(self, chunk: dict[str, Any]) -> None:
            self.written.append(chunk)

    runtime = Runtime()
    emit(runtime, "browse", f"could not read: {KEY}", source=source)  # type: ignore[arg-type]
    assert KEY not in str(runtime.written) and REDACTED in runtime.written[0]["message"]


def test_the_page_says_and_logs_a_failure_without_the_key(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from research_assistant.page.actions import failure_message

    with caplog.at_level(logging.ERROR, logger="research_assistant.page"):
        try:
            raise RuntimeError(f"401 UNAUTHENTICATED: API key {KEY} is not valid")
        except RuntimeError as error:
            message = failure_message(error, "r1")
    assert KEY not in message and REDACTED in message
    assert caplog.records and all(KEY not in (record.exc_text or "") for record in caplog.records)
    assert KEY not in caplog.text


def test_the_debug_traceback_is_scrubbed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from research_assistant import cli

    def failing(*args: Any) -> int:
        raise RuntimeError(f"the provider said: invalid key {KEY}")

    monkeypatch.setattr(cli, "run_command", failing)
    monkeypatch.setenv("RESEARCH_DEBUG", "1")

    code = cli.main(["runs"])

    err = capsys.readouterr().err
    assert code == cli.EXIT_FAILURE
    assert err.startswith("Traceback (most recent call last):") and "in failing" in err
    assert f"RuntimeError: the provider said: invalid key {REDACTED}" in err and KEY not in err
