"""Reading local files into plain text: Markdown, text, HTML, PDF and Word.

Every failure becomes a `CorpusFileError` with a one-line reason that the
analyst can act on ("not a valid PDF", "password-protected"), so one bad file
is reported and skipped instead of failing the corpus.
"""

from __future__ import annotations

import codecs
import io
import logging
import re
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from research_assistant.web.html_text import html_to_text

# pypdf narrates its repairs of damaged files on stderr ("EOF marker not found"); the one-line reasons
# raised here replace that noise, which would otherwise break up the command line's output.
logging.getLogger("pypdf").setLevel(logging.CRITICAL)

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Larger files are skipped: they would stall indexing, and are rarely documents to quote from."""


_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_FIELD = re.compile(r"^([A-Za-z_]+)[ \t]*:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_MAX_TITLE = 120
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_ATX_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


class CorpusFileError(Exception):
    """A file could not be read; the message is a one-line reason without a traceback."""


@dataclass(frozen=True)
class LoadedFile:
    title: str
    text: str
    author: str | None = None
    published: str | None = None


def decode_text(data: bytes) -> str:
    """Bytes to text: UTF-8 (or a BOM's encoding), else the best charset guess, else Latin-1."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    if b"\x00" in data[:4096]:
        raise CorpusFileError("looks like a binary file, not text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    try:
        from charset_normalizer import from_bytes  # comes with requests; only needed for legacy encodings
    except ImportError:
        return data.decode("latin-1", errors="replace")
    matches = from_bytes(data)
    best = matches.best()
    if best is None:
        return data.decode("latin-1", errors="replace")
    # Short samples fit several code pages equally well; among equals, the commonest (Windows Western) wins.
    western = next((m for m in matches if m.encoding == "cp1252" and m.chaos <= best.chaos), None)
    return data.decode((western or best).encoding, errors="replace")


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise CorpusFileError(f"cannot read file: {error.strerror or error}") from None


def _load_markdown(path: Path) -> LoadedFile:
    text = decode_text(_read_bytes(path))
    fields: dict[str, str] = {}
    front = _FRONT_MATTER.match(text)
    if front:
        fields = {key.lower(): value.strip("'\"") for key, value in _FRONT_FIELD.findall(front.group(1))}
        text = text[front.end() :]
    heading = _ATX_TITLE.search(text)
    title = fields.get("title") or (heading.group(1).strip() if heading else path.stem)
    return LoadedFile(title=title, text=text, author=fields.get("author"), published=fields.get("date"))


def _load_text(path: Path) -> LoadedFile:
    """Plain text has no metadata: a short first line is taken as the title, as a reader would."""
    text = decode_text(_read_bytes(path))
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return LoadedFile(title=first if 0 < len(first) <= _MAX_TITLE else path.stem, text=text)


def _declared_charset(data: bytes) -> str | None:
    """The encoding a page declares in its <meta> tags, if Python knows it."""
    found = _META_CHARSET.search(data[:4096])
    if not found:
        return None
    name = found.group(1).decode("ascii")
    try:
        codecs.lookup(name)
    except LookupError:
        return None
    return name


def _load_html(path: Path) -> LoadedFile:
    data = _read_bytes(path)
    declared = _declared_charset(data)
    try:
        markup = data.decode(declared) if declared else decode_text(data)
    except UnicodeDecodeError:  # the declaration was wrong
        markup = decode_text(data)
    page = html_to_text(markup)
    return LoadedFile(title=page.title or path.stem, text=page.text, author=page.author, published=page.published)


def _ends_paragraph(line: str, following: str, full: int) -> bool:
    """Whether a hard-wrapped PDF line ends its paragraph, judged by its length and the line after it."""
    if not following:
        return True
    if re.search(r"[.!?:]['\")\]]?$", line) and len(line) < 0.8 * full:
        return True  # the last line of a paragraph
    return len(line) < 0.6 * full and following[:1].isupper()  # a heading or a list item


def _reflow(page: str) -> str:
    """Join a PDF page's hard-wrapped lines into paragraphs, re-joining words hyphenated across lines."""
    lines = [" ".join(line.split()) for line in page.splitlines()]
    full = max((len(line) for line in lines), default=0)
    paragraphs: list[str] = []
    current = ""
    for index, line in enumerate(lines):
        if not line:
            if current:
                paragraphs.append(current)
            current = ""
            continue
        if not current:
            current = line
        elif re.search(r"[A-Za-z]-$", current) and line[:1].islower():
            current = current[:-1] + line
        else:
            current = f"{current} {line}"
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if _ends_paragraph(line, following, full):
            paragraphs.append(current)
            current = ""
    if current:
        paragraphs.append(current)
    return "\n\n".join(paragraphs)


def _pdf_date(value: object) -> str | None:
    if isinstance(value, datetime | date):
        return value.isoformat()[:10]
    return None


def _load_pdf(path: Path) -> LoadedFile:
    return _read_pdf(path, fallback_title=path.stem)


def pdf_from_bytes(data: bytes, *, fallback_title: str = "") -> LoadedFile:
    """A PDF's title, text and metadata from its bytes (a downloaded file); raises `CorpusFileError`."""
    return _read_pdf(io.BytesIO(data), fallback_title=fallback_title)


def _read_pdf(source: Path | io.BytesIO, *, fallback_title: str) -> LoadedFile:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError

    try:
        reader = PdfReader(source)
        if reader.is_encrypted and not reader.decrypt(""):
            raise CorpusFileError("the PDF is password-protected")
        raw_pages = [page.extract_text() or "" for page in reader.pages]
        info = reader.metadata
    except CorpusFileError:
        raise
    except FileNotDecryptedError:
        raise CorpusFileError("the PDF is password-protected") from None
    except (PdfReadError, PdfStreamError) as error:
        raise CorpusFileError(f"not a valid PDF ({_one_line(error)})") from None
    except Exception as error:  # pypdf raises many kinds of errors on damaged files
        raise CorpusFileError(f"cannot read the PDF ({type(error).__name__}: {_one_line(error)})") from None
    pages = [_reflow(page) for page in raw_pages]
    text = "\n\n".join(page for page in pages if page.strip())
    if not text.strip():
        raise CorpusFileError("the PDF has no extractable text (scanned images?)")
    title = _pdf_field(info, "title")
    if not title:
        # The first line as printed, before reflowing can join a title to the sentence under it.
        lines = (" ".join(line.split()) for page in raw_pages for line in page.splitlines())
        title = next((line for line in lines if line), fallback_title)[:_MAX_TITLE]
    author = _pdf_field(info, "author") or None
    published = _pdf_date(_safe(lambda: info.creation_date)) if info is not None else None
    return LoadedFile(title=title, text=text, author=author, published=published)


def _pdf_field(info: object, name: str) -> str:
    value = _safe(lambda: getattr(info, name)) if info is not None else None
    return " ".join(value.split()) if isinstance(value, str) else ""


def _safe(get: Callable[[], object]) -> object:
    try:
        return get()
    except Exception:  # a malformed date field must not lose the document
        return None


def _docx_blocks(document: object) -> Iterator[tuple[str, str]]:
    """(style name, text) of each paragraph and table row, in document order."""
    from docx.table import Table

    for item in document.iter_inner_content():  # type: ignore[attr-defined]
        if isinstance(item, Table):
            for row in item.rows:
                cells: list[str] = []
                for cell in row.cells:
                    value = " ".join(cell.text.split())
                    if value and (not cells or cells[-1] != value):  # merged cells repeat their text
                        cells.append(value)
                if cells:
                    yield "", " | ".join(cells)
        else:
            style = item.style.name if item.style is not None else ""
            yield style or "", item.text.strip()


def _load_docx(path: Path) -> LoadedFile:
    import docx
    from docx.opc.exceptions import PackageNotFoundError

    try:
        document = docx.Document(str(path))
        blocks = [(style, text) for style, text in _docx_blocks(document) if text]
        props = document.core_properties
    except (PackageNotFoundError, zipfile.BadZipFile):
        raise CorpusFileError("not a valid Word .docx file") from None
    except KeyError as error:
        raise CorpusFileError(f"damaged Word file (missing part {error})") from None
    except Exception as error:  # python-docx surfaces lxml and zip errors of many kinds
        raise CorpusFileError(f"cannot read the Word file ({type(error).__name__}: {_one_line(error)})") from None
    text = "\n\n".join(text for _, text in blocks)
    if not text.strip():
        raise CorpusFileError("the document has no text")
    heading = next((text for style, text in blocks if style in ("Title", "Heading 1")), None)
    title = (props.title or "").strip() or heading or path.stem
    published = props.created.isoformat()[:10] if props.created else None
    return LoadedFile(title=title, text=text, author=(props.author or "").strip() or None, published=published)


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())[:200] or type(error).__name__


_LOADERS: dict[str, Callable[[Path], LoadedFile]] = {
    ".md": _load_markdown,
    ".markdown": _load_markdown,
    ".txt": _load_text,
    ".html": _load_html,
    ".htm": _load_html,
    ".pdf": _load_pdf,
    ".docx": _load_docx,
}


def load_file(path: Path) -> LoadedFile:
    """A supported file's title, text and metadata; raises `CorpusFileError` with a one-line reason."""
    loader = _LOADERS.get(path.suffix.lower())
    if loader is None:
        raise CorpusFileError(f"unsupported file type {path.suffix or '(none)'!r}")
    try:
        size = path.stat().st_size
    except OSError as error:
        raise CorpusFileError(f"cannot read file: {error.strerror or error}") from None
    if size > MAX_FILE_BYTES:
        raise CorpusFileError(f"file too large ({size // 2**20} MB; the limit is {MAX_FILE_BYTES // 2**20} MB)")
    try:
        loaded = loader(path)
    except CorpusFileError:
        raise
    except RecursionError:
        raise CorpusFileError("the file is too deeply nested to parse") from None
    except Exception as error:  # the loaders catch what they expect; anything else is still one file's problem
        raise CorpusFileError(f"cannot read the file ({type(error).__name__}: {_one_line(error)})") from None
    if not loaded.text.strip():
        raise CorpusFileError("the file has no text")
    return loaded
