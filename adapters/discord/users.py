"""Who a user is and where: his `UserRef` and chat, what the bot may do in his
channel, and, after /forgetme, forgetting him.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import supported_lang
from bot.service import ChatRef, UserRef

from .ids import PLATFORM
from .outbox import Op
from .shape import AdapterShape

#: Channels where posting takes "Send Messages in Threads", not "Send Messages".
THREADS = frozenset(
    {
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    }
)


class Users(AdapterShape):
    """The `DiscordAdapter`'s users.  A mixin, as `Answering` is."""

    def user(self, interaction: discord.Interaction[Any]) -> UserRef:
        who = interaction.user
        locale = interaction.locale.value if interaction.locale else None
        # at the table a server's members know him by his nickname there; boards and
        # records, which other servers show too, by his account's name
        account = who.global_name or who.name
        lang = supported_lang(locale)  # a French client: the server's, see `who`
        ref = UserRef(PLATFORM, str(who.id), who.display_name, lang=lang, account_name=account)
        if lang:
            self._langs[ref.key] = lang
        return ref

    async def who(
        self, interaction: discord.Interaction[Any], pressed: str | None = None
    ) -> UserRef:
        """`user` as answers address him (`TableService.reader`): a French client in a
        German server reads German there, and a press (`pressed`, its payload) its
        table's language, in his DMs too."""
        return await self.service.reader(self.user(interaction), self.chat(interaction), pressed)

    @staticmethod
    def chat(interaction: discord.Interaction[Any]) -> ChatRef:
        """A server is a chat (its settings, its leaderboard); a DM is one of its own."""
        if interaction.guild_id is not None:
            name = interaction.guild.name if interaction.guild is not None else ""
            # the server's preferred locale: its tables' language until an admin sets one
            locale = interaction.guild_locale.value if interaction.guild_locale else None
            return ChatRef(PLATFORM, str(interaction.guild_id), name, lang=locale)
        return ChatRef(PLATFORM, str(interaction.channel_id))  # a DM: no place to name

    @staticmethod
    def missing_permissions(interaction: discord.Interaction[Any]) -> list[str]:
        """What a table in the interaction's channel would need and the bot lacks
        there (`discord.Permissions` flag names, from Discord's ``app_permissions``).

        Checked before a table opens: its lobby is the command's reply, which needs no
        right in the channel, so a table opened without them would look fine and close
        at its first edit (no "View Channel": 50001) or post (no "Send Messages":
        50013), its players told the bot cannot post there "any more".  Only what the
        adapter uses: it edits its messages by id and never reads or replies to
        others (no "Read Message History"), and sends text and buttons only (no
        "Embed Links", no "Attach Files" — a record goes as an interaction reply).
        In a DM with the bot it may always post."""
        if interaction.guild_id is None:
            return []
        have = interaction.app_permissions
        thread = getattr(interaction.channel, "type", None) in THREADS
        needed = ("view_channel", "send_messages_in_threads" if thread else "send_messages")
        return [name for name in needed if not getattr(have, name)]

    def forget_user(self, user: str) -> None:
        """After /forgetme: nothing of the user stays here either (the core dropped
        their message refs; the computer plays their seats).  A seat he took while
        the deletion ran stays his, with its hand and ping."""

        def still_his(table_id: str) -> bool:
            table = self.service.tables.get(table_id)
            return table is not None and table.seat_of(user) is not None

        for table_id, pinged in list(self._pings):  # his ping goes with him
            if pinged == user and not still_his(table_id):
                self._add(table_id, Op("unping", f"hand:{user}"))
        for table_id, slots in self._refs.items():
            # his DM hand stops following the game: it says why, without buttons (the
            # slot goes with this last edit)
            # (a table his leaving closed said so as it closed, and its refs go with it)
            table = self.service.tables.get(table_id)
            if f"hand:{user}" in slots and table is not None and not still_his(table_id):
                note = self._hand_note(table_id, user, table, "hand.forgotten")
                self._add(table_id, Op("final", f"hand:{user}", note))
        for key in [k for k in self._live if k[1] == user]:
            # so does the hand "Show my hand" gave him (closed DMs): its last edit says
            # why, or it would show "Your turn." and cards that only get refused
            table = self.service.tables.get(key[0])
            if table is not None and not still_his(key[0]):
                note = self._hand_note(key[0], user, table, "hand.forgotten")
                self._add(key[0], Op("final", f"live:{user}", note))
            else:
                self._drop_live(key)
        self._langs.pop(user, None)
        self._dm_channels.pop(user, None)
        self._dm_closed.pop(user, None)

    def _seated(self) -> set[str]:
        """The players at the tables shown here (`_Recent` keeps what it knows of them)."""
        return {user for tid in self._channels for user in self.service.seat_users(tid)}
