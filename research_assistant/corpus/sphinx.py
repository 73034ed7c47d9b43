"""Sphinx's copies of its pages' sources, left out of a corpus where the built page is indexed.

A Sphinx HTML build ships, beside each page `P.html`, the page's reStructuredText (or Markdown) source as
`_sources/P.rst.txt` (`_sources/P.txt` before Sphinx 1.5, `_sources/P.md.txt` for Markdown), for its
"Show source" link. Indexed too, every page would be in the corpus twice, once as markup: Debian's Python
manual holds 497 such files beside its 530 pages, 15,590 of its 30,035 chunks, and a question would find
the same passage twice. So a file under a `_sources` folder is left out when the page built from it, in the
folder that holds `_sources` (`P.html`, or `P/index.html` from Sphinx's `dirhtml` builder), is among the
corpus's files; a source whose page is not there (a partial copy) is still indexed.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath

SOURCES = "_sources"
"""The folder of page sources Sphinx writes at the root of an HTML build."""
_SOURCE_SUFFIXES = (".rst", ".md", ".txt")
"""Source suffixes Sphinx keeps before the `.txt` it appends (Sphinx 1.5 and later)."""
_PAGE_SUFFIXES = (".html", ".htm")


def built_pages(source: PurePosixPath) -> list[PurePosixPath]:
    """The pages a Sphinx build may have made from `source` (a path with a `_sources` folder in it), relative
    to the same root; none when `source` is not under `_sources` or not a `.txt` file."""
    parts = source.parts
    if source.suffix.lower() != ".txt" or SOURCES not in parts[:-1]:
        return []
    at = len(parts) - 1 - parts[::-1].index(SOURCES)  # the innermost `_sources`: the build's root holds it
    root, inner = PurePosixPath(*parts[:at]), PurePosixPath(*parts[at + 1 :])
    stem = inner.with_suffix("")  # `library/os.rst.txt` -> `library/os.rst`
    stems = [stem.with_suffix("")] if stem.suffix.lower() in _SOURCE_SUFFIXES else []
    stems.append(stem)  # Sphinx before 1.5: `library/os.txt` -> `library/os`
    pages: list[PurePosixPath] = []
    for name in stems:
        if not name.name:
            continue
        pages.extend(root / name.parent / f"{name.name}{suffix}" for suffix in _PAGE_SUFFIXES)
        pages.append(root / name / "index.html")
    return pages


def without_page_sources(paths: Iterable[Path]) -> list[Path]:
    """`paths` without the Sphinx page sources whose built page is among them, in the same order."""
    listed = list(paths)
    present = {PurePosixPath(path.as_posix()) for path in listed}
    return [path for path in listed if not any(page in present for page in built_pages(PurePosixPath(path.as_posix())))]
