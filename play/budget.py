"""The web table's request budget: what a request may be before a handler sees it.

``Budget`` is an ASGI middleware in front of the app:

- **Host allow-list.** The ``Host`` header must name this machine (``localhost`` and the
  loopback addresses), an IP address (a DNS-rebinding page reaches the server under a
  name of its own, never under an address), the host the server was bound to, or a name
  given with ``zolik play --allow-host``. Anything else is a 421.
- **Body size, checked before reading.** A ``Content-Length`` over the route's limit is a
  413 at once; a body without one is counted as it arrives and cut off at the limit.
- **Only JSON POSTs** (``application/json``; the replay viewer's ``application/x-ndjson``):
  a form or ``text/plain`` post, which a page on another site may send without the
  browser asking first, is a 415.

``parse_json`` reads a body under limits of its own: nesting depth, integer digits, no
``NaN``/``Infinity``; every refusal is a ``BudgetError`` naming the reason in one line,
never echoing the body.
"""

from __future__ import annotations

import ipaddress
import json
import math
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

MAX_JSON_BYTES = 16_384  # a move or a new game is a few hundred bytes
MAX_REPLAY_BYTES = 1_000_000  # a long jolly match is ~400 kB of JSONL
MAX_DEPTH = 8  # the API's bodies are at most 2 deep
MAX_INT_DIGITS = 30
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
JSON_TYPES = ("application/json",)
REPLAY_TYPES = ("application/json", "application/x-ndjson")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class BudgetError(ValueError):
    """A request over the budget: its HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


def host_allowed(host_header: str, allowed: Iterable[str]) -> bool:
    """Whether ``host_header`` (``name`` or ``name:port``) names an allowed host: one of
    ``allowed`` (lower case) or an IP address."""
    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8765
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    if not host:
        return False
    if host in allowed:
        return True
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def body_limit(path: str) -> int:
    return MAX_REPLAY_BYTES if path == "/api/replays" else MAX_JSON_BYTES


class Budget:
    """The ASGI middleware (see the module docstring)."""

    def __init__(self, app: App, hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = {h.lower() for h in (*LOCAL_HOSTS, *hosts) if h}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        try:
            self.check(scope, headers)
        except BudgetError as err:
            await refuse(send, err.status, err.reason)
            return
        if scope["method"] == "GET" or scope["method"] == "HEAD":
            await self.app(scope, receive, send)
            return
        try:
            body = await read_body(receive, body_limit(scope["path"]))
        except BudgetError as err:
            await refuse(send, err.status, err.reason)
            return
        given = False

        async def replayed() -> Message:
            nonlocal given
            if given:
                return await receive()  # a disconnect, once the app waits for one
            given = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replayed, send)

    def check(self, scope: Scope, headers: dict[str, str]) -> None:
        if not host_allowed(headers.get("host", ""), self.allowed):
            shown = headers.get("host", "")[:60]
            raise BudgetError(421, f"host {shown!r} is not served here (a page on another "
                                   f"site?); start zolik play with --allow-host NAME")
        if scope["method"] not in ("POST", "PUT", "PATCH", "DELETE"):
            return
        limit = body_limit(scope["path"])
        length = headers.get("content-length", "")
        if length and (not length.isdigit() or len(length) > 12 or int(length) > limit):
            raise BudgetError(413, f"a request body of at most {limit} bytes, got "
                                   f"Content-Length {length[:20]!r}")
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        allowed = REPLAY_TYPES if scope["path"] == "/api/replays" else JSON_TYPES
        if kind not in allowed:
            raise BudgetError(415, f"send the request as {' or '.join(allowed)}, got "
                                   f"{kind[:40]!r}")


async def read_body(receive: Receive, limit: int) -> bytes:
    """The whole request body, counted as it arrives: ``BudgetError`` (413) past ``limit``
    bytes (a body sent without a Content-Length, or longer than it said)."""
    chunks, seen = [], 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise BudgetError(400, "the client went away")
        chunk = message.get("body", b"")
        seen += len(chunk)
        if seen > limit:
            raise BudgetError(413, f"a request body of at most {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def refuse(send: Send, status: int, reason: str) -> None:
    body = json.dumps({"error": reason}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > MAX_INT_DIGITS:
        raise BudgetError(400, f"an integer of {len(digits)} digits (at most "
                               f"{MAX_INT_DIGITS})")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BudgetError(400, f"a number out of range: {text[:30]}")
    return value


def _constant(text: str) -> Any:
    raise BudgetError(400, f"{text} is not JSON")


def depth(value: Any) -> int:
    """How deep lists and objects nest in ``value`` (a scalar: 0)."""
    if isinstance(value, dict):
        return 1 + max((depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(v) for v in value), default=0)
    return 0


def parse_json(raw: bytes | str, max_depth: int = MAX_DEPTH) -> Any:
    """``raw`` as JSON within the budget; ``BudgetError`` (400) naming what is wrong."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text, parse_int=_bounded_int, parse_float=_finite,
                           parse_constant=_constant)
    except BudgetError:
        raise
    except UnicodeDecodeError as err:
        raise BudgetError(400, f"malformed JSON: not UTF-8 (byte {err.start})") from None
    except json.JSONDecodeError as err:
        raise BudgetError(400, f"malformed JSON: {err.msg} at line {err.lineno}, column "
                               f"{err.colno}") from None
    except RecursionError:
        raise BudgetError(400, f"JSON nested deeper than {max_depth}") from None
    if depth(value) > max_depth:
        raise BudgetError(400, f"JSON nested deeper than {max_depth}")
    return value
