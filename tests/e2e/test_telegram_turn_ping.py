"""A turn that comes after a wait rings on Telegram.

Editing a message makes no sound, and a player's hand message is edited at every
move; the reminder comes only shortly before his time runs out.  So a turn that comes
after he has waited (`ping_after` seconds since his last turn ended) brings a short
reply to his hand message, which goes again once he has moved: his private chat keeps
the hand, not a "your turn" for every trick.
"""

from __future__ import annotations

from pathlib import Path

from tests.e2e.clocks import reminded
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    fake,
    hand_message,
    joined,
    log_guard,
    play,
    press,
    start_rig,
    started_match,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


def pings(user: FakeUser, table_id: str) -> list[FakeMessage]:
    """Every ping the bot sent `user` for this table, deleted ones included."""
    return [
        m
        for m in user.private_chat.messages
        if m.from_bot and m.text.startswith(f"Your turn at table {table_id}")
    ]


async def test_a_turn_after_a_wait_rings_and_the_ping_goes_after_the_move(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", ping_after=0.0)
    try:
        players, table_id = await started_match(rig, fake)
        for _ in range(12):
            await play(rig, table_id, players.users, until=lambda: False, limit=1)
            await rig.adapter.outbox.drain()
            table = rig.table(table_id)
            if table is None:
                break
            to_act = table.to_act()
            for seat, user in enumerate(players.users):
                shown = [m for m in pings(user, table_id) if not m.deleted]
                # one ping at most, for the player whose turn it is, on his hand
                assert len(shown) <= (1 if seat == to_act else 0), [m.text for m in shown]
                for ping in shown:
                    assert ping.reply_to is hand_message(user, table_id), ping.text
                    assert "s)." in ping.text  # how long he has
        sent = [m for user in players.users for m in pings(user, table_id)]
        assert sent, "no turn came with a ping"
        assert any(m.deleted for m in sent), "no ping went after its move"
    finally:
        await stop_rig(rig)


async def test_turns_in_quick_succession_do_not_ring(fake: FakeTelegram, tmp_path: Path) -> None:
    """A player who moved a moment ago is looking at his hand: no ping."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", ping_after=3600.0)
    try:
        players, table_id = await started_match(rig, fake, presses=12)
        await rig.adapter.outbox.drain()
        assert not [m for user in players.users for m in pings(user, table_id)]
    finally:
        await stop_rig(rig)


async def test_a_ping_left_by_a_stop_is_deleted_by_the_restart(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The bot stopped while a ping stood: the next start does not know whose turn it
    rang, so it deletes it rather than leave a "your turn" nobody takes back."""
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db, ping_after=0.0)
    try:
        players, table_id = await started_match(rig, fake)

        def standing() -> list[FakeMessage]:
            return [m for u in players.users for m in pings(u, table_id) if not m.deleted]

        for _ in range(20):
            if standing() or rig.table(table_id) is None:
                break
            await play(rig, table_id, players.users, until=lambda: False, limit=1)
            await rig.adapter.outbox.drain()
        left = standing()
        assert left, "no ping stood to leave behind"
        assert any(s.startswith("ping:") for s in await rig.store.message_refs(table_id))
    finally:
        await stop_rig(rig)

    rig = await start_rig(fake, db, ping_after=3600.0)
    try:
        await rig.adapter.outbox.drain()
        assert all(m.deleted for m in left), [m.text for m in left if not m.deleted]
        refs = await rig.store.message_refs(table_id)
        assert not [s for s in refs if s.startswith("ping:")], refs
        # the game goes on from the same hand messages
        await play(rig, table_id, players.users, until=lambda: False, limit=2)
    finally:
        await stop_rig(rig)


async def test_a_reminder_goes_once_the_turn_it_reminded_of_is_over(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The reminder stands in for the ping and goes the same way: the private chat
    keeps no "it is your turn (20 s left)" of turns long over.  Turns are long, and
    the test sends the reminder itself: with a short turn, a store write slower than
    the turn (a loaded machine) left none to delete."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", ping_after=3600.0)
    try:
        players, table_id = await started_match(rig, fake)
        assert await reminded(rig.service, table_id)  # its timer's callback, run now

        def reminders() -> list[FakeMessage]:
            return [
                m
                for u in players.users
                for m in u.private_chat.messages
                if m.from_bot and "it is your turn" in m.text
            ]

        [reminder] = await fake.wait_for(lambda: reminders() or None, timeout=5)
        assert not reminder.deleted
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await rig.adapter.outbox.drain()
        await fake.wait_for(lambda: reminder.deleted or None, what="the reminder deleted")
    finally:
        await stop_rig(rig)


async def test_pings_and_reminders_speak_the_player_s_language_else_the_table_s(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The group's tables speak German.  Berti's app is English: the pings of his turns
    and a reminder that stands in for one, in his private chat, are English (as his
    hand is).  Anna's app names no language: hers are German, the table's."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", ping_after=0.0)
    try:
        anna = fake.create_user("Anna", username="anna", started=True, language_code=None)
        berti = fake.create_user("Berti", username="berti", started=True)
        group = fake.create_group("Schnapsen", members=[anna, berti], creator=anna)
        anna.send(group, "/settings language de")
        await fake.wait_for_message(group, contains="language = de")
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Gastgeber")
        assert not (await press(fake, berti, lobby, "Mitspielen")).show_alert
        await fake.wait_for(joined(berti, lobby), what="Berti in the lobby")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        table_id = next(iter(rig.service.tables))
        said = {anna: f"Du bist dran am Tisch {table_id}", berti: f"Your turn at table {table_id}"}

        def rung(user: FakeUser) -> list[FakeMessage]:
            return [m for m in user.private_chat.messages if m.from_bot and m.reply_to]

        for _ in range(12):
            await rig.adapter.outbox.drain()
            if rung(anna) and rung(berti):
                break
            await play(rig, table_id, [anna, berti], until=lambda: False, limit=1)
        for user, words in said.items():
            assert rung(user) and all(m.text.startswith(words) for m in rung(user))
        reminders: dict[str, str] = {}  # whose: its words
        for _ in range(8):
            assert await reminded(rig.service, table_id)
            await rig.adapter.outbox.drain()
            [reminder] = [m for u in said for m in rung(u) if not m.deleted]
            reminders[reminder.text.split(",")[0]] = reminder.text
            if len(reminders) == 2:
                break
            await play(rig, table_id, [anna, berti], until=lambda: False, limit=1)
        assert reminders["Anna"].startswith("Anna, du bist dran"), reminders
        assert reminders["Berti"].startswith("Berti, it is your turn"), reminders
    finally:
        await stop_rig(rig)
