"""Red team on Telegram: players and a spectator press forged buttons to learn a card.

The real python-telegram-bot adapter against the fake Bot API.  In the middle of a
deal, the player waiting for his turn, a spectator in the group and a player of
another group's table send callback data a tampered client could: the buttons of the
player to act (his cards), hand menus naming any cards, the other table's buttons, a
replay of a button from before the last move, and presses on the other player's own
private hand message.  Then the bot restarts mid-deal and draws every message again.

Nothing may show anyone a card he may not know — not an answer (toast or alert), not
a message in his private chat, not the group — and no forged press may change the
table or edit a message that is not the presser's own.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from bot.payload import PayloadError, table_verb
from bot.payload import decode as decode_payload
from bot.ports import ChatRef, UserRef
from bot.table import DealLog
from engine import protocol as P
from engine.cards import CARDS, Card
from tests.bot.test_leaks import _cards_in
from tests.e2e.discord_harness import deal_states
from tests.e2e.fakes.telegram.chats import FakeChat
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    fake,
    hand_message,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    stop_rig,
)

__all__ = ["fake", "log_guard"]


def known_to(log: DealLog, seat: int | None) -> set[Card]:
    """Every card of a deal that the public (None) or a deal seat has seen so far."""
    out: set[Card] = set()
    for state in deal_states(log):
        out |= P.view(state, None).cards_seen()
        if seat is not None:
            out |= P.view(state, seat).cards_seen()
    return out


def leaks(texts: list[str], log: DealLog, seat: int | None) -> list[str]:
    """The texts that name a card of the deal the reader (a seat, or the public) has
    not seen.  Few moves are made here, so most of the dealt cards stay hidden."""
    dealt = {CARDS[c] for part in log.state0.dealt for c in part}
    hidden = dealt - known_to(log, seat)
    return [f"{sorted(map(str, found))} in {t!r}" for t in texts if (found := _cards_in(t, hidden))]


def private_texts(user: FakeUser) -> list[str]:
    return [r.text for m in user.private_chat.bot_messages() for r in m.revisions]


def group_texts(group: FakeChat) -> list[str]:
    return [r.text for m in group.bot_messages() for r in m.revisions]


def group_data(group: FakeChat) -> list[str]:
    return [
        b.data
        for m in group.bot_messages()
        for r in m.revisions
        for row in r.keyboard()
        for b in row
    ]


def card_payloads(message: FakeMessage) -> list[str]:
    return [b.data for b in message.buttons() if _is_payload(b.data)]


def _is_payload(data: str) -> bool:
    try:
        decode_payload(data)
    except PayloadError:
        return False
    return True


async def test_forged_presses_and_a_restart_show_nobody_another_s_cards(
    fake: FakeTelegram, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "bot.sqlite3"
    rig = await start_rig(fake, db)
    try:
        players = make_players(fake, ["Anna", "Berti"])
        group = players.group
        cilli = fake.create_user("Cilli", started=True)  # watches the game in the group
        group.add_member(cilli)
        others = make_players(fake, ["Dora", "Emil"])
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, players.users[0], lobby, "Start")).show_alert
        other_id, other_lobby = await open_table(rig, others, "/new zweier")
        assert not (await press(fake, others.users[0], other_lobby, "Start")).show_alert
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await rig.adapter.outbox.drain()

        table = rig.table(table_id)
        assert table is not None and table.deal_log is not None
        seat_of = {u: table.seat_of(f"tg:{u.id}") for u in players.users}
        actor = next(u for u in players.users if seat_of[u] == table.to_act())
        waiting = next(u for u in players.users if u is not actor)

        def with_buttons() -> FakeMessage | None:
            message = hand_message(actor, table_id)
            return message if message is not None and message.buttons() else None

        actor_hand = await fake.wait_for(with_buttons, what="buttons")
        waiting_hand = hand_message(waiting, table_id)
        group_table = await fake.wait_for_message(group, contains="Deal 1")
        assert waiting_hand is not None
        version = table.version
        old = [b.data for r in waiting_hand.revisions[:-1] for row in r.keyboard() for b in row]
        menus = [table_verb(table_id, version, "pg", n) for n in (0, 1, 5)]
        menus += [
            table_verb(table_id, version, "dp", 1 << a | 1 << b)
            for a, b in itertools.combinations(range(0, 24, 3), 2)
        ]
        other_table = rig.table(other_id)
        assert other_table is not None
        foreign = [table_verb(other_id, other_table.version, v) for v in ("h", "tb", "ab")]
        foreign += [f"{other_id}:{other_table.version}:a{c}" for c in range(0, 24, 5)]
        own_cards = card_payloads(actor_hand)
        assert own_cards, actor_hand.text
        # a tampered client: presses arrive on the other player's private message
        monkeypatch.setattr(actor.private_chat, "is_member", lambda user: True)
        attacks: list[tuple[FakeUser, FakeMessage, str]] = [
            *((waiting, waiting_hand, d) for d in [*own_cards, *menus, *old, *foreign]),
            *((waiting, actor_hand, d) for d in [*own_cards, *menus[:3]]),
            *(
                (cilli, group_table, d)
                for d in [*own_cards, *menus[:3], table_verb(table_id, version, "h")]
            ),
        ]
        seen = {m: len(m.revisions) for m in (actor_hand, group_table)}
        answers: dict[FakeUser, list[str]] = {waiting: [], cilli: []}
        for user, message, data in attacks:
            answer = await fake.wait_answer(user.press_data(message, data))
            answers[user].append(answer.text or "")
        await rig.adapter.outbox.drain()
        assert table.version == version  # no forged press moved the table
        assert {m: len(m.revisions) for m in seen} == seen  # nor edited another's message
        assert any("not your turn" in a for a in answers[waiting])
        assert any("not playing" in a for a in answers[cilli])

        # the bot restarts mid-deal and draws every message again
        await stop_rig(rig)
        rig = await start_rig(fake, db)
        await play(rig, table_id, players.users, until=lambda: False, limit=1)
        await rig.adapter.outbox.drain()
        table = rig.table(table_id)
        assert table is not None and table.deal_log is not None
        log = table.deal_log
        assert len(table.deals) == 1 and len(log.actions) >= 2
        problems = leaks(answers[waiting], log, seat_of[waiting])
        problems += leaks(answers[cilli] + private_texts(cilli) + group_texts(group), log, None)
        for user in players.users:
            problems += leaks(private_texts(user), log, seat_of[user])
        assert len(private_texts(waiting)) > 2  # his hand was drawn again and again
        assert not problems, "\n".join(problems[:10])
        # a button's data is visible to everyone in the group: none carries a card
        verbs = {decode_payload(d).verb for d in group_data(group) if _is_payload(d)}
        assert "h" in verbs and not verbs & {"a", "dp", "gv", "pg"}
    finally:
        await stop_rig(rig)


async def test_a_forged_join_from_outside_the_group_is_refused(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Telegram lets a tampered client send any callback data on any message it can
    see.  Carl, in no group with the bot, sends a Join naming a lobby from his private
    chat, and one naming a lobby of another platform: he is seated at neither; a
    member's Join on the lobby itself still seats her."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli"])
        cilli = players.users[2]
        table_id, lobby = await open_table(rig, players, "/new tausend")
        table = rig.service.tables[table_id]
        answer = await press(fake, cilli, lobby, "Leave")
        carl = fake.create_user("Carl", username="carl", started=True)
        assert not players.group.is_member(carl)
        carl.send(carl.private_chat, "/start")
        greeting = await fake.wait_for_message(carl.private_chat)
        query = carl.press_data(greeting, table_verb(table_id, table.version, "j"))
        answer = await fake.wait_answer(query)
        assert answer.text is not None and "chat where the table is" in answer.text
        assert [s.name if s else None for s in table.seats] == ["Anna", "Berti", None]

        other = await rig.service.create_table(
            ChatRef("dc", "777", "A server"), UserRef("dc", "4242", "Dora"), "zweier"
        )
        assert other.table_id is not None
        elsewhere = rig.service.tables[other.table_id]
        query = carl.press_data(greeting, table_verb(elsewhere.id, elsewhere.version, "j"))
        answer = await fake.wait_answer(query)
        assert answer.text == "That table is closed."  # not his platform's: not his to see
        assert [s.user if s else None for s in elsewhere.seats] == ["dc:4242", None]

        answer = await press(fake, cilli, lobby, "Join")
        assert [s.name if s else None for s in table.seats] == ["Anna", "Berti", "Cilli"]
    finally:
        await stop_rig(rig)
