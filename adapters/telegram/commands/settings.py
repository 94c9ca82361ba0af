"""/settings: anybody looks at a group's settings; its admins change them."""

from __future__ import annotations

from telegram import Message as TgMessage

from bot.i18n import t
from bot.service import ChatRef, UserRef
from bot.settings import setting_words
from bot.views import settings_text

from .gates import CommandGates, group_command


class SettingsCommands(CommandGates):
    """The group's settings, shown or changed."""

    @group_command
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
