"""A group upgraded to a supergroup: everything of the old chat id moves to the new.

Telegram gives it a new chat id: requests to the old one fail with `ChatMigrated`, and
service messages (``migrate_to_chat_id`` in the old group, ``migrate_from_chat_id`` in
the new one) say so.  Whichever comes first, `migrate` moves the chat once: the
outbox's queue, the core's tables, settings, results and leaderboard (`move_chat`), and
the lobby or running deal's table message, posted anew in the supergroup.  Updates
from the supergroup wait until that is done, so /abort or /resign there find the table.
Telegram also says the bot joined the supergroup; that is no new group to greet
(`membership`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes

from bot.service import ChatRef
from bot.table import Status

from .refs import PLATFORM
from .shape import AdapterShape

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")


class Migration(AdapterShape):
    """`TelegramAdapter`'s moves of upgraded groups to their supergroups."""

    async def migrate(self, old: int, new: int) -> None:
        """Move everything of chat `old` to its new id `new`; once per chat, however
        many times Telegram says so (two service messages, `ChatMigrated` answers)."""
        task = self._begin_migration(old, new)
        if task is not None:
            await asyncio.shield(task)

    def _on_migrated(self, old: int, new: int) -> None:
        """The outbox met `ChatMigrated`: its queue is in the new chat already."""
        self._begin_migration(old, new)

    def _begin_migration(self, old: int, new: int) -> asyncio.Task[None] | None:
        if old in self._moves:
            running = self._moves[old][1]
            if running is None:
                return None  # moved already
            if not _failed(running):
                return running  # under way (a failed one is tried again)
        task = asyncio.ensure_future(self._migrate(old, new))
        self._moves[old] = (new, task)
        task.add_done_callback(lambda task: self._migration_done(old, new, task))
        return task

    def _migration_done(self, old: int, new: int, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("could not move a chat to its new id", exc_info=task.exception())
        elif not task.cancelled() and self._moves.get(old, (new, None))[1] is task:
            self._moves[old] = (new, None)  # only the ids are worth keeping

    async def _migrate(self, old: int, new: int) -> None:
        log.info("telegram chat %s was upgraded to a supergroup: now %s", old, new)
        self.outbox.migrate(old, new)
        # No await until the live messages are rehomed and queued: a table update in
        # between would only edit what was left behind in the old group.
        stale: list[tuple[str, str, str]] = []  # table, slot, the ref left behind
        for table_id, st in self.states.items():
            if st.chat_id == old:
                st.chat_id = new
            table = self.service.tables.get(table_id)
            status = table.status if table is not None else None
            for slot, handle, live in (
                ("lobby", st.lobby, status == Status.LOBBY),
                ("table", st.table, status == Status.PLAYING),
            ):
                if handle is None or self.outbox.current_chat(handle.chat_id) != new:
                    continue
                if handle.message_id is not None and handle.chat_id != new:
                    stale.append((table_id, slot, handle.ref))
                if live:
                    self.outbox.rehome(handle)
            if st.chat_id == new:
                self._refresh(table_id)  # the live messages, posted in the supergroup
        moved = await self.service.move_chat(
            ChatRef(PLATFORM, str(old)), ChatRef(PLATFORM, str(new))
        )
        for table_id in moved:
            if table_id not in self.states:  # not shown here yet
                self._state(table_id, f"{PLATFORM}:{new}")
                self._refresh(table_id)
        for table_id, slot, ref in stale:
            await self.service.store.forget_message_ref(table_id, slot, ref)

    async def _moving(self, update: Update) -> None:
        """Hold an update from a supergroup until its move from the old group is done
        (or the old group's, redirected), so its command finds the chat's tables."""
        chat = update.effective_chat
        if chat is None:
            return
        for old, (new, task) in list(self._moves.items()):
            if chat.id in (old, new) and task is not None and not task.done():
                with contextlib.suppress(Exception):
                    await asyncio.shield(task)

    async def _on_migrate_message(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if message is None:
            return
        if message.migrate_to_chat_id:  # in the old group
            await self.migrate(message.chat.id, int(message.migrate_to_chat_id))
        elif message.migrate_from_chat_id:  # in the new supergroup
            await self.migrate(int(message.migrate_from_chat_id), message.chat.id)

    def _moved_here(self, chat_id: int) -> bool:
        """A group moved to `chat_id` (an upgraded group's supergroup)."""
        return any(new == chat_id for new, _ in self._moves.values())


def _failed(task: asyncio.Task[Any]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)
