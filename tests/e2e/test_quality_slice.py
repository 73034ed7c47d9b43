"""A slice of the answer-quality benchmark on real documentation: Debian's python3-doc pages.

Seven questions of the benchmark's own development split, each with its gold page among thirty other
pages of the same manual, researched offline at quick depth. The whole benchmark (three manuals, both
splits, both depths, offline and web) runs with `python benchmarks/quality/run.py`; this keeps its
promises in CI: answers found, no quotation cited to a source that lacks it, every [n] resolving, and no
report that missed its answer looking sure.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from quality import run
from quality.corpus import QuestionSet, copy_corpus, page_files

from research_assistant.settings import get_settings

QUESTIONS = Path(__file__).resolve().parents[2] / "benchmarks" / "quality" / "questions" / "python.json"
SLICE = ("python-01", "python-02", "python-05", "python-13", "python-14", "python-20", "python-23")
DISTRACTORS = 30
SURE = 80.0


@pytest.fixture(scope="module")
def question_set() -> QuestionSet:
    questions = QuestionSet.load(QUESTIONS)
    if not Path(questions.root).is_dir():
        pytest.skip(f"the Python documentation is not installed: apt-get install {questions.package}")
    return questions


@pytest.fixture(scope="module")
def workdir(question_set: QuestionSet, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The slice's corpus: the gold pages of its questions and the first other pages of the manual."""
    root = Path(question_set.root)
    gold = {page for q in question_set.questions if q.id in SLICE for page in q.pages}
    others = [p.as_posix() for p in page_files(root) if p.as_posix() not in gold][:DISTRACTORS]
    chosen = tmp_path_factory.mktemp("python-slice-root")
    for relative in [*sorted(gold), *others]:
        (chosen / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / relative, chosen / relative)
    folder = tmp_path_factory.mktemp("quality-slice")
    assert copy_corpus(chosen, folder / "python" / "corpus") == len(gold) + len(others)
    return folder


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in run.environment_for(None, None).items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.slow
def test_real_documentation_questions_are_answered_with_honest_citations(
    question_set: QuestionSet, workdir: Path, offline: None
) -> None:
    target = run.Target.at(workdir, "python", "offline")
    asyncio.run(run.index_offline(target))
    results = [
        asyncio.run(run.run_question(question, target, "quick"))
        for question in question_set.questions
        if question.id in SLICE
    ]
    assert len(results) == len(SLICE)
    stated = [r["id"] for r in results if r["scores"]["answer_stated"]]
    for result in results:
        scores = result["scores"]
        assert scores["citations_resolve"], (result["id"], scores["unresolved_citations"])
        assert scores["misattributed"] == 0, (result["id"], scores["quote_problems"])
        if not scores["answer_stated"]:
            assert (result["confidence"] or 0) < SURE, f"{result['id']} missed its answer but says it is sure"
    assert len(stated) >= len(SLICE) - 1, f"answers stated only for {stated}"
