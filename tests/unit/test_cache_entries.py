"""The caches keep their entries one way: a file per key, written whole, and anything unreadable reads as absent."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from research_assistant.caches import CacheEntries


class Entry(BaseModel):
    text: str


def test_an_entry_is_kept_read_back_and_forgotten(tmp_path: Path) -> None:
    entries = CacheEntries(tmp_path / "kind", "kind")
    entries.store("abc", Entry(text="kept").model_dump_json().encode())
    assert (tmp_path / "kind" / "abc.json").is_file()
    assert entries.load("abc", Entry) == Entry(text="kept")
    entries.forget("abc")
    assert entries.load("abc", Entry) is None
    entries.forget("abc")  # forgetting what is not there is no error


def test_a_cache_of_many_entries_spreads_them_over_folders(tmp_path: Path) -> None:
    entries = CacheEntries(tmp_path, "llm", fan_out=True)
    entries.store("abcdef", b'{"text": "x"}')
    assert (tmp_path / "ab" / "abcdef.json").is_file()


def test_a_damaged_or_foreign_entry_reads_as_absent(tmp_path: Path) -> None:
    entries = CacheEntries(tmp_path, "kind")
    (tmp_path / "garbled.json").write_bytes(b"\x00{not json")
    (tmp_path / "other.json").write_text('{"something": "else"}')
    assert entries.load("garbled", Entry) is None and entries.load("other", Entry) is None
