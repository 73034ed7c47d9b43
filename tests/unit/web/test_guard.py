"""The SSRF guard: every spelling of a forbidden address is refused, public ones pass, DNS rebinding does not work."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

import httpx
import pytest
from support.miniweb import MiniWeb
from support.tls import count_bundle_loads

from research_assistant.web import guard
from research_assistant.web.fetched import FetchError, FetchRefused
from research_assistant.web.guard import AddressPolicy, Resolver, guarded_transport

LOOPBACK = [ipaddress.ip_network("127.0.0.0/8")]

# (url, a fragment of the refusal reason, or None when the URL must pass)
URL_CASES = [
    ("http://2130706433/", "127.0.0.1 is a loopback address"),
    ("http://0177.0.0.1/", "127.0.0.1 is a loopback address"),
    ("http://0x7f.0.0.1/", "127.0.0.1 is a loopback address"),
    ("http://0x7f000001/", "127.0.0.1 is a loopback address"),
    ("http://0x7F.1/", "127.0.0.1 is a loopback address"),
    ("http://127.1/", "127.0.0.1 is a loopback address"),
    ("http://127.0.1/", "127.0.0.1 is a loopback address"),
    ("http://127.0.0.1./", "127.0.0.1 is a loopback address"),
    ("http://017700000001/", "127.0.0.1 is a loopback address"),
    ("http://%31%32%37.0.0.1/", "127.0.0.1 is a loopback address"),
    ("http://１２７.０.０.１/", "127.0.0.1 is a loopback address"),
    ("http://user:secret@127.0.0.1/", "127.0.0.1 is a loopback address"),
    ("http://example.com@127.0.0.1:8080/", "127.0.0.1 is a loopback address"),
    ("http://127.0.0.1\\@example.com/", "127.0.0.1 is a loopback address"),
    ("http://[::1]/", "::1 is a loopback address"),
    ("http://[::]/", ":: is an unspecified address"),
    ("http://[fe80::1%25eth0]/", "is a link-local address"),
    ("http://[fd12:3456::1]/", "fd12:3456::1 is a private address"),
    ("http://[::ffff:127.0.0.1]/", "maps to 127.0.0.1, a loopback address"),
    ("http://[::ffff:7f00:1]/", "maps to 127.0.0.1, a loopback address"),
    ("http://[::ffff:10.0.0.1]/", "maps to 10.0.0.1, a private address"),
    ("http://[::127.0.0.1]/", "maps to 127.0.0.1, a loopback address"),
    ("http://[64:ff9b::a9fe:a9fe]/", "embeds 169.254.169.254, a link-local address"),
    ("http://[64:ff9b::7f00:1]/", "embeds 127.0.0.1, a loopback address"),
    ("http://[2002:c0a8:101::1]/", "embeds 192.168.1.1, a private address"),
    ("http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/", "embeds 10.0.0.1, a private address"),
    ("http://10.0.0.1/", "10.0.0.1 is a private address"),
    ("http://10.255.255.254:8080/admin", "10.255.255.254 is a private address"),
    ("http://172.16.0.1/", "172.16.0.1 is a private address"),
    ("http://172.31.255.255/", "172.31.255.255 is a private address"),
    ("http://192.168.1.1/", "192.168.1.1 is a private address"),
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a cloud metadata address"),
    ("http://[fd00:ec2::254]/", "fd00:ec2::254 is a cloud metadata address"),
    ("http://[::ffff:169.254.169.254]/", "169.254.169.254, a cloud metadata address"),
    ("http://100.100.100.200/latest/meta-data/", "100.100.100.200 is a cloud metadata address"),
    ("http://100.64.0.1/", "100.64.0.1 is a shared (carrier-grade NAT) address"),
    ("http://169.254.1.1/", "169.254.1.1 is a link-local address"),
    ("http://0.0.0.0/", "0.0.0.0 is an unspecified address"),
    ("http://0/", "0.0.0.0 is an unspecified address"),
    ("http://224.0.0.1/", "224.0.0.1 is a multicast address"),
    ("http://240.0.0.1/", "240.0.0.1 is a reserved address"),
    ("http://255.255.255.255/", "255.255.255.255 is the broadcast address"),
    ("http://192.0.2.10/", "192.0.2.10 is a documentation address"),
    ("http://[2001:db8::1]/", "2001:db8::1 is a documentation address"),
    ("http://metadata.google.internal/computeMetadata/v1/", "metadata.google.internal is 169.254.169.254"),
    ("http://METADATA.google.internal./", "metadata.google.internal is 169.254.169.254"),
    ("http://localhost:8501/", "localhost is 127.0.0.1, which is a loopback address"),
    ("http://api.localhost/", "api.localhost is 127.0.0.1"),
    ("http://1.2.3.4.5/", "1.2.3.4.5 is not a valid IPv4 address"),
    ("http://08.0.0.1/", "08.0.0.1 is not a valid IPv4 address"),
    ("http://256.0.0.1/", "256.0.0.1 is not a valid IPv4 address"),
    ("http://0x7f.0x.0.1/", "127.0.0.1 is a loopback address"),  # a bare 0x is 0 (WHATWG)
    ("http://93.184.215.14%09.1/", "is not a valid IPv4 address"),  # inet_aton would stop at the tab: no guess
    ("file:///etc/passwd", "not file: URLs"),
    ("ftp://example.com/file.txt", "not ftp: URLs"),
    ("gopher://example.com:70/_GET", "not gopher: URLs"),
    ("javascript:alert(document.cookie)", "not javascript: URLs"),
    ("data:text/html,<script>alert(1)</script>", "not data: URLs"),
    ("//example.com/path", "URLs without a scheme"),
    ("http:///path", "has no host"),
    ("http://[::1/", "not a valid URL"),
    ("http://example.com:99999/", "not a valid URL"),
    ("https://example.com/article?id=1#top", None),
    ("HTTP://Example.COM/", None),
    ("http://93.184.215.14/", None),
    ("http://8.8.8.8:8080/", None),
    ("http://[2606:4700:4700::1111]/", None),
    ("http://[64:ff9b::808:808]/", None),
    ("http://[2002:808:808::1]/", None),
    ("http://172.32.0.1/", None),
    ("http://127.0.0.1.nip.io/", None),  # a name: judged on what it resolves to, at connect time
]


@pytest.mark.parametrize(("url", "reason"), URL_CASES)
def test_check_url(url: str, reason: str | None) -> None:
    policy = AddressPolicy()
    if reason is None:
        policy.check_url(url)
        return
    with pytest.raises(FetchRefused) as refused:
        policy.check_url(url)
    message = str(refused.value)
    assert message.startswith("refused: ")
    assert "\n" not in message
    assert reason in message


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/",
        "http://2130706433/",
        "http://127.1/",
        "http://0x7f.0.0.1/",
        "http://[::ffff:127.0.0.1]/",
    ],
)
def test_allowed_networks_let_a_loopback_address_through(url: str) -> None:
    AddressPolicy(LOOPBACK).check_url(url)


@pytest.mark.parametrize(
    ("allowed", "url"),
    [
        (["169.254.0.0/16"], "http://169.254.169.254/"),
        (["0.0.0.0/0"], "http://169.254.169.254/"),
        (["0.0.0.0/0"], "http://100.100.100.200/"),
        (["::/0"], "http://[fd00:ec2::254]/"),
        (["0.0.0.0/0"], "http://[::ffff:169.254.169.254]/"),
        (["0.0.0.0/0"], "http://metadata.google.internal/"),
    ],
)
def test_metadata_addresses_need_to_be_named_exactly(allowed: list[str], url: str) -> None:
    policy = AddressPolicy([ipaddress.ip_network(network) for network in allowed])
    with pytest.raises(FetchRefused, match="cloud metadata address"):
        policy.check_url(url)


def test_a_metadata_address_named_exactly_is_allowed() -> None:
    AddressPolicy([ipaddress.ip_network("169.254.169.254/32")]).check_url("http://169.254.169.254/latest/")


def test_allowing_the_loopback_range_does_not_allow_other_private_ranges() -> None:
    policy = AddressPolicy(LOOPBACK)
    with pytest.raises(FetchRefused, match=r"10\.0\.0\.1 is a private address"):
        policy.check_url("http://10.0.0.1/")
    with pytest.raises(FetchRefused, match="loopback"):
        policy.check_ip("::1")


@pytest.mark.parametrize(
    ("ip", "allowed"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("::ffff:8.8.8.8", True),
        ("64:ff9b::8.8.8.8", True),
        ("127.0.0.1", False),
        ("::ffff:192.168.0.1", False),
        ("2002:a00:1::", False),
        ("fe80::1%eth0", False),
        ("64:ff9b:1::8.8.8.8", False),
        ("198.18.0.1", False),
    ],
)
def test_check_ip(ip: str, allowed: bool) -> None:
    policy = AddressPolicy()
    if allowed:
        policy.check_ip(ip)
    else:
        with pytest.raises(FetchRefused):
            policy.check_ip(ip)


def resolver_for(answers: dict[str, list[str]]) -> tuple[list[str], Resolver]:
    """A fake DNS: `answers` per host name; also returns the list of names it was asked for."""
    asked: list[str] = []

    async def resolve(host: str, port: int) -> list[str]:
        asked.append(host)
        if host not in answers:
            raise OSError(-2, "Name or service not known")
        return answers[host]

    return asked, resolve


async def test_resolve_refuses_localhost_from_dns() -> None:
    asked, resolver = resolver_for({"intranet.example": ["127.0.0.1"]})
    policy = AddressPolicy(resolver=resolver)
    with pytest.raises(FetchRefused, match=r"intranet\.example resolves to 127\.0\.0\.1, which is a loopback"):
        await policy.resolve("intranet.example", 80)
    assert asked == ["intranet.example"]


async def test_localhost_and_metadata_names_are_refused_without_asking_dns() -> None:
    asked, resolver = resolver_for({"localhost": ["93.184.215.14"], "metadata.google.internal": ["93.184.215.14"]})
    policy = AddressPolicy(resolver=resolver)
    with pytest.raises(FetchRefused, match="loopback"):
        await policy.resolve("localhost", 80)
    with pytest.raises(FetchRefused, match="cloud metadata"):
        await policy.resolve("metadata.google.internal", 80)
    assert asked == []


async def test_one_private_answer_among_public_ones_refuses_the_host() -> None:
    _, resolver = resolver_for({"mixed.example": ["93.184.215.14", "10.1.2.3"]})
    policy = AddressPolicy(resolver=resolver)
    with pytest.raises(FetchRefused, match=r"mixed\.example resolves to 10\.1\.2\.3, which is a private address"):
        await policy.resolve("mixed.example", 443)


async def test_public_answers_are_returned_once_each() -> None:
    _, resolver = resolver_for({"public.example": ["93.184.215.14", "2606:2800:21f:cb07::1", "93.184.215.14"]})
    policy = AddressPolicy(resolver=resolver)
    assert await policy.resolve("public.example", 443) == ["93.184.215.14", "2606:2800:21f:cb07::1"]


async def test_literal_addresses_are_not_sent_to_dns() -> None:
    asked, resolver = resolver_for({})
    policy = AddressPolicy(LOOPBACK, resolver=resolver)
    assert await policy.resolve("0x7f.1", 80) == ["127.0.0.1"]
    assert asked == []


async def test_unknown_host_is_a_fetch_error_not_a_refusal() -> None:
    _, resolver = resolver_for({})
    policy = AddressPolicy(resolver=resolver)
    with pytest.raises(FetchError, match=r"could not resolve nowhere\.example") as failed:
        await policy.resolve("nowhere.example", 80)
    assert not isinstance(failed.value, FetchRefused)


@pytest.fixture
def web() -> Iterator[MiniWeb]:
    with MiniWeb() as server:
        yield server


async def test_transport_connects_to_the_address_it_checked(web: MiniWeb) -> None:
    """The host name goes to the policy's resolver, never to the system's: 'site.test' exists only there."""
    asked, resolver = resolver_for({"site.test": ["127.0.0.1"]})
    policy = AddressPolicy(LOOPBACK, resolver=resolver)
    async with httpx.AsyncClient(transport=guarded_transport(policy)) as client:
        response = await client.get(f"http://site.test:{web.port}/notes.txt")
    assert response.status_code == 200
    assert "Marrow Estuary" in response.text
    assert asked == ["site.test"]
    assert web.hits["/notes.txt"] == 1


async def test_dns_rebinding_is_refused_at_connect_time(web: MiniWeb) -> None:
    """Public when checked, loopback when connecting: the connection is refused and the server never hears of it."""
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])

    async def rebinding(host: str, port: int) -> list[str]:
        return next(answers)

    policy = AddressPolicy(resolver=rebinding)
    assert await policy.resolve("rebind.test", web.port) == ["93.184.215.14"]  # a check made ahead of time passes
    async with httpx.AsyncClient(transport=guarded_transport(policy)) as client:
        with pytest.raises(FetchRefused, match=r"rebind\.test resolves to 127\.0\.0\.1, which is a loopback address"):
            await client.get(f"http://rebind.test:{web.port}/notes.txt")
    assert web.hits["/notes.txt"] == 0


async def test_transport_refuses_a_loopback_literal_without_allowed_networks(web: MiniWeb) -> None:
    async with httpx.AsyncClient(transport=guarded_transport(AddressPolicy())) as client:
        with pytest.raises(FetchRefused, match="loopback"):
            await client.get(web.url("/notes.txt"))
    assert web.hits["/notes.txt"] == 0


async def test_transport_ignores_proxy_settings(web: MiniWeb, monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy from the environment would connect for us, out of the guard's sight."""
    monkeypatch.setenv("HTTP_PROXY", "http://10.9.9.9:3128")
    monkeypatch.setenv("ALL_PROXY", "http://10.9.9.9:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    async with httpx.AsyncClient(transport=guarded_transport(AddressPolicy(LOOPBACK))) as client:
        response = await client.get(web.url("/notes.txt"))
    assert response.status_code == 200


async def test_transports_load_the_certificate_bundle_once_per_process(
    web: MiniWeb, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loading it costs about 20 ms of CPU; every fetcher's client (one per event loop) shares it."""
    loaded = count_bundle_loads(monkeypatch)
    guard._tls_context.cache_clear()
    try:
        for _ in range(3):
            async with httpx.AsyncClient(transport=guarded_transport(AddressPolicy(LOOPBACK))) as client:
                assert (await client.get(web.url("/notes.txt"))).status_code == 200
    finally:
        guard._tls_context.cache_clear()
    assert len(loaded) == 1
