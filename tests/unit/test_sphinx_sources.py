"""Sphinx's `_sources` copies of its pages are left out of a corpus when the built page is in it."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from research_assistant.corpus.files import corpus_files
from research_assistant.corpus.sphinx import built_pages, without_page_sources


@pytest.mark.parametrize(
    ("source", "page"),
    [
        ("html/_sources/library/os.rst.txt", "html/library/os.html"),  # Sphinx 1.5 and later
        ("html/_sources/library/os.txt", "html/library/os.html"),  # older Sphinx
        ("html/_sources/guide.md.txt", "html/guide.html"),  # Markdown sources (MyST)
        ("html/_sources/guide.rst.txt", "html/guide/index.html"),  # the dirhtml builder
        ("_sources/index.rst.txt", "index.html"),  # a build at the corpus's root
    ],
)
def test_a_source_names_the_page_built_from_it(source: str, page: str) -> None:
    assert PurePosixPath(page) in built_pages(PurePosixPath(source))


@pytest.mark.parametrize("path", ["html/library/os.html", "html/notes/os.rst.txt", "html/_sources/logo.png"])
def test_files_outside_sources_or_not_text_name_no_page(path: str) -> None:
    assert built_pages(PurePosixPath(path)) == []


def test_only_sources_whose_page_is_listed_are_left_out() -> None:
    paths = [
        Path("/m/html/_sources/a.rst.txt"),
        Path("/m/html/a.html"),
        Path("/m/html/_sources/b.rst.txt"),  # its page is not in the corpus: kept
        Path("/m/html/_sources/sub/c.txt"),
        Path("/m/html/sub/c.html"),
        Path("/m/other/a.rst.txt"),  # not under _sources: kept
    ]
    assert without_page_sources(paths) == [
        Path("/m/html/a.html"),
        Path("/m/html/_sources/b.rst.txt"),
        Path("/m/html/sub/c.html"),
        Path("/m/other/a.rst.txt"),
    ]


def test_a_corpus_folder_lists_a_sphinx_page_once(tmp_path: Path) -> None:
    (tmp_path / "_sources" / "library").mkdir(parents=True)
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "os.html").write_text("<html><body><p>os</p></body></html>")
    (tmp_path / "_sources" / "library" / "os.rst.txt").write_text("os\n==\n")
    (tmp_path / "_sources" / "orphan.rst.txt").write_text("orphan\n======\n")
    listed = {path.relative_to(tmp_path.resolve()).as_posix() for path in corpus_files(tmp_path)}
    assert listed == {"library/os.html", "_sources/orphan.rst.txt"}
