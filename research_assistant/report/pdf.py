"""The report as a PDF (fpdf2), with clickable citations and Sources, in a font that ships as a Python package.

The text is set in Noto Sans (`fontpkg-noto-sans`: Latin, Greek, Cyrillic,
Vietnamese), embedded, so nothing depends on the fonts of the machine. A
character the font cannot show (Chinese, Arabic, emoji…) is written as `□`,
and the document ends by saying how many were, and that the Markdown and Word
exports have them: the export never fails on a character. Without the font
package the PDF falls back to a built-in font and Latin-1 text, the same way.
Bold is drawn by outlining the letters, so one font file serves every weight.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from research_assistant.report.document import Block, Span

if TYPE_CHECKING:
    from fpdf import FPDF

FAMILY = "report"
MISSING = "\u25a1"  # □
SIZES = {1: 18.0, 2: 14.0, 3: 12.0}
BODY_SIZE = 10.5
LINE = 5.6  # mm per line of body text
INDENT = 6.0  # mm per list depth
LINK_COLOR = (20, 70, 160)
CODE_COLOR = (60, 60, 60)
TEXT_COLOR = (20, 20, 20)

logging.getLogger("fpdf").setLevel(logging.ERROR)  # font subsetting chatter


@functools.cache
def _font_files() -> tuple[Path, Path] | None:
    """Noto Sans regular and italic, from the `fontpkg-noto-sans` package; None when it is not installed."""
    try:
        import fontpkg_noto_sans
    except ImportError:
        return None
    files = Path(fontpkg_noto_sans.ROOT) / "files"
    regular, italic = files / "NotoSans[wdth,wght].ttf", files / "NotoSans-Italic[wdth,wght].ttf"
    return (regular, italic) if regular.is_file() and italic.is_file() else None


@functools.cache
def _covered() -> frozenset[int] | None:
    """The code points the font can show; None for the built-in font (Latin-1)."""
    files = _font_files()
    if files is None:
        return None
    from fontTools.ttLib import TTFont

    with TTFont(files[0], lazy=True) as font:
        return frozenset(font.getBestCmap())


class _Writer:
    def __init__(self) -> None:
        from fpdf import FPDF

        self.pdf: FPDF = FPDF(format="A4")
        self.replaced = 0
        files = _font_files()
        covered = _covered()
        if files is not None and covered is not None:
            regular, italic = files
            for style, path in (("", regular), ("B", regular), ("I", italic), ("BI", italic)):
                self.pdf.add_font(FAMILY, style, path)
            self.family = FAMILY
            self.shows: Callable[[str], bool] = lambda char: ord(char) in covered
            self.missing = MISSING if ord(MISSING) in covered else "?"
        else:
            self.family = "helvetica"
            self.shows = lambda char: ord(char) < 256
            self.missing = "?"
        self.pdf.set_margins(18, 18, 18)
        self.pdf.set_auto_page_break(True, margin=18)
        self.pdf.add_page()
        self.links: dict[int, int] = {}

    def printable(self, text: str) -> str:
        out = []
        for char in text:
            if char == "\n" or self.shows(char):
                out.append(char)
            elif char.isspace():
                out.append(" ")
            else:
                out.append(self.missing)
                self.replaced += 1
        return "".join(out)

    def link(self, number: int) -> int:
        if number not in self.links:
            self.links[number] = self.pdf.add_link()
        return self.links[number]

    def spans(self, spans: Sequence[Span], size: float, height: float, bold: bool = False) -> None:
        from fpdf.enums import TextMode

        pdf = self.pdf
        for span in spans:
            target: str | int = span.url or (self.link(span.source) if span.source else "")
            style = ("I" if span.italic else "") + ("U" if target else "")
            pdf.set_font(self.family, style, size)
            color = LINK_COLOR if target else CODE_COLOR if span.code else TEXT_COLOR
            pdf.set_text_color(*color)
            pdf.set_draw_color(*color)
            pdf.text_mode = TextMode.FILL_STROKE if bold or span.bold else TextMode.FILL
            pdf.write(height, self.printable(span.text), link=target)
        pdf.text_mode = TextMode.FILL
        pdf.set_text_color(*TEXT_COLOR)

    def block(self, block: Block) -> None:
        pdf = self.pdf
        if block.kind == "heading":
            size = SIZES.get(block.level, BODY_SIZE + 1)
            pdf.ln(3 if block.level > 1 else 0)
            self.spans(block.spans, size, size * 0.5, bold=True)
            pdf.ln(size * 0.5 + 2)
            return
        indent = INDENT * block.level
        margin = pdf.l_margin
        if block.source:
            pdf.ln(1.5)
            pdf.set_link(self.link(block.source), y=pdf.get_y(), page=pdf.page_no())
        pdf.set_left_margin(margin + indent)
        pdf.set_x(margin + indent)
        if block.kind == "item":
            pdf.set_x(margin + indent - 5)
            pdf.set_font(self.family, "", BODY_SIZE)
            pdf.cell(5, LINE, "•" if block.marker == "-" and self.shows("•") else block.marker or "-")
        if block.kind == "quote":
            pdf.set_left_margin(margin + indent + 4)
            pdf.set_x(margin + indent + 4)
        self.spans(block.spans, BODY_SIZE, LINE)
        pdf.set_left_margin(margin)
        pdf.ln(LINE + (0.6 if block.kind == "item" else 2.0))

    def note(self) -> None:
        if not self.replaced:
            return
        note = (
            f"{self.replaced} characters this PDF's font cannot show are written as {self.missing}; "
            "the Markdown and Word exports have them all."
        )
        self.block(Block("paragraph", (Span(note, italic=True),)))


def report_pdf(blocks: Sequence[Block], title: str = "Research report") -> bytes:
    """The report's blocks as a PDF document: citations link to their Sources entries, addresses to the web."""
    writer = _Writer()
    writer.pdf.set_title(writer.printable(title))
    writer.pdf.set_creator("research-assistant")
    for block in blocks:
        writer.block(block)
    writer.note()
    return bytes(writer.pdf.output())
