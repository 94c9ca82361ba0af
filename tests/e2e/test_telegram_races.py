"""Telegram: what happens when things happen at the same time, as in real groups.

Every race here is driven, not left to luck: two updates pushed before the bot
polls again arrive in one `getUpdates` batch and are handled side by side (PTB's
concurrent updates), and `FakeTelegram.hold` keeps a request of the bot's on its
way while people go on pressing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from bot.i18n import t
from bot.payload import decode as decode_payload
from bot.table import DealLog, Status
from tests.e2e.fakes.telegram.messages import FakeMessage
from tests.e2e.fakes.telegram.protocol import BOT_USERNAME
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.fakes.telegram.users import FakeUser
from tests.e2e.telegram_harness import (
    Players,
    Rig,
    confirmed,
    data_deleted,
    deal_over,
    fake,
    hand_message,
    log_guard,
    make_players,
    open_table,
    play,
    press,
    start_rig,
    started_match,
    stop_rig,
    timings,
)

__all__ = ["fake", "log_guard"]

BOT = BOT_USERNAME


async def playable_hand(fake: FakeTelegram, user: FakeUser, table_id: str) -> FakeMessage:
    """The user's hand message once it offers at least two cards to play."""
    return await fake.wait_for(
        lambda: m if (m := hand_message(user, table_id)) and len(m.buttons()) > 1 else None,
        what=f"{user.first_name}'s hand with cards to play",
    )


async def test_start_pressed_as_the_last_seat_is_taken_waits_for_the_joiners_private_chat(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Cilli, who never started the bot, takes the last seat as Anna presses Start:
    the table must wait for Cilli's private chat as if she had joined a moment
    earlier, not deal her a hand nobody can send her."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna = fake.create_user("Anna", started=True)
        cilli = fake.create_user("Cilli", started=False)
        group = fake.create_group("Schnapsen", members=[anna, cilli], creator=anna)
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host:")
        table_id = decode_payload(lobby.buttons()[0].data).table

        join, start = cilli.press(lobby, "Join"), anna.press(lobby, "Start")  # one batch
        joined, started = await asyncio.gather(fake.wait_answer(join), fake.wait_answer(start))

        link = f"https://t.me/{BOT}?start={table_id}"
        assert joined.url == link
        assert started.show_alert and "Cilli" in (started.text or "")
        table = rig.table(table_id)
        assert table is not None and table.status == Status.LOBBY
        await fake.wait_for(lambda: link in lobby.text, what="the lobby naming Cilli")
    finally:
        await stop_rig(rig)


async def test_start_pressed_while_the_host_is_being_greeted_waits_for_the_answer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna, who never started the bot, opens a table against the computer and
    presses Start while the bot's greeting to her is still on its way: Telegram's
    refusal of it decides, and the table waits for her private chat.  (Her press is
    answered when the answer budget runs out, so the greeting is let through only
    once Start has had every chance to deal.)"""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", answer_budget=0.3)
    try:
        anna = fake.create_user("Anna", started=False)
        group = fake.create_group("Schnapsen", members=[anna], creator=anna)
        greeting = fake.hold("sendMessage", chat=anna.id)
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host:")
        table_id = decode_payload(lobby.buttons()[0].data).table
        assert not (await fake.wait_answer(anna.press(lobby, "Add computer"))).show_alert
        await fake.wait_for(lambda: "Computer" in lobby.text, what="the computer seated")
        await greeting.wait_held()
        await fake.wait_answer(anna.press(lobby, "Start"))
        greeting.release()
        link = f"https://t.me/{BOT}?start={table_id}"
        await fake.wait_for(lambda: link in lobby.text, what="the lobby naming Anna")
        await rig.adapter.outbox.drain()
        table = rig.table(table_id)
        assert table is not None and table.status == Status.LOBBY
        assert not any("Deal 1" in m.text for m in group.bot_messages())
    finally:
        await stop_rig(rig)


async def _to_act_with_two_cards(
    rig: Rig, fake: FakeTelegram
) -> tuple[Players, DealLog, FakeUser, FakeMessage, int]:
    """A Zweier match just started: its players, its deal's log, the one to act, his
    hand (two cards or more to tap in one batch) and how many moves were made so far."""
    players, table_id = await started_match(rig, fake)
    table = rig.table(table_id)
    assert table is not None and table.deal_log is not None
    actor = players.users[table.to_act() or 0]
    hand = await playable_hand(fake, actor, table_id)
    assert len(hand.buttons()) >= 2
    return players, table.deal_log, actor, hand, len(table.deal_log.actions)


async def test_two_cards_pressed_quickly_play_one_and_a_late_refusal_still_reaches_the_player(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Two different cards tapped in quick succession: the first counts, the second
    is refused.  Telegram takes an answer only so long after the press (the press
    waited at Telegram while the bot was busy or away): a refusal it would not take
    comes privately instead, or the player never learns his tap did nothing."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        _, deal, actor, hand, played = await _to_act_with_two_cards(rig, fake)
        first, second = (b.data for b in hand.buttons()[:2])
        notes = actor.private_chat.messages[-1].message_id
        fake.limits = replace(fake.limits, callback_answer_timeout=0.0)  # every answer late

        presses = [actor.press(hand, first), actor.press(hand, second)]  # one batch
        stale = t("en", "refuse.stale")
        await fake.wait_for_message(actor.private_chat, after=notes, contains=stale)
        await rig.adapter.outbox.drain()
        assert len(deal.actions) == played + 1
        assert all(q.answer is None and q.refused_answers == 1 for q in presses)
        told = [m.text for m in actor.private_chat.bot_messages() if m.message_id > notes]
        assert told.count(stale) == 1
    finally:
        await stop_rig(rig)


async def test_a_refusal_found_after_the_press_was_answered_follows_privately(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A press the core takes longer with than the adapter waits (here it waits not
    at all) is answered at once, without words: the second of two cards tapped in one
    batch is refused only after that, so the refusal comes privately, once.  And a
    question's button answered so early still does what it says: /forgetme's
    question becomes its answer."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", answer_budget=0.0)
    try:
        players, deal, actor, hand, played = await _to_act_with_two_cards(rig, fake)
        first, second = (b.data for b in hand.buttons()[:2])
        notes = actor.private_chat.messages[-1].message_id

        presses = [actor.press(hand, first), actor.press(hand, second)]  # one batch
        answers = await asyncio.gather(*(fake.wait_answer(q) for q in presses))
        assert all(not a.show_alert and a.text is None for a in answers), answers
        stale = t("en", "refuse.stale")
        await fake.wait_for_message(actor.private_chat, after=notes, contains=stale)
        await rig.adapter.outbox.drain()
        assert len(deal.actions) == played + 1
        told = [m.text for m in actor.private_chat.bot_messages() if m.message_id > notes]
        assert told.count(stale) == 1, told

        other = players.users[1 - players.users.index(actor)]
        question = await confirmed(fake, other, other.private_chat, "/forgetme")
        await data_deleted(fake, question)
    finally:
        await stop_rig(rig)


async def test_a_lobby_pressed_by_everyone_at_once_seats_and_deals_once(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """/new sent twice (a double send), the last seat wanted by two at once, Start
    double-tapped: one lobby, one seat each, one deal."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna", "Berti", "Cilli"])
        anna, berti, cilli = players.users
        group = players.group
        anna.send(group, "/new zweier")
        anna.send(group, "/new zweier")
        lobby = await fake.wait_for_message(group, contains="Host:")
        table_id = decode_payload(lobby.buttons()[0].data).table
        # one /new is opened at a time (its forum topic is the table's): the second
        # finds the table the first opened, and names it
        refusal = t("en", "refuse.seated_elsewhere_at", table=table_id)
        await fake.wait_for_message(group, contains=refusal)

        joins = [berti.press(lobby, "Join"), cilli.press(lobby, "Join")]
        answers = await asyncio.gather(*(fake.wait_answer(q) for q in joins))
        assert sorted((a.show_alert, a.text) for a in answers) == [
            (False, None),
            (True, t("en", "refuse.table_full")),
        ]
        [seated] = [q.user for q, a in zip(joins, answers, strict=True) if not a.show_alert]
        left_out = cilli if seated is berti else berti

        starts = [anna.press(lobby, "Start"), anna.press(lobby, "Start")]
        answers = await asyncio.gather(*(fake.wait_answer(q) for q in starts))
        assert sorted((a.show_alert, a.text) for a in answers) == [
            (False, None),
            (True, t("en", "refuse.not_in_lobby")),
        ]
        await rig.adapter.outbox.drain()
        assert len(group.bot_messages()) == 3  # the lobby, the refusal, one table message
        assert len([m for m in group.bot_messages() if "Deal 1 — " in m.text]) == 1
        for user, count in ((anna, 1), (seated, 1), (left_out, 0)):
            hands = [m for m in user.private_chat.bot_messages() if m.text.startswith("Your hand")]
            assert len(hands) == count, user.first_name
        table = rig.table(table_id)
        assert table is not None and len(table.deals) == 1
    finally:
        await stop_rig(rig)


async def test_presses_while_the_bot_is_still_editing_count_once_and_the_hand_ends_current(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna plays; the edit of her hand is still on its way (a slow network) when she
    taps another card on the keyboard she still sees, and Berti answers meanwhile.
    Her second tap is refused at once, and once the edit gets through her hand shows
    the table as it is now, not the state the first edit was made for."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players, table_id = await started_match(rig, fake)
        table = rig.table(table_id)
        assert table is not None and table.deal_log is not None
        actor = players.users[table.to_act() or 0]
        other = players.users[1 - (table.to_act() or 0)]
        hand = await playable_hand(fake, actor, table_id)
        played = len(table.deal_log.actions)
        editing = fake.hold("editMessageText", chat=actor.private_chat.id)
        first, second = (b.data for b in hand.buttons()[:2])
        assert not (await fake.wait_answer(actor.press(hand, first))).show_alert
        await editing.wait_held()
        refused = await fake.wait_answer(actor.press(hand, second))  # the keyboard she sees
        assert refused.show_alert and refused.text == t("en", "refuse.stale")
        await play(rig, table_id, [other], until=lambda: False, limit=1)
        editing.release()
        await rig.adapter.outbox.drain()
        assert len(table.deal_log.actions) == played + 2
        now = rig.service.hand(table_id, f"tg:{actor.id}", "en")
        assert now is not None and hand.text == now.message.text
        assert [b.data for b in hand.buttons()] == [b.payload for b in now.message.all_buttons()]
    finally:
        await stop_rig(rig)


async def test_every_card_double_tapped_plays_once_and_none_spills_into_the_next_deal(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Both players double-tap every card of a deal (two presses in one batch): each
    card is played once, the second tap refused, and the second tap on the card that
    ends the deal is not played in the next one, dealt in between."""
    # each tap is answered when the core is done with it, as the refusal asserted
    # below needs: with the usual 2 s budget, a loaded machine's slow move (a deal
    # scored and the next dealt) had both taps answered blank first, the refusal
    # following privately
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", answer_budget=30.0)
    try:
        players, table_id = await started_match(rig, fake)
        table = rig.table(table_id)
        assert table is not None
        over = deal_over(rig, table_id)
        presses = 0
        while not over():
            actor = players.users[table.to_act() or 0]
            version = table.version

            def current_hand(a: FakeUser = actor, v: int = version) -> FakeMessage | None:
                m = hand_message(a, table_id)
                if m and any(decode_payload(b.data).version == v for b in m.buttons()):
                    return m
                return None

            hand = await fake.wait_for(current_hand, what="the buttons of the player to act")
            card = hand.buttons()[0].data
            taps = [actor.press(hand, card), actor.press(hand, card)]
            answers = await asyncio.gather(*(fake.wait_answer(q) for q in taps))
            assert sorted(a.text or "" for a in answers) == ["", t("en", "refuse.stale")]
            assert table.version == version + 1 or over()
            presses += 1
        assert len(table.deals) == 2 and table.deals[1].actions == []
        assert sum(len(d.actions) for d in table.deals) == presses
    finally:
        await stop_rig(rig)


class HeldComputer:
    """An `ai_runner` that holds each of the computer's choices (a computer seat's
    move, a timed-out player's stand-in move) until the test releases it: the
    computer "thinks" exactly as long as the test needs."""

    def __init__(self) -> None:
        self.thinking = 0  # choices begun
        self.released = 0  # choices let through
        self._changed = asyncio.Condition()

    async def __call__(self, choose: Callable[[], int]) -> int:
        async with self._changed:
            self.thinking += 1
            mine = self.thinking
            self._changed.notify_all()
            await self._changed.wait_for(lambda: self.released >= mine)
        return choose()

    async def began(self, count: int = 1) -> None:
        """Wait until `count` choices have begun."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.thinking >= count), 5)

    async def release(self) -> None:
        """Let the choices begun so far through; the moves they lead to are tried in
        the same step of the loop, which the few steps here let pass."""
        async with self._changed:
            self.released = self.thinking
            self._changed.notify_all()
        for _ in range(5):
            await asyncio.sleep(0)


async def test_a_press_made_as_the_turn_times_out_counts_and_the_computer_stands_back(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """The turn ran out and the computer is choosing a card for Anna when her own
    press arrives: hers is played, the computer's choice is dropped, and the missed
    turn does not count against her (no seat taken by the computer)."""
    computer = HeldComputer()
    quick = timings(turn_timeout=0.3, reminder_before=0, missed_turns_limit=1)
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", timing=quick, ai_runner=computer)
    try:
        players, table_id = await started_match(rig, fake)
        table = rig.table(table_id)
        assert table is not None and table.deal_log is not None
        seat = table.to_act() or 0
        actor = players.users[seat]
        hand = await playable_hand(fake, actor, table_id)
        await computer.began()  # her turn ran out: the computer chooses for her
        played = len(table.deal_log.actions)
        answer = await fake.wait_answer(actor.press(hand, hand.buttons()[0].data))
        assert not answer.show_alert, answer.text
        assert len(table.deal_log.actions) == played + 1
        await computer.release()
        await computer.began(2)  # the next turn (the other player's) times out
        acts = [e for e in await rig.store.table_log(table_id) if e["k"] == "act"]
        assert acts[played]["seat"] == seat and acts[played]["by"] == "p"
        s = table.seats[seat]
        assert s is not None and s.ai is None and s.missed == 0
        assert "replaced" not in rig.witness.kinds
    finally:
        await stop_rig(rig)


@pytest.mark.parametrize("command", ["/resign", "/abort"])
async def test_a_match_ended_while_the_computer_thinks_drops_its_move(
    fake: FakeTelegram, tmp_path: Path, command: str
) -> None:
    """Anna resigns, or closes her table, while the computer is choosing its card:
    the match ends there, and the card the computer chose is never played on the
    closed table."""
    computer = HeldComputer()
    rig = await start_rig(fake, tmp_path / "bot.sqlite3", ai_runner=computer)
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        table_id, lobby = await open_table(rig, players, "/new zweier")
        assert not (await press(fake, anna, lobby, "Add computer")).show_alert
        await fake.wait_for(lambda: "Computer" in lobby.text, what="the computer seated")
        assert not (await press(fake, anna, lobby, "Start")).show_alert
        table = rig.table(table_id)
        assert table is not None and table.deal_log is not None
        if table.to_act() == 0:  # Anna leads: she plays, so that the computer must think
            await play(rig, table_id, [anna], until=lambda: False, limit=1)
        await computer.began()
        played = len(table.deal_log.actions)

        if command == "/resign":
            await confirmed(fake, anna, players.group, command)
        else:
            anna.send(players.group, command)
        closed = t("en", "result.aborted", table=table_id, reason=t("en", "abort.host"))
        said = "Anna resigned." if command == "/resign" else closed
        last = await fake.wait_for_message(players.group, contains=said)
        await computer.release()
        await rig.adapter.outbox.drain()
        assert rig.table(table_id) is None and len(table.deal_log.actions) == played
        assert rig.witness.kinds[-1] in ("finished", "aborted")
        assert players.group.bot_messages()[-1] is last
    finally:
        await stop_rig(rig)


async def test_one_player_at_two_tables_in_two_groups_keeps_them_apart(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna joins a table in the Stammtisch and one in the Kaffeehaus at the same
    moment and plays both from her one private chat: each hand message follows its
    own table, and the Stammtisch's match ending leaves the Kaffeehaus game alone."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        anna, berti, cilli = (fake.create_user(n, started=True) for n in ("Anna", "Berti", "Cilli"))
        stammtisch = fake.create_group("Stammtisch", members=[anna, berti], creator=berti)
        kaffeehaus = fake.create_group("Kaffeehaus", members=[anna, cilli], creator=cilli)
        berti.send(stammtisch, "/new zweier")
        cilli.send(kaffeehaus, "/new zweier")
        lobbies = [
            await fake.wait_for_message(group, contains="Host:")
            for group in (stammtisch, kaffeehaus)
        ]
        first, second = (decode_payload(lobby.buttons()[0].data).table for lobby in lobbies)
        joins = [anna.press(lobby, "Join") for lobby in lobbies]  # one batch
        for answer in await asyncio.gather(*(fake.wait_answer(q) for q in joins)):
            assert not answer.show_alert, answer.text
        for host, lobby in zip((berti, cilli), lobbies, strict=True):
            assert not (await press(fake, host, lobby, "Start")).show_alert
        for table_id, partner in ((first, berti), (second, cilli), (first, berti)):
            await play(rig, table_id, [anna, partner], until=lambda: False, limit=2)
        over, going = hand_message(anna, first), hand_message(anna, second)
        assert over is not None and going is not None and over is not going
        assert "in Stammtisch" in over.text.split("\n")[0]
        assert "in Kaffeehaus" in going.text.split("\n")[0]

        await confirmed(fake, berti, stammtisch, "/resign")
        await fake.wait_for_message(stammtisch, contains="Berti resigned.")
        await rig.adapter.outbox.drain()
        assert over.buttons() == [] and "The match is over." in over.text
        other = rig.table(second)
        assert other is not None and other.status == Status.PLAYING
        version = other.version
        await play(rig, second, [anna, cilli], until=lambda: False, limit=2)
        assert other.version >= version + 2
        for message in anna.private_chat.bot_messages():  # each hand shows its own table
            for revision in message.revisions:
                title = revision.text.split("\n", 1)[0]
                for row in revision.keyboard():
                    for button in row:
                        assert f"table {decode_payload(button.data).table} " in title, title
    finally:
        await stop_rig(rig)


async def test_add_computer_double_tapped_seats_one_computer(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Anna opens a Dreierschnapsen table to play with a computer and a friend, and
    taps "Add computer" twice in a hurry: one computer sits down, the friend's seat
    stays free."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        table_id, lobby = await open_table(rig, players, "/new dreier")
        taps = [anna.press(lobby, "Add computer"), anna.press(lobby, "Add computer")]
        answers = await asyncio.gather(*(fake.wait_answer(q) for q in taps))
        table = rig.table(table_id)
        assert table is not None
        assert [s is None for s in table.seats] == [False, False, True]
        assert sorted(a.show_alert for a in answers) == [False, True]
    finally:
        await stop_rig(rig)
