"""Uploaded files join the run's corpus in a folder of the run's own; the analyst's folder is never touched."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_assistant.corpus.files import CorpusError, corpus_files
from research_assistant.corpus.uploads import run_corpus, safe_name


def folder_with(tmp_path: Path) -> Path:
    base = tmp_path / "notes"
    (base / "sub").mkdir(parents=True)
    (base / "a.md").write_text("# A\nAlpha.")
    (base / "sub" / "b.txt").write_text("Beta.")
    return base


def test_without_uploads_the_folder_itself_is_researched(tmp_path: Path) -> None:
    base = folder_with(tmp_path)
    assert run_corpus(base, [], tmp_path / "work") == base
    with pytest.raises(CorpusError, match="choose a documents folder or upload"):
        run_corpus(None, [], tmp_path / "work")


def test_uploads_join_the_folders_documents_and_resolve_to_the_real_files(tmp_path: Path) -> None:
    base = folder_with(tmp_path)
    corpus = run_corpus(base, [("report.pdf", b"%PDF-1.4 x"), ("../../etc/notes.md", b"# N\nNu.")], tmp_path / "work")
    files = {path.resolve() for path in corpus_files(corpus)}
    assert files == {
        (base / "a.md").resolve(),
        (base / "sub" / "b.txt").resolve(),
        (corpus / "uploads" / "report.pdf").resolve(),
        (corpus / "uploads" / "notes.md").resolve(),
    }
    assert sorted(p.name for p in base.rglob("*")) == ["a.md", "b.txt", "sub"]  # the analyst's folder is untouched
    again = run_corpus(base, [("../../etc/notes.md", b"# N\nNu."), ("report.pdf", b"%PDF-1.4 x")], tmp_path / "work")
    assert again == corpus  # the same documents: the same corpus, indexed once
    other = run_corpus(base, [("notes.md", b"# N\nChanged.")], tmp_path / "work")
    assert other != corpus


def test_uploads_alone_make_a_corpus(tmp_path: Path) -> None:
    corpus = run_corpus(None, [("page.html", b"<p>Hi</p>")], tmp_path / "work")
    assert [p.name for p in corpus_files(corpus)] == ["page.html"]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("tool.exe", b"MZ", "cannot use tool.exe: upload PDF, Markdown, text, HTML or Word"),
        ("empty.md", b"", "empty.md is empty"),
    ],
)
def test_an_unusable_upload_is_refused_in_one_line(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    with pytest.raises(CorpusError, match=message):
        run_corpus(None, [(name, content)], tmp_path / "work")


def test_an_upload_over_the_size_cap_is_refused_naming_it_and_the_cap(tmp_path: Path) -> None:
    with pytest.raises(CorpusError, match=r"cannot use big.txt: file too large \(0.00191 MB; the limit is 0.000954 MB"):
        run_corpus(None, [("big.txt", b"x" * 2000)], tmp_path / "work", max_bytes=1000)
    assert not (tmp_path / "work").exists()


def test_safe_names_keep_only_the_file_name() -> None:
    assert safe_name("..\\..\\win\\evil?.md") == "evil_.md"
    assert safe_name("/etc/passwd") == "passwd" and safe_name("...") == "upload"
