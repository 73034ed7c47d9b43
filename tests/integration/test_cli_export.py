"""`research-assistant export RUN_ID --format md|pdf|docx|json|csv [--out FILE]`."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pypdf
import pytest
from docx import Document
from support.cli import cli
from support.cli import isolated_settings as isolated_settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from export_fixtures import CORPUS, report_markdown

from research_assistant.cli import EXIT_OK, EXIT_USAGE
from research_assistant.context import CitationStyle, Context, Depth
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore

pytestmark = pytest.mark.usefixtures("isolated_settings")
RUN_ID = "0123456789ab"


@pytest.fixture
def stored_run(tmp_path: Path) -> str:
    parameters = Context(
        depth=Depth.QUICK,
        source_types=["local"],
        corpus_dir=CORPUS,
        citation_style=CitationStyle.APA,
        max_seconds=60,
    )
    store = RunStore.at(tmp_path / "db")
    store.save(
        RunRecord(
            run_id=RUN_ID,
            question="How does Python reclaim reference cycles?",
            parameters=parameters,
            status=RunStatus.COMPLETED,
            started_at=1.0,
            updated_at=1.0,
            report_markdown=report_markdown(CitationStyle.APA),
        )
    )
    store.close()
    return RUN_ID


def test_export_writes_the_report_as_markdown_pdf_and_word(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, stored_run: str
) -> None:
    code, out, _ = cli(capsys, "export", stored_run[:6], "--format", "md")
    assert code == EXIT_OK and out.startswith("# How Python reclaims cycles")
    assert "`notes/gc.md`" in out and CORPUS not in out, "relative to the documents folder"

    code, _, err = cli(capsys, "export", stored_run, "--format", "pdf", "--out", str(tmp_path / "r.pdf"))
    assert code == EXIT_OK and "Report (PDF) written to" in err
    text = "".join(page.extract_text() for page in pypdf.PdfReader(tmp_path / "r.pdf").pages)
    assert "Key findings" in text and "Retrieved November 21, 2026" in text, "the run's citation style"

    code, _, _ = cli(capsys, "export", stored_run, "--format", "docx", "--out", str(tmp_path / "r.docx"))
    assert code == EXIT_OK
    document = Document(io.BytesIO((tmp_path / "r.docx").read_bytes()))
    assert any(p.text.startswith("[1] ") for p in document.paragraphs)


def test_export_says_in_one_line_what_a_run_does_not_have(capsys: pytest.CaptureFixture[str], stored_run: str) -> None:
    code, out, err = cli(capsys, "export", stored_run, "--format", "csv")
    assert code == EXIT_USAGE and out == ""
    assert "no saved state" in err or "no evidence" in err
    code, _, err = cli(capsys, "export", "nosuchrun", "--format", "md")
    assert code == EXIT_USAGE and "no run 'nosuchrun'" in err
