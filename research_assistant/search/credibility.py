"""How far a source can be trusted, from what can be checked without reading it: who publishes it, and when.

The analyst sees the category, a score and the reasons behind it, so every
point of the score comes with a short phrase ("government domain (.gov)",
"no publication date"). The publisher rules are data (`DOMAIN_RULES`): the
most specific rule matching the host wins, so PubMed counts as a scholarly
index although it is under .gov, and the Stanford Encyclopedia of
Philosophy as a reference work although it is under .edu.

Projects' own documentation (docs.python.org, nodejs.org) and standards
bodies count as official, not reference: like a government writing about
its own rules, they are the primary source on what they document. Reference
means tertiary works that summarize others: encyclopedias, dictionaries,
MDN.

A pure function of its arguments and `today`, so a report can be
reproduced.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from datetime import date, timedelta
from urllib.parse import urlsplit

from research_assistant.schemas import Credibility, SourceCategory, SourceType
from research_assistant.text.urls import host_of, is_web_url

ACADEMIC = SourceCategory.ACADEMIC
OFFICIAL = SourceCategory.OFFICIAL
NEWS = SourceCategory.NEWS
REFERENCE = SourceCategory.REFERENCE
BLOG_OR_FORUM = SourceCategory.BLOG_OR_FORUM
OTHER = SourceCategory.OTHER


@dataclass(frozen=True)
class DomainRule:
    """Hosts equal to `domain` or under it (``gov`` matches ``www.cdc.gov``) are of `category`."""

    domain: str
    category: SourceCategory
    score: float
    reason: str


def _rules(category: SourceCategory, score: float, reason: str, domains: str) -> list[DomainRule]:
    """One rule per domain; '{}' in `reason` is replaced by the domain."""
    return [DomainRule(domain, category, score, reason.format(domain)) for domain in domains.split()]


DOMAIN_RULES: tuple[DomainRule, ...] = tuple(
    [
        *_rules(OFFICIAL, 0.85, "government domain (.{})", "gov gov.uk gov.au gov.in gouv.fr govt.nz go.jp gc.ca"),
        *_rules(OFFICIAL, 0.85, "military domain (.{})", "mil"),
        *_rules(OFFICIAL, 0.85, "international organization (.{})", "int"),
        *_rules(OFFICIAL, 0.85, "EU institution ({})", "europa.eu"),
        *_rules(OFFICIAL, 0.85, "intergovernmental organization ({})", "un.org oecd.org worldbank.org imf.org"),
        *_rules(OFFICIAL, 0.85, "standards body ({})", "w3.org ietf.org rfc-editor.org iso.org whatwg.org"),
        *_rules(
            OFFICIAL,
            0.8,
            "official documentation ({})",
            "python.org rust-lang.org nodejs.org learn.microsoft.com docs.microsoft.com developer.apple.com "
            "docs.oracle.com kernel.org postgresql.org docs.github.com",
        ),
        *_rules(OFFICIAL, 0.7, "project documentation ({})", "readthedocs.io"),
        *_rules(
            ACADEMIC,
            0.9,
            "peer-reviewed publisher ({})",
            "nature.com science.org sciencedirect.com springer.com wiley.com tandfonline.com sagepub.com cell.com "
            "thelancet.com nejm.org bmj.com jamanetwork.com pnas.org plos.org royalsocietypublishing.org "
            "academic.oup.com cambridge.org ieee.org acm.org aps.org iop.org acs.org frontiersin.org mdpi.com "
            "elifesciences.org annualreviews.org",
        ),
        *_rules(
            ACADEMIC,
            0.85,
            "scholarly index ({})",
            "doi.org pubmed.ncbi.nlm.nih.gov ncbi.nlm.nih.gov europepmc.org jstor.org",
        ),
        *_rules(ACADEMIC, 0.75, "scholarly index ({})", "semanticscholar.org"),
        *_rules(
            ACADEMIC,
            0.7,
            "preprint server, not peer-reviewed ({})",
            "arxiv.org biorxiv.org medrxiv.org ssrn.com osf.io researchsquare.com preprints.org",
        ),
        *_rules(ACADEMIC, 0.75, "university domain (.{})", "edu ac.uk edu.au ac.nz ac.jp ac.in edu.cn"),
        *_rules(REFERENCE, 0.85, "peer-reviewed encyclopedia ({})", "plato.stanford.edu scholarpedia.org"),
        *_rules(REFERENCE, 0.8, "edited encyclopedia ({})", "britannica.com"),
        *_rules(REFERENCE, 0.8, "reference documentation ({})", "developer.mozilla.org"),
        *_rules(
            REFERENCE,
            0.75,
            "dictionary ({})",
            "merriam-webster.com oed.com dictionary.cambridge.org collinsdictionary.com",
        ),
        *_rules(REFERENCE, 0.65, "encyclopedia edited by volunteers ({})", "wikipedia.org"),
        *_rules(REFERENCE, 0.6, "wiki edited by volunteers ({})", "wiktionary.org wikidata.org wikimedia.org"),
        *_rules(NEWS, 0.8, "news agency ({})", "reuters.com apnews.com afp.com"),
        *_rules(
            NEWS,
            0.75,
            "major news outlet ({})",
            "bbc.co.uk bbc.com nytimes.com washingtonpost.com theguardian.com wsj.com ft.com economist.com "
            "bloomberg.com npr.org pbs.org aljazeera.com cnn.com nbcnews.com cbsnews.com abcnews.go.com "
            "latimes.com theatlantic.com politico.com axios.com usatoday.com time.com newscientist.com "
            "scientificamerican.com lemonde.fr spiegel.de zeit.de faz.net dw.com france24.com elpais.com "
            "cbc.ca abc.net.au theglobeandmail.com irishtimes.com independent.co.uk telegraph.co.uk",
        ),
        *_rules(
            BLOG_OR_FORUM,
            0.4,
            "blog platform ({})",
            "medium.com substack.com blogspot.com wordpress.com tumblr.com ghost.io dev.to hashnode.dev "
            "livejournal.com wixsite.com",
        ),
        *_rules(
            BLOG_OR_FORUM,
            0.4,
            "user-generated Q&A forum ({})",
            "stackoverflow.com stackexchange.com superuser.com serverfault.com askubuntu.com mathoverflow.net",
        ),
        *_rules(BLOG_OR_FORUM, 0.35, "user-generated forum ({})", "reddit.com quora.com news.ycombinator.com"),
        *_rules(
            BLOG_OR_FORUM,
            0.3,
            "social media ({})",
            "twitter.com x.com facebook.com instagram.com tiktok.com youtube.com linkedin.com",
        ),
        *_rules(OTHER, 0.5, "code hosting, anyone can publish ({})", "github.com gitlab.com bitbucket.org"),
    ]
)

LOCAL_SCORE = 0.7
"""The analyst chose these documents; their content still deserves the usual checks."""
DOCS_LABELS = frozenset({"docs", "doc", "developer", "developers"})
"""A host's first label that marks a documentation site (docs.example.com)."""
UNKNOWN_BY_SOURCE_TYPE: dict[SourceType, tuple[SourceCategory, float, str]] = {
    SourceType.ACADEMIC: (ACADEMIC, 0.6, "found by a scholarly search"),
    SourceType.NEWS: (NEWS, 0.55, "news site not on the list of major outlets"),
    SourceType.WIKI: (REFERENCE, 0.55, "wiki"),
}
"""Sites on no list: what the search provider says they are."""
UNKNOWN = (OTHER, 0.45, "site not on any list of known publishers")

NAMED_AUTHOR = 0.05
NO_AUTHOR = -0.03
NO_DATE = -0.03
PLAIN_HTTP = -0.05
OLD_YEARS, OLD = 10, -0.08
FUTURE = -0.15
AUTHOR_MATTERS = frozenset({NEWS, BLOG_OR_FORUM, OTHER})
"""Where an anonymous page is worth less; official and reference pages rarely name one."""


def assess_credibility(
    url: str,
    *,
    source_type: SourceType,
    author: str | None = None,
    published: str | None = None,
    today: date | None = None,
) -> Credibility:
    """The category of the publisher behind `url`, a score from 0 to 1, and the reasons for both."""
    if source_type is SourceType.LOCAL or not is_web_url(url):
        return Credibility(category=OTHER, score=LOCAL_SCORE, reasons=["your own document"])
    category, score, reason = _publisher(url, source_type)
    reasons = [reason]
    if urlsplit(url).scheme.lower() == "http":
        score += PLAIN_HTTP
        reasons.append("not served over HTTPS")
    if author and author.strip():
        score += NAMED_AUTHOR
        reasons.append("named author")
    elif category in AUTHOR_MATTERS:
        score += NO_AUTHOR
        reasons.append("no named author")
    change, reason = _dating(published, today or date.today())
    score += change
    reasons.append(reason)
    return Credibility(category=category, score=round(min(1.0, max(0.0, score)), 2), reasons=reasons)


def _publisher(url: str, source_type: SourceType) -> tuple[SourceCategory, float, str]:
    host = host_of(url)
    if not host:
        return OTHER, 0.2, "no host name"
    if _is_ip_address(host):
        return OTHER, 0.25, "bare IP address, no domain name"
    matches = [rule for rule in DOMAIN_RULES if host == rule.domain or host.endswith("." + rule.domain)]
    if matches:
        rule = max(matches, key=lambda rule: len(rule.domain))  # the most specific
        return rule.category, rule.score, rule.reason
    labels = host.removeprefix("www.").split(".")
    if labels[0] in DOCS_LABELS and len(labels) > 2:
        return OFFICIAL, 0.7, f"documentation site ({host})"
    if labels[0] == "blog" or "/blog/" in urlsplit(url).path.lower():
        return BLOG_OR_FORUM, 0.45, "blog"
    return UNKNOWN_BY_SOURCE_TYPE.get(source_type, UNKNOWN)


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _dating(published: str | None, today: date) -> tuple[float, str]:
    """The score change and the reason for a publication date (YYYY-MM-DD, maybe with a time)."""
    try:
        day = date.fromisoformat((published or "").strip()[:10])
    except ValueError:
        return NO_DATE, "no publication date"
    if day > today + timedelta(days=1):  # a day of slack for time zones
        return FUTURE, f"publication date in the future ({day.isoformat()})"
    if day < _years_before(today, OLD_YEARS):
        return OLD, f"published {day.isoformat()}, over {OLD_YEARS} years ago"
    return 0.0, f"published {day.isoformat()}"


def _years_before(today: date, years: int) -> date:
    try:
        return today.replace(year=today.year - years)
    except ValueError:  # 29 February
        return today.replace(year=today.year - years, day=28)
