"""The extractive reasoner's evidence, remembered: the same inputs are extracted once, anything else again."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.extractions import counted_extractions

from research_assistant.reasoning import remembered
from research_assistant.reasoning.base import Fallback, Step
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.remembered import (
    Extractions,
    RememberedExtraction,
    extractive_version,
    source_digest,
)
from research_assistant.schemas import Evidence, Passage, SubQuestion

QUESTION = "How many trams does the Kallbacka depot hold?"
SUB_QUESTION = SubQuestion(id="q1", text="How many trams does the Kallbacka depot hold?")
DEPOT = Passage(
    source_id="S-depot",
    chunk_id="depot#0",
    score=0.9,
    text="The Kallbacka depot opened in 2009. It holds 52 trams on fourteen covered tracks.",
)
FARES = Passage(
    source_id="S-fares",
    chunk_id="fares#0",
    score=0.4,
    text="A single adult ticket costs 2.80 crowns. The depot sells monthly passes for 58 crowns.",
)


@pytest.fixture
def extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sub-questions the extractive reasoner itself extracts evidence for, call by call."""
    return counted_extractions(monkeypatch)


def remembering(cache_dir: Path, embedding_name: str = "hashing") -> RememberedExtraction:
    return RememberedExtraction(None, Extractions(cache_dir), embedding_name)


def extract(reasoner: ExtractiveReasoner, passages: list[Passage], limit: int = 3) -> Any:
    return asyncio.run(reasoner.extract(QUESTION, SUB_QUESTION, passages, limit)).value


def test_the_same_inputs_are_extracted_once_with_the_same_evidence(tmp_path: Path, extractions: list[str]) -> None:
    reasoner = remembering(tmp_path)
    first = extract(reasoner, [DEPOT, FARES])
    again = extract(reasoner, [DEPOT, FARES])
    assert len(extractions) == 1
    assert first and again == first == extract(ExtractiveReasoner(), [DEPOT, FARES])


def test_another_process_finds_the_evidence_on_disk(tmp_path: Path, extractions: list[str]) -> None:
    first = extract(remembering(tmp_path), [DEPOT, FARES])
    extractions.clear()
    assert extract(remembering(tmp_path), [DEPOT, FARES]) == first  # a new process: nothing in memory
    assert extractions == []
    assert list((tmp_path / "extractions").rglob("*.json"))


@pytest.mark.parametrize(
    "change",
    [
        lambda reasoner: extract(reasoner, [DEPOT]),  # other passages
        lambda reasoner: extract(reasoner, [FARES, DEPOT]),  # the same, in another order
        lambda reasoner: extract(reasoner, [DEPOT.model_copy(update={"score": 0.5}), FARES]),  # another score
        lambda reasoner: extract(reasoner, [DEPOT, FARES], limit=1),  # another limit
        lambda reasoner: asyncio.run(
            reasoner.extract(QUESTION, SUB_QUESTION.model_copy(update={"text": "When did the depot open?"}), [DEPOT], 3)
        ),  # another sub-question
    ],
)
def test_other_inputs_are_extracted_again(tmp_path: Path, extractions: list[str], change: Any) -> None:
    reasoner = remembering(tmp_path)
    extract(reasoner, [DEPOT, FARES])
    change(reasoner)
    assert len(extractions) == 2


def test_other_code_or_another_embedding_extracts_again(
    tmp_path: Path, extractions: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    extract(remembering(tmp_path), [DEPOT, FARES])
    extract(remembering(tmp_path, "onnx"), [DEPOT, FARES])
    assert len(extractions) == 2
    monkeypatch.setattr(remembered, "extractive_version", lambda: "edited")
    extract(remembering(tmp_path), [DEPOT, FARES])
    assert len(extractions) == 3


def test_the_version_follows_the_source(tmp_path: Path) -> None:
    assert len(extractive_version()) == 16
    (tmp_path / "scoring.py").write_text("MIN_RELEVANCE = 0.2\n")
    before = source_digest(tmp_path, ("numpy",))
    assert source_digest(tmp_path, ("numpy",)) == before
    (tmp_path / "scoring.py").write_text("MIN_RELEVANCE = 0.3\n")
    edited = source_digest(tmp_path, ("numpy",))
    (tmp_path / "extra.py").write_text("")
    assert len({before, edited, source_digest(tmp_path, ("numpy",)), source_digest(tmp_path, ("nltk",))}) == 4


def test_a_step_with_something_to_say_is_not_kept(
    tmp_path: Path, extractions: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    counted = ExtractiveReasoner.extract

    async def falling(self: ExtractiveReasoner, *args: Any, **options: Any) -> Step[list[Evidence]]:
        found = await counted(self, *args, **options)
        return Step(found.value, fallbacks=(Fallback("extract", "the model's reply was unusable"),))

    monkeypatch.setattr(ExtractiveReasoner, "extract", falling)
    reasoner = remembering(tmp_path)
    extract(reasoner, [DEPOT])
    extract(reasoner, [DEPOT])
    assert len(extractions) == 2


def test_a_disk_that_cannot_keep_it_changes_nothing(tmp_path: Path, extractions: list[str]) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache's folder would be")
    reasoner = remembering(blocked)
    assert extract(reasoner, [DEPOT, FARES]) == extract(ExtractiveReasoner(), [DEPOT, FARES])
    assert extract(reasoner, [DEPOT, FARES])  # kept in memory all the same
    assert len(extractions) == 2  # the remembering reasoner's one and the plain reasoner's one
