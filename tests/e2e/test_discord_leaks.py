"""Red team on Discord: a player forges interactions to see or steer another's hand.

Discord only lets a user press components of messages he can see, but the bot must
not rely on it: a press is authorised by `interaction.user` (PLATFORMS.md), and
whatever it shows must be the presser's own.  Here interactions are forged against
the fake gateway on messages the presser cannot see — the other player's ephemeral
hand, the other player's DM — and `discord_world` fails the test if any message
shows a reader a hand that is not his (or a channel message a hidden card).

And what the whole channel sees: no button on a channel message (a custom_id is
visible to every member's client) ever carries a card.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.i18n import card_label
from bot.payload import decode as decode_payload
from bot.payload import table_verb
from engine.cards import CARDS
from tests.e2e.discord_harness import World, discord_world
from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.failures import RESET
from tests.e2e.fakes.discord.interaction import FakeInteraction
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import InteractionKind
from tests.e2e.fakes.discord.simulated_users import _forge_button

BUTTON = 2


async def forge(
    world: World, user: FakeUser, message: FakeMessage, custom_id: str
) -> FakeInteraction:
    """`user` presses `custom_id` on `message`, which he cannot see: what a tampered
    client could send if Discord let it through."""
    payload = message.payload()
    _forge_button(payload, custom_id)  # discord.py finds the pressed button on it
    interaction = await world.fake._dispatch_interaction(
        kind=InteractionKind.MESSAGE_COMPONENT,
        user=user,
        channel=message.channel,
        data={"custom_id": custom_id, "component_type": BUTTON},
        message=message,
        message_payload=payload,
    )
    await interaction.wait_acknowledged()
    await world.settle()
    return interaction


def payload_of(custom_id: str) -> str:
    return custom_id.removeprefix("s:")


async def test_a_press_on_another_s_ephemeral_hand_does_not_write_into_it(
    tmp_path: Path,
) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        table_message = world.table_messages(table_id)[-1]
        shown = await world.click(anna, table_message, "Show my hand")
        hand = await shown
        assert hand.ephemeral_for is anna and "Hand:" in hand.content
        before = hand.content
        version = world.service.tables[table_id].version
        await forge(world, bert, hand, "s:" + table_verb(table_id, version, "h"))
        assert hand.content == before  # Anna's ephemeral hand is still hers
        assert world.fake.leaks == []


async def test_a_move_forged_on_another_s_ephemeral_hand_does_not_write_into_it(
    tmp_path: Path,
) -> None:
    """The player to act plays his own card through a press forged on the other
    player's ephemeral hand: the move counts, but the ephemeral hand he pressed on is
    not his to follow the game in — it must never show his cards."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["bert"])
        step, actor, own = await world.fake.wait_for(
            lambda: world.next_move(table_id), description="a player to act"
        )
        assert step == "press" and own.channel.is_dm
        other = world["bert"] if actor is world["anna"] else world["anna"]
        hand = await (await world.click(other, world.table_messages(table_id)[-1], "Show my hand"))
        assert hand.ephemeral_for is other and "Hand:" in hand.content
        card = next(
            b.custom_id
            for b in own.buttons
            if b.custom_id and decode_payload(payload_of(b.custom_id)).verb == "a"
        )
        table = world.service.tables[table_id]
        version = table.version
        await forge(world, actor, hand, card)
        assert table.version == version + 1  # his own card: the move counts
        assert world.fake.hands_checked and world.fake.leaks == []


async def test_a_card_forged_out_of_turn_is_refused_in_so_many_words(tmp_path: Path) -> None:
    """The waiting player forges a card press on the table message: "It is not your
    turn.", and nothing more (the pointer to where he plays is for "You already play
    at another table" alone)."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["bert"])
        _, actor, _ = await world.fake.wait_for(
            lambda: world.next_move(table_id), description="a player to act"
        )
        other = world["bert"] if actor is world["anna"] else world["anna"]
        table = world.service.tables[table_id]
        version = table.version
        table_message = world.table_messages(table_id)[-1]
        await forge(world, other, table_message, f"s:{table_id}:{version}:a0")
        assert table.version == version
        answer = world.fake.ephemerals(other)[-1]
        assert answer.content in ("It is not your turn.", "Du bist nicht an der Reihe."), answer


async def test_a_press_on_another_s_dm_hand_shows_only_the_presser_s_own(
    tmp_path: Path,
) -> None:
    """Bert (at the table) and Otto (not) press the buttons of the DM hand of the
    player to act — his cards — and ask for a hand, a page and a discard pick on it."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, otto = world["anna"], world["bert"], world["otto"]
        table_id = await world.start_match(anna, bert)
        step, actor, hand = await world.fake.wait_for(
            lambda: world.next_move(table_id), description="a player to act"
        )
        assert step == "press" and hand.channel.is_dm
        other = bert if actor is anna else anna
        before = hand.content
        table = world.service.tables[table_id]
        version = table.version
        ids = [b.custom_id for b in hand.buttons if b.custom_id]
        assert any(decode_payload(payload_of(i)).verb == "a" for i in ids)
        ids += [
            "s:" + table_verb(table_id, version, v, n) for v, n in (("pg", 1), ("dp", 3), ("gv", 1))
        ]
        ids.append("s:" + table_verb(table_id, version, "h"))
        for user in (other, otto):
            for custom_id in ids:
                await forge(world, user, hand, custom_id)
        assert hand.content == before and table.version == version
        # asked for a hand on the actor's message, the other player got his own, for
        # him only (`discord_world` checks whose hand it shows); Otto got none
        assert [m for m in world.fake.ephemerals(other) if table_id in m.content]
        assert [m for m in world.fake.ephemerals(otto) if table_id in m.content] == []


async def test_no_channel_message_carries_a_card_button(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["emil"])  # Emil: DMs closed
        await world.play(table_id)
        await world.settle()
        public = [m for m in world.fake.channel_messages(world.channel) if m.ephemeral_for is None]
        ids = [
            button.get("custom_id", "")
            for m in public
            for components in [*(r.components for r in m.history), m.components]
            for row in components
            for button in row.get("components", [])
        ]
        verbs = {decode_payload(payload_of(i)).verb for i in ids if i.startswith("s:")}
        assert {"h", "j", "st"} <= verbs  # the lobby's and the table's buttons were seen
        assert not verbs & {"a", "dp", "gv", "pg"}  # a card, a pick to discard or give, a page


async def test_a_press_whose_answer_is_cut_off_logs_no_card(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stale card press is refused, and the refusal (a follow-up: the press was
    deferred) meets a cut connection.  The log says the answer failed, and names no
    card: discord.py's own report of a failed button would show its label, a card
    still in the presser's hand."""
    caplog.set_level(logging.INFO)  # discord.http's DEBUG lines are the bot's requests
    async with discord_world(tmp_path) as world:
        await world.start_bot(ack_budget=0)  # every press deferred, answered by follow-up
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        table = world.service.tables[table_id]
        seat = table.to_act()
        assert seat is not None
        acting = table.seats[seat]
        assert acting is not None
        mover, other = (anna, bert) if acting.user == f"dc:{anna.id}" else (bert, anna)
        hand = world.hand_message(mover, table_id)
        assert hand is not None
        stale = [b.custom_id for b in hand.buttons if b.custom_id and ":a" in b.custom_id]
        assert stale
        await world.slash(other, "abort")  # a vote: a new version, the old buttons go stale
        await world.settle()
        world.fake.server_error("POST", "/webhooks/{webhook_id}/{token}", status=RESET)
        await world.fake.click(mover, hand, stale[0], forged=True)
        await world.fake.wait_for(
            lambda: "could not answer a press" in caplog.text, description="the warning"
        )
        await world.settle()

        assert table.deal_log is not None and table.deal_log.actions == []
        labels = {card_label(c, lang) for c in CARDS for lang in ("en", "de")}
        shown = [r.getMessage() for r in caplog.records]
        assert not [line for line in shown if any(label in line for label in labels)]
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
