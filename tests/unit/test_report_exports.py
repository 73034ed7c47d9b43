"""The report exported as Markdown, PDF and Word: read back, with its citations linked to its Sources list, local
documents named inside the documents folder, and text no font of the PDF has written without failing."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pypdf
import pytest
from docx import Document
from export_fixtures import CORPUS, run_state

from research_assistant.context import CitationStyle
from research_assistant.report.document import report_blocks
from research_assistant.report.exports import (
    ExportFormat,
    NothingToExport,
    RunExport,
    available_formats,
    export_run,
    shown_parameters,
    stored_run_export,
)
from research_assistant.report.locations import chosen_folder, corpus_roots, relative_code_spans

ROOTS = [Path(CORPUS)]


def run(style: CitationStyle = CitationStyle.NUMERIC, **changes: object) -> RunExport:
    state = run_state(style)
    fields: dict[str, object] = {
        "run_id": "run1",
        "report_markdown": state["report_markdown"],
        "state": state,
        "roots": ROOTS,
        "extra": {"parameters": shown_parameters({"corpus_dir": CORPUS, "depth": "quick"})},
        **changes,
    }
    return RunExport(**fields)  # type: ignore[arg-type]


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages)


def test_the_markdown_export_names_local_documents_inside_the_documents_folder() -> None:
    made = export_run(run(), ExportFormat.MARKDOWN)
    text = made.data.decode()
    assert made.file_name == "report-run1.md" and made.mime == "text/markdown"
    assert "`notes/gc.md`" in text and CORPUS not in text
    assert "<https://docs.example.org/gc?x=1>" in text


def test_the_pdf_export_reads_back_with_its_sources_and_links() -> None:
    made = export_run(run(), ExportFormat.PDF)
    assert made.data.startswith(b"%PDF") and made.file_name == "report-run1.pdf"
    text = pdf_text(made.data)
    assert "How Python reclaims cycles" in text and "Key findings" in text and "Sources" in text
    assert "The collector finds reference cycles" in text and "[1]" in text
    assert "notes/gc.md" in text and CORPUS not in text, "paths relative to the documents folder"
    assert "Ωμέγα" in text and "Сборщик мусора" in text, "Greek and Cyrillic come out as written"
    assert "characters this PDF's font cannot show" in text, "the Chinese it cannot show is said, not a crash"
    reader = pypdf.PdfReader(io.BytesIO(made.data))
    links = [annotation.get_object() for page in reader.pages for annotation in page.get("/Annots", [])]
    uris = {link["/A"]["/URI"] for link in links if "/A" in link}
    assert "https://docs.example.org/gc?x=1" in uris, "web addresses are links"
    assert sum(1 for link in links if "/Dest" in link) >= 3, "each [n] links to its Sources entry"


def test_the_word_export_reads_back_with_citations_linked_to_bookmarked_sources() -> None:
    made = export_run(run(), ExportFormat.WORD)
    assert made.file_name == "report-run1.docx"
    document = Document(io.BytesIO(made.data))
    texts = [paragraph.text for paragraph in document.paragraphs]
    assert texts[0] == "How Python reclaims cycles" and "Sources" in texts
    assert any("“Сборщик мусора 垃圾回收 works” [2]" in text for text in texts), "every character kept"
    assert any(text.startswith("[1] Garbage collection") and "notes/gc.md" in text for text in texts)
    assert not any(CORPUS in text for text in texts)
    fragments = [link.fragment for p in document.paragraphs for link in p.hyperlinks if link.fragment]
    addresses = [link.address for p in document.paragraphs for link in p.hyperlinks if link.address]
    assert set(fragments) == {"source_1", "source_2"} and "https://docs.example.org/gc?x=1" in addresses
    bookmarks = document.element.body.xpath(".//w:bookmarkStart/@w:name")
    assert {"source_1", "source_2"} <= set(bookmarks), "the targets of the citations exist"


def test_the_citation_style_reaches_the_exports() -> None:
    apa = pdf_text(export_run(run(CitationStyle.APA), ExportFormat.PDF).data)
    mla = Document(io.BytesIO(export_run(run(CitationStyle.MLA), ExportFormat.WORD).data))
    assert "Retrieved November 21, 2026" in apa
    assert any("Accessed 21 Nov. 2026" in paragraph.text for paragraph in mla.paragraphs)


def test_json_and_csv_exports_name_documents_relatively() -> None:
    document = json.loads(export_run(run(), ExportFormat.JSON).data)
    assert document["sources"]["a"]["locator"] == "notes/gc.md"
    assert document["parameters"]["corpus_dir"] == "corpus"
    assert CORPUS not in json.dumps(document)
    rows = list(csv.DictReader(io.StringIO(export_run(run(), ExportFormat.CSV).data.decode())))
    assert {row["locator"] for row in rows} == {"notes/gc.md", "https://docs.example.org/gc?x=1"}


def test_a_run_offers_only_what_it_has() -> None:
    assert available_formats(run()) == list(ExportFormat)
    paused = run(report_markdown="", state={**run_state(), "evidence": {}})
    assert available_formats(paused) == [ExportFormat.JSON], "a paused run without evidence: no empty CSV"
    with pytest.raises(NothingToExport, match="no evidence"):
        export_run(paused, ExportFormat.CSV)
    with pytest.raises(NothingToExport, match="no report"):
        export_run(paused, ExportFormat.PDF)


def test_hostile_text_and_odd_characters_never_break_an_export() -> None:
    markdown = (
        "# Title with \\<script\\> and emoji 🙂\n\n## Key findings\n\n1. “x” [1]\n\n"
        "## Sources\n\n[1] A \\[1\\] title. `/srv/research/corpus/a.md`. _(x)_\n"
    )
    blocks = report_blocks(markdown)
    assert blocks[0].text == "Title with <script> and emoji 🙂"
    assert [span.source for span in blocks[2].spans if span.source] == [1]
    assert blocks[-1].source == 1 and "[1] title" in blocks[-1].text, "an escaped [1] stays text"
    made = run(report_markdown=markdown)
    assert b"%PDF" in export_run(made, ExportFormat.PDF).data
    assert export_run(made, ExportFormat.WORD).data


def test_documents_are_named_inside_the_folder_chosen_even_for_a_run_with_uploads(tmp_path: Path) -> None:
    chosen, uploads = tmp_path / "docs", tmp_path / "cache" / "uploads"
    run_folder = uploads / "abc123"
    (run_folder / "folder").mkdir(parents=True)
    chosen.mkdir()
    (run_folder / ".linked-folder").write_text(str(chosen), encoding="utf-8")
    roots = corpus_roots(run_folder)
    assert roots == [run_folder.resolve(), chosen.resolve()]
    spans = f"`{run_folder.resolve()}/notes.md` and `{chosen.resolve()}/a/b.md` and `/elsewhere/c.md`"
    assert relative_code_spans(spans, roots) == "`notes.md` and `a/b.md` and `/elsewhere/c.md`"
    assert chosen_folder(str(run_folder), uploads) == str(chosen.resolve()), "Run again: the folder chosen"
    assert chosen_folder(str(chosen), uploads) == str(chosen)


def test_a_stored_runs_json_export_has_its_status_kept_parameters_and_metrics(tmp_path: Path) -> None:
    """The command line and the page export a stored run the same way: one function makes what they export."""
    from research_assistant.context import Context
    from research_assistant.runs.records import RunRecord, RunStatus

    context = Context(corpus_dir=Path(CORPUS), db_dir=tmp_path / "db", deadline=5.0, providers=["arxiv"])
    record = RunRecord(
        run_id="run1",
        question="Q?",
        parameters=context,
        status=RunStatus.COMPLETED,
        started_at=1.0,
        updated_at=1.0,
        report_markdown=run_state(CitationStyle.NUMERIC)["report_markdown"],
    )
    made = stored_run_export(record, run_state(CitationStyle.NUMERIC), ["sk-secret"])
    assert list(made.extra) == ["status", "parameters", "metrics"]
    assert made.extra["status"] == "completed" and made.extra["metrics"] == record.metrics.model_dump(mode="json")
    parameters = made.extra["parameters"]
    assert parameters["corpus_dir"] == Path(CORPUS).name and parameters["providers"] == ["arxiv"]
    assert not {"db_dir", "cache_dir", "deadline", "services"} & set(parameters)
    assert (made.roots, made.secrets) == (corpus_roots(Path(CORPUS)), ["sk-secret"])
    assert json.loads(export_run(made, ExportFormat.JSON).data)["parameters"] == parameters
