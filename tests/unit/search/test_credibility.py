"""Credibility: the publisher's category, a score that orders sources sensibly, and reasons an analyst can read."""

from __future__ import annotations

from datetime import date

import pytest

from research_assistant.schemas import SourceCategory, SourceType
from research_assistant.search.credibility import assess_credibility

TODAY = date(2025, 6, 1)
WEB = SourceType.WEB


def score(url: str, source_type: SourceType = WEB, **signals: str | None) -> float:
    return assess_credibility(url, source_type=source_type, today=TODAY, **signals).score


@pytest.mark.parametrize(
    ("url", "category", "reason"),
    [
        ("https://www.cdc.gov/flu/about/index.html", SourceCategory.OFFICIAL, "government domain (.gov)"),
        ("https://www.gov.uk/guidance/fares", SourceCategory.OFFICIAL, "government domain (.gov.uk)"),
        ("https://www.army.mil/article/1", SourceCategory.OFFICIAL, "military domain (.mil)"),
        ("https://www.who.int/news-room/fact-sheets", SourceCategory.OFFICIAL, "international organization (.int)"),
        ("https://ec.europa.eu/eurostat/web/main", SourceCategory.OFFICIAL, "EU institution (europa.eu)"),
        (
            "https://docs.python.org/3/library/asyncio.html",
            SourceCategory.OFFICIAL,
            "official documentation (python.org)",
        ),
        ("https://docs.example-vendor.com/api/limits", SourceCategory.OFFICIAL, "documentation site"),
        (
            "https://www.nature.com/articles/s41586-024-1",
            SourceCategory.ACADEMIC,
            "peer-reviewed publisher (nature.com)",
        ),
        ("https://doi.org/10.1000/182", SourceCategory.ACADEMIC, "scholarly index (doi.org)"),
        (
            "https://pubmed.ncbi.nlm.nih.gov/123456/",
            SourceCategory.ACADEMIC,
            "scholarly index (pubmed.ncbi.nlm.nih.gov)",
        ),
        ("https://arxiv.org/abs/2401.00001", SourceCategory.ACADEMIC, "preprint server, not peer-reviewed (arxiv.org)"),
        ("https://cs.stanford.edu/people/x/notes.html", SourceCategory.ACADEMIC, "university domain (.edu)"),
        ("https://www.ox.ac.uk/research", SourceCategory.ACADEMIC, "university domain (.ac.uk)"),
        ("https://plato.stanford.edu/entries/logic/", SourceCategory.REFERENCE, "peer-reviewed encyclopedia"),
        ("https://en.wikipedia.org/wiki/Tram", SourceCategory.REFERENCE, "encyclopedia edited by volunteers"),
        (
            "https://www.britannica.com/technology/tram",
            SourceCategory.REFERENCE,
            "edited encyclopedia (britannica.com)",
        ),
        ("https://www.reuters.com/world/fares", SourceCategory.NEWS, "news agency (reuters.com)"),
        ("https://www.bbc.co.uk/news/uk-1", SourceCategory.NEWS, "major news outlet (bbc.co.uk)"),
        ("https://medium.com/@someone/fares-1", SourceCategory.BLOG_OR_FORUM, "blog platform (medium.com)"),
        ("https://trams.substack.com/p/fares", SourceCategory.BLOG_OR_FORUM, "blog platform (substack.com)"),
        ("https://tramfan.blogspot.com/2020/01/x.html", SourceCategory.BLOG_OR_FORUM, "blog platform (blogspot.com)"),
        ("https://www.reddit.com/r/trams/comments/1", SourceCategory.BLOG_OR_FORUM, "user-generated forum"),
        ("https://news.ycombinator.com/item?id=1", SourceCategory.BLOG_OR_FORUM, "user-generated forum"),
        ("https://stackoverflow.com/questions/1", SourceCategory.BLOG_OR_FORUM, "user-generated Q&A forum"),
        ("https://unix.stackexchange.com/questions/1", SourceCategory.BLOG_OR_FORUM, "user-generated Q&A forum"),
        ("https://www.example-trams.com/fares", SourceCategory.OTHER, "site not on any list of known publishers"),
        ("https://www.example-trams.com/blog/fares", SourceCategory.BLOG_OR_FORUM, "blog"),
        ("http://192.168.1.20/fares", SourceCategory.OTHER, "bare IP address, no domain name"),
    ],
)
def test_publishers_are_categorized_with_a_reason(url: str, category: SourceCategory, reason: str) -> None:
    credibility = assess_credibility(url, source_type=WEB, today=TODAY)

    assert credibility.category is category
    assert credibility.reasons[0].startswith(reason)


def test_the_most_specific_rule_wins() -> None:
    # Under .gov, but a scholarly index; under .edu, but a reference work; under github.com, but its docs.
    assert assess_credibility("https://pubmed.ncbi.nlm.nih.gov/1/", source_type=WEB).category is SourceCategory.ACADEMIC
    assert assess_credibility("https://plato.stanford.edu/x", source_type=WEB).category is SourceCategory.REFERENCE
    assert assess_credibility("https://docs.github.com/en", source_type=WEB).category is SourceCategory.OFFICIAL
    assert assess_credibility("https://github.com/a/b", source_type=WEB).category is SourceCategory.OTHER


def test_lookalike_hosts_do_not_match() -> None:
    for url in ("https://notgov.com/x", "https://mynature.com/x", "https://box.com/x", "https://gov.example.com/x"):
        assert assess_credibility(url, source_type=WEB).category is SourceCategory.OTHER, url


@pytest.mark.parametrize(
    "ranking",
    [
        # Most credible first.
        [
            "https://www.nature.com/articles/1",
            "https://www.cdc.gov/flu",
            "https://www.reuters.com/world/1",
            "https://arxiv.org/abs/1",
            "https://en.wikipedia.org/wiki/Flu",
            "https://www.example-health.com/flu",
            "https://someone.medium.com/flu",
            "https://www.reddit.com/r/flu/1",
            "https://twitter.com/someone/status/1",
        ],
        ["https://www.bbc.co.uk/news/1", "https://www.example-news.net/1", "http://www.example-news.net/1"],
    ],
)
def test_scores_order_sources_as_an_analyst_would(ranking: list[str]) -> None:
    scores = [score(url, published="2024-05-01") for url in ranking]

    assert scores == sorted(scores, reverse=True)
    assert len(set(scores)) == len(scores), dict(zip(ranking, scores, strict=True))


def test_a_named_author_and_a_date_raise_the_score_and_are_given_as_reasons() -> None:
    url = "https://www.example-news.net/fares"
    signed = assess_credibility(url, source_type=WEB, author="Ines Larsson", published="2024-05-01", today=TODAY)
    anonymous = assess_credibility(url, source_type=WEB, today=TODAY)

    assert signed.score > anonymous.score
    assert "named author" in signed.reasons
    assert "published 2024-05-01" in signed.reasons
    assert {"no named author", "no publication date"} <= set(anonymous.reasons)


def test_very_old_pages_score_a_bit_lower() -> None:
    url = "https://www.bbc.co.uk/news/1"
    recent = assess_credibility(url, source_type=WEB, published="2023-01-10", today=TODAY)
    old = assess_credibility(url, source_type=WEB, published="2009-01-10T10:00:00Z", today=TODAY)

    assert old.score < recent.score
    assert recent.score - old.score <= 0.1
    assert "published 2009-01-10, over 10 years ago" in old.reasons


def test_a_future_publication_date_is_suspicious() -> None:
    url = "https://www.bbc.co.uk/news/1"
    future = assess_credibility(url, source_type=WEB, published="2031-01-01", today=TODAY)
    undated = assess_credibility(url, source_type=WEB, today=TODAY)

    assert future.score < undated.score
    assert "publication date in the future (2031-01-01)" in future.reasons
    # A page dated tomorrow is a time zone, not a forgery.
    assert (
        "published 2025-06-02" in assess_credibility(url, source_type=WEB, published="2025-06-02", today=TODAY).reasons
    )


def test_plain_http_scores_lower_than_https() -> None:
    http = assess_credibility("http://www.cdc.gov/flu", source_type=WEB, today=TODAY)

    assert http.score < score("https://www.cdc.gov/flu")
    assert "not served over HTTPS" in http.reasons


def test_unlisted_sites_take_the_providers_word_for_their_kind() -> None:
    url = "https://journal.example-society.org/article/1"

    assert assess_credibility(url, source_type=SourceType.ACADEMIC).category is SourceCategory.ACADEMIC
    assert assess_credibility(url, source_type=SourceType.NEWS).category is SourceCategory.NEWS
    assert assess_credibility(url, source_type=SourceType.WIKI).category is SourceCategory.REFERENCE
    assert assess_credibility(url, source_type=WEB).category is SourceCategory.OTHER


def test_local_documents_are_the_analysts_own() -> None:
    local = assess_credibility("/home/ana/reports/fares.pdf", source_type=SourceType.LOCAL, published="1999-01-01")

    assert local.category is SourceCategory.OTHER
    assert local.reasons == ["your own document"]
    assert 0.6 <= local.score <= 0.8
    assert local == assess_credibility("notes/fares.md", source_type=SourceType.LOCAL)


def test_scores_stay_within_bounds_and_the_function_is_deterministic() -> None:
    best = assess_credibility(
        "https://www.nature.com/1", source_type=WEB, author="A", published="2025-01-01", today=TODAY
    )
    worst = assess_credibility("http://10.0.0.1/x", source_type=WEB, published="2099-01-01", today=TODAY)

    assert 0.0 <= worst.score < best.score <= 1.0
    assert best == assess_credibility(
        "https://www.nature.com/1", source_type=WEB, author="A", published="2025-01-01", today=TODAY
    )
