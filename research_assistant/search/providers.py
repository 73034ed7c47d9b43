"""Which search providers a run gets: providers per source kind, built from the settings.

Each source kind has its providers in order of preference; the search routing
treats those of one kind as fallbacks for one another. A provider that needs
a key it does not have is left out, and the analyst is told which key.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from research_assistant.search.base import SearchProvider
from research_assistant.settings import Settings


@dataclass(frozen=True)
class ProviderChoice:
    """A search provider the analyst can choose, and the key it still needs ("" when it is configured)."""

    name: str
    label: str
    kinds: tuple[str, ...]
    missing: str = ""


def provider_choices(settings: Settings) -> list[ProviderChoice]:
    """Every provider family, in order of preference, each saying whether it can be used here."""
    return [
        ProviderChoice("tavily", "Tavily", ("web", "news"), "" if settings.tavily_api_key else "set TAVILY_API_KEY"),
        ProviderChoice("exa", "Exa", ("web", "news", "academic"), "" if settings.exa_api_key else "set EXA_API_KEY"),
        ProviderChoice("wikipedia", "Wikipedia", ("wiki",)),
        ProviderChoice("arxiv", "arXiv", ("academic",)),
    ]


def web_providers(
    kind: str, settings: Settings, allowed: Collection[str] | None = None
) -> tuple[list[SearchProvider], list[str]]:
    """The providers for one web source kind, and what was skipped; `allowed` limits the provider families."""
    providers, skipped = _configured_providers(kind, settings)
    if allowed is None:
        return providers, skipped
    # A provider's family is its name's first part: 'tavily' for 'tavily-news', 'exa' for 'exa-research-paper'.
    chosen = [provider for provider in providers if provider.name.split("-", 1)[0] in allowed]
    if providers and not chosen:
        return [], [f"'{kind}' sources skipped: none of the chosen providers ({', '.join(allowed)}) serves them"]
    return chosen, skipped


def _configured_providers(kind: str, settings: Settings) -> tuple[list[SearchProvider], list[str]]:
    """The providers for one web source kind ('web', 'news', 'academic', 'wiki'), and what was skipped."""
    from research_assistant.search.arxiv import ArxivProvider
    from research_assistant.search.exa import ExaProvider
    from research_assistant.search.tavily import TavilyProvider, TavilyTopic
    from research_assistant.search.wikipedia import WikipediaProvider

    timeout = settings.search_timeout
    tavily_key = settings.tavily_api_key.get_secret_value() if settings.tavily_api_key else ""
    exa_key = settings.exa_api_key.get_secret_value() if settings.exa_api_key else ""
    providers: list[SearchProvider] = []
    if kind in ("web", "news"):
        topic: TavilyTopic = "news" if kind == "news" else "general"
        if tavily_key:
            providers.append(TavilyProvider(tavily_key, settings.tavily_base_url, topic=topic, timeout=timeout))
        if exa_key:
            category = "news" if kind == "news" else None
            providers.append(ExaProvider(exa_key, settings.exa_base_url, category=category, timeout=timeout))
        if not providers:
            return [], [f"'{kind}' sources skipped: set TAVILY_API_KEY or EXA_API_KEY to search the web"]
        return providers, []
    if kind == "academic":
        providers.append(ArxivProvider(settings.arxiv_base_url, timeout=timeout, user_agent=settings.user_agent))
        if exa_key:
            providers.append(ExaProvider(exa_key, settings.exa_base_url, category="research paper", timeout=timeout))
        return providers, []
    if kind == "wiki":
        return [WikipediaProvider(settings.wikipedia_base_url, timeout=timeout, user_agent=settings.user_agent)], []
    raise ValueError(f"unknown web source kind {kind!r}")
