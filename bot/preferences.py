"""What a chat chose and what a reader reads: /settings, and the language of answers.

A chat's settings are read by every table it opens; a running table keeps what it was
opened with, but its language, which follows the chat's.  An answer is written in the
reader's own language where we speak it, else in his chat's or table's.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Sequence

from .i18n import norm_lang, supported_lang, t
from .payload import parsed as parsed_payload
from .ports import ChatRef, Outcome, UserRef
from .refusals import refuse
from .service_shape import ServiceShape
from .settings import (
    ChatSettings,
    SettingError,
    chat_language,
    kept_unread,
    merged_settings,
    setting_key,
)
from .store import Op, chat_settings_op, move_chat_ops, player_op
from .table import Entry, Table
from .views import setting_line


class Preferences(ServiceShape):
    """Settings and languages for `TableService` (a mixin: a language change redraws
    the chat's tables under their locks)."""

    def _chat_held(self, chat: str) -> contextlib.AbstractAsyncContextManager[None]:
        """The lock of chat key `chat`'s settings, held from reading them to the end of
        what they decide: a change (read-modify-write, and the switch of the chat's
        tables to its language), a /new (until its table is among the chat's).  One
        lock per chat: a group's slow write holds up no other group.

        With it go the locks of the keys that moved to `chat` (a Telegram group that
        became this supergroup): a /new in the old group, still being stored as the
        move came, lands its table here (`_open`), and a switch here waits for it."""
        moved_here = [old for old, new in self._moved.items() if new == chat]
        return self._chat_locks.hold([chat, *moved_here])

    async def settings(self, chat: ChatRef) -> ChatSettings:
        return ChatSettings.from_json(await self.store.chat_settings(chat.key))

    async def update_setting(
        self, chat: ChatRef, user: UserRef, key: str, value: str, *, is_admin: bool
    ) -> Outcome:
        """A database that will not take the change: "not saved", as for a press."""
        return await self._outcome(user, self._update_setting(chat, user, key, value, is_admin))

    async def _update_setting(
        self, chat: ChatRef, user: UserRef, key: str, value: str, is_admin: bool
    ) -> Outcome:
        lang = await self.reply_lang(user, chat)
        if not is_admin:
            return refuse(lang, "not_admin")
        async with self._chat_held(chat.key):  # read-modify-write: two admins lose nothing
            stored = await self.store.chat_settings(chat.key)
            current = ChatSettings.from_json(stored)
            try:
                updated = current.with_value(key, value)
            except SettingError as e:
                return refuse(lang, "bad_setting", error=e.text(lang))
            setting = chat_settings_op(chat.key, kept_unread(updated.to_json(), stored))
            if setting_key(key) == "language":  # the one setting that moves the language
                # the chat's tables speak its language: the running ones switch with
                # the setting, in its transaction — a kill leaves none of them
                # switched, or all of them and the chat.  Set to the language the
                # chat already speaks, it still reaches a table that speaks another
                # (opened before a Discord server's locale changed)
                speaks = chat_language(updated, chat.lang)
                await self._speak(self.tables_in(chat.key), speaks, [setting])
            else:
                await self.store.write(ops=[setting])
        # what is now in force, as /settings shows it ("ai_level = heuristic" for
        # "Heuristic", "turn_timeout = 90 s", "preset.dreier = default (standard)")
        found = setting_line(
            updated,
            lang,
            setting_key(key),  # "thousand.players" was saved as "tausend.players"
            turn_timeout=self.timings.turn_timeout,
            ai_level=self.ai_level,
            chat_lang=chat.lang,
        )
        name, now = found if found is not None else (key, value)
        text = t(lang, "settings.saved", key=name, value=now)
        open_now = len(self.tables_in(chat.key))
        if open_now and setting_key(key) != "language":
            # a table keeps what it was opened with (its record says so); only the
            # language follows the chat
            text += "\n" + t(lang, "settings.saved_later", n=open_now)
        return Outcome(True, text)

    async def reply_lang(self, user: UserRef | None, chat: ChatRef | None = None) -> str:
        """The language to answer `user` in: his own where we speak it, else the
        chat's (a reader without one, or with one we lack, reads the chat's)."""
        if user is not None and (own := supported_lang(user.speaks)) is not None:
            return own
        if chat is not None:
            return chat_language(await self.settings(chat), chat.lang)
        return "en"

    async def reader(
        self, user: UserRef, chat: ChatRef | None, pressed: str | None = None
    ) -> UserRef:
        """`user` as answers address him: in his own language where we speak it, else
        (`UserRef.reads`, never stored as his) in the chat's for a command typed there,
        or for a press (`pressed`, its payload) in its table's — a hand's buttons are
        in a private chat or DM, which has no language of its own."""
        if user.speaks:
            return user
        if pressed is None:
            reads = await self.reply_lang(None, chat)
        else:
            reads = await self.press_lang(pressed, chat)
        return dataclasses.replace(user, reads=reads)

    async def press_lang(self, payload: str, chat: ChatRef | None) -> str:
        """The language a press is answered in for one whose own we lack: its table's
        (a hand's buttons are pressed in a private chat, which has none of its own),
        else its chat's."""
        p = parsed_payload(payload)
        table = self.tables.get(p.table) if p is not None else None
        if table is not None:
            return str(table.settings.get("lang", "en"))
        return await self.reply_lang(None, chat)

    async def remember(self, user: UserRef) -> None:
        await self.store.save_player(
            user.key, user.account_name or user.name, supported_lang(user.lang)
        )

    def player_op(self, user: UserRef) -> Op:
        """`remember` as a statement, to store with the change that seats him."""
        return player_op(user.key, user.account_name or user.name, supported_lang(user.lang))

    async def set_table_language(self, table_id: str, user: UserRef, lang: str) -> Outcome:
        """A player at the table makes it speak `lang` from now on (its table and
        result messages): the terminal resuming a game under another locale."""
        return await self._outcome(user, self._set_table_language(table_id, user, lang))

    async def _set_table_language(self, table_id: str, user: UserRef, lang: str) -> Outcome:
        table = self.tables.get(table_id)
        if table is None or table.seat_of(user.key) is None:
            return refuse(norm_lang(user.speaks), "no_table")  # in the asker's language
        lang = norm_lang(lang)
        await self._speak([table], lang)
        return Outcome(True, table_id=table.id)

    async def _speak(self, tables: list[Table], lang: str, ops: Sequence[Op] = ()) -> None:
        """Make tables speak `lang` from their next message on (a `lang` log entry
        each), stored in one transaction with `ops`."""
        async with self.locked(tables) as tables:
            for table in await self._switch(self.still_open(tables), lang, ops):
                await self._redraw(table)

    async def _switch(self, tables: list[Table], lang: str, ops: Sequence[Op]) -> list[Table]:
        """`_speak` without the drawing, for tables whose locks the caller holds (or
        not shown yet): stores the `lang` entries of those that speak another with
        `ops`, in one transaction, and returns them."""
        changes: list[tuple[Table, list[Entry]]] = [
            (table, [{"k": "lang", "lang": lang}])
            for table in tables
            if table.settings.get("lang") != lang
        ]
        await self._commit_tables(changes, ops=ops)
        return [table for table, _ in changes]

    async def _carry_chat(
        self, old: str, new: str, tables: list[Table], chat_lang: str | None
    ) -> None:
        """Store chat key `old`'s move to `new` (`move_chat_ops`), and move `tables`
        (the old chat's, their locks held, or one not shown yet) there in memory.

        Where the new key has settings already (a supergroup's admin set something
        before the bot noticed the group had become it), the two are merged
        (`merged_settings`: the supergroup's win, the group's fill in what it never
        set), and the tables speak the language the merged settings give, as the
        supergroup's own tables do (`chat_language`), switched in the move's
        transaction — a kill leaves none of them moved, or all moved and switched.
        Where it has none, the old chat's come along, and the tables keep the
        language they speak.  Both keys' settings locks are held (`_move_chat`, or
        the old one's by a /new, which `_chat_held` of the new key waits for)."""
        theirs = await self.store.stored_chat_settings(new)
        switched: list[Table] = []
        if theirs is None:  # the old chat's settings, if any, come along as they are
            await self.store.write(ops=move_chat_ops(old, new))
        else:
            ours = await self.store.stored_chat_settings(old)  # gone at a second move
            merged = merged_settings(theirs, ours) if ours is not None else None
            speaks = chat_language(ChatSettings.from_json(merged or theirs), chat_lang)
            switched = await self._switch(tables, speaks, move_chat_ops(old, new, merged))
        for table in tables:
            table.chat = new
        for table in self.still_open(switched):  # one not shown yet is drawn by its opening
            await self._redraw(table)
