"""Which providers a run gets for each kind of source, and what the analyst is told about the rest."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import SecretStr

from research_assistant.search.providers import web_providers
from research_assistant.settings import Settings

ROOT = Path(__file__).resolve().parents[3]


def settings(**values: object) -> Settings:
    return Settings.model_construct(**{**Settings().model_dump(), **values})


def test_web_search_uses_tavily_then_exa_and_names_the_missing_keys() -> None:
    both = settings(tavily_api_key=SecretStr("t"), exa_api_key=SecretStr("e"))
    providers, skipped = web_providers("web", both)
    assert [p.name for p in providers] == ["tavily", "exa"] and skipped == []
    news, _ = web_providers("news", both)
    assert [p.name for p in news] == ["tavily-news", "exa-news"]

    providers, skipped = web_providers("web", settings(tavily_api_key=None, exa_api_key=None))
    assert providers == []
    assert skipped == ["'web' sources skipped: set TAVILY_API_KEY or EXA_API_KEY to search the web"]


def test_wikipedia_and_arxiv_need_no_key_and_exa_backs_up_arxiv_when_it_can() -> None:
    wiki, _ = web_providers("wiki", settings(tavily_api_key=None, exa_api_key=None))
    assert [p.name for p in wiki] == ["wikipedia"]
    academic, _ = web_providers("academic", settings(exa_api_key=SecretStr("e")))
    assert [p.name for p in academic] == ["arxiv", "exa-research-paper"]


def test_every_setting_is_documented_in_the_env_example() -> None:
    example = (ROOT / ".env.example").read_text()
    documented = set(re.findall(r"^#? ?(RESEARCH_[A-Z_]+)=", example, flags=re.MULTILINE))
    expected = {f"RESEARCH_{name.upper()}" for name in Settings.model_fields}
    assert expected - documented == set()


def test_the_analyst_can_limit_the_providers_and_is_told_what_a_kind_lost() -> None:
    both = settings(tavily_api_key=SecretStr("t"), exa_api_key=SecretStr("e"))
    providers, skipped = web_providers("web", both, ["exa"])
    assert [p.name for p in providers] == ["exa"] and skipped == []
    academic, _ = web_providers("academic", both, ["arxiv", "tavily"])
    assert [p.name for p in academic] == ["arxiv"]
    providers, skipped = web_providers("wiki", both, ["tavily"])
    assert providers == [] and skipped == ["'wiki' sources skipped: none of the chosen providers (tavily) serves them"]


def test_provider_choices_say_which_key_each_needs() -> None:
    from research_assistant.search.providers import provider_choices

    choices = {c.name: c for c in provider_choices(settings(tavily_api_key=SecretStr("t"), exa_api_key=None))}
    assert list(choices) == ["tavily", "exa", "wikipedia", "arxiv"]
    assert choices["tavily"].missing == "" and choices["exa"].missing == "set EXA_API_KEY"
    assert choices["wikipedia"].missing == "" and choices["arxiv"].kinds == ("academic",)
