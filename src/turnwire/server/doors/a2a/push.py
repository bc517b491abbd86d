"""Push notifications: a task's stream responses POSTed to a client's webhook, only where the
operator allowed.

``TURNWIRE_A2A_PUSH_ALLOW`` (``Settings.a2a_push_allow``) lists URL patterns (``fnmatch``:
``https://hooks.example.com/*``); a webhook matching none is refused (invalid params), and none
set means the card says ``pushNotifications: false`` and the config methods answer -32003. A
webhook whose host is (or resolves to) a loopback, private, link-local or reserved address is
refused unless a pattern matching it names that host literally (no wildcard in its host): a
pattern ``https://*`` never opens the server's own network. The address is checked again at
every delivery (a name that starts resolving elsewhere is refused then), redirects are not
followed, and each event is tried ``ATTEMPTS`` times with backoff.

Configs are kept in the store, per tenant and task (``store.push_configs``), so a config registered
through any worker reaches the worker running the task's turn, which reads them again every
``REFRESH`` seconds while it streams. Each event is POSTed as its ``StreamResponse`` JSON with
``X-A2A-Notification-Token: <token>``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fnmatch
import ipaddress
import logging
import socket
import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

import httpx

from turnwire.server.doors.a2a.rpc import INVALID_PARAMS, PUSH_NOT_SUPPORTED, RpcError
from turnwire.store import push_configs

log = logging.getLogger("turnwire.server")

TOKEN_HEADER: Final = "X-A2A-Notification-Token"
ATTEMPTS: Final = 3
BACKOFF: Final = 0.2
TIMEOUT: Final = 5.0
MAX_CONFIG_ID: Final = 255
REFRESH: Final = 0.5
"""Seconds a running turn's sender trusts the configs it read (one small read per interval)."""

_senders: set[asyncio.Task[None]] = set()


def enabled(patterns: Sequence[str]) -> bool:
    return bool(patterns)


def _host_literal(pattern: str) -> str | None:
    host = urlsplit(pattern).hostname
    return host if host and not any(c in host for c in "*?[") else None


def refusal(url: str, patterns: Sequence[str], addresses: Sequence[str] = ()) -> str | None:
    """Why ``url`` may not be POSTed to (``None``: it may). ``addresses``: what its host resolves to."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "the webhook must be an http(s) URL with a host"
    matching = [p for p in patterns if fnmatch.fnmatchcase(url, p)]
    if not matching:
        return "the webhook matches no URL pattern the operator allowed (TURNWIRE_A2A_PUSH_ALLOW)"
    named = any(_host_literal(p) == parts.hostname for p in matching)
    for address in (parts.hostname, *addresses):
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            continue
        if (
            ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_reserved or ip.is_multicast
        ) and not named:
            return f"the webhook's address {ip} is not public, and no allowed pattern names its host"
    return None


async def _addresses(url: str) -> list[str]:
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except socket.gaierror:
        return []
    return [str(info[4][0]) for info in infos]


async def create_config(
    store: Any, tenant: str, task_id: str, raw: Any, patterns: Sequence[str], field: str
) -> dict[str, Any]:
    """Register a webhook for ``task_id`` (the task is the caller's: checked before)."""
    if not enabled(patterns):
        raise RpcError(PUSH_NOT_SUPPORTED, "push notifications are not enabled on this server")
    if not isinstance(raw, dict) or not isinstance(raw.get("url"), str):
        raise RpcError(INVALID_PARAMS, f"{field}.url must be a string", {"field": f"{field}.url"})
    url = raw["url"]
    reason = refusal(url, patterns, await _addresses(url))
    if reason is not None:
        raise RpcError(INVALID_PARAMS, reason, {"field": f"{field}.url", "reason": "push_url_refused"})
    token = raw.get("token")
    given = raw.get("id") or None  # proto3 JSON may send "" for an id it leaves to the server
    if given is not None and not (isinstance(given, str) and 0 < len(given) <= MAX_CONFIG_ID):
        msg = f"{field}.id must be a string of 1 to {MAX_CONFIG_ID} characters"
        raise RpcError(INVALID_PARAMS, msg, {"field": f"{field}.id"})
    config = {
        "id": given or uuid.uuid4().hex,
        "taskId": task_id,
        "url": url,
    }
    if isinstance(token, str) and token:
        config["token"] = token
    await push_configs.save(store, tenant, task_id, config)
    return config


async def configs(store: Any, tenant: str, task_id: str) -> list[dict[str, Any]]:
    return await push_configs.load(store, tenant, task_id)


async def delete_config(store: Any, tenant: str, task_id: str, config_id: Any) -> bool:
    if not isinstance(config_id, str):
        return False
    return await push_configs.delete(store, tenant, task_id, config_id)


async def tapped(
    body: AsyncIterator[bytes], store: Any, tenant: str, task_id: str, patterns: Sequence[str]
) -> AsyncIterator[bytes]:
    """``body`` (a task turn's SSE events) unchanged, each event also delivered to the task's
    webhooks in order (by one sender task, so a slow webhook or the store never holds the stream
    back)."""
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    sender = asyncio.get_running_loop().create_task(_send_all(queue, store, tenant, task_id, patterns))
    _senders.add(sender)  # held until done: the sender outlives the stream by its retries
    sender.add_done_callback(_senders.discard)
    try:
        async with contextlib.aclosing(body):  # type: ignore[type-var]
            async for chunk in body:
                for event in chunk.split(b"\n\n"):
                    if event.startswith(b"data: "):
                        queue.put_nowait(event[6:])
                yield chunk
    finally:
        queue.put_nowait(None)


async def _send_all(
    queue: asyncio.Queue[bytes | None], store: Any, tenant: str, task_id: str, patterns: Sequence[str]
) -> None:
    loop = asyncio.get_running_loop()
    found: list[dict[str, Any]] = []
    read_at = -REFRESH
    async with httpx.AsyncClient(timeout=TIMEOUT, follow_redirects=False) as client:
        while (payload := await queue.get()) is not None:
            if loop.time() - read_at >= REFRESH:
                try:
                    found = await configs(store, tenant, task_id)
                except Exception:  # the store is away: deliver to the webhooks known so far
                    log.warning("could not read the push configs of task %s", task_id, exc_info=True)
                read_at = loop.time()
            for config in found:
                await _deliver(client, config, payload, patterns)


async def _deliver(
    client: httpx.AsyncClient, config: dict[str, Any], payload: bytes, patterns: Sequence[str]
) -> None:
    url = config["url"]
    reason = refusal(url, patterns, await _addresses(url))
    if reason is not None:  # the name resolves elsewhere now, or the operator narrowed the list
        log.warning("not delivering a push notification of task %s: %s", config["taskId"], reason)
        return
    headers = {"content-type": "application/json"}
    if config.get("token"):
        headers[TOKEN_HEADER] = config["token"]
    for attempt in range(ATTEMPTS):
        try:
            response = await client.post(url, content=payload, headers=headers)
            if response.status_code < 500 and response.status_code != 429:
                return
        except httpx.HTTPError:
            pass
        await asyncio.sleep(BACKOFF * 2**attempt)
    log.warning("a push notification of task %s was not delivered after %d tries", config["taskId"], ATTEMPTS)
