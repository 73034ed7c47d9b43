"""The run's trace: LangGraph's task and custom streams turned into `TraceEvent`s.

Every node's start and end (with its duration and the counts its progress
events carried), every progress message and every source's outcome are
numbered, written to the run store as they happen, and handed to the
interface's callback. The CLI's progress lines and the page's status panel
are this one stream.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from research_assistant.progress import ProgressEvent
from research_assistant.runs.records import EventKind, TraceEvent
from research_assistant.runs.store import RunStore
from research_assistant.secrets import scrub

EventCallback = Callable[[TraceEvent], None]


class TraceRecorder:
    def __init__(self, run_id: str, store: RunStore, on_event: EventCallback | None = None) -> None:
        self.run_id = run_id
        self.store = store
        self.on_event = on_event
        self._seq = store.next_seq(run_id)
        self._started: dict[str, float] = {}
        self._counts: dict[str, Counter[str]] = {}

    def record(self, kind: EventKind, **fields: Any) -> TraceEvent:
        event = TraceEvent(run_id=self.run_id, seq=self._seq, at=time.time(), kind=kind, **fields)
        text = event.model_dump_json()
        if scrub(text) != text:  # a key echoed back in a message or a source's reason: never shown, never stored
            event = TraceEvent.model_validate_json(scrub(text))
        self._seq += 1
        self.store.append(event)
        if self.on_event is not None:
            self.on_event(event)
        return event

    def task(self, namespace: tuple[str, ...], chunk: dict[str, Any]) -> None:
        """A task started (its chunk has `input`) or ended (it has `result` or `error`)."""
        node = node_path(namespace, str(chunk["name"]))
        task_id = str(chunk["id"])
        if "input" in chunk:
            self._started[task_id] = time.monotonic()
            if not namespace:
                self._counts[node] = Counter()
            self.record(EventKind.NODE_START, node=node, message=task_subject(chunk["input"]) if namespace else "")
            return
        started = self._started.pop(task_id, None)
        seconds = round(time.monotonic() - started, 4) if started is not None else None
        counts = dict(self._counts.pop(node, Counter())) if not namespace else {}
        error = chunk.get("error")
        self.record(
            EventKind.NODE_END,
            node=node,
            seconds=seconds,
            counts=counts,
            level="error" if error else "info",
            message=f"failed: {error}" if error else "",
        )

    def progress(self, namespace: tuple[str, ...], chunk: dict[str, Any]) -> None:
        event = ProgressEvent.model_validate(chunk)
        top = namespace[0].split(":")[0] if namespace else event.node
        self._counts.setdefault(top, Counter()).update(event.counts)
        self.record(
            EventKind.SOURCE if event.source else EventKind.PROGRESS,
            node=event.node,
            message=event.message,
            level=event.level,
            counts=event.counts,
            source=event.source,
        )


def task_subject(task: Any) -> str:
    """What a fanned-out task works on, for the live log: `query: ...` it searches, `source: ...` it reads."""

    def field(value: Any, name: str) -> Any:
        return value.get(name) if isinstance(value, dict) else getattr(value, name, None)

    query = field(task, "query")
    if query is not None:
        return f"query: {field(query, 'text') or ''}"
    source = field(task, "source")
    if source is not None:
        return f"source: {field(source, 'title') or field(source, 'locator') or ''}"
    return ""


def node_path(namespace: tuple[str, ...], name: str) -> str:
    """`analyze_query` for a graph node; `browse/read_source` for a step inside the browse subgraph."""
    parents = [part.split(":")[0] for part in namespace]
    return "/".join([*parents, name])
