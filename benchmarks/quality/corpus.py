"""Question sets and their corpora: loading `questions/*.json` and copying a set's HTML pages into the workdir."""

from __future__ import annotations

import fnmatch
import json
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SKIPPED_DIRS = frozenset({"_static", "_sources", "_downloads", "_images"})
"""Sphinx's assets and reStructuredText sources: not pages anyone reads."""
SKIPPED_PAGE_PREFIXES = ("genindex", "search", "py-modindex")
"""Generated index and search pages: long lists of every term, which would match any question."""
COPIED_MARKER = ".copied"
"""Written last, so a copy that was interrupted is redone rather than reused half done."""


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    kind: str
    answers: tuple[str, ...]
    pages: tuple[str, ...]
    split: str

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Question:
        return cls(
            id=str(raw["id"]),
            question=str(raw["question"]),
            kind=str(raw.get("kind", "default")),
            answers=tuple(str(a) for a in raw.get("answers", ())),
            pages=tuple(str(p) for p in raw.get("pages", ())),
            split=str(raw.get("split", "dev")),
        )


@dataclass(frozen=True)
class QuestionSet:
    name: str
    title: str
    package: str
    root: Path
    questions: tuple[Question, ...] = field(default=())
    skip_pages: tuple[str, ...] = field(default=())
    """Pages of this set left out of the corpus (paths under the root, or patterns): generated link lists such as the
    Apache manual's sitemap and directive index, which name every topic and so match any question."""

    @classmethod
    def load(cls, path: Path) -> QuestionSet:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            name=str(raw["name"]),
            title=str(raw.get("title", raw["name"])),
            package=str(raw.get("package", "")),
            root=Path(raw["root"]),
            questions=tuple(Question.of(q) for q in raw.get("questions", ())),
            skip_pages=tuple(str(p) for p in raw.get("skip_pages", ())),
        )

    def select(
        self, splits: Iterable[str] | None = None, ids: Iterable[str] | None = None, limit: int | None = None
    ) -> list[Question]:
        """The questions of the chosen splits (and ids), in file order, at most `limit` of them."""
        wanted_splits = set(splits) if splits else None
        wanted_ids = set(ids) if ids else None
        chosen = [
            q
            for q in self.questions
            if (wanted_splits is None or q.split in wanted_splits) and (wanted_ids is None or q.id in wanted_ids)
        ]
        return chosen[:limit] if limit else chosen


def load_sets(folder: Path, names: Sequence[str] | None = None) -> list[QuestionSet]:
    """Every question set in `folder` (`*.json`), or the named ones, in the order asked for."""
    found = {qs.name: qs for qs in (QuestionSet.load(path) for path in sorted(folder.glob("*.json")))}
    if not names:
        return list(found.values())
    missing = [name for name in names if name not in found]
    if missing:
        raise SystemExit(
            f"no question set named {', '.join(missing)} in {folder} (found: {', '.join(found) or 'none'})"
        )
    return [found[name] for name in names]


def is_page(relative: Path) -> bool:
    """Whether a file under the documentation root is a page worth indexing."""
    if relative.suffix.lower() != ".html" or any(part in SKIPPED_DIRS for part in relative.parts[:-1]):
        return False
    return not (len(relative.parts) == 1 and relative.name.startswith(SKIPPED_PAGE_PREFIXES))


def page_files(root: Path, skip: Iterable[str] = ()) -> list[Path]:
    """The pages under `root`, relative to it, sorted, without the `skip` paths (or patterns: 'XREF*.html').
    Symbolic links are left out: Debian links one page to another (git-doc's index.html is git.html), and a page
    indexed twice splits its citations."""
    patterns = list(skip)
    return sorted(
        relative
        for path in root.rglob("*.html")
        if path.is_file()
        and not path.is_symlink()
        and is_page(relative := path.relative_to(root))
        and not any(fnmatch.fnmatchcase(relative.as_posix(), pattern) for pattern in patterns)
    )


def copy_corpus(root: Path, destination: Path, skip: Iterable[str] = ()) -> int:
    """Copy the set's pages (only `.html`, relative paths kept, `skip` left out) into `destination` once;
    the page count.

    An existing complete copy is reused, so the research repository indexed from it stays valid.
    """
    marker = destination / COPIED_MARKER
    if marker.is_file():
        return int(marker.read_text() or 0)
    if destination.exists():
        shutil.rmtree(destination)
    pages = page_files(root, skip)
    for relative in pages:
        target = destination / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, target)
    marker.write_text(str(len(pages)))
    return len(pages)


def page_of(locator: str, base: str) -> str:
    """A cited locator as the page path under the corpus (`library/sys.html`), else the locator itself."""
    return locator[len(base) :].lstrip("/") if base and locator.startswith(base) else locator
