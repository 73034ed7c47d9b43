"""Reading local files into plain text: Markdown, text, HTML, PDF and Word.

Every failure becomes a `CorpusFileError` with a one-line reason that the
analyst can act on ("not a valid PDF", "password-protected"), so one bad file
is reported and skipped instead of failing the corpus.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from research_assistant.corpus.files import max_file_bytes, too_large
from research_assistant.text.decoding import UnreadableText, decode_markup, decode_text
from research_assistant.text.document import DocumentText
from research_assistant.text.html import html_to_text
from research_assistant.text.pdf import read_pdf
from research_assistant.text.spaces import error_line

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_FRONT_FIELD = re.compile(r"^([A-Za-z_]+)[ \t]*:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_MAX_TITLE = 120
_ATX_TITLE = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_FIRST_LINE = re.compile(r"\S[^\r\n]*")


class CorpusFileError(Exception):
    """A file could not be read; the message is a one-line reason without a traceback."""


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise CorpusFileError(f"cannot read file: {error.strerror or error}") from None


def _load_markdown(path: Path) -> DocumentText:
    text = decode_text(_read_bytes(path))
    fields: dict[str, str] = {}
    front = _FRONT_MATTER.match(text)
    if front:
        fields = {key.lower(): value.strip("'\"") for key, value in _FRONT_FIELD.findall(front.group(1))}
        text = text[front.end() :]
    heading = _ATX_TITLE.search(text)
    title = fields.get("title") or (heading.group(1).strip() if heading else path.stem)
    return DocumentText(title=title, text=text, author=fields.get("author"), published=fields.get("date"))


def _load_text(path: Path) -> DocumentText:
    """Plain text has no metadata: a short first line is taken as the title, as a reader would."""
    text = decode_text(_read_bytes(path))
    found = _FIRST_LINE.search(text)  # not `splitlines()`: a list of every line of a 100 MB file is gigabytes
    first = found.group().strip() if found else ""
    return DocumentText(title=first if 0 < len(first) <= _MAX_TITLE else path.stem, text=text)


def _load_html(path: Path) -> DocumentText:
    page = html_to_text(decode_markup(_read_bytes(path)))
    return DocumentText(title=page.title or path.stem, text=page.text, author=page.author, published=page.published)


def _load_pdf(path: Path) -> DocumentText:
    return read_pdf(path, fallback_title=path.stem)


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


def _load_docx(path: Path) -> DocumentText:
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
        raise CorpusFileError(f"cannot read the Word file ({type(error).__name__}: {error_line(error, 200)})") from None
    text = "\n\n".join(text for _, text in blocks)
    if not text.strip():
        raise CorpusFileError("the document has no text")
    heading = next((text for style, text in blocks if style in ("Title", "Heading 1")), None)
    title = (props.title or "").strip() or heading or path.stem
    published = props.created.isoformat()[:10] if props.created else None
    return DocumentText(title=title, text=text, author=(props.author or "").strip() or None, published=published)


_LOADERS: dict[str, Callable[[Path], DocumentText]] = {
    ".md": _load_markdown,
    ".markdown": _load_markdown,
    ".txt": _load_text,
    ".html": _load_html,
    ".htm": _load_html,
    ".pdf": _load_pdf,
    ".docx": _load_docx,
}


def load_file(path: Path, max_bytes: int | None = None) -> DocumentText:
    """A supported file's title, text and metadata; raises `CorpusFileError` with a one-line reason.

    A file larger than `max_bytes` (by default the `RESEARCH_MAX_FILE_MB` setting) is refused unread.
    """
    loader = _LOADERS.get(path.suffix.lower())
    if loader is None:
        raise CorpusFileError(f"unsupported file type {path.suffix or '(none)'!r}")
    try:
        size = path.stat().st_size
    except OSError as error:
        raise CorpusFileError(f"cannot read file: {error.strerror or error}") from None
    reason = too_large(size, max_file_bytes() if max_bytes is None else max_bytes)
    if reason:
        raise CorpusFileError(reason)
    try:
        loaded = loader(path)
    except CorpusFileError:
        raise
    except UnreadableText as error:  # the text could not be decoded, or the PDF not read
        raise CorpusFileError(str(error)) from None
    except RecursionError:
        raise CorpusFileError("the file is too deeply nested to parse") from None
    except Exception as error:  # the loaders catch what they expect; anything else is still one file's problem
        raise CorpusFileError(f"cannot read the file ({type(error).__name__}: {error_line(error, 200)})") from None
    if not loaded.text or loaded.text.isspace():  # not `strip()`, which copies the whole text
        raise CorpusFileError("the file has no text")
    return loaded
