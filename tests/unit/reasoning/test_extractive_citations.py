"""The extractive report, rendered: every quotation is in the text of each source cited right after it.

Agreeing items from different sources form a consensus and two figures for the
same thing form a conflict; the report goes through the synthesize node (checks,
rendering, the final check) and is read back here with a parser of its own, not
the product's, so a bug shared by the renderer and its checks cannot hide itself.
"""

from __future__ import annotations

import html
import re

from langgraph.runtime import Runtime
from support.fakes import FakeDocuments, FakeProvider, FakeReader, FakeRepository

from research_assistant.context import Context
from research_assistant.knowledge.documents import StoredDocument
from research_assistant.nodes.synthesize import synthesize
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.schemas import Evidence, ResearchPlan, SourceRecord, SourceStatus, SourceType, SubQuestion
from research_assistant.services import Services
from research_assistant.state import ResearchState

QUESTION = "When did the Halvorsby tram network open?"
PLAN = ResearchPlan(
    sub_questions=[
        SubQuestion(id="q1", text=QUESTION),
        SubQuestion(id="q2", text="How has the Halvorsby tram network changed over time?"),
    ],
    min_sources=2,
    min_evidence_per_question=1,
)
OPENED = "The network opened on 14 September 1987."
OPENED_LONG = (
    "The new network opened on 14 September 1987 with a single line between Central Station and Mollegard, "
    "a distance of about six kilometres."
)
CARRIED = "The network carried 27.8 million passengers in 2023."
CARRIED_MORE = "In 2023 the network carried 31.4 million passengers, an increase of 6 percent over the previous year."
LINES = "A second line to the harbour followed in 1994, and a third to the university in 2009."
# (source, sub-question, score, quoted sentence); each document holds its own sentences and no other's
QUOTED = [
    ("history", "q1", 0.9, OPENED),
    ("overview", "q1", 0.8, OPENED_LONG),
    ("ridership", "q2", 0.7, CARRIED),
    ("annual", "q2", 0.6, CARRIED_MORE),
    ("overview", "q2", 0.5, LINES),
]
TEXTS = {
    "history": f"History of the trams\n\n{OPENED} Before that, buses served the city.",
    "overview": f"Overview\n\n{OPENED_LONG}\n{LINES}",
    "ridership": f"Ridership\n\nPassenger counts are taken every March. {CARRIED}",
    "annual": f"Annual report\n\n{CARRIED_MORE} Fares were unchanged.",
}

# The test's own reading of the report ----------------------------------------------------------------------

QUOTATION = re.compile(
    r"(?:\u201c(?P<curly>[^\u201c\u201d\n]*)\u201d|&#8220;(?P<entity>.*?)&#8221;|\"(?P<straight>[^\"\n]*)\")"
    r"(?P<marks>(?:[ \t]*\[[\d, ]+\])+)"
)
SOURCE_ENTRY = re.compile(r"^\[(\d+)\] .*?`([^`]+)`", re.MULTILINE)


def shown(text: str) -> str:
    """What a reader sees: backslash escapes and entities resolved, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"\\(.)", r"\1", text)).split())


def section(markdown: str, heading: str) -> str:
    match = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", markdown, re.MULTILINE | re.DOTALL)
    assert match, f"no section {heading!r} in:\n{markdown}"
    return match.group(1)


def cited_quotations(text: str) -> list[tuple[str, list[int]]]:
    found = []
    for match in QUOTATION.finditer(text):
        quote = next(g for g in (match.group("curly"), match.group("entity"), match.group("straight")) if g)
        found.append((shown(quote), [int(n) for n in re.findall(r"\d+", match.group("marks"))]))
    return found


# -------------------------------------------------------------------------------------------------------------


def _documents() -> FakeDocuments:
    return FakeDocuments(
        {
            name: StoredDocument(
                source_id=name,
                locator=f"/corpus/{name}.md",
                title=name,
                text=text,
                content_hash=name,
                fetched_at="2026-01-01T00:00:00+00:00",
            )
            for name, text in TEXTS.items()
        }
    )


async def test_every_quotation_in_every_section_is_in_each_source_cited_for_it() -> None:
    assert OPENED not in TEXTS["overview"]  # so citing the overview for OPENED would be a misattribution
    documents = _documents()
    services = Services(
        reasoner=ExtractiveReasoner(),
        repository=FakeRepository(documents),
        documents=documents,
        providers=[FakeProvider(documents)],
        readers={SourceType.LOCAL: FakeReader(documents, ())},
    )
    evidence = {
        f"E{n}": Evidence(id=f"E{n}", claim=quote, quote=quote, source_id=source, sub_question_id=sq, score=score)
        for n, (source, sq, score, quote) in enumerate(QUOTED)
    }
    sources = {
        name: SourceRecord(
            id=name, locator=f"/corpus/{name}.md", title=name.title(), provider="local", status=SourceStatus.READ
        )
        for name in TEXTS
    }
    state = ResearchState(
        question=QUESTION,
        analysis=analyze_question(QUESTION),
        plan=PLAN,
        sources=sources,
        evidence=evidence,
        stop_reason="done",
    )
    update = await synthesize(state, Runtime(context=Context(services=services, corpus_dir=None)))
    report, markdown = update["report"], update["report_markdown"]
    assert [[v.evidence_ids for v in (f, *f.agreeing)] for f in report.consensus] == [[["E0"], ["E1"]]]
    assert [sorted(i for side in c.sides for i in side.evidence_ids) for c in report.conflicts] == [["E2", "E3"]]
    assert "did not check out" not in markdown  # the report was honest before the final check looked

    texts = {
        int(n): " ".join(TEXTS[locator.split("/")[-1].removesuffix(".md")].split())
        for n, locator in SOURCE_ENTRY.findall(section(markdown, "Sources"))
    }
    headings = re.findall(r"^## (.+)$", markdown, re.MULTILINE)
    assert {"Summary", "Key findings", "Findings by sub-question", "Consensus", "Conflicting evidence"} <= {
        *headings,
        "Summary" if "Answer" in headings else "",  # a direct answer may stand in for the summary
    }
    for heading in headings:
        if heading in ("Caveats", "Gaps", "Sources", "About this report"):
            continue
        quotations = cited_quotations(section(markdown, heading))
        assert quotations, f"no cited quotation under {heading}:\n{markdown}"
        for quote, numbers in quotations:
            for number in numbers:
                assert quote in texts[number], f"{heading}: [{number}] does not hold \u201c{quote}\u201d"

    # the two sources agree, each quoted in its own words and cited alone
    consensus = section(markdown, "Consensus").strip()
    assert consensus == f"- \u201c{OPENED}\u201d [1]; similarly \u201c{OPENED_LONG}\u201d [2]", consensus
    assert [numbers for _, numbers in cited_quotations(section(markdown, "Conflicting evidence"))] in (
        [[3], [4]],
        [[4], [3]],
    )
