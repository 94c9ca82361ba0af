"""Discord: what happens when things happen at the same time, as in real servers.

Races are driven, not left to luck: presses gathered at once, an interaction
delivered twice (`FakeDiscord.deliver_again`, the gateway replaying after a resume),
one that reaches the bot late (`click(..., late=...)`), a message the bot is still
sending (`FakeDiscord.hold`), a core kept busy by holding its table's lock."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from bot.payload import decode as decode_payload
from bot.table import Status
from tests.e2e.discord_harness import World, discord_world, is_current
from tests.e2e.fakes.discord.entities import FakeUser
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.fakes.discord.protocol import Limits


async def next_press(world: World, table_id: str) -> tuple[FakeUser, FakeMessage]:
    step, user, message = await world.fake.wait_for(
        lambda: world.next_move(table_id), description="a player to act"
    )
    assert step == "press" and user is not None and message is not None
    return user, message


def current_ids(world: World, table_id: str, message: FakeMessage) -> list[str]:
    table = world.service.tables[table_id]
    return [b.custom_id for b in message.buttons if b.custom_id and is_current(b.custom_id, table)]


async def test_an_interaction_delivered_twice_counts_once(tmp_path: Path) -> None:
    """After a resume the gateway may deliver again an interaction the bot has
    handled: it counts once and is not answered a second time (Discord would refuse
    that: 40060), be it the command that opened the table, "Add computer" (which has
    no version to be stale by) or a card."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        opened = await world.fake.slash(anna, world.channel, "schnapsen new", game="dreier")
        lobby = await opened
        await world.settle()
        added = await world.click(anna, lobby, "Add computer")
        await world.settle()
        for interaction in (opened, added):
            await world.fake.deliver_again(interaction)
        await world.click(bert, lobby, "Join")
        await world.settle()
        [table] = world.service.tables.values()
        assert [s.user is None for s in table.seats if s is not None] == [False, True, False]
        await world.click(anna, lobby, "Start")
        await world.settle()

        user, hand = await next_press(world, table.id)
        assert table.deal_log is not None
        played = len(table.deal_log.actions)
        pressed = await world.click(user, hand, current_ids(world, table.id, hand)[0])
        await world.settle()
        await world.fake.deliver_again(pressed)
        await world.settle()
        assert len(table.deal_log.actions) == played + 1
        interactions = (opened, added, pressed)
        assert [len(i.responses) for i in interactions] == [1, 0, 0]
        assert all(world.refusals(i) == [] for i in interactions)


@pytest.mark.parametrize(
    ("limits", "budget", "late"),
    [
        # a window of 2 s with a budget of 1 s: the press is 1.5 s late
        (Limits(ack_deadline=2.0), {"ack_budget": 1.0}, 1.5),
        # the bot as it runs, with Discord's real window of 3 s: the 2 s its budget
        # allows a press are gone, so it acknowledges at once, not a second later,
        # when Discord would already have shown her "This interaction failed"
        (None, {}, 2.0),
    ],
    ids=["short-window", "as-it-runs"],
)
async def test_a_press_that_reached_the_bot_late_is_deferred_within_what_is_left_of_its_window(
    tmp_path: Path, limits: Limits | None, budget: dict[str, Any], late: float
) -> None:
    """A press reaches the bot late (the gateway lagged, or the bot's loop was busy)
    while the table is busy: the bot has what is left of Discord's window to
    acknowledge it, not a whole budget of its own."""
    async with discord_world(tmp_path, limits=limits) as world:
        await world.start_bot(**budget)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        [message] = world.table_messages(table_id)
        async with world.service.lock(table_id):  # the table is busy
            shown = await world.fake.click(anna, message, "Show my hand", late=late)
            assert await shown.wait_acknowledged() == 6  # deferred in time
        [hand] = await shown.wait_followups()
        assert hand.ephemeral_for is anna and f"table {table_id}" in hand.content


async def test_a_press_answered_within_the_budget_gets_no_thinking_first(
    tmp_path: Path,
) -> None:
    """Anna's table is busy for 1.3 s when she presses "Show my hand": the bot may
    take 2 s of Discord's 3 before it must acknowledge, so her hand comes as the
    answer itself, not after an acknowledgement and as its follow-up."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        [message] = world.table_messages(table_id)
        async with world.service.lock(table_id):  # the table is busy
            shown = await world.fake.click(anna, message, "Show my hand")
            await asyncio.sleep(1.3)  # the time itself is what is tested
            assert not shown.acknowledged
        assert await shown.wait_acknowledged() == 4  # the answer, at once
        hand = await shown
        assert hand.ephemeral_for is anna and f"table {table_id}" in hand.content


async def test_a_press_that_reached_the_bot_after_its_window_still_counts_once(
    tmp_path: Path,
) -> None:
    """The bot's loop was busy longer than Discord's window: a card press arrives
    when no answer can be in time, so the player sees "This interaction failed".  The
    card is played all the same, once (what he pressed was his move; pressing again
    is refused as out of date), the bot tries no answer twice, and his hand shows the
    move."""
    async with discord_world(tmp_path, limits=Limits(ack_deadline=1.5)) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["bert"])
        table = world.service.tables[table_id]
        assert table.deal_log is not None
        user, hand = await next_press(world, table_id)
        played = len(table.deal_log.actions)
        pressed = await world.fake.click(
            user, hand, current_ids(world, table_id, hand)[0], late=2.0
        )
        await world.fake.wait_for(
            lambda: table.deal_log is not None and len(table.deal_log.actions) > played
        )
        await world.settle()
        assert len(table.deal_log.actions) == played + 1
        assert [e.code for e in pressed.rejections] == [10062]  # one try, no more
        assert hand.buttons == [] or all(is_current(b.custom_id or "", table) for b in hand.buttons)
        assert hand.history  # redrawn after the move


async def test_a_dm_still_on_its_way_holds_up_nobody_else(tmp_path: Path) -> None:
    """After a move, the edit of the mover's DM hand is slow to go through (Discord
    slow on that DM channel, or a 5xx tried again): the other player moves meanwhile,
    and the channel's table message follows at once instead of waiting for it; the
    mover's tap on the keyboard he still sees is refused, and once his edit is through
    his hand is the table as it is now."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["bert"])
        table = world.service.tables[table_id]
        assert table.deal_log is not None
        first, hand = await next_press(world, table_id)
        second = world["bert"] if first is world["anna"] else world["anna"]
        cards = current_ids(world, table_id, hand)
        played = len(table.deal_log.actions)
        slow = world.fake.hold("PATCH", f"/channels/{hand.channel.id}/messages/{hand.id}")
        await world.click(first, hand, cards[0])
        await slow.wait_held()
        late = await world.fake.click(first, hand, cards[1])  # the keyboard still shown
        await late.wait_acknowledged()
        assert [r.content for r in late.responses] == [t(first.locale, "refuse.stale")]

        other_hand = await world.fake.wait_for(
            lambda: (
                m
                if (m := world.hand_message(second, table_id)) and current_ids(world, table_id, m)
                else None
            ),
            description="the other player's buttons",
        )
        await world.click(second, other_hand, current_ids(world, table_id, other_hand)[0])
        [message] = world.table_messages(table_id)
        await world.fake.wait_for(
            lambda: any(is_current(b.custom_id or "", table) for b in message.buttons),
            description="the table message to follow the game",
        )
        assert slow.waiting == 1  # the first player's edit is still on its way

        slow.release()
        await world.settle()
        assert len(table.deal_log.actions) == played + 2
        assert all(is_current(b.custom_id or "", table) for b in hand.buttons)


async def test_a_match_that_ends_while_a_dm_hand_is_on_its_way_still_clears_that_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a move, the edit of the mover's DM hand is slow to go through, and the
    other player resigns meanwhile.  The channel says so at once, without waiting for
    it; once the edit is through, the mover's hand shows the match as over, without
    buttons.  Only then is the core told the end went out (told before, the table was
    forgotten first: that hand kept buttons that only got refusals, and a kill then
    left it so for good, the restart having nothing more to show)."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["bert"])
        table = world.service.tables[table_id]
        mover, hand = await next_press(world, table_id)
        other = world["bert"] if mover is world["anna"] else world["anna"]
        cleared_when_told: list[bool] = []
        delivered = world.service.delivered

        async def told(table_id: str, version: int) -> None:
            cleared_when_told.append(hand.buttons == [])
            await delivered(table_id, version)

        monkeypatch.setattr(world.service, "delivered", told)
        slow = world.fake.hold("PATCH", f"/channels/{hand.channel.id}/messages/{hand.id}")
        await world.click(mover, hand, current_ids(world, table_id, hand)[0])
        await slow.wait_held()
        channel = world.adapter._outboxes[(table_id, "")]
        await world.resign(other)
        await world.fake.wait_for(  # said, and the channel's queue at the table's close
            lambda: (
                not channel.ops
                and [
                    m for m in world.fake.channel_messages(world.channel) if "resigned" in m.content
                ]
            ),
            description="the summary",
        )
        assert slow.waiting == 1  # the mover's edit is still on its way

        slow.release()
        await world.settle()
        assert table.status == Status.FINISHED
        assert hand.buttons == []
        assert hand.content.endswith(t(mover.locale, "hand.match_over"))
        assert cleared_when_told == [True]


async def test_a_lobby_pressed_by_everyone_at_once_seats_and_deals_once(tmp_path: Path) -> None:
    """/schnapsen new sent twice at once, the last seat wanted by two at once, Start
    double-tapped: one lobby, one seat each, one deal."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert, clara = world["anna"], world["bert"], world["clara"]
        opened = await asyncio.gather(
            *(world.fake.slash(anna, world.channel, "schnapsen new", game="zweier") for _ in "12")
        )
        replies = [await i for i in opened]
        await world.settle()
        [table] = world.service.tables.values()
        [lobby] = [m for m in replies if m.buttons]
        [refusal] = [m for m in replies if not m.buttons]
        # the second /new waits for the first's table (the chat's settings are held
        # until it is among the chat's), so its refusal names that table (and its
        # channel, once the table's message is there)
        said = t("en", "refuse.seated_elsewhere_at", table=table.id)
        assert refusal.content.startswith(said)

        joins = await asyncio.gather(*(world.click(u, lobby, "Join") for u in (bert, clara)))
        await world.settle()
        refused = [(i.user, r.content) for i in joins for r in i.responses if r.ephemeral]
        assert len(refused) == 1
        loser, said = refused[0]
        assert said == t(loser.locale, "refuse.table_full")
        winner = bert if loser is clara else clara

        starts = await asyncio.gather(*(world.click(anna, lobby, "Start") for _ in "12"))
        await world.settle()
        refusals = [r.content for i in starts for r in i.responses if r.ephemeral]
        assert refusals == [t("en", "refuse.not_in_lobby")]
        assert len(table.deals) == 1 and len(world.table_messages(table.id)) == 1
        for user in (anna, winner):
            assert len([m for m in world.fake.dms(user) if table.id in m.content]) == 1
        assert not any(table.id in m.content for m in world.fake.dms(loser))


async def test_one_player_at_two_tables_in_two_servers_keeps_them_apart(tmp_path: Path) -> None:
    """Anna joins a table in the Wirtshaus and one in the Kaffeehaus server at the
    same moment and plays both from her DMs: each DM hand follows its own table, and
    the Wirtshaus match ending leaves the Kaffeehaus game alone."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        anna, bert, clara = world["anna"], world["bert"], world["clara"]
        kaffeehaus = fake.add_guild("Kaffeehaus")
        elsewhere = fake.add_text_channel(kaffeehaus, "karten")
        for user in (anna, clara):
            fake.add_member(kaffeehaus, user)
        await world.start_bot()
        first, lobby = await world.open_table(bert, "zweier")
        second, other_lobby = await world.open_table(clara, "zweier", where=elsewhere)
        joined = await asyncio.gather(
            world.click(anna, lobby, "Join"), world.click(anna, other_lobby, "Join")
        )
        assert all(i.responses == [] for i in joined)  # no refusal
        await world.click(bert, lobby, "Start")
        await world.click(clara, other_lobby, "Start")
        await world.settle()
        tables = world.service.tables
        for table_id in (first, second, first):
            version = tables[table_id].version

            def moved_twice(t: str = table_id, v: int = version) -> bool:
                return tables[t].version >= v + 2

            await world.play(table_id, until=moved_twice)

        await world.resign(bert)
        await world.settle()
        assert first not in tables
        [over] = [m for m in fake.dms(anna) if f"table {first}" in m.content]
        assert over.buttons == []
        version = tables[second].version
        await world.play(second, until=lambda: tables[second].version >= version + 2)
        for message in fake.dms(anna):  # each hand only ever offered its own table
            shown = [(r.content, _custom_ids(r.components)) for r in message.history]
            shown.append((message.content, [b.custom_id or "" for b in message.buttons]))
            for content, custom_ids in shown:
                title = content.split("\n", 1)[0]
                for custom_id in custom_ids:
                    table = decode_payload(custom_id.removeprefix("s:")).table
                    assert f"table {table} " in title, title


def _custom_ids(components: Any) -> list[str]:
    """The custom_ids of a message's components as Discord stores them (JSON)."""
    if isinstance(components, list):
        return [c for item in components for c in _custom_ids(item)]
    if isinstance(components, dict):
        own = [components["custom_id"]] if "custom_id" in components else []
        return own + _custom_ids(components.get("components", []))
    return []
