"""The SSRF guard: which addresses the assistant may fetch from, checked on the address actually connected to.

URLs come from search results and from the pages themselves, so any of them
may point at the machine the assistant runs on, its intranet or its cloud
metadata service. Checking the URL alone is not enough: a host name can
resolve to a public address when checked and a private one when connected
(DNS rebinding), and an IP address has many spellings (`2130706433`,
`0x7f.1`, `[::ffff:7f00:1]`). So `check_url` refuses what can be refused
without DNS, with a readable reason, and `guarded_transport` gives httpx a
network backend that resolves each host itself, checks every address and
connects to the checked address, never to the name.

The rule is simple on purpose: only globally routable addresses are allowed,
judged on the embedded IPv4 address for the IPv6 forms that carry one.
Ranges named in `allowed_networks` (intranets, tests on 127.0.0.1) are
allowed too, except cloud-metadata addresses, which must be named exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import ipaddress
import socket
import ssl
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, Sequence
from urllib.parse import unquote, urlsplit

import anyio
import httpcore
import httpx

from research_assistant.text.spaces import clip, collapse
from research_assistant.web.fetched import FetchError, FetchRefused

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str, int], Awaitable[list[str]]]

_SCHEMES = frozenset({"http", "https"})

_METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
        "169.254.170.2",  # AWS ECS task credentials
        "fd00:ec2::254",  # AWS over IPv6
        "100.100.100.200",  # Alibaba Cloud
        "192.0.0.192",  # Oracle Cloud (classic)
    )
)
"""Instance metadata services: they hand out cloud credentials to whoever asks from inside the instance."""

_NAMED_ADDRESSES: dict[str, tuple[IPAddress, ...]] = {
    "localhost": (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")),
    "metadata.google.internal": (ipaddress.ip_address("169.254.169.254"),),
}
"""Names whose addresses are known without asking DNS; `*.localhost` counts as localhost (RFC 6761)."""

_SHARED = ipaddress.ip_network("100.64.0.0/10")
_DOCUMENTATION = tuple(
    ipaddress.ip_network(network)
    for network in ("192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32", "3fff::/20")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SPECIAL: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ipaddress.ip_network(network), label)
    for network, label in (
        ("0.0.0.0/8", "a 'this network' address"),
        ("192.0.0.0/24", "an IETF protocol address"),
        ("198.18.0.0/15", "a benchmarking address"),
        ("240.0.0.0/4", "a reserved address"),
        ("64:ff9b:1::/48", "a local-use NAT64 address"),
        ("2001::/32", "a Teredo address"),
    )
)
"""Ranges that are not public but that older `ipaddress` versions call global, or would only call 'private'."""

_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
"""Full stops that IDNA, and so browsers, read as dots in a host name."""


class AddressPolicy:
    """Decides which hosts and addresses may be fetched; see the module docstring for the rule."""

    def __init__(self, allowed_networks: Sequence[IPNetwork] = (), resolver: Resolver | None = None) -> None:
        self._allowed = tuple(allowed_networks)
        self._resolver = resolver or _system_resolver

    def check_url(self, url: str) -> None:
        """Refuse, without DNS, a URL that is not http(s) or whose host is a forbidden address in any spelling.

        The host is read as httpx reads it (what will be fetched), as `urllib`
        reads it and as a browser reads it, and every reading must pass, so
        that a URL the parsers disagree on cannot slip through any of them.
        """
        try:
            parts = urlsplit(url.strip())
            parts.port  # noqa: B018 - raises ValueError for a port out of range
        except ValueError:
            raise FetchRefused(f"refused: not a valid URL: {clip(collapse(url), 80)}") from None
        scheme = parts.scheme.lower()
        if scheme not in _SCHEMES:
            what = f"{scheme}: URLs" if scheme else "URLs without a scheme"
            raise FetchRefused(f"refused: only http and https URLs are fetched, not {what}")
        # Browsers read a backslash as a slash in http(s) URLs: `http://127.0.0.1\@example.com/` is 127.0.0.1 to them.
        hosts = [parts.hostname or "", urlsplit(url.strip().replace("\\", "/")).hostname or ""]
        try:
            hosts.append(httpx.URL(url.strip()).host)
            parse_error = ""
        except httpx.InvalidURL as error:
            parse_error = str(error)
        for host in hosts:
            self._check_host(host)
        if parse_error:
            raise FetchRefused(f"refused: not a valid URL ({parse_error})")

    def check_ip(self, ip: str | IPAddress) -> None:
        """Refuse an address that is not public, unless `allowed_networks` lets it through (ValueError: not an IP)."""
        address = ipaddress.ip_address(ip) if isinstance(ip, str) else ip
        problem = self._problem(address)
        if problem:
            raise FetchRefused(f"refused: {address} {problem}")

    async def resolve(self, host: str, port: int) -> list[str]:
        """The addresses `host` resolves to, all of them checked: one forbidden address refuses the host."""
        literal = self._check_host(host)
        if literal is not None:
            return [str(literal)]
        try:
            answers = await self._resolver(host, port)
        except OSError as error:
            transient = getattr(error, "errno", None) == socket.EAI_AGAIN
            raise FetchError(f"could not resolve {host}: {error.strerror or error}", retryable=transient) from None
        addresses: list[str] = []
        for answer in answers:
            try:
                address = ipaddress.ip_address(answer)
            except ValueError:
                raise FetchError(f"could not resolve {host}: {answer!r} is not an address") from None
            problem = self._problem(address)
            if problem:
                raise FetchRefused(f"refused: {host} resolves to {address}, which {problem}")
            if str(address) not in addresses:
                addresses.append(str(address))
        if not addresses:
            raise FetchError(f"could not resolve {host}: no addresses")
        return addresses

    def _check_host(self, host: str) -> IPAddress | None:
        """Refuse a host that is forbidden by its spelling alone; return it as an address when it is one."""
        name = _normalize_host(host)
        if not name:
            raise FetchRefused("refused: the URL has no host")
        known = _NAMED_ADDRESSES.get("localhost" if name.endswith(".localhost") else name, ())
        for known_address in known:
            problem = self._problem(known_address)
            if problem:
                raise FetchRefused(f"refused: {name} is {known_address}, which {problem}")
        literal = _literal_address(name)
        if literal is not None:
            self.check_ip(literal)
        return literal

    def _problem(self, address: IPAddress) -> str | None:
        """Why `address` may not be fetched, as a phrase ('is a loopback address'), or None when it may."""
        if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
            address = ipaddress.IPv6Address(str(address).split("%", 1)[0])
        target = _connects_to(address)
        if target in _METADATA_ADDRESSES or address in _METADATA_ADDRESSES:
            # Only a range naming exactly that address lets it through.
            if any(net.num_addresses == 1 and net.network_address == target for net in self._allowed):
                return None
            return _phrase(address, target, "a cloud metadata address")
        if any(address in network or target in network for network in self._allowed):
            return None
        for embedded in _embedded_ipv4(target):
            label = _label(embedded)
            if label is not None:
                return f"embeds {embedded}, {label}"
        if target in _NAT64:
            return None  # a gateway's view of the public IPv4 address checked above
        label = _label(target)
        return None if label is None else _phrase(address, target, label)


def _phrase(address: IPAddress, target: IPAddress, label: str) -> str:
    return f"is {label}" if target == address else f"maps to {target}, {label}"


def _connects_to(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv4-mapped or IPv4-compatible IPv6 address really reaches; otherwise the address."""
    if isinstance(address, ipaddress.IPv4Address):
        return address
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    packed = address.packed
    if packed[:12] == bytes(12) and int(address) > 1:  # IPv4-compatible ::a.b.c.d (deprecated), not :: or ::1
        return ipaddress.IPv4Address(packed[12:])
    return address


def _embedded_ipv4(address: IPAddress) -> Iterable[ipaddress.IPv4Address]:
    """IPv4 addresses carried inside an IPv6 address by NAT64, 6to4 or Teredo: a gateway forwards to them."""
    if isinstance(address, ipaddress.IPv4Address):
        return ()
    if address in _NAT64:
        return (ipaddress.IPv4Address(address.packed[12:]),)
    if address.sixtofour is not None:
        return (address.sixtofour,)
    if address.teredo is not None:
        server, client = address.teredo
        return (client, server)
    return ()


def _label(address: IPAddress) -> str | None:
    """What kind of non-public address this is, or None when it is public (embedded IPv4 not considered)."""
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_loopback:
        return "a loopback address"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address in _SHARED:
        return "a shared (carrier-grade NAT) address"
    if any(address in network for network in _DOCUMENTATION):
        return "a documentation address"
    if address == ipaddress.IPv4Address("255.255.255.255"):
        return "the broadcast address"
    for network, label in _SPECIAL:
        if address in network:
            return label
    if address.is_private:
        return "a private address"
    if address.is_reserved:
        return "a reserved address"
    if not address.is_global:
        return "not a public address"
    return None


def _normalize_host(host: str) -> str:
    """The host as a browser would read it: percent-decoded, NFKC-folded, lower case, no brackets or final dot."""
    name = unicodedata.normalize("NFKC", unquote(host)).translate(_DOTS).lower().strip()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return name[:-1] if name.endswith(".") else name


def _literal_address(name: str) -> IPAddress | None:
    """`name` as an IP address in any spelling the WHATWG URL parser or `inet_aton` accepts; None for a name.

    A host whose last label is a number is an IPv4 address: up to four
    parts, each decimal, octal (leading 0) or hex (0x); the last part fills
    the remaining bytes, so `127.1` is 127.0.0.1 and `2130706433` is too.
    Such a host that is not a valid address is refused rather than guessed.
    """
    if ":" in name:
        try:
            return ipaddress.IPv6Address(name)
        except ValueError:
            raise FetchRefused(f"refused: {name} is not a valid IPv6 address") from None
    parts = name.split(".")
    if not _is_number(parts[-1]):
        return None
    # `inet_aton` reads the same spellings, but stops quietly at white space and takes no bare '0x' (WHATWG's 0).
    parts = ["0" if part in ("0x", "0X") else part for part in parts]
    if all(part.isascii() and part.isalnum() for part in parts):
        with contextlib.suppress(OSError):
            return ipaddress.IPv4Address(socket.inet_aton(".".join(parts)))
    raise FetchRefused(f"refused: {name} is not a valid IPv4 address")


def _is_number(part: str) -> bool:
    if part[:2] in ("0x", "0X"):
        return all(char in "0123456789abcdefABCDEF" for char in part[2:])
    return part != "" and all(char in "0123456789" for char in part)


async def _system_resolver(host: str, port: int) -> list[str]:
    answers = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(answer[4][0]) for answer in answers]


class GuardedNetworkBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that resolves through the policy and connects only to checked addresses.

    httpcore asks the backend for a TCP connection to the URL's host; this
    backend resolves that host itself and connects to one of the checked
    addresses, so a DNS answer that changes between check and connection
    (rebinding) changes nothing. TLS still verifies the certificate against
    the host name, which httpcore passes to `start_tls` from the URL.
    """

    def __init__(self, policy: AddressPolicy, *, resolve_timeout: float) -> None:
        self._policy = policy
        self._resolve_timeout = resolve_timeout
        self._backend = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface passes the timeout
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            with anyio.fail_after(timeout or self._resolve_timeout):
                addresses = await self._policy.resolve(host, port)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"resolving {host} took too long") from None
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._backend.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        assert failure is not None  # resolve() returns at least one address
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore's interface
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise FetchRefused("refused: Unix sockets are never connected to")

    async def sleep(self, seconds: float) -> None:
        await self._backend.sleep(seconds)


def guarded_transport(policy: AddressPolicy, *, connect_timeout: float = 10.0) -> httpx.AsyncHTTPTransport:
    """An httpx transport that connects only where `policy` allows, directly (never through an env proxy).

    `connect_timeout` bounds DNS resolution when httpx gives no connect timeout of its own.
    """
    limits = httpx.Limits()
    tls = _tls_context()
    # No `proxy` and trust_env=False: HTTP(S)_PROXY and friends are ignored, so the connection is really direct.
    transport = httpx.AsyncHTTPTransport(verify=tls, trust_env=False, limits=limits)
    # httpx (pinned <0.29) takes no network backend, so its connection pool is replaced by one that has ours,
    # built with the same settings httpx would use.
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=tls,
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        http1=True,
        http2=False,
        network_backend=GuardedNetworkBackend(policy, resolve_timeout=connect_timeout),
    )
    return transport


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The TLS settings of every guarded transport: the certificate bundle, loaded once per process.

    Loading it costs about 20 ms of CPU, and each transport used to load it twice (httpx's own pool, then the one
    that replaces it); an `SSLContext` is safe to share between connections, threads and event loops.
    """
    return httpx.create_ssl_context(trust_env=False)
