"""Answering an interaction within Discord's 3 seconds, and saying when it failed.

Every press and command is acknowledged within Discord's window: answered at once
when the core is quick, deferred first when it is not (`within_budget`).  A first
answer that meets a 5xx or a network error is tried again while the window lasts
(`first_response`), so the user does not see "This interaction failed" for a press
that counted.  Refusals go to the presser only, as an ephemeral reply with the
core's reason.  What the adapter's other parts answer goes through `reply`.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands

from bot.records import RecordFile
from bot.service import Outcome, UserRef
from bot.told import log_failure

from . import render
from .errors import ALREADY_ACKNOWLEDGED, OUTAGES, UNKNOWN_MESSAGE
from .shape import AdapterShape
from .texts import as_on_discord, text

#: Logged under the adapter's name, as all its parts are: one name to filter its lines by.
log = logging.getLogger("adapters.discord.adapter")

T = TypeVar("T")

#: `Interaction.extras` key: the interaction was deferred as a public "thinking…".
PUBLIC_THINKING = "schnapsen_public_thinking"
#: Seconds the core may take before a press or command is deferred (Discord: 3 s).
ACK_BUDGET = 2.0
#: Discord's window for the first answer to an interaction, and how much of its end we
#: leave unused (clocks and the network are not exact).
ACK_WINDOW = 3.0
ACK_MARGIN = 0.25
#: Seconds one try of a first answer may take (but the last, which waits out the
#: window): less than the second discord.py waits before it tries a 5xx again itself,
#: so our shorter pauses below decide instead.
ACK_TRY = 0.6
ACK_RETRY_DELAYS = (0.1, 0.25)


class NotAnswered(Exception):
    """The first answer to an interaction did not reach Discord within its window, or
    a private answer could not be given privately (`_drop_public_thinking`)."""


class Answering(AdapterShape):
    """The `DiscordAdapter`'s answers to interactions.

    A mixin of the adapter, as all its parts are: what it uses of the adapter's state
    (set in `DiscordAdapter.__init__`) and of its other parts is declared once, in
    `AdapterShape`."""

    async def within_budget(
        self,
        interaction: discord.Interaction[Any],
        work: Awaitable[T],
        *,
        ephemeral: bool = True,
        thinking: bool = False,
    ) -> T:
        """Await `work`; if it takes longer than the budget, acknowledge first.  The
        budget counts from the press, as Discord's window does, not from when the bot
        got it: a lagging gateway or a busy loop may have used part of it already."""
        task = asyncio.ensure_future(work)
        waited = max(0.0, time.time() - interaction.created_at.timestamp())
        try:
            return await asyncio.wait_for(asyncio.shield(task), max(0.0, self.ack_budget - waited))
        except TimeoutError:
            if not interaction.response.is_done():
                # a command's defer "thinks" always, a press's only when asked to
                command = interaction.type is discord.InteractionType.application_command
                await self.first_response(
                    interaction,
                    lambda: interaction.response.defer(ephemeral=ephemeral, thinking=thinking),
                    discord.InteractionResponseType.deferred_channel_message
                    if thinking or command
                    else discord.InteractionResponseType.deferred_message_update,
                )
                if not ephemeral and (thinking or command):
                    interaction.extras[PUBLIC_THINKING] = True
            return await task

    async def first_response(
        self,
        interaction: discord.Interaction[Any],
        send: Callable[[], Awaitable[T]],
        kind: discord.InteractionResponseType,
        again: Callable[[], Awaitable[object]] | None = None,
    ) -> T | None:
        """Send the first answer to an interaction, tried again after a 5xx or a network
        error while Discord's 3 seconds last: unanswered, the user sees "This
        interaction failed" although the press counted.  A try whose answer was lost may
        have reached Discord: then the next one is refused with 40060, which means it is
        done (and the result, None, unknown).  What it showed is not known either (a try
        cut mid-way may have been acknowledged without its content), so `again` then
        shows it once more as an edit of that answer.  `NotAnswered` when no try got
        through."""
        window_end = interaction.created_at.timestamp() + ACK_WINDOW
        deadline = window_end - ACK_MARGIN
        delays = iter(ACK_RETRY_DELAYS)
        delay = next(delays, None)
        retried = False
        while True:
            # a try is cut short only so that another can follow it: the last one (none
            # could follow it once cut) waits out the window, since a slow answer may
            # be Discord's yes, and cut it would be a false "could not answer" and a
            # hand drawn again for nothing
            cut_at = ACK_TRY
            if delay is None or time.time() + ACK_TRY + delay >= deadline:
                cut_at = max(ACK_TRY, window_end - time.time())
            try:
                async with asyncio.timeout(cut_at):
                    return await send()
            except discord.HTTPException as e:
                if retried and e.code == ALREADY_ACKNOWLEDGED:
                    # discord.py did not see its answer arrive: tell it, so that what
                    # follows goes out as followups and edits of this answer
                    interaction.response._response_type = kind
                    if again is not None:
                        with contextlib.suppress(discord.HTTPException, *OUTAGES):
                            await again()
                    return None
                if not isinstance(e, discord.DiscordServerError):
                    raise
                error: Exception = e
            except (aiohttp.ClientError, OSError, TimeoutError) as e:
                if isinstance(e, TimeoutError):
                    self.answers_cut[interaction.id] = None
                error = e
            if delay is None or time.time() + delay >= deadline:
                raise NotAnswered(f"{type(error).__name__}: {error}") from error
            retried = True
            await asyncio.sleep(delay)
            delay = next(delays, None)

    async def reply(
        self,
        interaction: discord.Interaction[Any],
        content: str,
        *,
        view: discord.ui.View | None = None,
        ephemeral: bool = True,
        file: RecordFile | None = None,
    ) -> int | None:
        """Answer (or follow up on a deferred interaction); the new message's id.  The
        view and the file go with the first 2,000 characters, any more text follows in
        further messages."""
        lang = interaction.locale.value if interaction.locale else None
        first, *rest = render.parts(as_on_discord(content, lang))
        sent = await self._answer_once(interaction, first, view, ephemeral, file)
        for part in rest:
            await interaction.followup.send(part, ephemeral=ephemeral, wait=True)
        return sent

    async def _answer_once(
        self,
        interaction: discord.Interaction[Any],
        content: str,
        view: discord.ui.View | None,
        ephemeral: bool,
        file: RecordFile | None,
    ) -> int | None:
        def message(**kwargs: Any) -> dict[str, Any]:
            # a discord.File is read (and closed) by the try that sends it: a fresh
            # one for every try
            if view is not None:
                kwargs["view"] = view
            if file is not None:
                kwargs["file"] = discord.File(io.BytesIO(file.data), filename=file.filename)
            return kwargs

        if file is not None and not interaction.response.is_done():
            # an upload may take longer than a first answer's short try (a record of a
            # long match is half a megabyte): acknowledge first, then send it as the
            # follow-up, which has no such window
            await self.first_response(
                interaction,
                lambda: interaction.response.defer(ephemeral=ephemeral, thinking=True),
                discord.InteractionResponseType.deferred_channel_message,
            )
        if interaction.response.is_done():
            if interaction.extras.pop(PUBLIC_THINKING, False) and ephemeral:
                await self._drop_public_thinking(interaction)
            sent = await interaction.followup.send(
                content, wait=True, **message(ephemeral=ephemeral)
            )
            return sent.id
        response = await self.first_response(
            interaction,
            lambda: interaction.response.send_message(content, **message(ephemeral=ephemeral)),
            discord.InteractionResponseType.channel_message,
        )
        if response is not None:
            return response.message_id
        # it was sent, its answer lost: make sure it reads right, and learn its id (no
        # file comes here: an answer with one was acknowledged first, above)
        with contextlib.suppress(discord.HTTPException, *OUTAGES):
            return (await interaction.edit_original_response(content=content, **message())).id
        return None

    async def _drop_public_thinking(self, interaction: discord.Interaction[Any]) -> None:
        """A public "thinking…" answer is about to get a private reply (a refusal of a
        slow `/schnapsen new`).  Discord makes the first follow-up fill in the
        thinking message with the defer's visibility, whatever its own flags say: it
        would show the refusal to the whole channel.  With the thinking message
        deleted first, the follow-up is a message of its own, seen by the user only;
        while it stays, nothing is sent (`NotAnswered`): no answer, rather than his
        refusal (what he tried) shown to everybody."""
        delays = iter(ACK_RETRY_DELAYS)
        while True:
            try:
                await interaction.delete_original_response()
                return
            except OUTAGES as e:
                # a delete cut off on the way is tried again: one that reached Discord
                # makes the next a 10008, gone all the same
                delay = next(delays, None)
                if delay is None:
                    # still there: a follow-up would fill it in for the whole channel,
                    # so he is told nothing rather than in public
                    raise NotAnswered(
                        f"thinking answer not removed: {type(e).__name__}: {e}"
                    ) from e
                await asyncio.sleep(delay)
            except discord.HTTPException as e:
                if e.code != UNKNOWN_MESSAGE:
                    raise NotAnswered(
                        f"thinking answer not removed: {type(e).__name__}: {e}"
                    ) from e
                log.warning("a thinking answer could not be removed: %s", e)
                return

    async def ask(
        self, interaction: discord.Interaction[Any], outcome: Outcome, user: UserRef
    ) -> None:
        """The core's answer to a command that asks first (/resign, /forgetme): the
        question with the button that does it, seen by him alone; or the refusal."""
        view = None
        if outcome.confirm is not None:
            label, payload = outcome.confirm
            view = discord.ui.View(timeout=None)
            view.add_item(render.PayloadButton(payload, label))
        await self.reply(interaction, outcome.text or text(user.speaks, "done"), view=view)

    async def command_failed(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        """The command tree's error handler.  discord.py's own logs an ERROR and
        answers nothing, so the user sees "The application did not respond": an answer
        Discord would not take is a warning (as for presses), anything else a fault
        the user is told of (the traceback logged; options never hold a card)."""
        cause = error.original if isinstance(error, app_commands.CommandInvokeError) else error
        name = interaction.command.qualified_name if interaction.command else "?"
        if isinstance(cause, (NotAnswered, discord.HTTPException, *OUTAGES)):
            log.warning("could not answer /%s: %s", name, cause)
            return
        log_failure(log, cause, "/%s failed", name)
        with contextlib.suppress(discord.HTTPException, NotAnswered, *OUTAGES):
            await self.reply(interaction, text(await self._failed_lang(interaction), "failed"))

    async def _failed_lang(self, interaction: discord.Interaction[Any]) -> str | None:
        """The language of a failure's answer: `who`'s, or his own alone when even that
        cannot be read (the store failing is often why the command failed)."""
        try:
            return (await self.who(interaction)).speaks
        except Exception:  # the answer matters more than its language
            return self.user(interaction).lang
