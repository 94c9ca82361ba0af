"""Where the bot may post: groups and users that shut it out, let it back in, or
just added it.

When Telegram refuses
A group that removes the bot or takes its right to post (a ``my_chat_member`` update, a
403, a 400 such as "not enough rights to send" or "CHAT_WRITE_FORBIDDEN", see
`outbox.refuses`) loses its tables: they close as an abort does
(nothing scored), each player is told privately, and the group gets nothing more until
the bot is added back or a command comes from it.  A closed forum topic closes the
tables played there.  A user who blocks the bot is one who has not started it (see
`presses`).  A message someone deleted is posted anew at its next edit ("Show my hand"
checks at once).  Webhook updates may come out of order: a user's block older than
his last /start is no block (`_on_my_member`).

A group that adds the bot is greeted with the help (`_greet`), unless it is a group
the bot sat in already, upgraded to a supergroup (`migration`).
"""

from __future__ import annotations

import asyncio
import logging

from telegram import ChatMemberRestricted, Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.ext import ContextTypes

from bot.service import ChatRef
from bot.table import Status

from .content import Content
from .refs import PLATFORM
from .shape import AdapterShape

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")

#: The abort reason of a table whose group no longer lets the bot post.
GROUP_LOST = "group_lost"
#: The abort reason of a table whose forum topic was closed or deleted.
TOPIC_LOST = "topic_lost"
#: Seconds a bot added to a supergroup waits before it says how to begin.  Telegram
#: tells of a group's upgrade to a supergroup with the bot "joining" the supergroup
#: too (``my_chat_member``, left -> member), which is no new group to greet: the
#: service messages that tell it is an upgrade may come just before or just after.
GREET_AFTER = 2.0


class GroupMembership(AdapterShape):
    """`TelegramAdapter`'s answers to being shut out, let back in, or added."""

    def _on_refused(self, chat_id: int) -> None:
        """Telegram refused a message: a group that removed the bot (or took its right
        to post) loses its tables; a user's private chat, the tables that wait for him
        are told."""
        if chat_id < 0:
            self._lose_group(chat_id)
            return
        self.unreachable.add(chat_id)
        self.reachable.pop(chat_id, None)
        key = f"{PLATFORM}:{chat_id}"
        for table_id, st in list(self.states.items()):
            table = self.service.tables.get(table_id)
            if table is None or table.seat_of(key) is None:
                continue
            if table.status == Status.LOBBY:
                self._show_lobby(table_id, st)
            else:
                self._warn(table_id, st, key)

    def _on_topic_refused(self, chat_id: int, thread: int | None) -> None:
        """A forum topic was closed or deleted (None: the General topic closed): its
        tables close as a lost group's do (nobody could follow them there), the
        group's other topics play on."""
        key = (chat_id, thread)
        if key in self._losing_topics:
            return  # the messages it had waiting are refused too
        ids = [tid for tid, st in self.states.items() if (st.chat_id, st.thread) == key]
        if not ids:
            return
        self._losing_topics.add(key)

        async def close() -> None:
            try:
                closed = await self.service.close_tables(ids, TOPIC_LOST)
            except Exception as e:  # the store failed (the core said so): try next time
                log.warning("could not close the tables of topic %s in %s: %s", thread, chat_id, e)
                return
            finally:
                self._losing_topics.discard(key)  # a table opened there later counts anew
            log.warning(
                "telegram topic %s of group %s no longer lets the bot post; closed: %s",
                thread,
                chat_id,
                ", ".join(closed) or "none",
            )

        self._spawn(close())

    def _lose_group(self, chat_id: int) -> None:
        """The group removed the bot or took its right to post (a 403, a 400 that says
        so, a ``my_chat_member`` update; once however many say so).  Nothing
        more is sent there, and its tables close as an abort closes them: nobody there
        could follow or stop them, and the computer would otherwise play the absent
        players' turns to the end of a match nobody saw."""
        chat_id = self.outbox.current_chat(chat_id)
        if chat_id in self.lost:
            return
        self.lost.add(chat_id)
        self.outbox.block(chat_id)

        async def close() -> None:
            try:
                closed = await self.service.close_chat(ChatRef(PLATFORM, str(chat_id)), GROUP_LOST)
            except Exception as e:  # the store failed (the core said so): try next time
                self.lost.discard(chat_id)
                # the next message there is that next time (refused), or shows the bot
                # is back: a chat left blocked would hear nothing, even once added back
                self.outbox.unblock(chat_id)
                log.warning("could not close the tables of group %s: %s", chat_id, e)
                return
            log.warning(
                "telegram group %s no longer lets the bot post; closed its table(s): %s",
                chat_id,
                ", ".join(closed) or "none",
            )

        self._spawn(close())

    async def _on_my_member(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """The bot's own membership changed: a user blocked it, a group removed or
        muted it (its tables close), or a group let it post again."""
        change = update.my_chat_member
        if change is None:
            return
        chat_id = change.chat.id
        member = change.new_chat_member
        if change.chat.type == ChatType.PRIVATE:
            if member.status != ChatMemberStatus.BANNED:  # unblocked (his /start follows)
                self._lets_in(chat_id, update.update_id)
            elif (self._let_in.get(chat_id) or 0) > update.update_id:
                # a webhook delivered it late: he has let the bot in again since
                log.info("ignored a block by user %s older than his /start", chat_id)
            else:  # blocked; /start unblocks
                self.outbox.block(chat_id)
                self._on_refused(chat_id)
            return
        may_post = member.status in (
            ChatMemberStatus.OWNER,
            ChatMemberStatus.ADMINISTRATOR,
            ChatMemberStatus.MEMBER,
        ) or (isinstance(member, ChatMemberRestricted) and member.can_send_messages)
        if may_post:
            self._regain(chat_id)
            if change.old_chat_member.status in (ChatMemberStatus.LEFT, ChatMemberStatus.BANNED):
                self._greet(chat_id, change.from_user.language_code, change.chat.type)
        else:
            self._lose_group(chat_id)

    def _lets_in(self, uid: int, update_id: int) -> None:
        """Update `update_id` says `uid` lets the bot write to him (see `_let_in`)."""
        if update_id > (self._let_in.get(uid) or 0):
            self._let_in[uid] = update_id

    def _greet(self, chat_id: int, lang: str | None, chat_type: str) -> None:
        """Just added: nobody in the group knows yet what to type, nor that each
        player must start the private chat once.  But a supergroup may be a group the
        bot sat in already, upgraded (Telegram says the bot joined it): it is greeted
        after `greet_after` seconds, unless by then a move into it was seen, whichever
        came first, the service messages or this.  A basic group is never an upgrade."""
        help_text = Content(self._help(lang, in_group=True))
        if chat_type != ChatType.SUPERGROUP:
            self.outbox.send(chat_id, help_text)
            return

        async def later() -> None:
            await asyncio.sleep(self.greet_after)
            if not self._moved_here(chat_id):
                self.outbox.send(chat_id, help_text)

        task = asyncio.ensure_future(later())
        self._greetings.add(task)
        task.add_done_callback(self._greetings.discard)

    def _regain(self, chat_id: int) -> None:
        """A group the bot had lost may be written to again: added back (Telegram
        says so), or a command typed there (no update tells that an admin gave the
        group back its right to send; the next post shows, one request at most)."""
        chat_id = self.outbox.current_chat(chat_id)
        if chat_id in self.lost:
            self.lost.discard(chat_id)
            self.outbox.unblock(chat_id)
