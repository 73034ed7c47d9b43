"""The report as a Word document (python-docx), with clickable citations and Sources.

Each `[n]` is a hyperlink to a bookmark on Sources entry n; web addresses are
hyperlinks to the page. Word shows every character with the reader's own
fonts, so nothing is replaced.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from research_assistant.report.document import Block, Span

if TYPE_CHECKING:
    from docx.text.paragraph import Paragraph

LINK_COLOR = "1446A0"
CODE_FONT = "Consolas"
LIST_STYLES = {"-": "List Bullet", ".": "List Number"}


def bookmark_name(number: int) -> str:
    """The bookmark of Sources entry `number`, which its citations link to."""
    return f"source_{number}"


def _run(paragraph: Paragraph, span: Span) -> Any:
    """A `w:r` element holding the span's text in its look (built by hand: hyperlinks hold runs directly)."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    run = OxmlElement("w:r")
    properties = OxmlElement("w:rPr")
    if span.code:
        fonts = OxmlElement("w:rFonts")
        for attribute in ("w:ascii", "w:hAnsi", "w:cs"):
            fonts.set(qn(attribute), CODE_FONT)
        properties.append(fonts)
    if span.bold:
        properties.append(OxmlElement("w:b"))
    if span.italic:
        properties.append(OxmlElement("w:i"))
    if span.url or span.source:
        color = OxmlElement("w:color")
        color.set(qn("w:val"), LINK_COLOR)
        underline = OxmlElement("w:u")
        underline.set(qn("w:val"), "single")
        properties.extend([color, underline])
    run.append(properties)
    for number, line in enumerate(span.text.split("\n")):
        if number:
            run.append(OxmlElement("w:br"))
        text = OxmlElement("w:t")
        text.set(qn("xml:space"), "preserve")
        text.text = line
        run.append(text)
    return run


def _add_spans(paragraph: Paragraph, spans: Sequence[Span]) -> None:
    from docx.opc.constants import RELATIONSHIP_TYPE
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    for span in spans:
        run = _run(paragraph, span)
        if not (span.url or span.source):
            paragraph._p.append(run)
            continue
        link = OxmlElement("w:hyperlink")
        if span.url:
            link.set(qn("r:id"), paragraph.part.relate_to(span.url, RELATIONSHIP_TYPE.HYPERLINK, is_external=True))
        else:
            link.set(qn("w:anchor"), bookmark_name(span.source))
        link.append(run)
        paragraph._p.append(link)


def _bookmark(paragraph: Paragraph, number: int) -> None:
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    start, end = OxmlElement("w:bookmarkStart"), OxmlElement("w:bookmarkEnd")
    start.set(qn("w:id"), str(number))
    start.set(qn("w:name"), bookmark_name(number))
    end.set(qn("w:id"), str(number))
    paragraph._p.insert(1 if paragraph._p.pPr is not None else 0, start)
    paragraph._p.append(end)


def report_docx(blocks: Sequence[Block], title: str = "Research report") -> bytes:
    """The report's blocks as a .docx document."""
    from docx import Document
    from docx.shared import Cm

    document = Document()
    document.core_properties.title = title
    document.core_properties.author = "research-assistant"
    for block in blocks:
        if block.kind == "heading":
            paragraph = document.add_heading(level=min(block.level - 1, 9) if block.level > 1 else 0)
        elif block.kind == "item":
            style = LIST_STYLES["." if block.marker.endswith(".") else "-"]
            depth = min(block.level, 3)
            paragraph = document.add_paragraph(style=style if depth == 1 else f"{style} {depth}")
        elif block.kind == "quote":
            paragraph = document.add_paragraph(style="Quote")
        else:
            paragraph = document.add_paragraph()
            if block.level:
                paragraph.paragraph_format.left_indent = Cm(0.63 * block.level)
        _add_spans(paragraph, block.spans)
        if block.source:
            _bookmark(paragraph, block.source)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
