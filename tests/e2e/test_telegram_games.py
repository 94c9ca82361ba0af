"""Whole games over Telegram, played only by pressing the buttons the users were sent.

Every test also checks the group transcript against the engine: no card that the
public had not seen yet ever appears in a group message (see `Witness`).
"""

from __future__ import annotations

from pathlib import Path

from adapters.telegram.layout import _PADDING, ROW_WIDTH, phone_rows
from bot.views import Button
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Rig,
    deal_over,
    fake,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


def check_deals(rig: Rig, table_id: str, group: FakeChat, users: list[FakeUser]) -> int:
    """One result message and one private hand message per deal and human; no leaks."""
    deals = sum(1 for u in rig.witness.updates if u.result is not None)
    results = [m for m in group.bot_messages() if " over: " in m.text]
    assert len(results) == deals >= 1
    for user in users:
        hands = [m for m in user.private_chat.bot_messages() if m.text.startswith("Your hand")]
        assert len(hands) >= deals
        assert all(not m.buttons() for m in hands[:deals])  # finished deals: no buttons
    assert not any("Hand:" in r.text for m in group.messages for r in m.revisions)
    assert rig.witness.check_group(table_id, group) > deals
    for user in users:  # every label readable whole on a phone (one width per row)
        for message in user.private_chat.bot_messages():
            for revision in message.revisions:
                for row in revision.keyboard():
                    widest = max(len(b.text) for b in row) + _PADDING
                    assert len(row) == 1 or len(row) * widest <= ROW_WIDTH, row
    return deals


async def test_dreier_match(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli"])
        table_id, lobby = await open_table(rig, players, "/new dreier")
        assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
        presses = await play(
            rig,
            table_id,
            players.users,
            until=lambda: rig.table(table_id) is None,
            prefer=("Pass", "Normal game"),  # so a match takes a few deals
        )
        await rig.adapter.outbox.drain()
        deals = check_deals(rig, table_id, players.group, players.users)
        assert presses > 10 * deals
        assert "Game over!" in players.group.bot_messages()[-1].text
        assert rig.witness.kinds[-1] == "finished"
    finally:
        await stop_rig(rig)


async def test_bauern_deal(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli", "Dori"])
        table_id, lobby = await open_table(rig, players, "/new bauern")
        assert "Team 1" in lobby.text and "Team 2" in lobby.text
        assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
        presses = await play(
            rig, table_id, players.users, until=deal_over(rig, table_id), prefer=("Pass",)
        )
        await rig.adapter.outbox.drain()
        assert check_deals(rig, table_id, players.group, players.users) == 1
        assert presses > 4  # trumps, the auction, tricks until the contract is decided
    finally:
        await stop_rig(rig)


async def test_tausend_deal_with_ai(fake: FakeTelegram, tmp_path: Path) -> None:
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        table_id, lobby = await open_table(rig, players, "/new tausend")
        for _ in range(2):
            revisions = len(lobby.revisions)
            assert not (await press(fake, anna, lobby, "Add computer")).show_alert
            await fake.wait_for_edit(lobby, revisions=revisions)
        assert "Computer 2 (computer, level random)" in lobby.text  # the harness level
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=deal_over(rig, table_id))
        await rig.adapter.outbox.drain()
        assert check_deals(rig, table_id, players.group, players.users) == 1
        # the computer's seats moved on their own; only Anna got private messages
        private = {c.params["chat_id"] for c in fake.calls_to("sendMessage")} - {players.group.id}
        assert private == {anna.id}
    finally:
        await stop_rig(rig)


def test_a_row_too_wide_for_a_phone_is_split_in_order() -> None:
    """Five cards fit one row; a card with a marriage in trumps does not share it with
    four others (Telegram would cut every label of the row to "K♥ +…")."""
    cards = [Button(label, f"t:1:a{i}") for i, label in enumerate(["A♥", "10♥", "K♠", "Q♠", "9♣"])]
    assert phone_rows(cards) == [cards]
    marriage = Button("K♥ + marriage in trumps (40)", "t:1:a9")
    row = [cards[0], marriage, *cards[1:4]]
    lines = phone_rows(row)
    assert [b for line in lines for b in line] == row  # nothing lost, nothing moved
    assert lines == [[cards[0]], [marriage], cards[1:4]]


def test_a_split_row_is_evened_out() -> None:
    """Five of Thousand's bids do not fit a phone's row: 3 and 2, not 4 and a lone
    button under them; where evening out would not fit, the rows stay as they fit."""
    bids = [Button(f"Bid {v}", f"t:1:b{v}") for v in range(210, 235, 5)]
    assert [len(line) for line in phone_rows(bids)] == [3, 2]
    wide = Button("K♥ + marriage in trumps (40)", "t:1:a9")
    mixed = [*bids[:4], wide]
    assert [len(line) for line in phone_rows(mixed)] == [4, 1]


async def test_a_free_bauern_seat_pressed_before_join_seats_and_greets_him(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Berti presses "Sit in seat 3" (Anna's partner) without pressing Join first: he
    joins in that seat, greeted privately as a Join greets; Cilli, who never started
    the bot, gets the link to the private chat, as by Join."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti"])
        anna, berti = players.users
        cilli = fake.create_user("Cilli", started=False)
        players.group.add_member(cilli)
        anna.send(players.group, "/new bauern")
        lobby = await fake.wait_for_message(players.group, contains="Host:")
        before = len(berti.private_chat.bot_messages())
        answer = await press(fake, berti, lobby, "Sit in seat 3")
        assert not answer.show_alert, answer.text
        [table] = rig.adapter.service.tables.values()
        assert table.seat_of(f"tg:{berti.id}") == 2
        await fake.wait_for(
            lambda: len(berti.private_chat.bot_messages()) > before, what="Berti greeted"
        )
        answer = await press(fake, cilli, lobby, "Sit in seat 2")
        assert answer.url and "?start=" in answer.url, answer
        assert table.seat_of(f"tg:{cilli.id}") == 1
    finally:
        await stop_rig(rig)
