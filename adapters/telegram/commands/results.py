"""The commands about results: /leaderboard, /stats, /record (a finished match's
record to check), and /forgetme, which deletes a player's.

A finished match's record
/record [table] in a group sends the record of its newest finished match (or the one
named) as a JSON document whose caption says who sat where and how to verify it; a
running match has none, its cards being secret (`bot.records`).
"""

from __future__ import annotations

from telegram import Message as TgMessage

from bot.boards import leaderboard_text, stats_text
from bot.i18n import t
from bot.records import record_reply
from bot.service import ChatRef, UserRef

from ..content import Attachment, Content
from ..refs import topic_of, user_ref
from ..texts import tt
from ..words import PAGE_WORDS, game_of, split, unknown_game
from .gates import CommandGates, command, group_command


class ResultCommands(CommandGates):
    """The boards, a player's statistics, a match's record, and deleting a player's."""

    @command
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

    @command
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

    @group_command
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

    @command
    async def _cmd_forget(
        self, message: TgMessage, user: UserRef, chat: ChatRef, args: list[str]
    ) -> None:
        if message.chat.type != "private":
            # the question's button deletes the data of whoever presses it: it is
            # asked where only he can press it
            await self._reply(message, tt(user.speaks, "forget_private", link=self.private_link))
            return
        await self._ask(message, await self.service.forget(user, ask=True))
