"""Updates: queueing them, replaying or delaying them, and delivering them by
``getUpdates`` or to a webhook.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import TYPE_CHECKING

import aiohttp

if TYPE_CHECKING:
    pass
from typing import TYPE_CHECKING

from tests.e2e.fakes.telegram.errors import (
    CONFLICT_OTHER_POLLER,
    CONFLICT_WEBHOOK_ACTIVE,
    ApiError,
    _bad_request,
)
from tests.e2e.fakes.telegram.params import _as_int
from tests.e2e.fakes.telegram.protocol import _OPT_IN_UPDATES, _SECRET_TOKEN, _WEBHOOK_SECRET
from tests.e2e.fakes.telegram.records import WebhookConfig, WebhookDelivery, _Pending
from tests.e2e.fakes.telegram.state import FakeTelegramState

if TYPE_CHECKING:
    from tests.e2e.fakes.telegram.protocol import JSONDict, Params


class Updates(FakeTelegramState):
    """The update queue and both ways Telegram delivers it."""

    def push_update(self, payload: JSONDict) -> int:
        """Queue a raw update of any type (``{"my_chat_member": {...}}``); returns its id."""
        update = {"update_id": self._next_update_id, **payload}
        self._next_update_id += 1
        self.updates.append(update)
        self._pending.append(_Pending(update))
        self._notify()
        return int(update["update_id"])

    def update(self, update_id: int) -> JSONDict:
        for update in self.updates:
            if update["update_id"] == update_id:
                return update
        raise KeyError(update_id)

    def replay(self, update_id: int) -> None:
        """Deliver an already delivered update once more, with the same ``update_id``.

        Telegram does this after a webhook answered non-2xx or a poller died before
        confirming; a correct bot deduplicates by ``update_id``.
        """
        self._pending.append(_Pending(json.loads(json.dumps(self.update(update_id))), True))
        self._notify()

    def deliver_late(self, update_id: int) -> None:
        """Deliver a queued update after those queued now, as Telegram may with a
        webhook: it sends up to ``max_connections`` updates at once, and a slow
        delivery (or one tried again) arrives after newer ones.  The bot can put
        them back in order by ``update_id``."""
        entry = next((p for p in self._pending if p.update_id == update_id), None)
        if entry is None:
            raise KeyError(f"update {update_id} is not waiting to be delivered")
        self._pending.remove(entry)
        self._pending.append(entry)
        self._notify()

    @property
    def pending_update_count(self) -> int:
        return len(self._pending)

    async def _get_updates(self, params: Params) -> list[JSONDict]:
        """Long polling with Telegram's semantics.

        ``offset`` confirms (forgets) every earlier update; a newer ``getUpdates`` request
        terminates a pending one with 409, which is how two running instances notice each
        other; the call returns as soon as an update is queued.
        """
        if self.webhook is not None:
            raise ApiError(409, CONFLICT_WEBHOOK_ACTIVE)
        offset = _as_int(params.get("offset", 0), "offset")
        limit = min(max(_as_int(params.get("limit", 100), "limit"), 1), 100)
        timeout = max(float(params.get("timeout", 0) or 0), 0.0)
        if params.get("allowed_updates") is not None:
            self._allowed_updates = tuple(params["allowed_updates"])
        self._confirm(offset)
        self._poll_generation += 1
        generation = self._poll_generation
        self._notify()  # wakes (and so terminates) an earlier poll
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            if generation != self._poll_generation:
                raise ApiError(409, CONFLICT_OTHER_POLLER)
            if self.webhook is not None:
                raise ApiError(409, CONFLICT_WEBHOOK_ACTIVE)
            batch = self._deliverable(limit)
            remaining = deadline - loop.time()
            if batch or remaining <= 0 or self._closing:
                for entry in batch:
                    entry.replay = False
                return [entry.update for entry in batch]
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def _confirm(self, offset: int) -> None:
        if offset > 0:
            self._pending = [p for p in self._pending if p.replay or p.update_id >= offset]
        elif offset < 0:
            self._pending = self._pending[offset:]

    def _deliverable(self, limit: int) -> list[_Pending]:
        """The next updates of the types the bot asked for; others are dropped."""
        allowed = self._allowed_updates
        if self.webhook is not None and self.webhook.allowed_updates is not None:
            allowed = self.webhook.allowed_updates
        wanted: list[_Pending] = []
        for entry in list(self._pending):
            unwanted = entry.kind not in allowed if allowed else entry.kind in _OPT_IN_UPDATES
            if unwanted:
                self._pending.remove(entry)
                continue
            wanted.append(entry)
            if len(wanted) == limit:
                break
        return wanted

    async def _set_webhook(self, params: Params) -> bool:
        url = str(params.get("url", ""))
        if not url:
            return await self._delete_webhook(params)
        if not url.startswith(("http://", "https://")):
            raise _bad_request("bad webhook: HTTPS url must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not _SECRET_TOKEN.match(str(secret)):
            raise _bad_request("secret token contains unallowed characters")
        if params.get("drop_pending_updates"):
            self._pending.clear()
        allowed = params.get("allowed_updates")
        self.webhook = WebhookConfig(
            url=url,
            secret_token=None if secret is None else str(secret),
            allowed_updates=None if allowed is None else tuple(allowed),
            max_connections=_as_int(params.get("max_connections", 40), "max_connections"),
        )
        self.last_webhook_error = None
        if self._webhook_task is None or self._webhook_task.done():
            self._webhook_task = asyncio.create_task(self._webhook_sender())
        return True

    async def _delete_webhook(self, params: Params) -> bool:
        self.webhook = None
        if params.get("drop_pending_updates"):
            self._pending.clear()
        return True

    async def _get_webhook_info(self, params: Params) -> JSONDict:
        info: JSONDict = {
            "url": "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._pending),
        }
        if self.webhook is not None:
            info["url"] = self.webhook.url
            info["max_connections"] = self.webhook.max_connections
            if self.webhook.allowed_updates is not None:
                info["allowed_updates"] = list(self.webhook.allowed_updates)
            if self.last_webhook_error is not None:
                info["last_error_date"], info["last_error_message"] = self.last_webhook_error
        return info

    async def _webhook_sender(self) -> None:
        """Deliver queued updates one by one, re-delivering until the bot answers 2xx.
        Offline (`go_offline`), nothing is delivered: the bot and Telegram cannot reach
        each other either way, and the updates wait here."""
        while self.webhook is not None and not self._closing:
            changed = self._changed
            batch = [] if self.offline else self._deliverable(1)
            if not batch:
                await changed.wait()
                continue
            entry = batch[0]
            status = await self.deliver_webhook(entry.update)
            if status is not None and 200 <= status < 300:
                if entry in self._pending:
                    self._pending.remove(entry)
                self._notify()
            else:
                await asyncio.sleep(self.webhook_retry_delay)

    async def deliver_webhook(
        self, update: JSONDict | int, *, secret: object = _WEBHOOK_SECRET
    ) -> int | None:
        """POST one update to the webhook once, outside the queue; returns the HTTP status.

        Pass an ``update_id`` to send a past update again (a duplicate), or ``secret=`` to
        send a wrong or missing ``X-Telegram-Bot-Api-Secret-Token``.
        """
        if self.webhook is None or self._session is None:
            raise RuntimeError("no webhook is set")
        payload = self.update(update) if isinstance(update, int) else update
        token = self.webhook.secret_token if secret is _WEBHOOK_SECRET else secret
        headers = {"X-Telegram-Bot-Api-Secret-Token": str(token)} if token else {}
        status: int | None = None
        error: str | None = None
        try:
            async with self._session.post(self.webhook.url, json=payload, headers=headers) as r:
                status = r.status
                if not 200 <= status < 300:
                    error = f"Wrong response from the webhook: {status} {r.reason}"
        except (aiohttp.ClientError, OSError, TimeoutError) as exc:
            error = f"Connection failed: {exc!r}"
        if error is not None:
            self.last_webhook_error = (int(time.time()), error)
        self.webhook_deliveries.append(
            WebhookDelivery(int(payload["update_id"]), status, error, time.monotonic())
        )
        self._notify()
        return status
