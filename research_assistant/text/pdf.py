"""A PDF's text and metadata, with its hard-wrapped lines joined back into paragraphs.

Local files and downloaded papers are read alike. Every failure becomes an `UnreadableText` with a
one-line reason ("not a valid PDF", "password-protected").
"""

from __future__ import annotations

import io
import logging
import re
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path

from research_assistant.text.decoding import UnreadableText
from research_assistant.text.document import DocumentText
from research_assistant.text.spaces import collapsed, error_line

# pypdf narrates its repairs of damaged files on stderr ("EOF marker not found"); the one-line reasons
# raised here replace that noise, which would otherwise break up the command line's output.
logging.getLogger("pypdf").setLevel(logging.CRITICAL)

_MAX_TITLE = 120


def read_pdf(source: Path | bytes, *, fallback_title: str = "") -> DocumentText:
    """The title, text and metadata of a PDF file, or of a PDF's bytes (a download); raises `UnreadableText`."""
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError

    try:
        reader = PdfReader(io.BytesIO(source) if isinstance(source, bytes) else source)
        if reader.is_encrypted and not reader.decrypt(""):
            raise UnreadableText("the PDF is password-protected")
        raw_pages = [page.extract_text() or "" for page in reader.pages]
        info = reader.metadata
    except UnreadableText:
        raise
    except FileNotDecryptedError:
        raise UnreadableText("the PDF is password-protected") from None
    except (PdfReadError, PdfStreamError) as error:
        raise UnreadableText(f"not a valid PDF ({error_line(error, 200)})") from None
    except Exception as error:  # pypdf raises many kinds of errors on damaged files
        raise UnreadableText(f"cannot read the PDF ({type(error).__name__}: {error_line(error, 200)})") from None
    pages = [_reflow(page) for page in raw_pages]
    text = "\n\n".join(page for page in pages if page.strip())
    if not text.strip():
        raise UnreadableText("the PDF has no extractable text (scanned images?)")
    title = _pdf_field(info, "title")
    if not title:
        # The first line as printed, before reflowing can join a title to the sentence under it.
        lines = (" ".join(line.split()) for page in raw_pages for line in page.splitlines())
        title = next((line for line in lines if line), fallback_title)[:_MAX_TITLE]
    author = _pdf_field(info, "author") or None
    created = _safe(lambda: info.creation_date) if info is not None else None
    published = created.isoformat()[:10] if isinstance(created, datetime | date) else None
    return DocumentText(title=title, text=text, author=author, published=published)


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


def _pdf_field(info: object, name: str) -> str:
    value = _safe(lambda: getattr(info, name)) if info is not None else None
    return collapsed(value)


def _safe(get: Callable[[], object]) -> object:
    try:
        return get()
    except Exception:  # a malformed date field must not lose the document
        return None
