"""The version of how files and pages are read into text."""

from __future__ import annotations

READING_VERSION = 6
"""How files and pages are read into text. Raise it with any change that makes the same bytes read differently (2: a
definition list's field label reads with its value; 3: a Docutils topic or footnote written as <aside> is read;
4: UTF-8 text under a declared single-byte charset is read as UTF-8; 5: an index's table is navigation), or indexed
differently (6: one-letter options and version numbers are words for BM25).
A corpus's stored digests include it, so the next sync reads every file again instead of keeping what an older
reading made of it; a cached web page records it, so a page an older reading made is read again."""
