"""The commands (``/new``, ``/leaderboard``, ``/settings``, ...), each a call on the
core and a reply in the chat (and forum topic) it was typed in.

Every command has its German name too (`texts.GERMAN_COMMANDS`).  One that asks
first (/resign, /forgetme) answers with a question and the one button that does it.
Where only admins may do a thing, Telegram is asked whether the user is one
(`_is_admin`); when it does not say, he is asked to try again.

A finished match's record
/record [table] in a group sends the record of its newest finished match (or the one
named) as a JSON document whose caption says who sat where and how to verify it; a
running match has none, its cards being secret (`bot.records`).
"""

from __future__ import annotations

import difflib
import functools
import logging
import re
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeAlias, TypeVar

from telegram import Message as TgMessage
from telegram import Update
from telegram.error import BadRequest, Forbidden, TelegramError
from telegram.ext import ContextTypes

from bot.boards import leaderboard_text, stats_text
from bot.i18n import norm_lang, t
from bot.records import record_reply
from bot.rules_text import asked_rules, rules_summary
from bot.service import ChatRef, Outcome, UserRef
from bot.settings import setting_words
from bot.table import Status
from bot.views import settings_text
from engine.games import available

from .content import Attachment, Btn, Content, Handle, parts
from .refs import PLATFORM, topic_of, user_ref
from .shape import AdapterShape
from .texts import COMMANDS, GERMAN_COMMANDS, tt
from .words import PAGE_WORDS, game_of, rules_words, split, typo_of, unknown_game

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")

#: getChatMember's refusals that mean "no member of this chat" (so no admin): any other
#: refusal says nothing about the user.
_NO_MEMBER = re.compile(r"user not found|participant_id_invalid|user_not_participant", re.I)


class AdminUnknowable(Exception):
    """Telegram refuses to say who administers the chat (not for an outage)."""


_C = TypeVar("_C", bound="Commands")
#: A command's work, given its message, who typed it, the chat and the command's words.
_Body: TypeAlias = Callable[[_C, TgMessage, UserRef, ChatRef, list[str]], Coroutine[Any, Any, None]]
#: What PTB calls for a command.
_Handler: TypeAlias = Callable[[_C, Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]
_Gate: TypeAlias = Callable[[_C, Update], Awaitable[tuple[TgMessage, UserRef] | None]]


def _handler(body: _Body[_C], gate: _Gate[_C]) -> _Handler[_C]:
    @functools.wraps(body)
    async def handle(self: _C, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        got = await gate(self, update)
        if got is None:  # answered already (an anonymous admin, a group's command typed privately)
            return
        message, user = got
        await body(self, message, user, self._chat(message), context.args or [])

    return handle


def _command(body: _Body[_C]) -> _Handler[_C]:
    """A command for any chat (`Commands._incoming`)."""
    return _handler(body, lambda self, update: self._incoming(update))


def _group_command(body: _Body[_C]) -> _Handler[_C]:
    """A command about a group's tables (`Commands._in_group`)."""
    return _handler(body, lambda self, update: self._in_group(update))


class Commands(AdapterShape):
    """`TelegramAdapter`'s command handlers, and the replies they share."""

    async def _reply(self, message: TgMessage, text: str) -> None:
        """Answer in the message's chat (and forum topic); a text longer than one
        message goes on in the next (`parts`, as Discord's replies do), in order."""
        for part in parts(text):
            self.outbox.send(message.chat.id, Content(part), thread=topic_of(message))

    async def _is_admin(self, message: TgMessage, user: UserRef) -> bool | None:
        """Whether `user` administers the message's chat; None when Telegram did not
        say (flood control, an outage, an answer that never came): an admin told he
        is none would believe it, so the caller asks him to try again instead."""
        if message.chat.type == "private":
            return True
        try:
            chat_id = self.outbox.current_chat(message.chat.id)
            member = await self.app.bot.get_chat_member(chat_id, int(user.id))
        except (BadRequest, Forbidden) as e:
            if isinstance(e, BadRequest) and _NO_MEMBER.search(e.message):
                return False  # Telegram's answer: he is no member
            log.warning("getChatMember refused (%s): admins are refused until it works", e)
            raise AdminUnknowable from None
        except TelegramError as e:
            log.info("getChatMember failed: %s", e)
            return None
        return member.status in ("creator", "administrator")

    async def _admin_or_retry(
        self, message: TgMessage, user: UserRef, *, refused_is_no: bool = False
    ) -> bool | None:
        """`_is_admin`, having told the user what to do when Telegram did not say: try
        again after an outage; make the bot an admin when Telegram refuses to tell it
        (its API promises the answer only to admins).  `refused_is_no`: a refusal
        counts as "no admin" (/abort naming a table: a player's vote needs none)."""
        try:
            is_admin = await self._is_admin(message, user)
        except AdminUnknowable:
            if refused_is_no:
                return False
            await self._reply(message, tt(user.speaks, "admin_refused"))
            return None
        if is_admin is None:
            await self._reply(message, tt(user.speaks, "admin_unknown"))
        return is_admin

    async def _incoming(self, update: Update) -> tuple[TgMessage, UserRef] | None:
        message = update.effective_message
        if message is None or update.effective_user is None:
            return None
        chat = self._chat(message)
        if message.sender_chat is not None:
            # An admin who remains anonymous (or one posting as a channel): Telegram
            # names the group's stand-in bot, not the person, so he could be neither
            # seated nor sent a hand.  His buttons are his own: presses name him.
            lang = await self.service.reply_lang(None, chat)
            self.outbox.send(
                message.chat.id, Content(tt(lang, "anonymous")), thread=topic_of(message)
            )
            return None
        return message, await self.service.reader(self._user(update.effective_user), chat)

    async def _in_group(self, update: Update) -> tuple[TgMessage, UserRef] | None:
        """A command about a group's tables; typed in the private chat, where no
        table is, it gets the answer to type it in the group."""
        got = await self._incoming(update)
        if got is not None and got[0].chat.type == "private":
            await self._reply(got[0], tt(got[1].speaks, "group_only"))
            return None
        return got

    async def _cmd_start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        # not a `_command`: it needs the update's id (`_lets_in`)
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

    @_group_command
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

    @_command
    async def _cmd_leaderboard(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        # "page 2" and "Seite 2" say what the number says alone
        args = [a.lower() for a in args if a.lower() not in PAGE_WORDS]
        # a number that names no game ("1000" is Thousand) is the board's page
        paging = [a for a in args if a.isdecimal() and game_of(a) is None]
        words = [a for a in args if a != "global" and a not in paging]
        refused = unknown_game(user.speaks, words)
        if refused is not None:
            await self._reply(message, refused)
            return
        scope_name = "global" if "global" in args or message.chat.type == "private" else "chat"
        scope = "global" if scope_name == "global" else chat.key
        games = [g for a in words if (g := game_of(a)) is not None]
        text = await leaderboard_text(
            self.service.store,
            scope,
            user.speaks,
            games=games,
            player=user.key,
            page=int(paging[0]) if paging else 1,
        )
        await self._reply(message, text)

    @_command
    async def _cmd_stats(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        target = user
        replied = message.reply_to_message
        if replied is not None and replied.from_user is not None and not replied.from_user.is_bot:
            target = user_ref(replied.from_user)
        args = [a.lower() for a in args]
        if [a for a in args if a != "global"]:
            # `/stats @anna` or `/stats anna` would otherwise show the asker's own
            await self._reply(message, t(user.speaks, "stats.usage"))
            return
        private = message.chat.type == "private"
        scope = "global" if "global" in args or private else chat.key
        text = await stats_text(self.service.store, target.key, target.name, scope, user.speaks)
        await self._reply(message, text)

    @_command
    async def _cmd_rules(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        args = [a.lower() for a in args]
        refused = unknown_game(user.speaks, args[:1])
        if refused is not None:
            text = refused
        elif args:
            # the words after the game as /new reads them: "/rules tausend golden"
            # is the golden round's rules, not Thousand's standard ones again
            words, options = rules_words(split(args[1:]))
            text = asked_rules(game_of(args[0]) or args[0], words, options, user.speaks)
        else:
            table = self.service.table_of(chat.key, user.key)
            if table is not None:
                text = rules_summary(table.game, user.speaks, table.options_json)
            else:
                text = "\n\n".join(rules_summary(g, user.speaks) for g in available())
        await self._reply(message, text)

    @_group_command
    async def _cmd_settings(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        args = setting_words(args)
        if len(args) >= 2:  # a change: admins only; looking is for everyone (/help says so)
            is_admin = await self._admin_or_retry(message, user)
            if is_admin is None:
                return
            if not is_admin:
                await self._reply(message, t(user.speaks, "refuse.not_admin"))
                return
            outcome = await self.service.update_setting(
                chat, user, args[0], " ".join(args[1:]), is_admin=is_admin
            )
            await self._reply(message, outcome.text or "")
            return
        shown = settings_text(
            await self.service.settings(chat),
            user.speaks,
            turn_timeout=self.service.timings.turn_timeout,
            ai_level=self.service.ai_level,
            key=args[0] if args else None,
        )
        await self._reply(message, shown)

    @_group_command
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

    @_group_command
    async def _cmd_resign(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        # in the group, the button bound to his seat: another's press is refused
        await self._ask(message, await self.service.resign(chat, user, ask=True))

    async def _ask(self, message: TgMessage, outcome: Outcome) -> None:
        """The core's answer to a command that asks first (/resign, /forgetme): the
        question with the one button that does it, or the refusal.  A question about
        a table loses its button when the table closes, pressed or not."""
        if outcome.confirm is None:
            if outcome.text:
                await self._reply(message, outcome.text)
            return
        label, data = outcome.confirm
        content = Content(outcome.text or "", ((Btn(label, data=data),),))
        tid = outcome.table_id
        st = self.states.get(tid) if tid is not None else None
        if tid is None or st is None:
            self.outbox.send(message.chat.id, content, thread=topic_of(message))
            return
        handle = Handle(message.chat.id, tid, None, thread=topic_of(message))
        st.questions.append(handle)
        self.outbox.post(handle, content)

    @_group_command
    async def _cmd_record(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        """The record of the group's newest finished match, or of the one named, as a
        document in the group (where its table id and seeds were shown).  Through the
        outbox like every reply, so it keeps its place after the match's result and
        rides out flood control and outages; if Telegram will not take the file, the
        group is told to try again rather than left without an answer."""
        args = split(args)
        named = args[0] if args else None
        reply = await record_reply(self.service.store, chat.key, user.speaks, named)
        if reply.file is None:
            await self._reply(message, reply.text)
            return
        self.outbox.send_file(
            message.chat.id,
            Attachment(reply.file.filename, reply.file.data),
            reply.text,
            fallback=Content(tt(user.speaks, "failed")),
            thread=topic_of(message),
        )

    @_command
    async def _cmd_help(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        await self._reply(message, self._help(user.speaks, in_group=message.chat.type != "private"))

    def _help(self, lang: str | None, *, in_group: bool) -> str:
        """The help; in a group with the link to the private chat, which every player
        must start once before the bot may send them their cards."""
        text = t(lang, "help.text")
        if norm_lang(lang) == "de":
            names = ", ".join(f"/{n}" for n in GERMAN_COMMANDS.values())
            text += "\n" + tt(lang, "help_german", commands=names)
        if in_group:
            text += "\n" + tt(lang, "help_start", link=self.private_link)
        return text

    @_command
    async def _cmd_other(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        """A command the bot does not have, or words in its private chat: an answer
        instead of silence.  In a group only a command meant for this bot (named
        with ``@``) or a slip of the finger on one of its own (`typo_of`: ``/nwe``);
        other bots' commands (``/report``, ``/status``) are not ours to answer, and a
        mere likeness ("Did you mean /record?") would be noise in the group."""
        private = message.chat.type == "private"
        text = message.text or ""
        if not text.startswith("/"):  # words: only the private chat reaches us with them
            if private:
                await self._reply(message, self._help(user.speaks, in_group=False))
            return
        command, _, addressee = text.split(maxsplit=1)[0][1:].partition("@")
        ours = addressee.lower() == (self.app.bot.username or "").lower()
        if addressee and not ours:
            return
        guess = typo_of(command)
        if guess is None and (private or ours):  # surely for us: the likeliest one
            close = difflib.get_close_matches(command.lower(), [c for c, _ in COMMANDS["en"]], 1)
            guess = close[0] if close else None
        if guess is not None:
            await self._reply(
                message, tt(user.speaks, "did_you_mean", command=command, guess=guess)
            )
        elif private or ours:
            await self._reply(message, tt(user.speaks, "unknown_command", command=command))

    @_command
    async def _cmd_forget(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        if message.chat.type != "private":
            # the question's button deletes the data of whoever presses it: it is
            # asked where only he can press it
            await self._reply(message, tt(user.speaks, "forget_private", link=self.private_link))
            return
        await self._ask(message, await self.service.forget(user, ask=True))
