"""A turn that comes after a wait rings on Discord too: a DM reply to the hand.

Editing a DM hand makes no sound, and the reminder (a mention in the channel) comes
only shortly before the time runs out.  So a turn that comes after the player has
waited brings a short reply to his DM hand, deleted once he has moved.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from adapters.discord import render
from bot.payload import decode
from bot.ports import Timings
from bot.store import Store
from bot.table import Table
from engine.actions import PlayCard
from engine.actions import decode as decode_action
from tests.e2e.clocks import computer_moves, remind, reminded, run_out
from tests.e2e.discord_harness import World, discord_world, is_current, is_ping
from tests.e2e.fakes.discord.entities import FakeChannel, FakeUser
from tests.e2e.fakes.discord.messages import FakeMessage


def pings(world: World, user: FakeUser, table_id: str) -> list[FakeMessage]:
    """Every ping sent to `user` for this table, deleted ones included."""
    return [
        m
        for m in world.fake.messages.values()
        if m.channel.is_dm and m.channel.recipient is user and is_ping(m) and table_id in m.content
    ]


async def until_a_ping_stands(world: World, table_id: str, *players: FakeUser) -> list[FakeMessage]:
    """Play on until a ping stands (sent, not yet deleted); the standing ones."""

    def standing() -> list[FakeMessage]:
        return [m for u in players for m in pings(world, u, table_id) if not m.deleted]

    await world.play(table_id, until=lambda: world.settled() and bool(standing()))
    await world.settle()
    return standing()


async def one_move(world: World, table_id: str) -> Table | None:
    """Let the players make the next move, and everything it causes be sent; the
    table then (None: it closed)."""
    moved = world.service.tables[table_id].version
    await world.play(
        table_id,
        until=lambda: (tb := world.service.tables.get(table_id)) is None or tb.version > moved,
    )
    await world.settle()
    return world.service.tables.get(table_id)


async def test_a_turn_after_a_wait_rings_by_dm_and_goes_after_the_move(
    tmp_path: Path,
) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        for _ in range(12):
            if table_id not in world.service.tables:
                break
            table = await one_move(world, table_id)
            to_act = table.to_act() if table is not None else None
            for seat, user in enumerate((anna, bert)):
                shown = [m for m in pings(world, user, table_id) if not m.deleted]
                # one ping at most, for the one to act, in his DMs
                assert len(shown) <= (1 if seat == to_act else 0), [m.content for m in shown]
        sent = [m for user in (anna, bert) for m in pings(world, user, table_id)]
        assert sent, "no turn came with a ping"
        assert any(m.deleted for m in sent), "no ping went after its move"
        assert all(m.content.endswith(" s).") for m in sent), [m.content for m in sent]


async def test_a_ping_standing_when_the_match_ends_goes_with_it(tmp_path: Path) -> None:
    """A "your turn" reply stands in a player's DMs when the other resigns: the match
    is over, so the ping goes; none is left calling him to a table that is closed."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        [ping] = await until_a_ping_stands(world, table_id, anna, bert)
        await world.resign(bert if ping.channel.recipient is anna else anna)
        await world.settle()

        assert table_id not in world.service.tables
        assert ping.deleted
        assert [m for u in (anna, bert) for m in pings(world, u, table_id) if not m.deleted] == []


async def test_quick_turns_do_not_ring_by_dm(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=3600.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        start = world.service.tables[table_id].version

        def twelve_moves_on() -> bool:
            table = world.service.tables.get(table_id)
            return table is None or table.version >= start + 12

        await world.play(table_id, until=twelve_moves_on)
        await world.settle()
        assert not [m for user in (anna, bert) for m in pings(world, user, table_id)]


async def test_a_seat_the_computer_plays_does_not_ring(tmp_path: Path) -> None:
    """Bert stopped playing; after his turn ran out the computer plays his seat.  His
    hand still says whose turn it is, but a turn the computer will play must not
    ring his phone every trick."""
    async with discord_world(tmp_path) as world:
        # Anna's turns must not run out under her clicks on a busy machine (with 3 s
        # turns a click 3 s late lost her seat too): turns are long, Bert's run out at
        # once (the test fires their timer)
        quick = Timings(turn_timeout=30, reminder_before=0, missed_turns_limit=1, ai_delay=0.05)
        await world.start_bot(ping_after=0.0, timings=quick)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        seat = world.service.tables[table_id].seat_of(f"dc:{bert.id}")
        assert seat is not None

        def annas_move() -> str | None:
            run_out(world.service, table_id, f"dc:{bert.id}")  # Bert never presses
            table = world.service.tables.get(table_id)
            hand = world.hand_message(anna, table_id)
            if table is None or hand is None:
                return None
            ids = [
                b.custom_id
                for b in hand.buttons
                if b.custom_id is not None
                and is_current(b.custom_id, table)
                and decode(b.custom_id.removeprefix("s:")).verb == "a"
            ]
            return world.choose(table, ids) if ids else None

        def away() -> bool:
            table = world.service.tables.get(table_id)
            return table is None or (s := table.seats[seat]) is None or s.ai is not None

        before = -1
        presses = 0
        for _ in range(60):
            if table_id not in world.service.tables or presses >= 8:
                break
            if before < 0 and away():
                await world.settle()
                before = len(pings(world, bert, table_id))
            move = await world.fake.wait_for(
                lambda: annas_move() or (table_id not in world.service.tables) or None,
                timeout=5,
                description="Anna's turn",
            )
            if isinstance(move, str):
                hand = world.hand_message(anna, table_id)
                assert hand is not None
                await world.click(anna, hand, move)
                presses += before >= 0
            await world.settle()
        assert before >= 0 and presses, "Bert's seat was never the computer's while Anna played"
        assert len(pings(world, bert, table_id)) == before, "a computer's turn rang Bert"


async def test_a_ping_whose_delete_met_an_outage_goes_on_the_retry(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0, retry_delays=(0.05, 0.05))
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)

        [ping] = await until_a_ping_stands(world, table_id, anna, bert)
        messages = "/channels/{channel_id}/messages/{message_id}"
        world.fake.server_error("DELETE", messages, status=503, times=1)
        version = world.service.tables[table_id].version
        await world.play(
            table_id,
            until=lambda: (
                (tb := world.service.tables.get(table_id)) is None or tb.version > version
            ),
        )
        await world.settle()
        await world.fake.wait_for(lambda: ping.deleted or None, description="the ping deleted")


async def test_a_player_with_closed_dms_is_rung_in_the_channel(tmp_path: Path) -> None:
    """Emil's DMs are closed: he plays from "Show my hand", which nothing rings.  His
    turn after a wait mentions him in the channel instead, and the mention goes after
    his move, so the channel does not fill with them."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0)
        anna, emil = world["anna"], world["emil"]
        table_id = await world.start_match(anna, emil)

        def channel_pings() -> list[FakeMessage]:
            return [
                m
                for m in world.fake.messages.values()  # deleted ones too
                if m.channel is world.channel
                and m.content.startswith(f"<@{emil.id}> Your turn at table {table_id}")
            ]

        rang_first = False
        for _ in range(60):
            table = world.service.tables.get(table_id)
            if table is None or (rang_first and len(table.deals) > 2):
                break
            table = await one_move(world, table_id)
            emils_turn = table is not None and table.to_act() == table.seat_of(f"dc:{emil.id}")
            shown = [m for m in channel_pings() if not m.deleted]
            assert len(shown) <= (1 if emils_turn else 0), [m.content for m in shown]
            log = table.deal_log if table is not None else None
            if table and log and emils_turn and len(table.deals) > 1 and not log.actions:
                # a new deal's first turn: the DM hand that would have rung failed
                assert shown, f"deal {len(table.deals)}: Emil's first turn did not ring"
                rang_first = True
        sent = channel_pings()
        assert sent, "Emil's turns never rang in the channel"
        assert all(emil in m.pinged for m in sent)
        assert any(m.deleted for m in sent), "no channel ping went after his move"
        assert rang_first, "no deal began with Emil's turn"


async def test_a_ping_left_by_a_stop_is_deleted_by_the_restart(tmp_path: Path) -> None:
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)

        left = await until_a_ping_stands(world, table_id, anna, bert)
        assert left
        assert any(s.startswith("ping:") for s in await world.service.store.message_refs(table_id))
        await world.restart(ping_after=3600.0)
        await world.settle()
        await world.fake.wait_for(
            lambda: all(m.deleted for m in left) or None, description="the old ping deleted"
        )
        refs = await world.service.store.message_refs(table_id)
        assert not [s for s in refs if s.startswith("ping:")], refs


async def test_dms_closed_in_the_middle_of_a_deal_ring_once_and_go(tmp_path: Path) -> None:
    """Bert closes his DMs mid-deal: the edit of his DM hand fails while his ping
    waits in his lane, and the channel ping that replaces it must not come twice,
    one of them left standing for good."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=0.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        key = f"dc:{bert.id}"
        table = None
        for _ in range(40):  # until it is Anna's turn, Bert's to come next
            table = await one_move(world, table_id)
            assert table is not None, "the match ended too soon for this test"
            if (
                table.deal_log is not None
                and table.deal_log.actions
                and (table.to_act() != table.seat_of(key))
            ):
                break
        bert.dms_closed = True

        def mentions() -> list[FakeMessage]:
            return [
                m
                for m in world.fake.messages.values()
                if m.channel is world.channel and m.content.startswith(f"<@{bert.id}> ")
            ]

        for _ in range(6):
            table = await one_move(world, table_id)
            if table is None:
                break
            standing = [m for m in mentions() if not m.deleted]
            berts_turn = table.to_act() == table.seat_of(key)
            assert len(standing) <= (1 if berts_turn else 0), [m.content for m in standing]
        assert mentions(), "Bert's turn never rang in the channel"


def _card_button(world: World, user: FakeUser, table_id: str) -> str:
    """The custom id of a card the user may play now (not "close the talon")."""
    table = world.service.tables[table_id]
    hand = world.hand_message(user, table_id)
    assert hand is not None and table.deal is not None
    for button in hand.buttons:
        if button.custom_id is None or not is_current(button.custom_id, table):
            continue
        payload = decode(button.custom_id.removeprefix("s:"))
        if payload.arg is not None and isinstance(
            decode_action(payload.arg, table.deal.contracts), PlayCard
        ):
            return button.custom_id
    raise AssertionError(f"no card to play in {[b.label for b in hand.buttons]}")


@pytest.mark.parametrize("ping_after", [3600.0, 0.0], ids=["no-ping", "ping-queued"])
async def test_a_reminder_does_not_wait_behind_a_slow_dm(tmp_path: Path, ping_after: float) -> None:
    """The reminder comes when the turn is nearly over: it must not queue behind an
    edit of his DM hand that Discord is slow to take (retries of a failing DM can take
    longer than the time the reminder leaves him).  A DM ping of the same turn that
    queued behind that edit does not replace it, and it goes after his move."""
    async with discord_world(tmp_path) as world:
        # 30 s turns: the reminder goes when the test says so (its timer's callback,
        # fired early); with 5 s turns it came 2.5 s in, during the moves before (a
        # move 2.5 s late brought a second one), and his turn ran out under the checks
        quick = Timings(turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=3, ai_delay=0)
        await world.start_bot(timings=quick, ping_after=ping_after)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        table = world.service.tables[table_id]
        first_seat = table.to_act()
        assert first_seat is not None and table.deal is not None
        first, late = (anna, bert) if table.seat_of(f"dc:{anna.id}") == first_seat else (bert, anna)
        # on until the late one has had a turn and the first is to lead to him, so
        # that his next turn comes after a wait (and would ring, with ping_after 0)
        for _ in range(24):
            view = table.deal.view(None)
            if (
                view.to_act == first_seat
                and not view.trick
                and any(seat != first_seat for trick in view.tricks for seat, _ in trick)
            ):
                break
            table = await one_move(world, table_id)  # type: ignore[assignment]
            assert table is not None and table.deal is not None
        else:
            raise AssertionError("the first player never led after a trick of both")
        hand = world.hand_message(late, table_id)
        assert hand is not None
        held = world.fake.hold("PATCH", f"/channels/{hand.channel.id}/messages/{hand.id}")

        lead = world.hand_message(first, table_id)
        assert lead is not None
        await world.click(first, lead, _card_button(world, first, table_id))
        await held.wait_held()  # his hand is to say "Your turn": that edit hangs
        assert remind(world.service, table_id)
        [reminder] = await world.fake.wait_for(
            lambda: reminders_of(world, late) or None, timeout=3.0, description="the reminder"
        )
        assert held.waiting == 1, "the DM edit went through: nothing was held up"
        assert late in reminder.pinged
        held.release()
        await world.settle()
        standing = [m for m in pings(world, late, table_id) if not m.deleted]
        assert not standing and not reminder.deleted, [m.content for m in standing]
        # his move (and his lead, if he took the trick): then the turn is the other's
        await world.play(
            table_id,
            until=lambda: (
                (tb := world.service.tables.get(table_id)) is None or tb.to_act() == first_seat
            ),
        )
        await world.settle()
        assert reminder.deleted, "the reminder stayed after his turn"


async def test_after_a_restart_a_player_with_closed_dms_is_not_told_again(
    tmp_path: Path,
) -> None:
    """The bot learns that Emil's DMs are closed when his hand cannot be sent, and says
    so in the channel once a table.  A restart in the middle of a deal forgets that:
    the next change tries his DMs again and finds them closed.  The channel is not told
    (nor Emil rung) a second time, and his turn after a wait still mentions him."""
    async with discord_world(tmp_path) as world:
        await world.start_bot(ping_after=3600.0)
        anna, emil = world["anna"], world["emil"]
        table_id = await world.start_match(anna, emil)
        key = f"dc:{emil.id}"

        def said(start: str) -> list[FakeMessage]:
            return [
                m
                for m in world.fake.messages.values()
                if m.channel is world.channel and m.content.startswith(start)
            ]

        closed_note = f"<@{emil.id}>, I cannot send you direct messages"
        table: Table | None = world.service.tables[table_id]
        for _ in range(40):  # a move or two in, with Anna to act and Emil next
            assert table is not None and table.deal_log is not None
            if table.deal_log.actions and table.to_act() != table.seat_of(key):
                break
            table = await one_move(world, table_id)
        assert len(said(closed_note)) == 1
        await world.restart(ping_after=0.0)
        await world.settle()
        ping = f"<@{emil.id}> Your turn at table {table_id}"
        for _ in range(6):
            table = await one_move(world, table_id)
            if table is None or said(ping):
                break
        assert said(ping), "Emil's turn after the restart never rang"
        assert len(said(closed_note)) == 1, [m.content for m in said(closed_note)]


async def test_a_reminder_held_up_until_he_moved_is_not_sent(tmp_path: Path) -> None:
    """The reminder waits in the channel's queue, behind the table message's edit.  If
    that edit is slow and he moves meanwhile, the reminder of a turn that is over must
    not come after (saying "2 s left" with nobody to delete it), nor silence the ping
    of his next turn."""
    async with discord_world(tmp_path) as world:
        # 30 s turns: the reminder is queued when the test says so (its timer's
        # callback, run early); with 5 s turns and a 2.5 s sleep for it to be due, his
        # click had to come within the 2.5 s left of his turn
        quick = Timings(turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=3, ai_delay=0)
        await world.start_bot(timings=quick, ping_after=0.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        table = world.service.tables[table_id]
        first_seat = table.to_act()
        assert first_seat is not None
        first, late = (anna, bert) if table.seat_of(f"dc:{anna.id}") == first_seat else (bert, anna)
        for _ in range(24):  # on until the first player leads after a trick
            assert table is not None and table.deal is not None
            view = table.deal.view(None)
            if view.to_act == first_seat and not view.trick and view.tricks:
                break
            table = await one_move(world, table_id)  # type: ignore[assignment]
        [message] = world.table_messages(table_id)[-1:]
        held = world.fake.hold("PATCH", f"/channels/{world.channel.id}/messages/{message.id}")

        before = len(reminders_of(world, late))
        lead = world.hand_message(first, table_id)
        assert lead is not None
        await world.click(first, lead, _card_button(world, first, table_id))
        await held.wait_held()
        assert await reminded(world.service, table_id)  # his reminder, queued behind the edit
        hand = world.hand_message(late, table_id)
        assert hand is not None
        moved = table.version
        await world.click(late, hand, _card_button(world, late, table_id))
        await world.fake.wait_for(
            lambda: table.version > moved or None, timeout=10.0, description="his move"
        )
        held.release()
        await world.settle()
        assert not [m.content for m in reminders_of(world, late)[before:] if not m.deleted]
        rung = len(pings(world, late, table_id))
        late_seat = table.seat_of(f"dc:{late.id}")
        deal = len(table.deals)
        for _ in range(6):  # until his next turn
            current = world.service.tables.get(table_id)
            if current is None or current.to_act() == late_seat:
                break
            await one_move(world, table_id)
        current = world.service.tables.get(table_id)
        if current is not None and len(current.deals) == deal:  # (a new hand rings itself)
            assert len(pings(world, late, table_id)) > rung, "his next turn did not ring"


async def test_a_reminder_after_a_restart_goes_with_his_move(tmp_path: Path) -> None:
    """The bot restarts in the middle of Anna's or Bert's turn; the new run reminds
    him of it in the channel.  His move takes the reminder away, as it does without
    the restart: the new run did not know it was his turn (no hand of its own showed
    it), so nothing deleted it and "it is your turn" stood in the channel for good.
    And as the reminder told the new run his turn, it knows when it ended: his next
    turn after a wait rings by DM as ever (turns ring after no wait at all here)."""
    async with discord_world(tmp_path) as world:
        # no reminder from the first run; its turn runs out while the bot is down.
        # The turns are long (a short one would run out before the bot stops, and it
        # would no longer be his turn; the table keeps its turns' length for the new
        # run too): his stored deadline is put in the past once the bot is down.
        first = Timings(turn_timeout=600.0, reminder_before=0.0, missed_turns_limit=3, ai_delay=0)
        await world.start_bot(timings=first, ping_after=3600.0)
        anna, bert = world["anna"], world["bert"]
        table_id = await world.start_match(anna, bert)
        seat = world.service.tables[table_id].to_act()
        late = anna if world.service.tables[table_id].seat_of(f"dc:{anna.id}") == seat else bert
        await world.stop_bot()
        async with Store(world.db) as store:
            row = await store.table_row(table_id)
            assert row is not None and row.deadline is not None, "his turn has no stored deadline"
            await store.set_deadline(table_id, time.time() - 60)
        # back: the downtime is not his, he is reminded at once and has the reminder's
        # time (30 s) to move
        quick = Timings(turn_timeout=600.0, reminder_before=30.0, missed_turns_limit=3, ai_delay=0)
        await world.start_bot(timings=quick, ping_after=0.0)

        [reminder] = await world.fake.wait_for(
            lambda: reminders_of(world, late) or None, timeout=5.0, description="the reminder"
        )
        await world.settle()
        assert not reminder.deleted
        hand = world.hand_message(late, table_id)
        assert hand is not None
        assert world.service.tables[table_id].to_act() == seat, "his turn ran out"
        await world.click(late, hand, _card_button(world, late, table_id))
        await world.settle()
        assert reminder.deleted, "the reminder stayed after his move"
        rung = len(pings(world, late, table_id))
        while (table := await one_move(world, table_id)) is not None:
            if table.to_act() == seat:  # his next turn (a card of the same deal)
                break
        assert table is not None and len(table.deals) == 1
        assert len(pings(world, late, table_id)) > rung, "his next turn did not ring"


def reminders_of(
    world: World, user: FakeUser, channel: FakeChannel | None = None
) -> list[FakeMessage]:
    """The turn reminders that mention `user` in `channel` (the table's), deleted ones
    too."""
    where = channel or world.channel
    return [
        m
        for m in world.fake.messages.values()
        if m.channel is where
        and m.content.startswith(user.mention)
        and "it is your turn" in m.content
    ]


async def _against_the_computer_in_her_dm(
    world: World, *, ai_delay: float = 0.0
) -> tuple[FakeUser, FakeChannel, str]:
    """Anna's match against the computer in her DM with the bot, started, and her
    turn come.  Her turns are long (30 s) and the test sends her reminder itself (its
    timer's callback): with an 8 s turn reminded 4 s in, a store write slower than
    that (a loaded machine) left no reminder to see, or her turn ran out under it.
    A long `ai_delay`: the computer moves when the test says (`computer_moves`)."""
    long = Timings(turn_timeout=30.0, reminder_before=10.0, missed_turns_limit=3, ai_delay=ai_delay)
    await world.start_bot(timings=long, ping_after=3600.0)
    anna = world["anna"]
    dm = world.fake.dm_channel(anna, create=True)
    assert dm is not None
    table_id, lobby = await world.open_table(anna, "zweier", where=dm)
    for label in ("Add computer", "Start"):
        await world.click(anna, lobby, label)
        await world.settle()
    for _ in range(3 if ai_delay else 0):  # the computer leads: its move now
        if world.service.his_turn(table_id, f"dc:{anna.id}"):
            break
        await computer_moves(world.service, table_id)
        await world.settle()
    await world.fake.wait_for(
        lambda: world.service.his_turn(table_id, f"dc:{anna.id}") or None,
        timeout=5.0,
        description="her turn",
    )
    await world.settle()
    return anna, dm, table_id


async def test_a_reminder_at_a_table_in_a_dm_goes_with_his_move(tmp_path: Path) -> None:
    """Anna plays the computer in her DM with the bot: the reminder of her turn there
    goes once she has moved, as in a server's channel (it stood for good)."""
    async with discord_world(tmp_path) as world:
        anna, dm, table_id = await _against_the_computer_in_her_dm(world)
        assert await reminded(world.service, table_id)  # its timer's callback, run now
        [reminder] = await world.fake.wait_for(
            lambda: reminders_of(world, anna, dm) or None, timeout=5.0, description="the reminder"
        )
        await world.settle()
        assert not reminder.deleted
        hand = world.hand_message(anna, table_id)
        assert hand is not None
        table = world.service.tables[table_id]
        moved = table.version
        await world.click(anna, hand, _card_button(world, anna, table_id))
        await world.settle()
        assert table.version > moved, "her card was not played"
        assert reminder.deleted, ("the reminder stayed after her move", table.to_act())


async def test_a_dm_reminder_still_on_its_way_when_she_moves_goes_too(tmp_path: Path) -> None:
    """Anna plays the computer in her DM; Discord is slow to take her reminder, and she
    plays her card meanwhile.  The reminder arrives after her move and must go (the
    turn it speaks of is over), as the same race ends in a server's channel."""
    async with discord_world(tmp_path) as world:
        anna, dm, table_id = await _against_the_computer_in_her_dm(world)
        held = world.fake.hold("POST", f"/channels/{dm.id}/messages")  # the reminder
        assert await reminded(world.service, table_id)  # its timer's callback, run now
        await held.wait_held()
        hand = world.hand_message(anna, table_id)
        assert hand is not None
        table = world.service.tables[table_id]
        moved = table.version
        await world.click(anna, hand, _card_button(world, anna, table_id))
        await world.fake.wait_for(
            lambda: table.version > moved or None, timeout=5.0, description="her card played"
        )
        held.release()
        await world.settle()
        [reminder] = [
            m
            for m in world.fake.messages.values()
            if m.channel is dm and "it is your turn" in m.content
        ]
        assert reminder.deleted, ("the reminder sent as she moved still stands", table.to_act())


async def test_her_hand_follows_a_move_made_while_her_reminder_waits_in_the_dm(
    tmp_path: Path,
) -> None:
    """Anna plays the computer in her DM.  Discord hangs on the edit of the table
    message that began her turn (her hand's edit went through): her reminder waits
    behind it, she plays her card meanwhile, and the computer answers.  Once Discord
    takes the edit, her hand shows the table as it is, not the card she played still
    in it: the reminder that waited did not stand in for her hand's edits."""
    async with discord_world(tmp_path) as world:
        anna, dm, table_id = await _against_the_computer_in_her_dm(world, ai_delay=3600.0)
        fake, service = world.fake, world.service
        table = service.tables[table_id]
        key = f"dc:{anna.id}"
        [message] = [m for m in fake.dms(anna) if "\nDeal 1 — " in m.content]  # the table
        path = f"/channels/{dm.id}/messages/{message.id}"
        hand = world.hand_message(anna, table_id)
        assert hand is not None
        await world.click(anna, hand, _card_button(world, anna, table_id))
        await world.settle()
        while True:  # the computer's move that begins her turn, its table edit hanging
            slow = fake.hold("PATCH", path)
            assert await computer_moves(service, table_id)
            await slow.wait_held()
            if service.his_turn(table_id, key):
                break
            slow.release()
            await world.settle()
        await fake.wait_for(lambda: world.pressable(table_id), description="her hand")
        assert await reminded(service, table_id)
        moved = table.version
        await world.click(anna, hand, _card_button(world, anna, table_id))
        assert table.version > moved, "her card was not played"
        for _ in range(3):  # the computer answers, up to her next turn
            if not await computer_moves(service, table_id):
                break
        slow.release()
        await world.settle()

        shown = service.hand(table_id, key)
        assert shown is not None and hand.content == render.content(shown.message)


async def test_a_nickname_that_reads_as_a_mass_mention_rings_nobody(tmp_path: Path) -> None:
    """Bert's nickname is "@here" and the mention of a role Anna has (a prank:
    Discord takes a nickname as typed).  The channel's messages that name him, up to
    the summary after he resigns, ring nobody: neither the server nor the role."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        anna, bert = world["anna"], world["bert"]
        guild = world.channel.guild
        assert guild is not None
        role = world.fake.add_role(guild, "Kartenrunde", 0)
        guild.members[anna.id].roles.append(role)
        prank = guild.members[bert.id].nick = f"@here<@&{role.id}>"
        await world.start_match(anna, bert)
        await world.resign(bert)
        await world.settle()

        said = world.fake.channel_messages(world.channel)
        [summary] = [m for m in said if f"{prank} resigned" in m.content]
        assert summary.pinged == [] and [m.content for m in said if m.pinged] == []
