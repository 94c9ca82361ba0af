"""A player's hand: by DM, or, when his DMs are closed, as an ephemeral message.

``hand:<user>`` is the user's hand, by direct message, with the legal moves as
buttons; a new one each deal.  When a user's DMs are closed (403 / 50007) the channel
says so once, and the table's "Show my hand" button opens the hand as an ephemeral
message, which is kept up to date through that interaction's token while it lasts
(``live:<user>``, in memory only: 15 minutes at most), and says so when it stops; an
out-of-date button on it redraws it, current again.  When a hand stops following the
game (the deal or the table is over, the player left) it says why, without buttons.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.i18n import t
from bot.service import Outcome, UserRef
from bot.table import Table
from bot.views import HandView, Message, hand_title

from . import render
from .answers import Answering
from .errors import OUTAGES
from .ids import TAKE_BACK, drawn_at, user_id, verb_of
from .outbox import Op
from .render import fingerprint
from .texts import text

#: Logged under the adapter's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.discord.adapter")


@dataclass
class _Live:
    """An ephemeral hand we can still edit (through an interaction token)."""

    edit: Callable[[str, discord.ui.View | None], Awaitable[Any]]
    expires: float
    #: Its last edit, when `expires` comes (see `Hands._go_live`).
    timer: asyncio.TimerHandle | None = None


class Hands(Answering):
    """The `DiscordAdapter`'s hands.  A mixin, as `Answering` is."""

    def _with_hand(self, outcome: Outcome, table_id: str, user: UserRef, payload: str) -> Outcome:
        """Back in his seat, a player whose DMs are closed has no hand to play from
        until he asks for one: the answer to "Take my seat back" is his hand."""
        if user.key not in self._dm_closed or verb_of(payload) != TAKE_BACK:
            return outcome
        hand = self.service.hand(table_id, user.key, self._langs.get(user.key))
        return outcome if hand is None else dataclasses.replace(outcome, hand=hand)

    async def _show_hand(
        self,
        interaction: discord.Interaction[Any],
        user: UserRef,
        hand: HandView,
        on_hand: bool,
        ephemeral_hand: bool,
    ) -> None:
        """A hand for this user only: in place of the hand they pressed on (a menu),
        or as a new ephemeral message ("Show my hand")."""
        table_id = hand.table_id
        msg = hand.message
        live_slot = (table_id, f"live:{user.key}")
        version = drawn_at(msg) or self._version(table_id)
        if on_hand:
            if interaction.response.is_done():  # deferred: the pressed message is @original
                await interaction.edit_original_response(
                    content=render.content(msg), view=render.view(msg)
                )
            else:
                await self.first_response(
                    interaction,
                    lambda: interaction.response.edit_message(
                        content=render.content(msg), view=render.view(msg)
                    ),
                    discord.InteractionResponseType.message_update,
                    lambda: interaction.edit_original_response(
                        content=render.content(msg), view=render.view(msg)
                    ),
                )
            if ephemeral_hand:
                self._go_live(
                    table_id,
                    user.key,
                    lambda c, v: interaction.edit_original_response(content=c, view=v),
                )
                self._shown[live_slot] = fingerprint(msg)
            else:
                self._shown.pop((table_id, f"hand:{user.key}"), None)
        else:
            edit = await self._new_ephemeral(interaction, msg)
            if table_id in self._channels:
                old = self._live.get((table_id, user.key))
                self._go_live(table_id, user.key, edit)
                self._shown[live_slot] = fingerprint(msg)
                if old is not None and old.expires > _now():
                    # the hand shown before stops following the game: it says where
                    # to look, without buttons that would act on an old picture
                    note = text(self._langs.get(user.key), "live_moved")
                    with contextlib.suppress(discord.HTTPException, *OUTAGES):
                        await old.edit(render.content(render.noted(msg, note)), None)
        if self._version(table_id) != version:
            self._refresh_hand(table_id, user.key)  # the table moved on meanwhile

    async def _new_ephemeral(
        self, interaction: discord.Interaction[Any], msg: Message
    ) -> Callable[[str, discord.ui.View | None], Awaitable[Any]]:
        """Show `msg` to the presser only; how to edit it while the token lasts."""
        kwargs: dict[str, Any] = render.view_kwargs(msg)
        if interaction.response.is_done():
            sent = await interaction.followup.send(
                render.content(msg), ephemeral=True, wait=True, **kwargs
            )

            async def edit_followup(content: str, view: discord.ui.View | None) -> None:
                await sent.edit(content=content, view=view)

            return edit_followup
        await self.first_response(
            interaction,
            lambda: interaction.response.send_message(
                render.content(msg), ephemeral=True, **kwargs
            ),
            discord.InteractionResponseType.channel_message,
            lambda: interaction.edit_original_response(
                content=render.content(msg), view=render.view(msg)
            ),
        )

        async def edit_original(content: str, view: discord.ui.View | None) -> None:
            await interaction.edit_original_response(content=content, view=view)

        return edit_original

    def _go_live(
        self,
        table_id: str,
        user: str,
        edit: Callable[[str, discord.ui.View | None], Awaitable[Any]],
    ) -> None:
        """Follow the game in this ephemeral hand while its token lasts.  When it ends
        the hand is edited once more, saying that it stopped (else it would keep
        saying "Waiting for ..." when it is long the player's turn)."""
        self._drop_live((table_id, user))
        live = self._live[(table_id, user)] = _Live(edit, _now() + self.live_ttl)

        def ended() -> None:
            if self._live.get((table_id, user)) is live and table_id in self._channels:
                self._add(table_id, Op("edit", f"live:{user}"))

        live.timer = asyncio.get_running_loop().call_later(self.live_ttl, ended)

    def _drop_live(self, key: tuple[str, str]) -> _Live | None:
        live = self._live.pop(key, None)
        if live is not None and live.timer is not None:
            live.timer.cancel()
        return live

    def _version(self, table_id: str) -> int | None:
        table = self.service.tables.get(table_id)
        return None if table is None else table.version

    def _refresh_hand(self, table_id: str, user: str) -> None:
        if table_id not in self._channels:
            return
        for slot in (f"hand:{user}", f"live:{user}"):
            self._shown.pop((table_id, slot), None)
        if f"hand:{user}" in self._refs.get(table_id, {}):
            self._add(table_id, Op("edit", f"hand:{user}"))
        if (table_id, user) in self._live:
            self._add(table_id, Op("edit", f"live:{user}"))

    async def _final_live(self, table_id: str, user: str, msg: Message | None) -> None:
        """An ephemeral hand's last state, while its token lasts (`OutboxWorker._final`)."""
        live = self._drop_live((table_id, user))
        if live is not None and msg is not None and live.expires > _now():
            with contextlib.suppress(discord.HTTPException):
                await live.edit(render.content(msg), None)

    async def _edit_live(self, table_id: str, user: str) -> None:
        live = self._live.get((table_id, user))
        if live is None:
            return
        msg = self._render(table_id, f"hand:{user}")
        slot = (table_id, f"live:{user}")
        if live.expires <= _now():
            # its last edit (the token outlives `live_ttl` by a minute): as it is now,
            # and that it will not follow the game any more
            self._drop_live((table_id, user))
            self._shown.pop(slot, None)
            if msg is not None:
                # the button as the table message labels it: in the table's language
                shown = t(self._table_lang(table_id), "button.show_hand")
                note = text(self._langs.get(user), "live_ended", show_hand=shown)
                with contextlib.suppress(discord.HTTPException, *OUTAGES):
                    await live.edit(render.content(render.noted(msg, note)), render.view(msg))
            return
        if msg is None or self._shown.get(slot) == fingerprint(msg):
            return
        try:
            await live.edit(render.content(msg), render.view(msg))
        except discord.HTTPException as e:
            log.info("table %s: ephemeral hand of %s not editable: %s", table_id, user, e)
            self._drop_live((table_id, user))
            return
        self._shown[slot] = fingerprint(msg)

    async def _dms_closed(self, table_id: str, user: str) -> None:
        """Say once per table that this user plays through "Show my hand"."""
        self._dm_closed[user] = None
        # the new deal's DM hand, which would have rung, did not come: a first turn
        # after a wait rings in the channel instead
        key = (table_id, user)
        if (
            key not in self._pings
            and self.service.his_turn(table_id, user)
            and self._turn_pings.waited(key)
        ):
            self._add_ping(table_id, user)
        if (table_id, user) in self._dm_noted:
            return
        self._dm_noted.add((table_id, user))
        uid = user_id(user)
        # a channel note, naming the table's button as the table labels it: in the
        # table's language, not the player's
        lang = self._table_lang(table_id)
        note = text(lang, "dm_closed", mention=f"<@{uid}>", show_hand=t(lang, "button.show_hand"))
        await self._send_note(
            table_id, Op("note", message=Message(note), mentions=(uid,) if uid else ())
        )

    async def _dm(self, user: str) -> int | None:
        channel_id = self._dm_channels.get(user)
        if channel_id is None:
            uid = user_id(user)
            if uid is None:  # pragma: no cover - not a Discord user key
                return None
            channel = await self.client.create_dm(discord.Object(id=uid))
            channel_id = self._dm_channels[user] = channel.id
        return channel_id

    async def _tell(self, user: str, op: Op) -> None:
        """A note for one player, by DM (when they are open)."""
        assert op.message is not None
        if user in self._dm_closed or (dm := await self._dm(user)) is None:
            return
        try:
            await self._channel(dm).send(render.content(op.message), nonce=op.nonce)
        except discord.Forbidden as e:  # DMs closed, or no server shared any more
            log.info("could not tell %s by DM: %s", user, e)

    def _hand_note(self, table_id: str, user: str, table: Table | None, key: str) -> Message:
        """A DM hand's last words when it stops following the game: which table (if
        it is still known), and why, in the player's language."""
        lang = self._langs.get(user) or self._table_lang(table_id)
        title = hand_title(table, lang) + "\n" if table is not None else ""
        return Message(title + t(lang, key))

    def _last_hands(self, table_id: str, humans: list[str]) -> None:
        """Each hand's last picture, without buttons: the match is over, or the table
        closed (not a "Waiting for ..." that nothing will ever change)."""
        for user in humans:
            hand = self.service.hand(table_id, user, self._langs.get(user))
            msg = render.without_buttons(hand.message) if hand is not None else None
            self._add(table_id, Op("final", f"hand:{user}", msg))
            self._add(table_id, Op("final", f"live:{user}", msg))

    def _left_hands(self, table_id: str, humans: list[str], table: Table | None) -> None:
        """The DM hands of people no longer seated whose leaving closed the table
        (the last one's /forgetme): they say it closed, without buttons, instead of
        a "Your turn." nothing answers."""
        for slot in list(self._refs.get(table_id, {})):
            user = slot[5:]
            if slot.startswith("hand:") and user not in humans:
                note = self._hand_note(table_id, user, table, "hand.closed")
                self._add(table_id, Op("final", slot, note))


def _now() -> float:
    return time.monotonic()
