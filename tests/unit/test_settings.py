"""Every bad setting is refused by the real command line in one line that names it, with exit code 2."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from research_assistant.cli import EXIT_USAGE, main
from research_assistant.settings import Settings, get_settings

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A fresh working directory (no `.env`), repository and cache for each case."""
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def one_line_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """Run `research-assistant run` on the fixture corpus; assert exit 2 and one line on stderr; return it."""
    code = main(["run", "What is the fare?", "--corpus", str(CORPUS), "--quiet", *args])
    out, err = capsys.readouterr()
    assert code == EXIT_USAGE, err
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("research-assistant: error: ")
    return lines[0]


BAD_SETTINGS = [
    ("RESEARCH_CHUNK_SIZE", "10", "RESEARCH_CHUNK_SIZE"),
    ("RESEARCH_CHUNK_SIZE", "0", "RESEARCH_CHUNK_SIZE"),
    ("RESEARCH_CHUNK_SIZE", "-5", "RESEARCH_CHUNK_SIZE"),
    ("RESEARCH_CHUNK_SIZE", "many", "RESEARCH_CHUNK_SIZE"),
    ("RESEARCH_CHUNK_OVERLAP", "900", "RESEARCH_CHUNK_OVERLAP (900) must be less than RESEARCH_CHUNK_SIZE (900)"),
    ("RESEARCH_CHUNK_OVERLAP", "5000", "RESEARCH_CHUNK_OVERLAP (5000) must be less than RESEARCH_CHUNK_SIZE"),
    ("RESEARCH_CHUNK_OVERLAP", "-1", "RESEARCH_CHUNK_OVERLAP"),
    ("RESEARCH_LLM_PRICES", "notjson", "RESEARCH_LLM_PRICES: not JSON"),
    ("RESEARCH_LLM_PRICES", '{"gemini-2.5-pro": [1.25]}', "RESEARCH_LLM_PRICES"),
    ("RESEARCH_LLM_PRICES", '{"gemini-2.5-pro": ["a", "b"]}', "RESEARCH_LLM_PRICES"),
    ("RESEARCH_LLM_PRICES", "[1, 2]", "RESEARCH_LLM_PRICES"),
    ("RESEARCH_MAX_SECONDS", "0", "RESEARCH_MAX_SECONDS"),
    ("RESEARCH_MAX_SECONDS", "soon", "RESEARCH_MAX_SECONDS"),
    ("RESEARCH_DEPTH", "thorough", "RESEARCH_DEPTH"),
    ("RESEARCH_CITATION_STYLE", "chicago", "RESEARCH_CITATION_STYLE"),
    ("RESEARCH_EMBEDDING", "word2vec", "RESEARCH_EMBEDDING"),
    ("RESEARCH_REASONER", "oracle", "RESEARCH_REASONER"),
    ("RESEARCH_TAVILY_BASE_URL", "ftp://api.tavily.com", "RESEARCH_TAVILY_BASE_URL"),
    ("RESEARCH_GEMINI_BASE_URL", "not a url", "RESEARCH_GEMINI_BASE_URL"),
    ("RESEARCH_MODEL_SYNTHESIS", "google_genai:", "RESEARCH_MODEL_SYNTHESIS"),
    ("RESEARCH_MODEL_JUDGE", "gemini 2.5", "RESEARCH_MODEL_JUDGE"),
    ("RESEARCH_USER_AGENT", "  ", "RESEARCH_USER_AGENT"),
    ("RESEARCH_FETCH_MAX_BYTES", "0", "RESEARCH_FETCH_MAX_BYTES"),
    ("RESEARCH_FETCH_CONCURRENCY", "0", "RESEARCH_FETCH_CONCURRENCY"),
    ("RESEARCH_SEARCH_TIMEOUT", "-1", "RESEARCH_SEARCH_TIMEOUT"),
    ("RESEARCH_LLM_TIMEOUT", "0", "RESEARCH_LLM_TIMEOUT"),
    ("RESEARCH_BUDGET_TOKENS", "0", "RESEARCH_BUDGET_TOKENS"),
    ("RESEARCH_BUDGET_USD", "-2", "RESEARCH_BUDGET_USD"),
    ("RESEARCH_CONFIDENCE_THRESHOLD", "150", "RESEARCH_CONFIDENCE_THRESHOLD"),
    ("RESEARCH_CACHE_TTL_HOURS", "-1", "RESEARCH_CACHE_TTL_HOURS"),
    ("RESEARCH_ALLOW_PRIVATE_NETWORKS", "intranet", "RESEARCH_ALLOW_PRIVATE_NETWORKS"),
    ("RESEARCH_RESPECT_ROBOTS", "perhaps", "RESEARCH_RESPECT_ROBOTS"),
    ("RESEARCH_CACHE_DIR", "{tmp}/a-file", "RESEARCH_CACHE_DIR: {tmp}/a-file exists and is not a folder"),
    ("RESEARCH_DB_DIR", "{tmp}/a-file/db", "RESEARCH_DB_DIR"),
]


@pytest.mark.parametrize(("name", "value", "expected"), BAD_SETTINGS, ids=[f"{n}={v}" for n, v, _ in BAD_SETTINGS])
def test_a_bad_setting_in_the_environment_is_named_in_one_line(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    name: str,
    value: str,
    expected: str,
) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    monkeypatch.setenv(name, value.replace("{tmp}", str(tmp_path)))
    line = one_line_error(capsys)
    assert "invalid setting in the environment or .env" in line
    assert expected.replace("{tmp}", str(tmp_path)) in line
    assert not (tmp_path / "db").exists()  # refused before any run was recorded


def test_the_same_bad_setting_in_dot_env_is_named_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("RESEARCH_DEPTH=deep\nRESEARCH_CHUNK_SIZE=10\n")
    assert "RESEARCH_CHUNK_SIZE" in one_line_error(capsys)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"garbage line\nRESEARCH_DEPTH=deep\nmore garbage here\n", "lines 1, 3: cannot be read"),
        (b"RESEARCH_DEPTH=deep\n'unterminated\n", "line 2: cannot be read"),
        (b"RESEARCH_DEPTH=deep\n\x7fELF\x02\x01\x01\x00\xd0a\xff\xfe" * 400, "line 2: not text"),
        (b"RESEARCH_DEPTH=deep\nX=\x00\x00\x00\n", "line 2: not text"),
    ],
    ids=["garbage lines", "unterminated quote", "binary", "nul bytes"],
)
def test_a_dot_env_that_cannot_be_read_is_named_with_its_lines_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: bytes, expected: str
) -> None:
    (tmp_path / ".env").write_bytes(content)
    line = one_line_error(capsys)
    assert f"{tmp_path / '.env'} {expected}" in line
    assert len(line) < 300


@pytest.mark.parametrize("seconds", ["0", "-1", "-0.5", "nan", "inf"])
def test_max_seconds_must_be_more_than_zero(capsys: pytest.CaptureFixture[str], seconds: str) -> None:
    line = one_line_error(capsys, f"--max-seconds={seconds}")
    assert "--max-seconds must be a number of seconds more than 0" in line


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("--max-sources=0", "--max-sources must be at least 1"),
        ("--recency=-3", "--recency must be a number of days, at least 1"),
        ("--budget-usd=0", "--budget-usd must be an amount above 0, such as 0.50"),
        (
            "--model=synthesis=gpt 4o",
            "the synthesis model 'gpt 4o' is not provider:model, such as google_genai:gemini-2.5-flash",
        ),
    ],
)
def test_a_run_parameter_the_context_refuses_is_named_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, option: str, expected: str
) -> None:
    assert one_line_error(capsys, option).endswith(expected)
    assert not (tmp_path / "db").exists()  # refused before any run was recorded


def test_good_settings_still_load(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("# a comment\n\nexport RESEARCH_DEPTH=deep\nRESEARCH_CHUNK_SIZE=400\n")
    monkeypatch.setenv("RESEARCH_CHUNK_OVERLAP", "399")
    monkeypatch.setenv("RESEARCH_LLM_PRICES", '{"my-model": [0.5, 1]}')
    monkeypatch.setenv("RESEARCH_MODEL_JUDGE", "gemini-2.5-flash")
    settings = get_settings()
    assert (settings.depth, settings.chunk_size, settings.chunk_overlap) == ("deep", 400, 399)
    assert settings.llm_prices == {"my-model": (0.5, 1.0)}
    assert Settings().max_seconds == 600.0


@pytest.mark.parametrize("model", ["gemini 2.5", "openai:", "OpenAI:gpt-4o", ":gpt-4o"])
def test_a_model_name_is_refused_alike_in_the_settings_and_in_a_runs_context(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    from pydantic import ValidationError

    from research_assistant.context import Context, refusal_line

    with pytest.raises(ValidationError) as refused:
        Context(models={"judge": model})
    get_settings.cache_clear()  # the Context's defaults read the settings before the model was set
    monkeypatch.setenv("RESEARCH_MODEL_JUDGE", model)
    assert one_line_error(capsys).endswith(f"RESEARCH_MODEL_JUDGE: {refusal_line(refused.value).split(' ', 3)[3]}")


def test_a_bare_model_name_in_the_settings_is_geminis_as_in_a_runs_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_MODEL_JUDGE", " gemini-2.5-flash-lite ")
    assert get_settings().model_judge == "google_genai:gemini-2.5-flash-lite"
