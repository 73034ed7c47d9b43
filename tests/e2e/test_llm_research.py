"""Research with Gemini end to end: the real command line and the real langchain-google-genai client against a
fake Gemini on 127.0.0.1, with the fake Tavily and the mini-web. Nothing here touches the internet.

The fake model is competent but plain: it reads the data blocks of each prompt and answers in the schema asked
for, quoting passages verbatim and citing the evidence ids it was shown.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.citations import check_rendered_citations
from support.fake_gemini import FakeGemini, FakeGeminiFailure
from support.fake_search_apis import FakeHit, FakeSearchApi
from support.miniweb import MiniWeb

QUESTION = "How much energy did the Marrow Estuary tidal kite array deliver in its first season?"
TAVILY_KEY = "tvly-test-key-not-secret"
GEMINI_KEY = "AIza-test-key-not-secret"
DATA = re.compile(r'<data id="([^"]+)"([^>]*)>\n(.*?)\n</data>', re.DOTALL)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")

pytestmark = pytest.mark.slow


def prompt_of(body: dict[str, Any]) -> str:
    parts = [*body.get("systemInstruction", {}).get("parts", [])]
    parts += [part for content in body.get("contents", []) for part in content.get("parts", [])]
    return "\n".join(str(part.get("text", "")) for part in parts)


def competent(model: str, body: dict[str, Any]) -> Any:
    """A plain, honest model: it answers each schema from the data it is shown, and from nothing else."""
    schema = body["generationConfig"]["responseJsonSchema"]["title"]
    text = prompt_of(body)
    blocks = DATA.findall(text)
    if schema == "AnalysisOut":
        return {"keywords": ["tidal kite array", "energy"], "query_type": "factual", "intent": "full_report"}
    if schema == "PlanOut":
        return {
            "sub_questions": [
                {"text": "How much energy did the kite array deliver?", "queries": ["Marrow Estuary kite energy"]},
                {"text": "How does a tidal kite work?", "queries": ["tidal kite turbine"], "priority": 2},
            ],
            "completion_criteria": "The energy delivered is stated with its source.",
        }
    if schema == "ExtractionOut":
        evidence = [
            {"passage": int(label[1:]), "quote": sentence, "claim": "A figure from the source."}
            for label, _, passage in blocks
            if label.startswith("P")
            for sentence in SENTENCE_END.split(passage)
            if re.search(r"\d", sentence) and sentence.endswith(".")
        ]
        evidence.sort(key=lambda item: "delivered" not in item["quote"])  # the sentence that answers, first
        return {"evidence": evidence[:3]}
    if schema in ("ProgressOut", "AssessmentOut"):  # the last round's judgement asks for no queries
        subs = re.findall(r"^- (q\d+):", text, flags=re.MULTILINE)
        return {"coverage": [{"sub_question": sub, "score": 1.0} for sub in subs]}
    if schema in ("ReportOut", "QuickAnswerOut"):
        cited = [(label, quote) for label, _, quote in blocks if label.startswith("E")]
        findings = [{"text": quote, "evidence": [label]} for label, quote in cited[:3]]
        if schema == "QuickAnswerOut":
            return {"title": "Energy from the Marrow Estuary kites", "answer": findings[:2]}
        return {"title": "Energy from the Marrow Estuary kites", "summary": findings[:2], "key_findings": findings}
    if schema == "VerificationOut":
        count = len(re.findall(r"^Statement \d+:", text, flags=re.MULTILINE))
        return {"verdicts": [{"statement": n, "supported": True} for n in range(1, count + 1)]}
    if schema == "JudgeOut":
        return {"relevance": 0.9, "accuracy": 0.8, "completeness": 0.7, "source_quality": 0.8, "strengths": ["cited"]}
    raise AssertionError(f"unexpected schema {schema}")


@pytest.fixture(scope="module")
def web() -> Iterator[tuple[MiniWeb, FakeSearchApi]]:
    with MiniWeb() as miniweb:
        hits = [FakeHit(miniweb.url("/articles/normal.html"), "Tidal kites of the Marrow Estuary", "Kites.", 0.9)]
        with FakeSearchApi("tavily", api_key=TAVILY_KEY, default_hits=hits) as tavily:
            yield miniweb, tavily


def environment(tavily: FakeSearchApi, gemini_url: str, workdir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RESEARCH_", "TAVILY_", "EXA_", "GEMINI_"))}
    env.pop("GOOGLE_API_KEY", None)
    env.update(
        RESEARCH_TAVILY_API_KEY=TAVILY_KEY,
        RESEARCH_TAVILY_BASE_URL=tavily.base_url,
        GEMINI_API_KEY=GEMINI_KEY,
        RESEARCH_GEMINI_BASE_URL=gemini_url,
        RESEARCH_LLM_MAX_RETRIES="0",
        RESEARCH_ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
        RESEARCH_WAYBACK_BASE_URL="",
        RESEARCH_BROWSER="false",
        RESEARCH_DB_DIR=str(workdir / "db"),
        RESEARCH_CACHE_DIR=str(workdir / "cache"),
        **extra,
    )
    return env


def run_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=180, check=False)


RUN = ["run", QUESTION, "--sources", "web", "--depth", "quick", "--out", "report.md"]


def page_texts(miniweb: MiniWeb, cache: Path) -> dict[str, str]:
    import json

    documents = [json.loads(path.read_text()) for path in (cache / "documents").glob("*.json")]
    return {doc["locator"]: doc["text"] for doc in documents}


def test_a_gemini_research_is_cited_costed_and_an_identical_rerun_costs_nothing(
    web: tuple[MiniWeb, FakeSearchApi], tmp_path: Path
) -> None:
    miniweb, tavily = web
    with FakeGemini(competent, api_key=GEMINI_KEY) as gemini:
        gemini.queue("{this is not JSON")  # the first reply does not parse: the step asks again, no fallback
        env = environment(tavily, gemini.base_url, tmp_path)
        first = run_cli(RUN, env, tmp_path)
        assert first.returncode == 0, first.stderr
        report = (tmp_path / "report.md").read_text()
        assert check_rendered_citations(report, page_texts(miniweb, tmp_path / "cache")) == []
        body, about = report.split("## Sources")[0], report.split("## About this report")[1]
        assert "2.9 GWh" in body and "Energy from the Marrow Estuary kites" in report
        assert "extractive reasoner did this step" not in report
        footer = re.search(r"Model usage: (.*)", about).group(1)  # type: ignore[union-attr]
        tokens = int(re.match(r"([\d,]+) tokens", footer).group(1).replace(",", ""))  # type: ignore[union-attr]
        assert tokens == gemini.prompt_tokens + gemini.candidates_tokens, "the judge's scoring is counted too"
        assert f"({len(gemini.generate_requests)} calls, 1 failed)" in footer  # the reply that did not parse
        assert "[llm/synthesis] synthesis:" in first.stderr and "Reasoner: llm" in about
        calls = len(gemini.generate_requests)
        assert {r.response_schema["title"] for r in gemini.generate_requests} >= {
            "AnalysisOut",
            "ReportOut",
            "JudgeOut",
        }

        run_id = re.search(r"\[run\] started (\w+)", first.stderr).group(1)  # type: ignore[union-attr]
        shown = run_cli(["show", run_id], env, tmp_path)
        roles = ("analysis", "planning", "extraction", "evaluation", "synthesis", "verification", "judge")
        used = dict.fromkeys(roles, 0)
        for role in used:
            found = re.search(rf"Tokens:\s+{role}: ([\d,]+) in, ([\d,]+) out, \$\d", shown.stdout)
            assert found, role
            used[role] = sum(int(n.replace(",", "")) for n in found.groups())
        assert sum(used.values()) == gemini.prompt_tokens + gemini.candidates_tokens, "every token is accounted for"
        assert f"Model usage:  {footer}\n" in shown.stdout, "the report's closing line is what `show` says"

        second = run_cli(RUN, env, tmp_path)
        assert second.returncode == 0, second.stderr
        extra = [r.response_schema["title"] for r in gemini.generate_requests[calls:]]
        assert extra == [], "the identical re-run asked the model nothing"
        rerun = (tmp_path / "report.md").read_text()
        assert re.search(r"Model usage: 0 tokens, \$0\.0000 \(\d+ calls, all answered from the cache\)", rerun)
        assert rerun.split("## Sources")[0] == body
        assert "reply from the cache, 0 tokens" in second.stderr


@pytest.mark.parametrize("failure", ["server error", "unreachable"])
def test_a_failing_gemini_still_gives_a_report_with_a_clear_notice(
    web: tuple[MiniWeb, FakeSearchApi], tmp_path: Path, failure: str
) -> None:
    miniweb, tavily = web
    with FakeGemini(lambda model, body: FakeGeminiFailure(status=500), api_key=GEMINI_KEY) as gemini:
        url = gemini.base_url
    if failure == "server error":
        gemini.start()
        url = gemini.base_url
    try:
        result = run_cli(RUN, environment(tavily, url, tmp_path), tmp_path)
    finally:
        gemini.close()
    assert result.returncode == 0, result.stderr
    report = (tmp_path / "report.md").read_text()
    assert check_rendered_citations(report, page_texts(miniweb, tmp_path / "cache")) == []
    caveats = report.split("## Caveats")[1].split("\n## ")[0]
    reason = "the model call failed: the service had an internal error (500)"
    if failure == "unreachable":
        reason = "the model could not be reached"
    assert f"Analysis: {reason}" in caveats and "the extractive reasoner did this step instead" in caveats
    assert "{" not in caveats and "'error'" not in caveats, "no provider payload reaches the analyst"
    assert "Evidence extraction (sub-question" in caveats  # named by id, once for all sub-questions failing alike
    assert "2.9 GWh" in report.split("## Sources")[0]


def test_the_budget_cap_stops_research_and_the_report_is_still_written(
    web: tuple[MiniWeb, FakeSearchApi], tmp_path: Path
) -> None:
    miniweb, tavily = web
    with FakeGemini(competent, api_key=GEMINI_KEY) as gemini:
        env = environment(tavily, gemini.base_url, tmp_path)
        result = run_cli([*RUN, "--depth", "standard", "--budget-tokens", "300"], env, tmp_path)
    assert result.returncode in (0, 3), result.stderr
    report = (tmp_path / "report.md").read_text()
    assert "budget nearly spent (300 tokens)" in report or "budget of 300 tokens is spent" in report
    assert report.startswith("# ") and check_rendered_citations(report, page_texts(miniweb, tmp_path / "cache")) == []


def test_a_run_can_choose_its_own_model_for_a_role(web: tuple[MiniWeb, FakeSearchApi], tmp_path: Path) -> None:
    _, tavily = web
    with FakeGemini(competent, api_key=GEMINI_KEY) as gemini:
        env = environment(tavily, gemini.base_url, tmp_path)
        result = run_cli([*RUN, "--model", "synthesis=google_genai:gemini-2.5-flash-lite"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    models = {r.response_schema["title"]: r.model for r in gemini.generate_requests}
    assert models["ReportOut"] == "gemini-2.5-flash-lite" and models["PlanOut"] == "gemini-2.5-flash"
