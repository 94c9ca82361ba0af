"""What the bot answers those who ask how: /help, /rules, and a command it does not
have (or words in its private chat).

Every command has its German name too (`texts.GERMAN_COMMANDS`); the help names them
to German speakers.
"""

from __future__ import annotations

import difflib

from telegram import Message as TgMessage

from bot.i18n import norm_lang, t
from bot.rules_text import asked_rules, rules_summary
from bot.service import ChatRef, UserRef
from engine.games import available

from ..texts import COMMANDS, GERMAN_COMMANDS, tt
from ..words import game_of, rules_words, split, typo_of, unknown_game
from .gates import CommandGates, command


class HelpCommands(CommandGates):
    """The help, the rules, and an answer to a command the bot does not know."""

    @command
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

    @command
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

    @command
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
