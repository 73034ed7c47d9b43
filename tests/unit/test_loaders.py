"""Loading local files: the right title and text per format, and one-line reasons for files that cannot be read."""

from __future__ import annotations

import logging
import zipfile
from pathlib import Path

import docx
import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from research_assistant.corpus.files import SUPPORTED_SUFFIXES
from research_assistant.corpus.loaders import CorpusFileError, load_file
from research_assistant.settings import get_settings


def make_pdf(path: Path, lines: list[str], metadata: dict[str, str] | None = None) -> Path:
    """A real one-page PDF whose text layer holds `lines`, hard-wrapped as a PDF would have them."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=612, height=792)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    fonts = DictionaryObject({NameObject("/F1"): writer._add_object(font)})
    page[NameObject("/Resources")] = DictionaryObject({NameObject("/Font"): fonts})
    escaped = [line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines]
    content = DecodedStreamObject()
    content.set_data(("BT /F1 11 Tf 14 TL 72 740 Td " + " ".join(f"({t}) Tj T*" for t in escaped) + " ET").encode())
    page[NameObject("/Contents")] = writer._add_object(content)
    if metadata:
        writer.add_metadata(metadata)
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def assert_one_line(error: pytest.ExceptionInfo[CorpusFileError]) -> str:
    message = str(error.value)
    assert message and "\n" not in message and "Traceback" not in message
    return message


def test_markdown_title_comes_from_the_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text("Intro line\n\n# Tram Depots\n\nThe depot holds 52 trams.\n\n## Capacity\n", encoding="utf-8")

    loaded = load_file(path)

    assert loaded.title == "Tram Depots"
    assert "The depot holds 52 trams." in loaded.text


def test_markdown_without_heading_is_titled_by_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "meeting-notes.markdown"
    path.write_text("Just some notes.\n", encoding="utf-8")

    assert load_file(path).title == "meeting-notes"


def test_markdown_front_matter_gives_metadata_and_is_not_text(tmp_path: Path) -> None:
    path = tmp_path / "post.md"
    path.write_text('---\ntitle: "Fare Changes"\nauthor: Ola Berg\ndate: 2024-02-01\n---\nFares rise in May.\n')

    loaded = load_file(path)

    assert (loaded.title, loaded.author, loaded.published) == ("Fare Changes", "Ola Berg", "2024-02-01")
    assert loaded.text.strip() == "Fares rise in May."


def test_text_file_title_is_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "depot.txt"
    path.write_text("KALLBACKA DEPOT\n\nThe depot opened in 2009.\n", encoding="utf-8")

    loaded = load_file(path)

    assert loaded.title == "KALLBACKA DEPOT"
    assert "The depot opened in 2009." in loaded.text


def test_legacy_encoded_text_is_decoded_not_garbled(tmp_path: Path) -> None:
    path = tmp_path / "legacy.txt"
    path.write_bytes("Caf\u00e9 cr\u00e8me at the d\u00e9p\u00f4t costs 3 \u20ac.\n".encode("cp1252"))

    assert "Caf\u00e9 cr\u00e8me" in load_file(path).text


def test_utf8_with_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffN\u00e4sta h\u00e5llplats\n".encode())

    assert load_file(path).text.startswith("N\u00e4sta h\u00e5llplats")


def test_html_file_gives_main_text_and_title(tmp_path: Path) -> None:
    path = tmp_path / "fares.html"
    path.write_text(
        "<html><head><title>Fares</title><meta name='author' content='HTA'></head><body>"
        "<nav>Home | Timetables</nav><main><h1>Fares</h1><p>A single ticket costs\n 2.80 crowns.</p></main>"
        "<footer>Contact</footer></body></html>",
        encoding="utf-8",
    )

    loaded = load_file(path)

    assert (loaded.title, loaded.author) == ("Fares", "HTA")
    assert loaded.text == "Fares\n\nA single ticket costs 2.80 crowns."


def test_a_local_html_page_loses_its_navigation_lines(tmp_path: Path) -> None:
    path = tmp_path / "dump.html"
    path.write_text(
        "<html><head><title>25.1. SQL Dump</title></head><body>"
        '<div class="navheader"><table summary="Navigation header"><tr><th>25.1.6</th></tr></table></div>'
        "<p>Next: <a href='n.html'>Restoring</a>, Previous: <a href='p.html'>Options</a>, "
        "Up: <a href='u.html'>Backup</a></p>"
        "<h2>25.1.6. Using pg_dumpall</h2><p>The dump is restored with psql.</p>"
        "<p><a href='p.html'>Prev</a> | <a href='u.html'>Up</a> | <a href='/'>Home</a> | <a href='n.html'>Next</a></p>"
        "</body></html>",
        encoding="utf-8",
    )

    assert load_file(path).text == "25.1.6. Using pg_dumpall\n\nThe dump is restored with psql."


def test_html_in_its_declared_legacy_encoding(tmp_path: Path) -> None:
    path = tmp_path / "old.htm"
    page = '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1250"></head>'
    path.write_bytes((page + "<body><p>Antonín Dvořák</p></body></html>").encode("cp1250"))

    assert load_file(path).text == "Antonín Dvořák"  # a guess from so little text would say Dvoøák


def test_utf8_html_under_a_wrong_single_byte_label_is_read_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "syntax.html"
    page = '<html><head><meta http-equiv="Content-type" content="text/html; charset=ISO-8859-1"></head>'
    path.write_bytes((page + "<body><p>LPC stands for Lars Pensjö C.</p></body></html>").encode("utf-8"))

    assert load_file(path).text == "LPC stands for Lars Pensjö C."  # not 'PensjÃ¶', as the label would read it


def test_pdf_text_is_reflowed_into_paragraphs(tmp_path: Path) -> None:
    path = make_pdf(
        tmp_path / "plan.pdf",
        [
            "Line 7 to Brennholm Airport",
            "The planned extension will be 5.4 km long and is sched-",
            "uled to open in 2029, at an estimated cost of 310 million",
            "crowns.",
            "Trams would run every ten minutes.",
        ],
        {"/Title": "Planning Summary", "/Author": "Planning Department"},
    )

    loaded = load_file(path)

    assert (loaded.title, loaded.author) == ("Planning Summary", "Planning Department")
    paragraphs = loaded.text.split("\n\n")
    assert paragraphs[0] == "Line 7 to Brennholm Airport"
    assert (
        "The planned extension will be 5.4 km long and is scheduled to open in 2029, "
        "at an estimated cost of 310 million crowns."
    ) in paragraphs


def test_pdf_without_title_metadata_uses_its_first_line(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "memo.pdf", ["Depot Memo", "The depot needs a new roof."])

    assert load_file(path).title == "Depot Memo"


def test_corrupt_pdf_is_refused_with_a_reason_and_no_other_noise(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj << /Type /Catalog >> garbage without xref or trailer")

    with caplog.at_level(logging.DEBUG), pytest.raises(CorpusFileError) as error:
        load_file(path)

    assert "PDF" in assert_one_line(error)
    assert [record.getMessage() for record in caplog.records if record.name.startswith("pypdf")] == []


def test_pdf_without_text_layer_is_refused(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", [])

    with pytest.raises(CorpusFileError, match="no extractable text"):
        load_file(path)


def test_encrypted_pdf_is_refused(tmp_path: Path) -> None:
    writer = PdfWriter(clone_from=make_pdf(tmp_path / "plain.pdf", ["Secret figures"]))
    writer.encrypt(user_password="hunter2", algorithm="RC4-128")
    path = tmp_path / "locked.pdf"
    with path.open("wb") as handle:
        writer.write(handle)

    with pytest.raises(CorpusFileError, match="password-protected"):
        load_file(path)


def test_docx_paragraphs_tables_and_core_properties(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = "Fleet Sheet"
    document.core_properties.author = "Rolling Stock Office"
    document.add_heading("Fleet", level=1)
    document.add_paragraph("The fleet has 48 low-floor trams.")
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, [("Length", "32 m"), ("Top speed", "70 km/h")], strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.add_paragraph("All trams are stabled at one depot.")
    path = tmp_path / "fleet.docx"
    document.save(str(path))

    loaded = load_file(path)

    assert (loaded.title, loaded.author) == ("Fleet Sheet", "Rolling Stock Office")
    assert loaded.text.split("\n\n") == [
        "Fleet",
        "The fleet has 48 low-floor trams.",
        "Length | 32 m",
        "Top speed | 70 km/h",
        "All trams are stabled at one depot.",
    ]


def test_docx_without_title_property_uses_its_first_heading(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Prepared for the board")
    document.add_heading("Depot Expansion", level=1)
    path = tmp_path / "memo.docx"
    document.save(str(path))

    assert load_file(path).title == "Depot Expansion"


@pytest.mark.parametrize(
    "content",
    [b"this is not a zip archive", b"PK\x03\x04 truncated zip"],
    ids=["not-a-zip", "truncated-zip"],
)
def test_bad_docx_is_refused_with_a_reason(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.docx"
    path.write_bytes(content)

    with pytest.raises(CorpusFileError) as error:
        load_file(path)

    assert "Word" in assert_one_line(error)


def test_zip_that_is_not_a_word_document_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "archive.docx"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")

    with pytest.raises(CorpusFileError) as error:
        load_file(path)

    assert_one_line(error)


@pytest.mark.parametrize("name", ["empty.md", "blank.txt"])
def test_file_without_text_is_refused(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("  \n\n ")

    with pytest.raises(CorpusFileError, match="no text"):
        load_file(path)


def test_binary_file_with_a_text_suffix_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00")

    with pytest.raises(CorpusFileError, match="binary"):
        load_file(path)


def test_unsupported_and_missing_files(tmp_path: Path) -> None:
    sheet = tmp_path / "table.xlsx"
    sheet.write_bytes(b"PK")
    with pytest.raises(CorpusFileError, match="unsupported"):
        load_file(sheet)
    with pytest.raises(CorpusFileError, match="cannot read"):
        load_file(tmp_path / "missing.md")
    assert {".md", ".txt", ".html", ".pdf", ".docx"} <= SUPPORTED_SUFFIXES


def test_oversized_file_is_skipped_without_reading_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "huge.txt"
    path.write_text("log line\n" * 1000)

    with pytest.raises(CorpusFileError, match=r"file too large .* RESEARCH_MAX_FILE_MB"):
        load_file(path, max_bytes=1024)
    monkeypatch.setenv("RESEARCH_MAX_FILE_MB", "0.005")
    get_settings.cache_clear()
    try:
        with pytest.raises(CorpusFileError, match=r"file too large \(0.00858 MB; the limit is 0.005 MB"):
            load_file(path)
    finally:
        get_settings.cache_clear()
