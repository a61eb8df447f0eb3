"""What makes the web server safe to run: one ASGI middleware in front of every route.

In order, for each HTTP request: the Host header must name this server (a DNS-rebinding page in a
browser sends its own name and is refused with 400); with a token, the request must carry it
(`Authorization: Bearer`, or the `token` cookie that visiting `/?token=...` sets; else 401); the
body is read in full, at most `max_body_bytes` (else 413) and without long pauses (else 408),
before any route sees it; and every response, errors included, carries the security headers.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import json
import logging
import os
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote_plus, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
MAX_BODY_BYTES = 2 * 2**20  # an uploaded config.json is a few KB; a plan request well under 1 KB
BODY_CHUNK_TIMEOUT_S = 15.0  # the longest pause between two pieces of a body
BODY_TIMEOUT_S = 60.0  # the longest a whole body may take to arrive
MIN_TOKEN_CHARS = 16
TOKEN_ENV = "GPUWISE_TOKEN"
HOSTS_ENV = "GPUWISE_ALLOWED_HOSTS"
COOKIE = "token"
QUERY = "token"  # /?token=TOKEN: a browser's login
# 'self' only. ReDoc (/redoc) writes its styles from its script (styled-components) and runs its
# search in a worker made from a blob: URL, so that one page also allows inline styles and blob:
# workers; scripts stay this server's files everywhere. Swagger UI (/docs) needs nothing more.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
CSP_REDOC = CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'") + "; worker-src 'self' blob:"
HEADERS = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
}


@dataclass(frozen=True, slots=True)
class WebSettings:
    """How the app guards itself; the defaults are those of a server bound to loopback."""

    allowed_hosts: frozenset[str] = frozenset(LOOPBACK_HOSTS)  # empty: any Host (behind a proxy that checks)
    token: str | None = None
    max_body_bytes: int = MAX_BODY_BYTES
    body_timeout_s: float = BODY_TIMEOUT_S
    chunk_timeout_s: float = BODY_CHUNK_TIMEOUT_S

    @classmethod
    def from_env(cls) -> WebSettings:
        """The settings `gpuwise serve` hands to its worker processes through the environment."""
        hosts = os.environ.get(HOSTS_ENV)
        allowed = frozenset(LOOPBACK_HOSTS) if hosts is None else allowed_hosts_of(hosts.split(","))
        return cls(allowed_hosts=allowed, token=os.environ.get(TOKEN_ENV) or None)


def is_loopback_address(address: str) -> bool:
    """Whether an IP address (not a name) reaches only this machine: 127.0.0.0/8, ::1, and
    127.x.y.z written as an IPv4-mapped IPv6 address. A name, or anything else, is not."""
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return (mapped or ip).is_loopback


def allowed_hosts_of(names: Iterable[str]) -> frozenset[str]:
    """Host names as compared with a request's Host header (no brackets, lower case); "*" means any."""
    out = {n.strip().strip("[]").lower() for n in names if n.strip()}
    return frozenset() if "*" in out else frozenset(out)


def host_of(header: str) -> str:
    """The name in a Host header, without its port: 'a.b:8000' -> 'a.b', '[::1]:8000' -> '::1'."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1 : h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return ""


def _same(given: str, token: str) -> bool:
    """Constant-time comparison, so that the answer time tells nothing about the token."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def _presented(scope: Scope) -> str:
    """The token a request carries: the Authorization header, else the cookie."""
    auth = _header(scope, b"authorization")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(_header(scope, b"cookie"))
    except CookieError:  # a malformed cookie header is no token, not an error
        return ""
    morsel = cookie.get(COOKIE)
    return morsel.value if morsel is not None else ""


class BodyError(Exception):
    """A body too large (413) or too slow (408) to read."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class ClientGone(Exception):
    """The client disconnected before its body was read."""


class Guard:
    """The middleware (see the module's docstring); `settings` are fixed for the app's life."""

    def __init__(self, app: ASGIApp, settings: WebSettings) -> None:
        self.app, self.settings = app, settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = self._with_headers(scope, send)
        query_token = _query_token(scope)
        refusal = self._refusal(scope, query_token)
        if refusal is not None:
            await _answer(send, scope, *refusal)
            return
        if self.settings.token and query_token is not None:
            await self._login(scope, send, query_token)
            return
        try:
            body = await self._read_body(scope, receive)
        except BodyError as exc:
            await _answer(send, scope, exc.status, str(exc))
            return
        except ClientGone:
            return
        await self.app(scope, _replay(body, receive), send)

    def _refusal(self, scope: Scope, query_token: str | None) -> tuple[int, str] | None:
        """400 for a Host this server does not answer to, 401 without the token."""
        allowed = self.settings.allowed_hosts
        if allowed and host_of(_header(scope, b"host")) not in allowed:
            return 400, "this server does not answer to that Host name (start it with --allowed-host NAME)"
        token = self.settings.token
        if token and query_token is None and not _same(_presented(scope), token):
            return 401, "this server needs its token: Authorization: Bearer TOKEN, or open /?token=TOKEN once"
        return None

    async def _login(self, scope: Scope, send: Send, query_token: str) -> None:
        """`?token=...`: a right token becomes an HttpOnly cookie and the URL loses it (303)."""
        token = self.settings.token or ""
        if not _same(query_token, token):
            await _answer(send, scope, 401, "wrong token")
            return
        rest = [(k, v) for k, v in parse_qsl(scope.get("query_string", b"").decode("latin-1")) if k != QUERY]
        location = local_path(str(scope.get("path", "/"))) + (f"?{urlencode(rest)}" if rest else "")
        cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict"
        headers = [(b"location", location.encode("latin-1")), (b"set-cookie", cookie.encode("latin-1"))]
        await send({"type": "http.response.start", "status": 303, "headers": [*headers, (b"content-length", b"0")]})
        await send({"type": "http.response.body", "body": b""})

    async def _read_body(self, scope: Scope, receive: Receive) -> bytes:
        """The whole body, refused early when its declared length is already too large."""
        limit = self.settings.max_body_bytes
        too_large = f"the request body is larger than {limit // 2**20} MiB"
        declared = _header(scope, b"content-length")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:  # '²' is a digit int() refuses
            raise BodyError(413, too_large)
        chunks: list[bytes] = []
        size = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settings.body_timeout_s
        while True:
            wait = min(self.settings.chunk_timeout_s, deadline - loop.time())
            try:
                message = await asyncio.wait_for(receive(), timeout=max(wait, 0.001))
            except TimeoutError:
                raise BodyError(408, "the request body arrived too slowly") from None
            if message["type"] != "http.request":
                raise ClientGone  # nobody is left to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BodyError(413, too_large)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _with_headers(self, scope: Scope, send: Send) -> Send:
        """`send`, adding the security headers to the start of every response."""
        path = str(scope.get("path", ""))
        policy = CSP_REDOC if path == "/redoc" else CSP
        extra = [(k.encode(), v.encode()) for k, v in {**HEADERS, "content-security-policy": policy}.items()]

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {bytes(k).lower() for k, _ in message.get("headers", ())}
                message["headers"] = [*message.get("headers", ()), *(h for h in extra if h[0] not in present)]
            await send(message)

        return wrapped


def local_path(path: str) -> str:
    """A request's path as a redirect target that stays on this server: percent-encoded (no
    backslash, space or control character left for a browser to read as a slash or drop), and
    starting with exactly one slash (`//evil.example/` would name another host; `http://...`
    becomes the path `/http://...`)."""
    return "/" + quote(path, safe="/:@!$&'()*+,;=-._~").lstrip("/")


REDACTED = "[redacted]"
_QUERY_PARAM = re.compile(r"(?P<key>[^?&;=\s\"']+)=(?P<value>[^&;\s\"']*)")
_BEARER = re.compile(r"(?i)\b(bearer\s+)[^\s\"']+")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` without tokens: the value of every `token=` pair (however its name is percent-encoded),
    every Bearer credential, and each of `secrets` as it is or URL-encoded."""
    for secret in secrets:
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            text = text.replace(form, REDACTED)
    text = _BEARER.sub(rf"\g<1>{REDACTED}", text)

    def pair(m: re.Match[str]) -> str:
        return f"{m['key']}={REDACTED}" if unquote_plus(m["key"]).strip().lower() in (QUERY, COOKIE) else m[0]

    return _QUERY_PARAM.sub(pair, text)


class RedactTokens(logging.Filter):
    """A filter for every log handler of `gpuwise serve` (see `redact`): the access log writes each
    request's address, and a login address carries the token. The server's own token is the one
    the worker processes get from the environment."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = [t] if (t := os.environ.get(TOKEN_ENV)) else []
        if not record.args:  # else the message is the code's format string, and the request's data is in args
            record.msg = redact(str(record.msg), secrets)
        elif isinstance(record.args, tuple):
            record.args = tuple(redact(a, secrets) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v, secrets) if isinstance(v, str) else v for k, v in record.args.items()}
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info), secrets)
        return True


def _query_token(scope: Scope) -> str | None:
    """The `token` query parameter, when the request has one."""
    query = scope.get("query_string", b"").decode("latin-1")
    if f"{QUERY}=" not in query:
        return None
    return next((v for k, v in parse_qsl(query) if k == QUERY), None)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the route the body already read, then waits on the real one."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _answer(send: Send, scope: Scope, status: int, message: str) -> None:
    """An error as the API writes them ({"detail": ...}); a person's browser gets it as text."""
    api = str(scope.get("path", "")).startswith("/api/") or "json" in _header(scope, b"accept")
    body = json.dumps({"detail": message}).encode() if api else f"{status}: {message}\n".encode()
    kind = b"application/json" if api else b"text/plain; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
