"""What a table's messages say once nothing will change them any more.

A message left as it was when its table ended keeps saying "Waiting for Anna." or
"the host can start" for good.  Adapters draw each message's last picture from the
views while the table still exists (the update's listener runs before it is
forgotten); these tests read the same views at that moment.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import re
from collections.abc import AsyncIterator

import pytest

from bot.payload import decode
from bot.service import ChatRef, TableUpdate
from bot.views import HandView, LobbyView, Style
from bot.views.table import table_view
from engine.games import available

from .fakechat import (
    CHAT,
    Bot,
    Player,
    button,
    open_bauern_partners,
    open_table,
    play_out,
    users,
)
from .policies import heuristic
from .test_result_texts import _deal, _move, _table


def _last_hands(bot: Bot, tid: str, kind: str) -> dict[str, HandView]:
    """Each seat's hand as the core renders it when the table's `kind` update comes."""
    seen: dict[str, HandView] = {}

    def watch(update: TableUpdate) -> None:
        if update.table_id == tid and update.kind == kind:
            for user in bot.svc.seat_users(tid):
                hand = bot.svc.hand(tid, user, bot.fc.langs.get(user))
                assert hand is not None
                seen[user] = hand

    bot.fc.on_update.append(watch)
    return seen


async def test_after_a_resignation_the_hands_and_the_result_say_who_won(bot: Bot) -> None:
    """Bert resigns in the middle of a deal: nobody's hand waits for a move, and the
    result names Anna the winner (the scores alone, 0 to 0, would not say)."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    for pl in (a, b):
        await pl.take_turn(tid)
    hands = _last_hands(bot, tid, "finished")
    assert (await bot.svc.resign(CHAT, b.user)).ok
    assert set(hands) == {a.key, b.key}
    for hand in hands.values():
        text = hand.message.text
        assert "Waiting for" not in text and "Your turn" not in text, text
        assert text.endswith("The match is over.") and not hand.message.buttons
    final = bot.fc.updates[-1]
    assert final.result is not None
    text = final.result.message.text
    assert "Bert resigned." in text and "Winner: Anna" in text
    # the deal left open is said to be so; Bert has the Bummerl the results count
    assert text.startswith("Deal 1 was not played out: the match ended with a resignation.")
    # conceded at nil: the Schneider the end would have given him (Schneider is on)
    assert "Bummerl: Bert: 2 (Schneider)" in text
    # the table as it was left (the picture adapters draw last): nobody is to act
    assert final.result.table is not None
    table_text = final.result.table.message.text
    assert "To act" not in table_text and "fingerprint" not in table_text, table_text


@pytest.mark.skipif("bauern" not in available(), reason="Bauernschnapsen not implemented")
async def test_a_team_that_resigns_leaves_both_winners_named(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    await open_bauern_partners(bot, a, b)
    assert (await bot.svc.resign(CHAT, b.user)).ok
    final = bot.fc.updates[-1]
    assert final.result is not None
    winners = next(x for x in final.result.message.text.splitlines() if x.startswith("Winner:"))
    assert "Anna" not in winners and "Bert" not in winners and winners.count(",") == 1


async def test_a_table_closed_mid_match_says_so_in_every_hand(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2, lang="de"))
    bot.fc.langs.update({a.key: "de", b.key: "de"})
    tid = await open_table(bot, "zweier", [a, b])
    hands = _last_hands(bot, tid, "aborted")
    assert (await bot.svc.abort(CHAT, b.user)).ok and (await bot.svc.abort(CHAT, a.user)).ok
    assert set(hands) == {a.key, b.key}
    for hand in hands.values():
        assert "Warte auf" not in hand.message.text and "Du bist dran" not in hand.message.text
        assert hand.message.text.endswith("Dieser Tisch wurde geschlossen.")


def _last_lobby(bot: Bot, tid: str) -> list[LobbyView]:
    """The lobby as the core renders it when the table's "aborted" update comes."""
    seen: list[LobbyView] = []

    def watch(update: TableUpdate) -> None:
        if update.table_id == tid and update.kind == "aborted":
            lobby = bot.svc.lobby(tid)
            assert lobby is not None
            seen.append(lobby)

    bot.fc.on_update.append(watch)
    return seen


async def test_a_lobby_closed_before_the_start_no_longer_invites_anyone(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b], start=False)
    before = bot.fc.lobbies[tid].message.text
    assert "the host can start" in before and "The lobby closes" in before
    seen = _last_lobby(bot, tid)
    assert (await bot.svc.abort(CHAT, a.user)).ok
    (lobby,) = seen
    text = lobby.message.text
    assert "This table was closed." in text and "Anna" in text and "Bert" in text
    assert "host can start" not in text and "The lobby closes" not in text
    assert not lobby.message.buttons and not lobby.can_start


async def test_a_lobby_everyone_left_names_no_host(bot: Bot) -> None:
    """Bert leaves, then Anna, the host: the lobby closes with both seats free, and
    its last picture has nobody to name as host (a dash), not "None"."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b], start=False)
    seen = _last_lobby(bot, tid)
    for pl in (b, a):
        assert (await pl.press(button(bot.fc.lobbies[tid].message, "l"))).ok
    (lobby,) = seen
    lines = lobby.message.text.splitlines()
    assert "Host: —" in lines and "1. (free)" in lines and "2. (free)" in lines, lines
    assert "This table was closed." in lines and not lobby.message.buttons


async def test_a_hand_names_the_chat_its_table_is_in(bot: Bot) -> None:
    """Anna sits at tables in two groups and gets both hands in one private chat: each
    names its group.  A chat with no name to give (a DM, the terminal) is left out."""
    a, b = (bot.player(u) for u in users(2))
    here = await open_table(bot, "zweier", [a, b])
    there = await open_table(bot, "zweier", [a, b], chat=ChatRef("tg", "-1002", "Beisl"))
    nameless = await open_table(bot, "zweier", [a, b], chat=ChatRef("tg", "-1003"))
    for tid, place in ((here, " in Stammtisch"), (there, " in Beisl"), (nameless, "")):
        hand = bot.fc.hands[(tid, a.key)].message.text
        assert hand.startswith(f"Your hand at table {tid}{place} — Schnapsen (2 players)\n")


async def _match_results(
    bot: Bot, game_id: str, players: list[Player], matches: int
) -> AsyncIterator[str]:
    """The last result text of each of up to `matches` matches the players play out."""
    for _ in range(matches):
        tid = await open_table(bot, game_id, players)
        await play_out(bot.fc, tid, players)
        final = bot.fc.updates[-1]
        assert final.result is not None
        yield final.result.message.text


async def test_a_schneider_is_named_in_the_match_summary(bot: Bot) -> None:
    """A Zweier loser without a game point takes two Bummerl (RULES.md §2): the summary
    says it was a Schneider, not as if he had lost two matches; one with points takes
    one.  A careful player against a random one, until both kinds of match happened."""
    anna, bert = users(2)
    players = [bot.player(anna, heuristic), bot.player(bert)]
    seen: dict[bool, str] = {}
    async for text in _match_results(bot, "zweier", players, 30):
        scores = dict(
            x.rsplit(": ", 1) for x in text.split("Score (to 7): ")[1].split("\n")[0].split(" · ")
        )
        seen["0" in scores.values()] = text
        if len(seen) == 2:
            break
    assert (
        "Bummerl: Bert: 2 (Schneider)" in seen[True] or "Bummerl: Anna: 2 (Schneider)" in seen[True]
    )
    assert "(Schneider)" not in seen[False] and "Bummerl: " in seen[False]


async def test_a_bauern_schneider_is_named_too(bot: Bot) -> None:
    """In Bauernschnapsen (and Dreier) too a side without a point takes two Bummerl:
    the summary names it Schneider, once for the team, as the table names teams."""
    team, others = users(2), users(4)[2:]
    players = [
        bot.player(team[0], heuristic),
        bot.player(others[0]),
        bot.player(team[1], heuristic),
        bot.player(others[1]),
    ]
    async for text in _match_results(bot, "bauern", players, 10):
        if ": 2 (Schneider)" in text:
            # a team: its two players named once, as the table names the teams
            line = next(x for x in text.splitlines() if x.startswith("Bummerl: "))
            assert line.count(": 2 (Schneider)") == 1 and " & " in line, line
            score = next(x for x in text.splitlines() if "Score" in x)
            assert "Score (to 24): Team 1 (" in score and " · Team 2 (" in score, score
            return
    raise AssertionError("no Schneider in 10 matches of careful against random players")


async def _deal_ends(bot: Bot, tid: str, players: list[Player]) -> list[TableUpdate]:
    """Play the match out; the updates of its scored deals, each with its result."""
    await play_out(bot.fc, tid, players)
    ends = [u for u in bot.fc.updates if u.kind in ("deal_end", "finished") and u.result]
    assert ends
    return ends


async def test_an_ended_deal_picture_says_its_score_counts_the_deal(bot: Bot) -> None:
    """The table message a deal leaves keeps its heading ("Deal 1 — dealer …") but
    shows the score with that deal counted: it says so, or the picture reads as if
    the score had been the one the deal was played at.  The running table does not."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    running = bot.svc.table(tid)
    assert running is not None
    assert (
        "Score (to 7): " in running.message.text and "after this deal" not in running.message.text
    )
    ends = await _deal_ends(bot, tid, [a, b])
    for end in ends:
        assert end.result is not None and end.result.table is not None
        text = end.result.table.message.text
        assert f"Deal {end.result.deal_no} — dealer " in text, text
        line = next(x for x in text.splitlines() if x.startswith("Score"))
        assert line.startswith("Score after this deal (to 7): "), text
        # the score shown is the one after the deal: it carries the deal's points
        counted = [
            e.result.points for e in ends if e.result and e.result.deal_no <= end.result.deal_no
        ]
        assert end.result.table.scores == tuple(map(sum, zip(*counted, strict=True)))


async def test_an_ended_deal_picture_keeps_the_fingerprint_its_result_can_be_checked_by(
    bot: Bot,
) -> None:
    """The fingerprint was published before the deal and the seed comes with its
    result: the last picture keeps the fingerprint, which is the SHA-256 of the
    seed's bytes, as the line says."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    for end in await _deal_ends(bot, tid, [a, b]):
        assert end.result is not None and end.result.table is not None
        text = end.result.table.message.text
        seed = re.search(r"Seed of deal \d+: ([0-9a-f]+)", end.result.message.text)
        assert seed is not None, end.result.message.text
        digest = hashlib.sha256(bytes.fromhex(seed.group(1))).hexdigest()
        assert f"(SHA-256 of the seed's bytes, the seed read as hex): {digest[:16]}…" in text


@pytest.mark.parametrize("schneider", [False, True])
async def test_a_resignation_with_points_or_without_schneider_takes_one_bummerl(
    bot: Bot, schneider: bool
) -> None:
    """Only a loser at nil, at a table that plays Schneider, concedes two Bummerl;
    with a point, or with Schneider off, one."""
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players, options={"schneider": schneider})
    # one deal scored: 1 to 3 points
    await play_out(bot.fc, tid, players, until=lambda: bool(bot.svc.tables[tid].deal_points))
    table = bot.svc.tables[tid]
    assert table.match is not None
    scores = table.match.summary()["scores"]
    # with Schneider on, the one who has the points resigns; with it off, the other
    loser = next(i for i, sc in enumerate(scores) if (sc > 0) == schneider)
    seat = table.seats[loser]
    assert seat is not None
    user = next(p for p in players if p.key == seat.user)
    assert (await bot.svc.resign(CHAT, user.user)).ok
    final = next(u for u in reversed(bot.fc.updates) if u.kind == "finished")
    assert final.result is not None
    text = final.result.message.text
    assert f"Bummerl: {seat.name}: 1" in text and "Schneider" not in text, text


async def test_a_deals_last_picture_shows_no_vote_that_lapsed_with_it(bot: Bot) -> None:
    """A vote to close the table stands until the deal ends: the deal's last picture
    no longer asks for it (the next deal's table shows none either)."""
    a, b = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [a, b])
    voted = await bot.svc.abort(CHAT, b.user)
    assert voted.ok and "(1/2)" in (voted.text or "")
    running = bot.svc.table(tid)
    assert running is not None and "Votes to close the table: 1 of the 2" in running.message.text
    [first, *_] = await _deal_ends(bot, tid, [a, b])
    assert first.result is not None and first.result.table is not None
    assert "Votes to close the table" not in first.result.table.message.text


async def test_thousands_rounding_is_said_where_it_changes_a_score(bot: Bot) -> None:
    """ "Points: Anna: 39" scored "+40" reads as a mistake unless the result says the
    others' points are rounded to 5; where every point total is a multiple of 5 it
    says nothing."""
    players = [bot.player(u) for u in users(3)]
    tid = await open_table(bot, "tausend", players)
    playing = asyncio.create_task(play_out(bot.fc, tid, players))

    def ends() -> list[TableUpdate]:
        return [u for u in bot.fc.updates if u.kind == "deal_end" and u.table_id == tid]

    while len(ends()) < 6 and not playing.done():  # a match to 1000 is long: 6 deals
        await asyncio.sleep(0.01)
    playing.cancel()
    said = {True: 0, False: 0}
    for end in ends():
        assert end.result is not None
        text = end.result.message.text
        points = re.search(r"Points: ([^\n]*)", text)
        if points is None or "redeal" in text:
            continue
        odd = any(int(p) % 5 for p in re.findall(r": (-?\d+)", points.group(1))[1:])
        rounded = "rounded to 5 (62 → 60, 63 → 65)." in text
        assert rounded == odd, text
        said[rounded] += 1
    assert said[True], said


def test_a_table_closed_by_vote_mid_deal_says_so_and_asks_for_no_more_votes() -> None:
    """Anna asks to close the table, then Bert agrees, in the middle of a deal: while
    it runs the picture counts the votes and offers the agree button; once closed it
    says so in words, not "1 of the 2 needed" any more, and offers no button (built
    from the log in memory: the same view the adapters draw the last picture from)."""
    anna, bert = users(2)
    table = _table("zweier", 2)
    _deal(table, 0)
    rng = random.Random(0)
    for _ in range(3):
        _move(table, rng)

    def picture() -> tuple[list[str], list[tuple[str, str]]]:
        msg = table_view(table, Style()).message
        return msg.text.splitlines(), [(b.label, decode(b.payload).verb) for b in msg.all_buttons()]

    lines, buttons = picture()
    assert "This table was closed." not in lines, lines
    assert not any(x.startswith("Votes to close") for x in lines), lines
    assert buttons == [("Show my hand", "h")], buttons
    table.apply({"k": "vote", "user": anna.key})
    lines, buttons = picture()
    assert "Votes to close the table: 1 of the 2 needed" in lines, lines
    assert "This table was closed." not in lines, lines
    assert buttons == [("Show my hand", "h"), ("Close the table too (1/2)", "ab")], buttons
    table.apply({"k": "vote", "user": bert.key})
    table.apply({"k": "abort", "reason": "vote"})
    lines, buttons = picture()
    assert lines[-1] == "This table was closed.", lines
    assert not any(x.startswith("Votes to close") for x in lines), lines
    assert buttons == [], buttons


@pytest.mark.parametrize(
    "closing",
    [{"k": "abort", "reason": "vote"}, {"k": "resign", "seat": 1}, {"k": "end"}],
)
def test_a_table_closed_mid_deal_marks_nobody_to_play(closing: dict[str, object]) -> None:
    """While a deal runs, the picture marks whose turn it is ("▶ Anna"); a table closed
    in the middle of one (by vote, a resignation, everybody walked away) waits for
    nobody, and its last picture marks nobody, in the chat and in the hands."""
    table = _table("zweier", 2)
    _deal(table, 0)
    rng = random.Random(0)
    for _ in range(3):
        _move(table, rng)
    seat = table.to_act()
    assert seat is not None
    name = table.seats[seat].name  # type: ignore[union-attr]
    assert f"▶ {name}" in table_view(table, Style()).message.text
    table.apply(closing)
    assert table.to_act() is None
    assert "▶" not in table_view(table, Style()).message.text
