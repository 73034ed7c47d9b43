"""The corpus never reads outside its folder: links out are refused with a warning, uploads keep working."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from research_assistant.cli import EXIT_OK, main
from research_assistant.corpus import files
from research_assistant.corpus.files import LINKED_FROM, OUTSIDE, corpus_files, scan_folder
from research_assistant.corpus.uploads import run_corpus
from research_assistant.settings import get_settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
QUESTION = "What is the fare?"
CANARY = "CANARY-7f3a the secret fare is 999 crowns"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(files, "_workspaces", set())  # no upload workspace trusted from other tests
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the corpus, with a secret the research must never see."""
    folder = tmp_path / "outside"
    (folder / "deep").mkdir(parents=True)
    (folder / "secret.txt").write_text(f"The fare.\n{CANARY}.\n")
    (folder / "deep" / "secret.md").write_text(f"# Fare\n\n{CANARY}.\n")
    return folder


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", folder)
    return folder


def every_file_under(*folders: Path) -> Iterator[Path]:
    for folder in folders:
        for root, _, names in os.walk(folder):
            yield from (Path(root, name) for name in names)


def test_links_out_of_the_corpus_are_refused_and_nothing_of_them_is_kept(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path, outside: Path
) -> None:
    (corpus / "passwd.txt").symlink_to("/etc/passwd")
    (corpus / "secret.txt").symlink_to(outside / "secret.txt")  # absolute
    (corpus / "relative.md").symlink_to(Path("..") / "outside" / "deep" / "secret.md")  # relative
    (corpus / "hop.txt").symlink_to(corpus / "passwd.txt")  # a link inside, to a link out
    (corpus / "deep").symlink_to(outside / "deep", target_is_directory=True)  # a folder out: not walked
    (corpus / "alias.md").symlink_to(corpus / "history.md")  # a link inside the corpus stays usable

    code = main(["run", QUESTION, "--corpus", str(corpus), "--out", str(tmp_path / "report.md")])
    err = capsys.readouterr().err

    assert code == EXIT_OK
    refused = sorted(line for line in err.splitlines() if OUTSIDE in line)
    assert refused == [
        f"[search] warning: skipped {corpus / name}: {OUTSIDE}"
        for name in ("hop.txt", "passwd.txt", "relative.md", "secret.txt")
    ]
    assert "7 documents" in err and "4 skipped" in err
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    caveats = report[report.index("## Caveats") : report.index("## Sources")]
    for name in ("hop.txt", "passwd.txt", "relative.md", "secret.txt"):  # paths are Markdown-escaped there
        assert f"corpus/{name}: {OUTSIDE}" in caveats
    for path in [tmp_path / "report.md", *every_file_under(tmp_path / "cache", tmp_path / "db")]:
        content = path.read_bytes()
        assert b"CANARY-7f3a" not in content, path
        assert b"root:x:0:0" not in content, path
        assert str(outside).encode() not in content, path
    assert "CANARY" not in err and "root:x" not in err


def test_a_corpus_of_links_out_only_is_an_empty_corpus(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, outside: Path
) -> None:
    folder = tmp_path / "links"
    folder.mkdir()
    (folder / "secret.txt").symlink_to(outside / "secret.txt")
    code = main(["run", QUESTION, "--corpus", str(folder)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip().splitlines() == [
        f"research-assistant: error: {folder} contains no .md, .txt, .html, .pdf or .docx files"
    ]


def test_a_corpus_folder_that_is_itself_a_link_is_read(tmp_path: Path, corpus: Path) -> None:
    (tmp_path / "shortcut").symlink_to(corpus, target_is_directory=True)
    skipped: list[tuple[str, str]] = []
    found = scan_folder(corpus.resolve(), skipped)
    assert [p.name for p in corpus_files(tmp_path / "shortcut")] == [p.name for p in found]
    assert skipped == []


def test_uploads_link_into_their_documents_folder_and_nowhere_else(tmp_path: Path, corpus: Path, outside: Path) -> None:
    workspace = tmp_path / "cache" / "uploads"
    run_folder = run_corpus(corpus, [("notes.md", b"# Notes\n\nThe fare rose in 2024.")], workspace)

    skipped: list[tuple[str, str]] = []
    found = scan_folder(run_folder.resolve(), skipped)
    assert skipped == []
    assert {path.resolve() for path in found} == {
        *(path.resolve() for path in corpus.iterdir()),
        (run_folder / "uploads" / "notes.md").resolve(),
    }

    # A link out of the chosen folder is refused, and said so, in the run's folder as well.
    (corpus / "passwd.txt").symlink_to("/etc/passwd")
    with_link = run_corpus(corpus, [("notes.md", b"# Notes\n\nThe fare rose.")], workspace)
    skipped = []
    assert len(scan_folder(with_link.resolve(), skipped)) == 8
    assert skipped == [((with_link.resolve() / "folder" / "passwd.txt").as_posix(), OUTSIDE)]
    (corpus / "passwd.txt").unlink()

    # A document of the chosen folder replaced by a link out of it: refused through the upload's link too.
    (corpus / "depot.txt").unlink()
    (corpus / "depot.txt").symlink_to(outside / "secret.txt")
    skipped = []
    found = scan_folder(run_folder.resolve(), skipped)
    assert skipped == [((run_folder.resolve() / "folder" / "depot.txt").as_posix(), OUTSIDE)]
    assert all(CANARY not in path.read_text(errors="replace") for path in found)


def test_the_upload_workspace_of_the_settings_is_trusted_in_a_new_process(
    tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run_folder = run_corpus(corpus, [("notes.md", b"# Notes\n\nThe fare rose.")], tmp_path / "cache" / "uploads")
    monkeypatch.setattr(files, "_workspaces", set())  # as a later process (a resume) sees it
    skipped: list[tuple[str, str]] = []
    assert len(scan_folder(run_folder.resolve(), skipped)) == 8
    assert skipped == []


def test_a_folder_cannot_widen_its_own_reach_with_a_forged_record(tmp_path: Path, outside: Path) -> None:
    forged = tmp_path / "downloads" / "0123456789abcdef"
    forged.mkdir(parents=True)
    (forged / LINKED_FROM).write_text(f"{outside}\n")
    (forged / "note.md").write_text("# Note\n\nHello.")
    (forged / "secret.txt").symlink_to(outside / "secret.txt")
    run_corpus(None, [("x.md", b"# X")], tmp_path / "downloads")  # even once its parent was used as a workspace
    files._workspaces.clear()

    skipped: list[tuple[str, str]] = []
    found = scan_folder(forged.resolve(), skipped)
    assert [path.name for path in found] == ["note.md"]
    assert skipped == [((forged.resolve() / "secret.txt").as_posix(), OUTSIDE)]


def test_research_over_uploads_reads_the_linked_documents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, corpus: Path
) -> None:
    run_folder = run_corpus(
        corpus, [("notes.md", b"# Notes\n\nThe fare rose in 2024.")], tmp_path / "cache" / "uploads"
    )
    code = main(["run", QUESTION, "--corpus", str(run_folder), "--out", str(tmp_path / "report.md")])
    err = capsys.readouterr().err
    assert code == EXIT_OK
    assert "8 documents (8 indexed now, 0 unchanged, 0 removed, 0 skipped)" in err
    assert OUTSIDE not in err and "warning" not in err
