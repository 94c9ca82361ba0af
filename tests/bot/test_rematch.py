"""'Rematch' under a finished match: the same game and rules again, in the same chat."""

from __future__ import annotations

from typing import Any

from bot.payload import decode, table_verb
from bot.service import ChatRef, UserRef
from bot.store import StoreError

from .fakechat import (
    CHAT,
    Bot,
    Player,
    button,
    gathered,
    open_bauern_partners,
    open_table,
    play_out,
    users,
    while_opening,
)


def _rematch_payloads(bot: Bot) -> list[str]:
    """The Rematch buttons the chat is shown, as they come."""
    return gathered(
        bot, lambda u: u.result.rematch.payload if u.result and u.result.rematch else None
    )


async def _zweier_played_out(bot: Bot, anna: Player, bert: Player) -> tuple[str, str]:
    """Anna and Bert played a Zweierschnapsen match out: the table and the Rematch
    button its summary showed."""
    payloads = _rematch_payloads(bot)
    tid = await open_table(bot, "zweier", [anna, bert])
    await play_out(bot.fc, tid, [anna, bert])
    [payload] = payloads
    return tid, payload


async def test_a_rematch_opens_the_same_game_and_rules_with_its_computers(bot: Bot) -> None:
    """Anna played Zweierschnapsen against the computer with manual claims: the
    summary's Rematch opens a lobby of the same game with the same rules, hosted by
    her, the computer seated again, saying whose rematch it is."""
    anna = bot.player(users(1)[0])
    payloads = _rematch_payloads(bot)
    tid = await open_table(bot, "zweier", [anna], options={"auto_claim": "off"})
    assert bot.svc.tables[tid].options_json["auto_claim"] is False
    await play_out(bot.fc, tid, [anna])
    # only the match's end carries one: no deal result before it
    [payload] = payloads
    assert decode(payload).table == tid
    assert [p.kind for p in bot.fc.channel if p.table_id == tid][-1] == "finished"

    out = await bot.svc.act(anna.user, payload, CHAT)
    assert out.ok and out.code == "rematch" and out.lobby is not None, out
    new = bot.svc.tables[out.table_id or ""]
    assert new.id != tid and new.game == "zweier" and new.rematch_of == tid
    assert new.options_json["auto_claim"] is False
    assert new.host == anna.key and new.seat_of(anna.key) == 0
    assert [s.name for s in new.seats if s is not None and s.user is None] == ["Computer 1"]
    assert out.lobby.can_start
    assert f"A rematch of table {tid}: same game, same rules." in out.lobby.message.text
    # pressed again: he sits there already, no second lobby
    again = await bot.svc.act(anna.user, payload, CHAT)
    assert not again.ok and again.code == "already_seated", again
    assert again.table_id == new.id  # which table: Telegram links his hand chat again
    assert len([t for t in bot.svc.tables.values() if t.rematch_of == tid]) == 1


async def test_the_other_players_press_joins_the_rematch_and_strangers_are_refused(
    bot: Bot,
) -> None:
    """Anna and Bert finished a match.  Anna's Rematch opens the lobby; Bert's seats
    him in it (not a second lobby).  Clara, who did not play, is told to open her own
    table; a press sent from another chat, or for a match still running, opens
    nothing."""
    anna, bert, clara = (bot.player(u) for u in users(3))
    tid, payload = await _zweier_played_out(bot, anna, bert)

    stranger = await bot.svc.act(clara.user, payload, CHAT)
    assert not stranger.ok and stranger.code == "rematch_players_only", stranger
    assert f"Only the players of table {tid}" in (stranger.text or "")
    elsewhere = await bot.svc.act(bert.user, payload, ChatRef("tg", "-1009", "Elsewhere"))
    assert not elsewhere.ok and elsewhere.code == "rematch_in_chat", elsewhere
    assert not [t for t in bot.svc.tables.values() if t.rematch_of == tid]
    # the payload carried to another platform: that a table of its is there is not
    # his to learn ("press it in its chat" would say so)
    dora = UserRef("dc", "100", "Dora")
    other = await bot.svc.act(dora, payload, ChatRef("dc", "7", "Discord server"))
    assert not other.ok and other.code == "unknown_table", other

    opened = await bot.svc.act(anna.user, payload, CHAT)
    assert opened.ok and opened.code == "rematch", opened
    joined = await bot.svc.act(bert.user, payload, CHAT)
    assert joined.ok and joined.table_id == opened.table_id, joined
    new = bot.svc.tables[opened.table_id or ""]
    assert {new.seat_of(anna.key), new.seat_of(bert.key)} == {0, 1}
    assert bot.fc.lobbies[new.id].can_start

    running = await open_table(bot, "zweier", [clara])
    forged = await bot.svc.act(clara.user, table_verb(running, 1, "re"), CHAT)
    assert not forged.ok and forged.code == "unknown_table", forged


async def test_a_bauern_rematch_keeps_the_partners_together(bot: Bot) -> None:
    """Anna and Bert were partners against two computers.  Bert's Rematch seats the
    computers where they sat as seen from him (his opponents again), so Anna's join
    takes the seat across from him: they are partners again."""
    anna, bert = (bot.player(u) for u in users(2))
    payloads = _rematch_payloads(bot)
    tid = await open_bauern_partners(bot, anna, bert)
    old = bot.svc.tables[tid]
    assert old.side(old.seat_of(anna.key) or 0) == old.side(old.seat_of(bert.key) or 0)
    assert (await bot.svc.resign(CHAT, anna.user)).ok
    [payload] = payloads
    opened = await bot.svc.act(bert.user, payload, CHAT)
    assert opened.ok and opened.code == "rematch", opened
    joined = await bot.svc.act(anna.user, payload, CHAT)
    assert joined.ok, joined
    new = bot.svc.tables[opened.table_id or ""]
    a, b = new.seat_of(anna.key), new.seat_of(bert.key)
    assert a is not None and b is not None and new.side(a) == new.side(b)
    computers = [i for i, s in enumerate(new.seats) if s is not None and s.user is None]
    assert len(computers) == 2 and {new.side(i) for i in computers} != {new.side(a)}
    assert bot.fc.lobbies[new.id].can_start


async def test_a_rematch_keeps_the_matchs_rules_whatever_the_chat_changed_since(
    bot: Bot,
) -> None:
    """Anna played Thousand for three with the standard rules; an admin then made
    two-player Thousand the chat's default and changed the barrel's fine.  Her
    Rematch plays the match's rules, every one: three seats (hers among them, not
    taken by a computer) and the rule as it was."""
    anna = bot.player(users(1)[0])
    payloads = _rematch_payloads(bot)
    tid = await open_table(bot, "tausend", [anna])
    old = bot.svc.tables[tid]
    assert old.players == 3 and old.options_json["tausend.barrel_fine"] == 120
    assert (await bot.svc.resign(CHAT, anna.user)).ok
    for key, value in (("preset.tausend", "two_players"), ("tausend.barrel_fine", "125")):
        assert (await bot.svc.update_setting(CHAT, anna.user, key, value, is_admin=True)).ok
    [payload] = payloads
    out = await bot.svc.act(anna.user, payload, CHAT)
    assert out.ok, out
    new = bot.svc.tables[out.table_id or ""]
    assert new.options_json == old.options_json
    assert new.players == 3 and new.seat_of(anna.key) == 0
    seats = [s for s in new.seats if s is not None]
    assert [s.user for s in seats] == [anna.key, None, None]  # two computers again


async def test_where_only_admins_open_tables_an_admins_rematch_opens(bot: Bot) -> None:
    """With `starters admins` a Rematch opens a table like /new: the admin's press
    does (the adapter says he is one), another player's is refused in /new's words."""
    anna, bert = (bot.player(u) for u in users(2))
    payloads = _rematch_payloads(bot)
    tid = await open_table(bot, "zweier", [anna, bert])
    assert (await bot.svc.update_setting(CHAT, anna.user, "starters", "admins", is_admin=True)).ok
    assert (await bot.svc.resign(CHAT, bert.user)).ok
    [payload] = payloads
    refused = await bot.svc.act(bert.user, payload, CHAT)
    assert not refused.ok and refused.code == "not_allowed_to_start", refused
    opened = await bot.svc.act(anna.user, payload, CHAT, is_admin=True)
    assert opened.ok and opened.code == "rematch", opened
    assert bot.svc.tables[opened.table_id or ""].rematch_of == tid


async def test_bauern_partners_sit_together_whoever_presses_first(bot: Bot) -> None:
    """Anna and Cilli were partners, Bert played with the computer.  Anna opens the
    rematch; Cilli presses before Bert, and still sits across from Anna."""
    anna, bert, cilli = (bot.player(u) for u in users(3))
    payloads = _rematch_payloads(bot)
    tid = (await bot.svc.create_table(CHAT, anna.user, "bauern")).table_id
    assert tid is not None
    for p in (bert, cilli):  # Bert in seat 1, Cilli in seat 2: Anna's partner
        assert (await p.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert (await anna.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    assert (await anna.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    assert (await bot.svc.resign(CHAT, anna.user)).ok
    [payload] = payloads
    for p in (anna, cilli, bert):
        assert (await bot.svc.act(p.user, payload, CHAT)).ok
    new = next(t for t in bot.svc.tables.values() if t.rematch_of == tid)
    seat = {p.key: new.seat_of(p.key) for p in (anna, bert, cilli)}
    assert seat == {anna.key: 0, bert.key: 1, cilli.key: 2}, seat
    assert [s.name for s in new.seats if s is not None and s.user is None] == ["Computer 1"]


async def _finished_bauern_of_four(bot: Bot) -> tuple[list[Player], str]:
    """Anna, Bert, Cilli and Done in seats 0–3 (Anna and Cilli partners), the match
    resigned; the players and the summary's Rematch payload."""
    people = [bot.player(u) for u in users(4)]
    payloads = _rematch_payloads(bot)
    tid = (await bot.svc.create_table(CHAT, people[0].user, "bauern")).table_id
    assert tid is not None
    for p in people[1:]:
        assert (await p.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    assert (await people[0].press(button(bot.fc.lobbies[tid].message, "st"))).ok
    assert [bot.svc.tables[tid].seat_of(p.key) for p in people] == [0, 1, 2, 3]
    assert (await bot.svc.resign(CHAT, people[0].user)).ok
    [payload] = payloads
    return people, payload


async def test_partners_sit_together_after_the_rematchs_host_changed(bot: Bot) -> None:
    """Anna opens the rematch, Bert and Cilli join; Anna leaves, so Bert hosts from
    seat 1, and she comes back.  Seats are reckoned from where the host sits now:
    Anna is again across from Cilli, Bert from Done (reckoned from seat 0, Anna went
    to seat 3 and the pairs were broken)."""
    (anna, bert, cilli, done), payload = await _finished_bauern_of_four(bot)
    opened = await bot.svc.act(anna.user, payload, CHAT)
    assert opened.ok, opened
    new = bot.svc.tables[opened.table_id or ""]
    for p in (bert, cilli):
        assert (await bot.svc.act(p.user, payload, CHAT)).ok
    assert (await anna.press(button(bot.fc.lobbies[new.id].message, "l"))).ok
    assert new.host == bert.key and new.seat_of(bert.key) == 1
    for p in (anna, done):
        assert (await bot.svc.act(p.user, payload, CHAT)).ok
    seat = {p.user.name: new.seat_of(p.key) or 0 for p in (anna, bert, cilli, done)}
    assert new.side(seat["Anna"]) == new.side(seat["Cilli"]), seat
    assert new.side(seat["Bert"]) == new.side(seat["Done"]), seat


async def test_a_rematch_join_the_store_does_not_take_can_be_pressed_again(bot: Bot) -> None:
    """Cilli's press would seat her across from Anna, but the disk is full: she is told
    it did not go through and is seated nowhere (not in some other seat); pressed
    again, she sits across from Anna."""
    (anna, _, cilli, _), payload = await _finished_bauern_of_four(bot)
    opened = await bot.svc.act(anna.user, payload, CHAT)
    assert opened.ok, opened
    new = bot.svc.tables[opened.table_id or ""]
    assert bot.store is not None
    append = bot.store.append

    async def full(*args: Any, **kw: Any) -> None:
        raise StoreError("cannot write to the database: database or disk is full")

    bot.store.append = full  # type: ignore[method-assign]
    out = await bot.svc.act(cilli.user, payload, CHAT)
    bot.store.append = append  # type: ignore[method-assign]
    assert not out.ok and out.code == "not_saved", out
    assert new.seat_of(cilli.key) is None
    assert (await bot.svc.act(cilli.user, payload, CHAT)).ok
    assert new.seat_of(cilli.key) == 2


async def test_a_rematch_seats_everyone_as_they_sat_around_its_host(bot: Bot) -> None:
    """Bert, who sat in seat 1, opens the rematch: whoever presses next takes his
    old place as seen from Bert, so the order around the table is the match's."""
    (anna, bert, cilli, done), payload = await _finished_bauern_of_four(bot)
    for p in (bert, cilli, done, anna):
        assert (await bot.svc.act(p.user, payload, CHAT)).ok
    new = next(t for t in bot.svc.tables.values() if t.rematch_of is not None)
    seat = {p.user.name: new.seat_of(p.key) for p in (anna, bert, cilli, done)}
    assert seat == {"Bert": 0, "Cilli": 1, "Done": 2, "Anna": 3}, seat


async def test_a_rematch_opened_from_a_later_seat_brings_back_every_computer(bot: Bot) -> None:
    """Anna and Bert (seat 1) played Bauern with two computers.  Bert's rematch seats
    both computers again, where they sat as seen from him, and Anna's join the seat
    left: the lobby can start at once."""
    anna, bert = (bot.player(u) for u in users(2))
    payloads = _rematch_payloads(bot)
    tid = (await bot.svc.create_table(CHAT, anna.user, "bauern")).table_id
    assert tid is not None
    assert (await bert.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    for _ in range(2):
        assert (await anna.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
    assert (await anna.press(button(bot.fc.lobbies[tid].message, "st"))).ok
    assert (await bot.svc.resign(CHAT, anna.user)).ok
    [payload] = payloads
    for p in (bert, anna):
        assert (await bot.svc.act(p.user, payload, CHAT)).ok
    new = next(t for t in bot.svc.tables.values() if t.rematch_of == tid)
    names = [s.name if s is not None else None for s in new.seats]
    assert names == ["Bert", "Computer 1", "Computer 2", "Anna"], names
    assert bot.fc.lobbies[new.id].can_start


async def test_a_rematch_is_no_join_of_another_lobby_open_in_the_chat(bot: Bot) -> None:
    """Clara's lobby waits in the chat when Anna presses Rematch under her finished
    match: a lobby of Anna's game opens, and Clara's stays as it was."""
    anna, clara = (bot.player(u) for u in users(3)[::2])
    payloads = _rematch_payloads(bot)
    tid = await open_table(bot, "zweier", [anna])
    await play_out(bot.fc, tid, [anna])
    other = (await bot.svc.create_table(CHAT, clara.user, "dreier")).table_id
    assert other is not None
    [payload] = payloads
    out = await bot.svc.act(anna.user, payload, CHAT)
    assert out.ok and out.code == "rematch" and out.table_id != other, out
    assert bot.svc.tables[out.table_id or ""].game == "zweier"
    assert bot.svc.tables[other].seat_of(anna.key) is None


async def test_a_rematch_hosted_by_a_newcomer_still_seats_the_match_s_players(bot: Bot) -> None:
    """Anna opens the rematch, Clara (who did not play) joins it, Anna leaves: Clara
    hosts, and no old seat is reckoned from her.  Bert's Rematch still seats him, in
    the seat that is free."""
    anna, bert, clara = (bot.player(u) for u in users(3))
    _, payload = await _zweier_played_out(bot, anna, bert)
    opened = await bot.svc.act(anna.user, payload, CHAT)
    assert opened.ok, opened
    new = bot.svc.tables[opened.table_id or ""]
    assert (await clara.press(button(bot.fc.lobbies[new.id].message, "j"))).ok
    assert (await anna.press(button(bot.fc.lobbies[new.id].message, "l"))).ok
    assert new.host == clara.key
    joined = await bot.svc.act(bert.user, payload, CHAT)
    assert joined.ok and joined.table_id == new.id, joined
    assert {new.seat_of(bert.key), new.seat_of(clara.key)} == {0, 1}


async def test_a_rematch_seat_taken_by_a_newcomer_leaves_the_player_another(bot: Bot) -> None:
    """Anna, Bert and Cilli played Dreier; in Anna's rematch Clara took Bert's old
    seat first.  Bert's Rematch seats him in the seat still free, not "seat taken"."""
    anna, bert, cilli, clara = (bot.player(u) for u in users(4))
    payloads = _rematch_payloads(bot)
    await open_table(bot, "dreier", [anna, bert, cilli])
    assert (await bot.svc.resign(CHAT, anna.user)).ok
    [payload] = payloads
    opened = await bot.svc.act(anna.user, payload, CHAT)
    assert opened.ok, opened
    new = bot.svc.tables[opened.table_id or ""]
    assert (await clara.press(button(bot.fc.lobbies[new.id].message, "j"))).ok
    assert new.seat_of(clara.key) == 1  # Bert's, as seen from Anna
    joined = await bot.svc.act(bert.user, payload, CHAT)
    assert joined.ok and new.seat_of(bert.key) == 2, joined


async def test_a_rematch_pressed_as_the_group_is_lost_closes_with_the_group(bot: Bot) -> None:
    """Anna presses Rematch as the group removes the bot: her finished match is still
    being looked up when the group's tables close.  The rematch's lobby closes at
    once (reason group_lost: she is told privately why), not left waiting for players
    until it expires in a group the bot is no longer in."""
    anna, bert = (bot.player(u) for u in users(2))
    _, payload = await _zweier_played_out(bot, anna, bert)
    opened, closed = await while_opening(
        bot,
        bot.svc.act(anna.user, payload, CHAT),
        lambda: bot.svc.close_chat(CHAT, "group_lost"),
        held="table_row",
    )
    tid = opened.table_id
    assert opened.ok and tid is not None and closed == []
    assert not bot.svc.tables_in(CHAT.key) and bot.svc.table_of(CHAT.key, anna.key) is None
    assert bot.fc.kinds(tid)[-1] == "aborted"
    assert (await bot.db.table_log(tid))[-1] == {"k": "abort", "reason": "group_lost"}
