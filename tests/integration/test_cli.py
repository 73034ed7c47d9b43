"""The command line's contract: bad input gets one line and exit code 2, never a traceback."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from research_assistant.cli import EXIT_NO_EVIDENCE, EXIT_OK, EXIT_USAGE, main
from research_assistant.settings import get_settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every test gets its own repository and cache, and no corpus from the environment."""
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["run", *args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(err: str, expected: str) -> None:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("research-assistant: error: ")
    assert expected in lines[0]


@pytest.mark.parametrize("question", ["", "   \n  "])
def test_an_empty_question_is_refused(capsys: pytest.CaptureFixture[str], question: str) -> None:
    code, out, err = run_cli(capsys, question, "--corpus", str(FIXTURES / "corpus"))
    assert code == EXIT_USAGE and out == ""
    assert_one_line_error(err, "the question is empty")


def test_no_source_configured_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "What is the fare?")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "no source is configured")


def test_web_sources_without_a_search_key_are_refused_naming_the_keys(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("TAVILY_API_KEY", "EXA_API_KEY", "RESEARCH_TAVILY_API_KEY", "RESEARCH_EXA_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    code, _, err = run_cli(capsys, "What is the fare?", "--sources", "web,news")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "'web' sources skipped: set TAVILY_API_KEY or EXA_API_KEY")


def test_local_sources_without_a_corpus_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "What is the fare?", "--sources", "local,wiki")
    assert code == EXIT_USAGE
    assert_one_line_error(err, "'local' sources need a corpus")


def test_a_missing_corpus_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(tmp_path / "nowhere"))
    assert code == EXIT_USAGE
    assert_one_line_error(err, "does not exist")


def test_a_corpus_that_is_a_file_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(FIXTURES / "corpus" / "overview.md"))
    assert code == EXIT_USAGE
    assert_one_line_error(err, "not a folder")


def test_an_empty_corpus_is_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "data.csv").write_text("a,b\n")
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(empty))
    assert code == EXIT_USAGE
    assert_one_line_error(err, "no .md, .txt, .html, .pdf or .docx files")


def test_an_unreadable_corpus_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "a.md").write_text("# A\n\nText.")

    def denied(path: object) -> None:  # what the OS answers for a folder without read permission
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("research_assistant.corpus.files.os.scandir", denied)
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(locked))
    assert code == EXIT_USAGE
    assert_one_line_error(err, "cannot read corpus folder")
    assert "Permission denied" in err


@pytest.mark.parametrize(
    ("out", "expected"),
    [("missing-folder/report.md", "does not exist"), (".", "it is a folder"), ("afile/report.md", "does not exist")],
)
def test_an_unwritable_output_path_is_refused_before_any_research(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, out: str, expected: str
) -> None:
    (tmp_path / "afile").write_text("not a folder")
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(FIXTURES / "corpus"), "--out", out)
    assert code == EXIT_USAGE
    assert_one_line_error(err, expected)
    assert not (tmp_path / "db").exists()  # refused before anything was indexed


def test_a_corrupt_file_is_skipped_with_a_warning_and_the_run_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus-with-corrupt", corpus)
    code, out, err = run_cli(
        capsys, "How many trams can the Kallbacka depot hold?", "--corpus", str(corpus), "--depth", "quick"
    )
    assert code == EXIT_OK, err
    assert "Traceback" not in err
    assert "broken.pdf" in err and "empty.docx" in err  # warned on stderr
    assert "broken.pdf" in out  # and listed in the report's caveats
    assert "52 trams" in out


def test_the_report_goes_to_the_out_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run_cli(
        capsys,
        "What is the maximum speed of the trams?",
        "--corpus",
        str(FIXTURES / "corpus"),
        "--depth",
        "quick",
        "--out",
        "report.md",
    )
    assert code == EXIT_OK, err
    assert out == ""
    assert (tmp_path / "report.md").read_text(encoding="utf-8").startswith("# ")
    assert "[search]" in err and "[synthesize]" in err  # progress, node by node


def test_a_question_the_sources_cannot_answer_still_gets_a_report_and_exit_code_3(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_cli(
        capsys, "What is the airspeed velocity of an unladen swallow?", "--corpus", str(FIXTURES / "corpus")
    )
    assert code == EXIT_NO_EVIDENCE
    assert "## Gaps" in out and "No evidence was found" in out
    assert "no evidence was found in the sources" in err


def test_an_embedding_model_that_cannot_load_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma's ONNX model downloads on first use, which fails without a network: say so, do not crash."""

    class Offline:
        def __call__(self, texts: list[str]) -> list[list[float]]:
            raise ConnectionError("Name or service not known")

    monkeypatch.setattr("chromadb.utils.embedding_functions.ONNXMiniLM_L6_V2", Offline)
    monkeypatch.setenv("RESEARCH_EMBEDDING", "chroma-onnx")
    get_settings.cache_clear()
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(FIXTURES / "corpus"))
    assert code == EXIT_USAGE
    assert_one_line_error(err, "embedding model 'chroma-onnx' is not available")


def test_an_invalid_setting_in_the_environment_is_named_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESEARCH_DEPTH", "thorough")
    get_settings.cache_clear()
    code, _, err = run_cli(capsys, "What is the fare?", "--corpus", str(FIXTURES / "corpus"))
    assert code == EXIT_USAGE
    assert_one_line_error(err, "invalid setting in the environment or .env: RESEARCH_DEPTH")
