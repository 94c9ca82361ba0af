"""The commands at a table: /start (the private chat a player's cards come to), /new,
/abort and /resign."""

from __future__ import annotations

from telegram import Message as TgMessage
from telegram import Update
from telegram.ext import ContextTypes

from bot.i18n import t
from bot.service import ChatRef, UserRef
from bot.table import Status

from ..content import Content
from ..refs import PLATFORM
from ..texts import tt
from ..words import game_of, rules_words, split
from .gates import CommandGates, group_command


class TableCommands(CommandGates):
    """/start, and the commands that open and close a table."""

    async def _cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        # not a `command`: it needs the update's id (`_lets_in`)
        got = await self._incoming(update)
        if got is None:
            return
        message, user = got
        if message.chat.type != "private":
            await self._reply(message, self._help(user.speaks, in_group=True))
            return
        uid = int(user.id)
        self._lets_in(uid, update.update_id)
        self.reachable[uid] = True
        self.unreachable.discard(uid)
        self.outbox.unblock(uid)
        await self.service.remember(user)
        seated = [
            tb
            for tb in self.service.tables.values()
            if tb.platform == PLATFORM and tb.seat_of(user.key) is not None
        ]
        if not seated:
            # a lobby's start link followed before pressing Join: no cards will come
            # until he does, so say where
            named = (context.args or [""])[0].strip().lower()
            lobby = self.service.tables.get(named)
            if lobby is not None and lobby.platform == PLATFORM and lobby.status == Status.LOBBY:
                # the private chat has no language: one we lack his reads the table's
                lang = user.lang or self._table_lang(named)
                text = tt(lang, "welcome_join", name=user.name, table=named)
            else:
                text = tt(user.speaks, "welcome", name=user.name)
            self.outbox.send(uid, Content(text))
            return
        for table in seated:
            st = self._state(table.id, table.chat)
            st.warned.discard(user.key)
            lang = user.lang or self._table_lang(table.id)
            self.outbox.send(uid, Content(tt(lang, "welcome_table", table=table.id)))
            if table.status == Status.LOBBY:
                self._show_lobby(table.id, st)
            elif table.status == Status.PLAYING:
                old = st.hands.pop(user.key, None)
                if old is not None:  # the hand comes anew, below the welcome
                    self.outbox.freeze(old)
                self._show_hand(table.id, st, user.key)

    @group_command
    async def _cmd_new(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        args = split(args)
        # a game's other names count ("/new 1000", "/new thousand"); the core refuses
        # a word that names none
        game = (game_of(args[0]) or args[0].lower()) if args else "zweier"
        words, options = rules_words(args[1:])
        if len(words) > 1:  # taking the first would drop the others unsaid
            await self._reply(message, t(user.speaks, "new.one_preset", words=", ".join(words)))
            return
        preset = words[0] if words else None
        settings = await self.service.settings(chat)
        is_admin = settings.starters == "admins" and await self._admin_or_retry(message, user)
        if is_admin is None:
            return
        async with self._opening_in(chat, user, message):
            outcome = await self.service.create_table(
                chat, user, game, preset=preset, options=options or None, is_admin=is_admin
            )
        if not outcome.ok:
            await self._reply(message, outcome.text or "")
            return
        if outcome.table_id is not None:
            await self._greet_host(user, outcome.table_id)

    @group_command
    async def _cmd_abort(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        table_id = args[0] if args else None  # the core reads it (case, spaces)
        # a group admin closes any table of the group he does not sit at (an abandoned
        # game, a spam lobby): a plain /abort at one's own table needs no Telegram call
        mine = table_id is None and self.service.table_of(chat.key, user.key) is not None
        is_admin = not mine and await self._admin_or_retry(message, user, refused_is_no=True)
        if is_admin is None:
            return
        outcome = await self.service.abort(chat, user, is_admin=is_admin, table_id=table_id)
        if outcome.text:
            await self._reply(message, outcome.text)

    @group_command
    async def _cmd_resign(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        # in the group, the button bound to his seat: another's press is refused
        await self._ask(message, await self.service.resign(chat, user, ask=True))
