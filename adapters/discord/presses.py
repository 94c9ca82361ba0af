"""In: a button press, from the payload to its answer.

Every button is a `PayloadButton`; its press becomes one call on the `TableService`
(`TableService.act`), which decides what it means and whether this user may press
it.  The answer depends on what the core says: a refusal or a note for the presser
only, a hand shown in place of the one pressed on (or as a new ephemeral message), a
question's button turned into its answer, a rematch's lobby in the channel.  An
interaction the gateway delivers again (a replay after a resume) is dropped, and a
component that is not ours is answered so.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord

from bot.payload import loggable
from bot.service import Outcome, UserRef
from bot.told import log_failure

from .answers import Answering, NotAnswered
from .errors import OUTAGES
from .ids import table_of
from .outbox import Op
from .render import PayloadButton
from .texts import text

#: Logged under the adapter's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.discord.adapter")

#: What a question's button (`Outcome.confirm`) answers when it has done its work.
_CONFIRMED = frozenset({"resigned", "forgotten"})


class Presses(Answering):
    """The `DiscordAdapter`'s button presses.  A mixin, as `Answering` is."""

    async def press(self, interaction: discord.Interaction[Any], payload: str) -> None:
        """One button press, whatever the button: the core decides what it means and
        whether this user may press it."""
        if not self.first_delivery(interaction):
            return
        async with self.handling():
            await self._press(interaction, payload)

    async def _press(self, interaction: discord.Interaction[Any], payload: str) -> None:
        user = await self.who(interaction, payload)
        message = interaction.message
        table_id = table_of(payload)
        on_hand = (
            message is not None
            and table_id is not None
            and self._is_hand(table_id, user.key, message)
        )
        # "Rematch" opens a table: where only admins may, Manage Server counts, as
        # for /schnapsen new
        is_admin = interaction.guild_id is None or interaction.permissions.manage_guild
        try:
            outcome = await self.within_budget(
                interaction,
                self.service.act(user, payload, self.chat(interaction), is_admin=is_admin),
            )
        except (discord.HTTPException, NotAnswered, *OUTAGES) as e:  # could not even defer
            log.warning("a press (%s) could not be acknowledged: %s", loggable(payload), e)
            self._unanswered(table_id, user.key)
            return
        except Exception as e:
            log_failure(log, e, "a press (%s) failed", loggable(payload))
            with contextlib.suppress(discord.HTTPException, NotAnswered):
                await self.reply(interaction, text(user.speaks, "failed"))
            return
        if outcome.ok and outcome.hand is None and table_id is not None:
            outcome = self._with_hand(outcome, table_id, user, payload)
        try:
            await self._answer(interaction, user, outcome, table_id, on_hand)
        except (discord.HTTPException, NotAnswered, *OUTAGES) as e:
            # a network error too: left to discord.py it would log the button, label
            # (a card of the presser's hand) and all
            log.warning("could not answer a press (%s): %s", loggable(payload), e)
            self._unanswered(table_id, user.key)

    def said(
        self, interaction: discord.Interaction[Any], user: UserRef, outcome: Outcome
    ) -> str | None:
        """The core's note for the presser.  "You already play at another table"
        says which and where: on Discord it may be in any channel or thread of the
        server (a lobby opened and forgotten there keeps its host from opening one)."""
        if outcome.code != "seated_elsewhere" or outcome.text is None:
            return outcome.text
        table = self.service.table_of(self.chat(interaction).key, user.key)
        channel = self._channels.get(table.id) if table is not None else None
        if table is None or channel is None:
            return outcome.text
        where = text(user.speaks, "seated_at", table=table.id, channel=f"<#{channel}>")
        return f"{outcome.text} {where}"

    def _unanswered(self, table_id: str | None, user: str) -> None:
        """The presser saw "This interaction failed" and no answer: whatever the press
        did (a move counts all the same), their hand shows the table as it now is."""
        if table_id is not None:
            self._refresh_hand(table_id, user)

    def _is_hand(self, table_id: str, user: str, message: discord.Message) -> bool:
        """Whether the pressed message is `user`'s own hand: only then is it edited into
        his hand.  An ephemeral message is his if it answered his interaction (a forged
        press on another's ephemeral hand must not write this hand into it)."""
        if message.flags.ephemeral:
            meta = message.interaction_metadata
            return meta is not None and f"dc:{meta.user.id}" == user
        ref = self._refs.get(table_id, {}).get(f"hand:{user}")
        return ref is not None and ref[1] == message.id

    async def _answer(
        self,
        interaction: discord.Interaction[Any],
        user: UserRef,
        outcome: Outcome,
        table_id: str | None,
        on_hand: bool,
    ) -> None:
        pressed = interaction.message
        ephemeral_hand = on_hand and pressed is not None and pressed.flags.ephemeral
        if outcome.code in _CONFIRMED:
            await self._confirmed(interaction, user, outcome)
            return
        if outcome.hand is not None:
            await self._show_hand(interaction, user, outcome.hand, on_hand, ephemeral_hand)
            return
        if outcome.code == "rematch" and outcome.lobby is not None and outcome.table_id:
            # "Rematch" opened a lobby: it is the answer, in the channel, as after /new
            await self.opened(interaction, outcome.table_id, outcome.lobby.message)
            return
        if outcome.code == "stale" and ephemeral_hand and table_id is not None:
            # an ephemeral hand that stopped following the game (its token ran out) or
            # fell behind: the press brings it up to date in place, with a fresh token
            current = self.service.hand(table_id, user.key, self._langs.get(user.key))
            if current is not None:
                await self._show_hand(interaction, user, current, on_hand, ephemeral_hand)
                return
        if outcome.text:
            await self.reply(interaction, self.said(interaction, user, outcome) or outcome.text)
            if outcome.code == "stale" and on_hand and table_id is not None:
                self._refresh_hand(table_id, user.key)  # the hand shows old buttons
            return
        if not interaction.response.is_done():
            await self.first_response(
                interaction,
                interaction.response.defer,
                discord.InteractionResponseType.deferred_message_update,
            )
        if ephemeral_hand and table_id is not None and table_id in self._channels:
            # keep editing this ephemeral hand through the newest token
            self._go_live(
                table_id,
                user.key,
                lambda c, v: interaction.edit_original_response(content=c, view=v),
            )
            self._shown.pop((table_id, f"live:{user.key}"), None)
            self._add(table_id, Op("edit", f"live:{user.key}"))

    async def _confirmed(
        self, interaction: discord.Interaction[Any], user: UserRef, outcome: Outcome
    ) -> None:
        """A question's button did what it asked: the question (his alone) becomes the
        answer, without the button."""
        if outcome.code == "forgotten":
            self.forget_user(user.key)
        words = outcome.text or text(user.speaks, "done")
        if interaction.response.is_done():  # deferred: the pressed message is @original
            await interaction.edit_original_response(content=words, view=None)
            return
        await self.first_response(
            interaction,
            lambda: interaction.response.edit_message(content=words, view=None),
            discord.InteractionResponseType.message_update,
            lambda: interaction.edit_original_response(content=words, view=None),
        )

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """A component that is not ours (no ``s:`` payload): say so instead of
        letting the user see "This interaction failed"."""
        if interaction.type != discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        if PayloadButton.__discord_ui_compiled_template__.fullmatch(custom_id):
            return
        if not self.first_delivery(interaction):
            return
        async with self.handling():
            with contextlib.suppress(discord.HTTPException, NotAnswered):
                await self.reply(
                    interaction, text((await self.who(interaction)).speaks, "not_here")
                )
