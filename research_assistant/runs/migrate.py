"""`research-assistant migrate --to URL [--chroma URL]`: copy a working directory's embedded stores to the team's
servers.

Runs and their traces, every checkpoint (so a run that had not finished resumes from the server), the document,
search and model-reply caches go to PostgreSQL; the repository's collections (chunks, vectors and metadata, under
the same names) go to the Chroma server. Every copy is an upsert: running it twice changes nothing, and the
embedded files are left as they were.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from research_assistant.database import SharedCache
from research_assistant.runs.checkpoints import CHECKPOINT_FILE, open_postgres_checkpointer, open_sqlite_checkpointer
from research_assistant.runs.records import RunRecord, TraceEvent
from research_assistant.runs.store import STORE_FILE, PostgresRunStore, RunStore
from research_assistant.settings import redact_url

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig

_PAGE = 500
"""Chunks read and written at a time when a collection is copied."""

Say = Callable[[str], None]


def migrate(db_dir: Path, cache_dir: Path, database_url: str, chroma_url: str, say: Say) -> None:
    """Copy what there is to the servers named (either may be ""), saying one line per store."""
    if database_url:
        where = redact_url(database_url)
        runs, events = copy_runs(db_dir, database_url)
        say(f"runs: {runs} runs and {events} trace events copied to {where}")
        checkpoints = asyncio.run(copy_checkpoints(db_dir, database_url))
        say(f"checkpoints: {checkpoints} checkpoints copied to {where}")
        for kind, pattern, label in (
            ("documents", "documents/*.json", "documents"),
            ("search", "search/*.json", "search answers"),
            ("llm", "llm/*/*.json", "model replies"),
        ):
            say(f"{kind} cache: {copy_cache(cache_dir, pattern, SharedCache(database_url, kind))} {label} copied")
    if chroma_url:
        collections, chunks = copy_repository(db_dir, chroma_url)
        say(f"repository: {chunks} chunks in {collections} collections copied to {chroma_url}")


def copy_runs(db_dir: Path, url: str) -> tuple[int, int]:
    """Every run record and trace event of `db_dir`'s run store, as they are (none of them is re-judged)."""
    if not (db_dir / STORE_FILE).exists():
        return 0, 0
    source, target = RunStore(db_dir / STORE_FILE), PostgresRunStore(url)
    runs = events = 0
    try:
        for text in source._latest(-1):
            record = RunRecord.model_validate_json(text)
            target._put(record.run_id, record.started_at, text)
            for event in source._events(record.run_id):
                target._put_event(record.run_id, TraceEvent.model_validate_json(event).seq, event)
                events += 1
            runs += 1
    finally:
        source.close()
    return runs, events


async def copy_checkpoints(db_dir: Path, url: str) -> int:
    """Every checkpoint and pending write, oldest first, so each one's parent is there before it."""
    if not (db_dir / CHECKPOINT_FILE).exists():
        return 0
    copied = 0
    async with open_sqlite_checkpointer(db_dir) as source, open_postgres_checkpointer(url) as target:
        saved = [item async for item in source.alist(None)]
        for item in reversed(saved):
            configurable = item.config["configurable"]
            root: RunnableConfig = {
                "configurable": {"thread_id": configurable["thread_id"], "checkpoint_ns": configurable["checkpoint_ns"]}
            }
            parent = item.parent_config or root
            config = await target.aput(parent, item.checkpoint, item.metadata, item.checkpoint["channel_versions"])
            by_task: dict[str, list[tuple[str, Any]]] = {}
            for task_id, channel, value in item.pending_writes or []:
                by_task.setdefault(task_id, []).append((channel, value))
            for task_id, writes in by_task.items():
                await target.aput_writes(config, writes, task_id)
            copied += 1
    return copied


def copy_cache(cache_dir: Path, pattern: str, target: SharedCache) -> int:
    copied = 0
    for path in sorted(cache_dir.glob(pattern)):
        try:
            target.put(path.stem, path.read_bytes())
        except OSError:
            continue
        copied += 1
    return copied


def copy_repository(db_dir: Path, url: str) -> tuple[int, int]:
    """Every collection of the embedded Chroma in `db_dir`, with its metadata (model, revisions) and vectors."""
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    from research_assistant.knowledge.chroma_client import server_client
    from research_assistant.knowledge.repository import CHROMA_FILE

    if not (db_dir / CHROMA_FILE).exists():
        return 0, 0
    source = chromadb.PersistentClient(path=str(db_dir), settings=ChromaSettings(anonymized_telemetry=False))
    target = server_client(url)
    collections = chunks = 0
    for listed in source.list_collections():
        collection = source.get_collection(listed.name, embedding_function=None)
        copy = target.get_or_create_collection(
            collection.name,
            metadata=collection.metadata,
            configuration={"hnsw": {"space": "cosine"}},
            embedding_function=None,
        )
        for page in _pages(collection):
            copy.upsert(**page)
            chunks += len(page["ids"])
        if collection.metadata:
            copy.modify(metadata=collection.metadata)  # the revisions, which workers' BM25 indexes are keyed by
        collections += 1
    return collections, chunks


def _pages(collection: Any) -> Iterator[dict[str, Any]]:
    offset = 0
    while True:
        got = collection.get(limit=_PAGE, offset=offset, include=["embeddings", "documents", "metadatas"])
        if not got["ids"]:
            return
        yield {key: got[key] for key in ("ids", "embeddings", "documents", "metadatas")}
        offset += len(got["ids"])
