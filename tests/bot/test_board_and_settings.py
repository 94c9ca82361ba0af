"""What a group sees of its results (ratings, the leaderboard, /stats) and what an
admin sets for the chat (/settings), on a real SQLite file."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from functools import partial

from bot import results as R
from bot.boards import leaderboard_text, stats_text
from bot.i18n import preset_named
from bot.records import record_reply
from bot.rules_text import asked_rules
from bot.service import ChatRef, UserRef
from bot.settings import ChatSettings, setting_words
from bot.views import settings_text
from engine.__main__ import verify_text

from .conftest import FAST, WALK
from .fakechat import (
    CHAT,
    Bot,
    Player,
    button,
    open_table,
    play_out,
    run_out,
    users,
    walks_away,
    while_opening,
)

OTHER = ChatRef("tg", "-1002", "Nebenan")


async def _conceded(bot: Bot, winner: UserRef, loser: UserRef, chat: ChatRef = CHAT) -> None:
    """A Zweierschnapsen match between two people that `loser` concedes at once."""
    await open_table(bot, "zweier", [bot.player(winner), bot.player(loser)], chat=chat)
    assert (await bot.svc.resign(chat, loser)).ok


async def _rated(bot: Bot, player: str) -> list[tuple[str, int]]:
    rows = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT scope, games FROM ratings WHERE player = ? ORDER BY scope", (player,)
    )
    return [(scope, games) for scope, games in rows]


# --- ratings ---------------------------------------------------------------------------


async def test_a_match_against_computers_only_counts_in_stats_but_not_in_the_rating(
    bot: Bot,
) -> None:
    """Someone beating weak computers night after night would top the chat's board
    over the people who play each other: only people meeting people are rated."""
    anna = users(1)[0]
    await open_table(bot, "zweier", [bot.player(anna)])  # Anna and a computer
    assert (await bot.svc.resign(CHAT, anna)).ok
    stats = await R.player_stats(bot.store, anna.key, CHAT.key)  # type: ignore[arg-type]
    assert [(s.game, s.games, s.won, s.rating) for s in stats] == [("zweier", 1, 0, None)]
    assert await _rated(bot, anna.key) == []
    assert await R.leaderboard(bot.store, "zweier", CHAT.key) == []  # type: ignore[arg-type]
    # /stats says so, rather than "rating 0.0"
    text = await stats_text(bot.store, anna.key, "Anna", CHAT.key, "en")  # type: ignore[arg-type]
    assert text.endswith("not rated (only games against other people count)"), text


async def test_the_board_counts_the_rated_matches_and_says_when_there_are_none(
    bot: Bot,
) -> None:
    """Beside a rating stand the games it rests on: matches won against the computer
    do not pad "won/games".  A board with only such matches says that none is rated
    yet, not that no game was finished; a game named twice is shown once."""
    anna, bert = users(2)
    store = bot.store
    assert store is not None
    await open_table(bot, "zweier", [bot.player(anna)])  # against the computer
    assert (await bot.svc.resign(CHAT, anna)).ok
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier", "zweier"])
    assert text.count("Leaderboard — ") == 1
    assert text.endswith("No rated games yet: only matches against other people count.")
    for _ in range(2):
        await open_table(bot, "zweier", [bot.player(anna)])
        assert (await bot.svc.resign(CHAT, anna)).ok
    await _conceded(bot, anna, bert)
    [row] = [e for e in await R.leaderboard(store, "zweier", CHAT.key) if e.player == anna.key]
    assert (row.won, row.games) == (1, 1)
    # /stats counts every match, and says nothing of contracts in a game without them
    stats = await stats_text(store, anna.key, "Anna", CHAT.key, "en")
    assert "4 played, 1 won" in stats and "contracts" not in stats


async def test_a_name_cannot_turn_the_board_line_around(bot: Bot) -> None:
    """A right-to-left override in a name would show the rest of its board line
    reversed ("— rating …"); a newline would break it: names are shown without them."""
    anna = UserRef("tg", "77", "\u202eannA\nthe Great", "en")
    bert = users(2)[1]
    assert anna.name == "annA the Great"
    await _conceded(bot, anna, bert)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"])
    assert "1. annA the Great — rating" in text and "\u202e" not in text


def test_a_rating_just_below_zero_reads_0_0() -> None:
    from bot.boards import _shown

    assert _shown(-0.04) == "0.0" and _shown(-0.06) == "-0.1"
    assert _shown(-1.84, "de") == "-1,8"  # a German board writes a decimal comma


async def test_bauern_partners_against_two_computers_are_not_rated_opponents_are(
    bot: Bot,
) -> None:
    """In Bauernschnapsen the sides are teams: two friends on one side against two
    computers met no person; the same two on opposite sides did."""
    a, b = (bot.player(u) for u in users(2))
    for partners in (True, False):
        tid = (await bot.svc.create_table(CHAT, a.user, "bauern")).table_id
        assert tid is not None
        assert (await b.press(button(bot.fc.lobbies[tid].message, "j"))).ok  # Anna's opponent
        if partners:
            assert (await b.press(button(bot.fc.lobbies[tid].message, "s2"))).ok  # her partner
        for _ in range(2):
            assert (await a.press(button(bot.fc.lobbies[tid].message, "ai"))).ok
        assert (await a.press(button(bot.fc.lobbies[tid].message, "st"))).ok
        assert (await bot.svc.resign(CHAT, b.user)).ok
        rated = 0 if partners else 1
        for pl in (a, b):
            expected = [("global", rated), (CHAT.key, rated)] if rated else []
            assert await _rated(bot, pl.key) == expected, (partners, pl.key)
    for pl in (a, b):
        (stats,) = await R.player_stats(bot.store, pl.key)  # type: ignore[arg-type]
        assert stats.games == 2


async def test_an_aborted_match_counts_nowhere_not_even_its_contracts(bot: Bot) -> None:
    """A match closed by vote after a declared deal leaves no trace in /stats: no game,
    and no contract made or lost either."""
    players = [bot.player(u) for u in users(3)]
    for _ in range(20):  # tables, until one is still running after a declared deal
        tid = await open_table(bot, "dreier", players)
        while tid in bot.svc.tables and not bot.svc.tables[tid].deal_points:
            assert [await p.take_turn(tid) for p in players] != [None] * 3
        table = bot.svc.tables.get(tid)
        if table is not None and any(r.contract for r in table.match.results):  # type: ignore[union-attr]
            break
        await play_out(bot.fc, tid, players)
    else:
        raise AssertionError("no match ran on after a declared deal")
    finished = await R.player_stats(bot.store, players[0].key)  # type: ignore[arg-type]
    for pl in players[:2]:
        assert (await bot.svc.abort(CHAT, pl.user)).ok
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"
    assert await R.player_stats(bot.store, players[0].key) == finished  # type: ignore[arg-type]
    contracts = await bot.store.fetchall(  # type: ignore[union-attr]
        "SELECT COUNT(*) FROM contracts WHERE table_id = ?", (tid,)
    )
    assert contracts == [(0,)]


async def test_a_finished_match_counts_every_contract_declared_in_it(bot: Bot) -> None:
    players = [bot.player(u) for u in users(3)]
    tid = await open_table(bot, "dreier", players)
    table = bot.svc.tables[tid]
    await play_out(bot.fc, tid, players)
    assert table.match is not None
    declared = [r for r in table.match.results if r.contract and r.declarer is not None]
    stats = [await R.player_stats(bot.store, pl.key) for pl in players]  # type: ignore[arg-type]
    assert sum(s.played for (s,) in stats) == len(declared) > 0
    assert sum(s.made for (s,) in stats) == sum(r.declarer in r.winners for r in declared)


async def test_a_player_who_walked_away_loses_whatever_the_computer_made_of_it(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna stops pressing: after a missed turn the computer takes her seat and plays
    the match out for her.  She is rated and counted as having lost it (as if she had
    resigned), whatever the computer made of her cards; Bert, who stayed, won."""
    # the computer plays well for her (heuristic), Bert badly (at random)
    bot = await make_bot(timings=WALK, ai_level="heuristic").start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        finals: list[str] = []
        bot.fc.on_update.append(
            lambda u: (
                finals.append(u.result.message.text) if u.kind == "finished" and u.result else None
            )
        )
        tid = await open_table(bot, "zweier", [anna, bert])
        await play_out(bot.fc, tid, [bert], walkers=[anna])  # Anna never presses again
        # the summary says why she lost, whatever the scores say
        [final] = finals
        assert "Walked away (the computer finished for them, so their side loses): Anna" in final
        rows = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won, bummerl > 0, schneider FROM results WHERE table_id = ?", (tid,)
        )
        # the Bummerl go with the verdict: the winner has none, whatever the scores
        got = {p: (won, has_bummerl) for p, won, has_bummerl, _ in rows}
        assert got == {anna.key: (0, 1), bert.key: (1, 0)}
        assert all(sch == 0 for p, _, _, sch in rows if p == bert.key)
        board = await R.leaderboard(bot.store, "zweier", CHAT.key)  # type: ignore[arg-type]
        assert [e.player for e in board] == [bert.key, anna.key]
    finally:
        await bot.stop()


async def test_a_table_everybody_walked_away_from_is_closed_and_counts_nowhere(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna and Bert both stop pressing: once the computer holds the last person's
    seat the table closes, instead of computers playing the match out in the chat
    for nobody, and neither is rated or counted on what they made of it.  The last
    one is not told "Take my seat back" for a table that closes with that turn."""
    timings = dataclasses.replace(FAST, turn_timeout=0.3, reminder_before=0.1, missed_turns_limit=1)
    bot = await make_bot(timings=timings).start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [anna, bert])
        table = bot.svc.tables[tid]
        await bot.fc.wait(lambda: tid not in bot.svc.tables, timeout=10)
        assert bot.fc.kinds(tid)[-1] == "aborted"
        # the first one gone is told how to come back; the last one, whose missed
        # move closed the table, is not offered a seat back.  Who was told is asserted,
        # not what came just before the close: the last one's reminder lies between,
        # unless a slow write under load armed his clock after its time.
        assert table.deal_log is not None
        moved = [seat for seat, _ in table.deal_log.actions]
        first, last = (table.seats[seat] for seat in (moved[0], moved[-1]))
        assert first is not None and last is not None and first.user != last.user
        told = [u.user for u in bot.fc.updates if u.table_id == tid and u.kind == "replaced"]
        assert told == [first.user]
        row = await bot.store.table_row(tid)  # type: ignore[union-attr]
        assert row is not None and row.status == "aborted"
        store = bot.store
        assert store is not None
        results = await store.fetchall("SELECT COUNT(*) FROM results WHERE table_id = ?", (tid,))
        assert results == [(0,)] and await store.fetchall("SELECT COUNT(*) FROM ratings") == [(0,)]
    finally:
        await bot.stop()


async def _walked_away(bot: Bot, leaves: Player, stays: Player) -> str:
    """A Zweierschnapsen table `leaves` opened and then stopped pressing at, until the
    computer took his seat over; `stays` played his turns meanwhile."""
    tid = await open_table(bot, "zweier", [leaves, stays])
    await until_replaced(bot, tid, leaves, stays)
    return tid


async def until_replaced(bot: Bot, tid: str, leaves: Player, stays: Player) -> None:
    """`stays` plays his turns until the computer has taken the seat of `leaves`, who
    presses nothing: his turn runs out at once."""
    table = bot.svc.tables[tid]
    seat = table.seat_of(leaves.key)
    assert seat is not None
    loop = asyncio.get_running_loop()
    end = loop.time() + 30
    while (s := table.seats[seat]) is not None and s.ai is None:
        assert loop.time() < end, "the computer never took the absent player's seat"
        run_out(bot.svc, tid, leaves)
        await stays.take_turn(tid)
        await asyncio.sleep(0.02)


async def test_the_one_who_stayed_may_close_the_table_or_concede_it(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert walks away: the computer plays his seat.  Anna, who stayed, is not held
    there until he votes: her own abort vote is the majority of the people still
    playing.  Closing it counts: Bert, who walked out, loses the match he left (a
    close that wiped it would let a losing player walk away until the other tired of
    his computer).  And if she concedes instead, that is no win for Bert."""
    bot = await make_bot(timings=WALK).start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        finals: list[str] = []
        bot.fc.on_update.append(
            lambda u: (
                finals.append(u.result.message.text) if u.kind == "finished" and u.result else None
            )
        )
        # Bert hosts, so Anna's abort is a vote, not the host's
        tid = await _walked_away(bot, bert, anna)
        out = await bot.svc.abort(CHAT, anna.user)
        assert out.ok and tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "finished"
        assert out.code == "ended" and "its match counts" in (out.text or ""), out
        [final] = finals
        assert "Walked away (the computer finished for them, so their side loses): Bert" in final
        assert "closed the table after the others walked away, and it counts" in final
        rows = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
        assert dict(rows) == {anna.key: 1, bert.key: 0}
        rated = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player FROM rated_results WHERE table_id = ?", (tid,)
        )
        assert sorted(p for (p,) in rated) == sorted([anna.key, bert.key])
        # a finished match: its record comes, and every deal in it checks out
        reply = await record_reply(bot.store, CHAT.key, "en", tid)  # type: ignore[arg-type]
        assert reply.file is not None, reply.text
        assert verify_text(reply.file.data.decode())[0] == 0
        tid = await _walked_away(bot, bert, anna)
        assert (await bot.svc.resign(CHAT, anna.user)).ok
        rows = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
        assert dict(rows) == {anna.key: 0, bert.key: 0}
    finally:
        await bot.stop()


async def test_votes_that_carry_while_a_third_walked_away_end_the_match_counted(
    bot: Bot,
) -> None:
    """Cilli walked away from a Dreier (the computer plays her seat); Anna and Bert,
    still playing, vote to close it: the second vote carries, and the match ends
    counted against Cilli, who left, as when a lone stayer closes it — not wiped off
    the record as a plain abort would.  The result does not say anyone resigned."""
    anna, bert, cilli = (bot.player(u) for u in users(3))
    tid = await open_table(bot, "dreier", [anna, bert, cilli])
    await walks_away(bot, tid, cilli)
    first = await bot.svc.abort(CHAT, anna.user)
    assert first.ok and first.code != "ended" and tid in bot.svc.tables, first
    out = await bot.svc.abort(CHAT, bert.user)
    assert out.ok and out.code == "ended" and "its match counts" in (out.text or ""), out
    assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "finished"
    final = bot.fc.updates[-1]
    assert final.result is not None
    text = final.result.message.text
    # nobody resigned: the deal left open is said to end with the close
    assert text.startswith("Deal 1 was not played out: the table was closed."), text
    assert "Walked away (the computer finished for them, so their side loses): Cilli" in text
    store = bot.store
    assert store is not None
    rows = await store.fetchall("SELECT player, won FROM results WHERE table_id = ?", (tid,))
    assert dict(rows) == {anna.key: 1, bert.key: 1, cilli.key: 0}


async def test_votes_that_carry_as_one_walks_away_from_his_partner_count_for_nobody(
    bot: Bot,
) -> None:
    """Bauern: Bert and Dora vote to close (2 of the 3 needed); Anna walks away, and
    among the three still playing their votes carry.  Cilli, her partner, still
    plays: the table closes as a plain abort, counted for nobody — not ended as a
    loss for Cilli, who stayed, as it would be had Anna's whole side walked away."""
    anna, bert, cilli, dora = (bot.player(u) for u in users(4))
    tid = await open_table(bot, "bauern", [anna, bert, cilli, dora])
    table = bot.svc.tables[tid]
    assert table.side(table.seat_of(anna.key) or 0) == table.side(table.seat_of(cilli.key) or 0)
    for voter in (bert, dora):
        assert (await bot.svc.abort(CHAT, voter.user)).ok
    assert tid in bot.svc.tables
    await walks_away(bot, tid, anna)
    assert await bot.svc.close_if_abandoned(tid)
    assert bot.fc.kinds(tid)[-1] == "aborted"
    store = bot.store
    assert store is not None
    assert await store.fetchall("SELECT player FROM results WHERE table_id = ?", (tid,)) == []


async def test_a_vote_that_becomes_the_majority_when_the_other_walks_away_closes(
    make_bot: Callable[..., Bot],
) -> None:
    """Anna votes to close (1 of the 2 needed); Bert then walks away and no longer
    counts: her vote is the majority of those still playing, so the table closes
    then, not only at the next vote, and the match counts against Bert, who left."""
    bot = await make_bot(timings=WALK).start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [anna, bert])
        assert (await bot.svc.abort(CHAT, anna.user)).ok
        table = bot.svc.tables[tid]
        assert table.status.value == "playing"
        seat = table.seat_of(bert.key)
        assert seat is not None
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while tid in bot.svc.tables:
            assert loop.time() < end, "the table did not close"
            run_out(bot.svc, tid, bert)
            await anna.take_turn(tid)
            await asyncio.sleep(0.02)
        assert bot.fc.kinds(tid)[-1] == "finished" and table.ended == "walked_away"
        rows = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT player, won FROM results WHERE table_id = ?", (tid,)
        )
        assert dict(rows) == {anna.key: 1, bert.key: 0}
    finally:
        await bot.stop()


async def test_forgetting_the_last_one_still_playing_closes_the_table(
    make_bot: Callable[..., Bot],
) -> None:
    """Bert walked away (the computer holds his seat); Anna, the last one still
    playing, deletes her data: nobody is left, so the table closes rather than the
    computers playing it out in the chat and crediting Bert, who was not there."""
    bot = await make_bot(timings=WALK).start()
    try:
        anna, bert = (bot.player(u) for u in users(2))
        tid = await _walked_away(bot, bert, anna)
        assert (await bot.svc.forget(anna.user)).ok
        assert tid not in bot.svc.tables and bot.fc.kinds(tid)[-1] == "aborted"
        rows = await bot.store.fetchall(  # type: ignore[union-attr]
            "SELECT COUNT(*) FROM results WHERE table_id = ?", (tid,)
        )
        assert rows == [(0,)]
    finally:
        await bot.stop()


# --- the leaderboard -------------------------------------------------------------------


async def test_equal_ratings_share_a_place_in_a_stable_order(bot: Bot) -> None:
    """Anna and Cilli each beat one newcomer: the board shows them level, not first
    and second, and in the same order every time it is asked for."""
    anna, bert, cilli, done = users(4)
    await _conceded(bot, anna, bert)
    await _conceded(bot, cilli, done)
    for scope in (CHAT.key, "global"):
        board = await R.leaderboard(bot.store, "zweier", scope)  # type: ignore[arg-type]
        assert [(e.name, e.rank, e.won, e.games) for e in board] == [
            ("Anna", 1, 1, 1),
            ("Cilli", 1, 1, 1),
            ("Bert", 3, 0, 1),
            ("Done", 3, 0, 1),
        ]


async def test_a_player_below_the_top_rows_sees_his_own_place(bot: Bot) -> None:
    anna, bert, cilli, done = users(4)
    await _conceded(bot, anna, bert)
    await _conceded(bot, anna, cilli)
    await _conceded(bot, bert, done)
    top = await R.leaderboard(bot.store, "zweier", CHAT.key, limit=2, player=done.key)  # type: ignore[arg-type]
    assert [(e.name, e.rank) for e in top] == [("Anna", 1), ("Bert", 2), ("Done", 4)]
    # one of the top rows, or not on the board at all: the top rows only
    for asking in (anna.key, "tg:404"):
        top = await R.leaderboard(bot.store, "zweier", CHAT.key, limit=2, player=asking)  # type: ignore[arg-type]
        assert [e.name for e in top] == ["Anna", "Bert"]


async def test_the_board_text_shows_shared_places_and_the_askers_own_row(bot: Bot) -> None:
    """What /leaderboard prints (both chats print this text): level players share a
    place, and one asking from below the top rows sees "…" and then his own place."""
    anna, bert, cilli, done = users(4)
    await _conceded(bot, anna, bert)
    await _conceded(bot, cilli, done)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], player=done.key)
    assert [line.split(" —")[0] for line in text.splitlines()[1:]] == [
        "1. Anna",
        "1. Cilli",
        "3. Bert",
        "3. Done",
    ]
    text = await leaderboard_text(store, CHAT.key, "en", player=done.key, rows=2)
    assert [line.split(" —")[0] for line in text.splitlines()[1:]] == [
        "Places 1–2 of 4 (ask with a page number for the others).",
        "1. Anna",
        "1. Cilli",
        "…",
        "3. Done",
    ]
    # every game asked for: those nobody has played here are left out
    assert text.count("Leaderboard — ") == 1 and "Schnapsen (2 players)" in text
    # a later page: its places, then the asker's own (above them) after the "…"
    text = await leaderboard_text(store, CHAT.key, "en", player=anna.key, rows=2, page=2)
    assert [line.split(" —")[0] for line in text.splitlines()[1:]] == [
        "Places 3–4 of 4 (ask with a page number for the others).",
        "3. Bert",
        "3. Done",
        "…",
        "1. Anna",
    ]
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], rows=2, page=3)
    assert text.splitlines()[1:] == ["No players on this page."], text


async def test_the_board_shows_the_latest_name_and_the_chats_own_games(bot: Bot) -> None:
    """A player who renamed himself shows under his new name; a chat's board counts
    that chat's games, the global one all of them."""
    anna, bert = users(2)
    await _conceded(bot, anna, bert)
    anni = UserRef(anna.platform, anna.id, "Anni", anna.lang)
    await _conceded(bot, anni, bert, chat=OTHER)
    here = await R.leaderboard(bot.store, "zweier", CHAT.key)  # type: ignore[arg-type]
    everywhere = await R.leaderboard(bot.store, "zweier", "global")  # type: ignore[arg-type]
    assert [(e.name, e.won, e.games) for e in here] == [("Anni", 1, 1), ("Bert", 0, 1)]
    assert [(e.name, e.won, e.games) for e in everywhere] == [("Anni", 2, 2), ("Bert", 0, 2)]


# --- /settings -------------------------------------------------------------------------


async def test_every_setting_goes_back_to_its_default(bot: Bot) -> None:
    """An admin who tried a preset, an option or a timeout can undo it: ``default``
    takes any setting back, and new tables follow the bot's and the game's defaults."""
    admin = users(1)[0]
    changes = [
        ("language", "de"),
        ("suits", "german"),
        ("starters", "admins"),
        ("turn_timeout", "90"),
        ("ai_level", "random"),
        ("tricks", "open"),
        ("preset.dreier", "carinthian"),
        ("zweier.auto_claim", "off"),
        ("dreier.count_down", "on"),
    ]
    for key, value in changes:
        assert (await bot.svc.update_setting(CHAT, admin, key, value, is_admin=True)).ok, key
    assert await bot.svc.settings(CHAT) != ChatSettings()
    for key, _ in changes:
        out = await bot.svc.update_setting(CHAT, admin, key.upper(), "Default", is_admin=True)
        assert out.ok, (key, out)
    assert await bot.svc.settings(CHAT) == ChatSettings()
    assert dict(ChatSettings().lines())["turn_timeout"] == "default"
    tid = (await bot.svc.create_table(CHAT, admin, "zweier")).table_id
    assert tid is not None
    table = bot.svc.tables[tid]
    assert table.settings["turn_timeout"] == FAST.turn_timeout
    assert table.settings["ai_level"] == bot.svc.ai_level
    assert table.options.auto_claim is True


async def test_a_refused_setting_names_what_is_allowed(bot: Bot) -> None:
    admin = users(1)[0]
    for key, value, told in [
        ("turn_timeout", "5", "from 10 to 3600, or default"),
        ("turn_timeout", "soon", "from 10 to 3600, or default"),
        ("ai_level", "genius", "random, heuristic, strong or default"),
        ("preset.zweier", "nope", "standard, manual_claims; or default"),
        ("colour", "red", "unknown setting 'colour'"),
    ]:
        out = await bot.svc.update_setting(CHAT, admin, key, value, is_admin=True)
        assert out.code == "bad_setting" and told in (out.text or ""), (key, value, out.text)
    assert await bot.svc.settings(CHAT) == ChatSettings()


async def test_a_german_admin_reads_the_refusal_in_german(bot: Bot) -> None:
    admin = users(1)[0]
    assert (await bot.svc.update_setting(CHAT, admin, "language", "de", is_admin=True)).ok
    for key, value, told in [
        ("turn_timeout", "5", "zwischen 10 und 3600 sein, oder Standard"),
        ("ai_level", "genius", "einer dieser Werte sein: random, heuristic, strong oder Standard"),
        ("colour", "red", "unbekannte Einstellung 'colour'"),
        # the engine's refusals of rule options, worded by their codes
        ("tausend.players", "5", "tausend.players muss einer dieser Werte sein: 2, 3, 4; nicht 5"),
        ("zweier.auto_claim", "maybe", "auto_claim ist an oder aus, nicht maybe"),
        ("bauern.bettler_points", "vier", "muss eine ganze Zahl sein, nicht vier"),
        ("preset.schach", "standard", "unbekanntes Spiel 'schach' (Spiele: zweier,"),
    ]:
        out = await bot.svc.update_setting(CHAT, admin, key, value, is_admin=True)
        assert out.text is not None and out.text.startswith("Ungültige Einstellung: ")
        assert told in out.text, out.text
    # ... and so are the options a host names when opening a table
    out = await bot.svc.create_table(CHAT, admin, "tausend", options={"tausend.spieler": 4})
    assert not out.ok and out.text is not None
    assert out.text.startswith("Ungültige Regeloptionen: unbekannte Option 'tausend.spieler' für")


async def test_a_setting_change_leaves_open_tables_as_they_were_opened(bot: Bot) -> None:
    """A match keeps the rules, timeout, computer level and suits it started with (a
    lobby those it was opened with); only the chat's language reaches open tables."""
    a, b, c = (bot.player(u) for u in users(3))
    running = await open_table(bot, "zweier", [a, b])
    waiting = await open_table(bot, "zweier", [c], chat=CHAT, start=False)
    tables = [bot.svc.tables[tid] for tid in (running, waiting)]
    before = [(dict(tb.settings), tb.options) for tb in tables]
    for key, value in [
        ("turn_timeout", "600"),
        ("ai_level", "random"),
        ("suits", "german"),
        ("tricks", "open"),
        ("zweier.auto_claim", "off"),
        ("preset.zweier", "manual_claims"),
    ]:
        out = await bot.svc.update_setting(CHAT, a.user, key, value, is_admin=True)
        # ... and the admin is told so, not left to find out at the next deal
        assert out.ok and (out.text or "").endswith(
            "It applies to tables opened from now on; tables open now (2) keep what they"
            " were opened with."
        ), out.text
    assert [(tb.settings, tb.options) for tb in tables] == before
    english = bot.fc.lobbies[waiting].message.text
    out = await bot.svc.update_setting(CHAT, a.user, "language", "de", is_admin=True)
    assert out.text == "Saved: language = de"  # the one that reaches them
    lobby = bot.svc.lobby(waiting)  # the lobby in the chat is drawn again, in German
    assert lobby is not None and bot.fc.lobbies[waiting].message.text == lobby.message.text
    assert lobby.message.text != english


async def test_a_language_set_while_a_table_is_being_opened_reaches_that_table(bot: Bot) -> None:
    """The admin sets the group's language to German while Bert's /new is being
    stored (its settings read, the table not yet among the group's): the new lobby
    speaks German too, not English to the end of its match."""
    admin, bert = users(2)
    opened, switched = await while_opening(
        bot,
        bot.svc.create_table(CHAT, bert, "zweier"),
        lambda: bot.svc.update_setting(CHAT, admin, "language", "de", is_admin=True),
    )
    assert opened.ok and switched.ok, (opened, switched)
    tid = opened.table_id
    assert tid is not None and bot.svc.tables[tid].settings["lang"] == "de"
    german, english = bot.svc.lobby(tid, "de"), bot.svc.lobby(tid, "en")
    assert german is not None and english is not None
    assert bot.fc.lobbies[tid].message == german.message != english.message


async def test_an_admin_setting_the_language_his_chat_already_has_switches_its_open_tables(
    bot: Bot,
) -> None:
    """A Discord server whose language changed (its locale: "en" then "de") while a
    match ran in English: the admin sets the language to German, which the chat
    already speaks by its locale, and expects the running table to speak it too, not
    to go on in English until it ends."""
    a, b = (bot.player(u) for u in users(2, platform="dc"))
    english = ChatRef("dc", "5001", "Wirtshaus", lang="en")
    tid = await open_table(bot, "zweier", [a, b], chat=english)
    table = bot.svc.tables[tid]
    assert table.settings["lang"] == "en"
    german = dataclasses.replace(english, lang="de")
    out = await bot.svc.update_setting(german, a.user, "language", "de", is_admin=True)
    assert out.ok, out
    assert table.settings["lang"] == "de"
    shown, german_view, english_view = (
        bot.fc.channel[-1].message,
        bot.svc.table(tid, "de"),
        bot.svc.table(tid, "en"),
    )
    assert german_view is not None and english_view is not None
    assert shown == german_view.message != english_view.message  # redrawn in German
    assert (await bot.db.table_log(tid))[-1] == {"k": "lang", "lang": "de"}  # and stored


async def test_default_and_its_german_word_reset_and_an_option_is_found_without_its_game(
    bot: Bot,
) -> None:
    """German /settings shows "Standard (…)": typed back, it resets as "default" does
    (and a preset called standard stays a preset).  An option named without its game
    gets the keys to type, as looking it up does."""
    admin = users(1)[0]
    for key, value in [("turn_timeout", "90"), ("dreier.plauderer", "off"), ("suits", "german")]:
        assert (await bot.svc.update_setting(CHAT, admin, key, value, is_admin=True)).ok
        out = await bot.svc.update_setting(CHAT, admin, key, "Standard", is_admin=True)
        assert out.ok, out.text
    assert await bot.svc.settings(CHAT) == ChatSettings()
    assert (
        await bot.svc.update_setting(CHAT, admin, "preset.dreier", "standard", is_admin=True)
    ).ok
    assert (await bot.svc.settings(CHAT)).presets == {"dreier": "standard"}
    out = await bot.svc.update_setting(CHAT, admin, "auto_claim", "off", is_admin=True)
    assert out.text == (
        "Bad setting: unknown setting 'auto_claim': a game's rule option goes with its game"
        " (zweier.auto_claim, dreier.auto_claim, bauern.auto_claim)"
    ), out.text


async def test_a_preset_named_when_opening_wins_over_the_chats_options(bot: Bot) -> None:
    """A chat plays Thousand with four by default (a single option); a host who opens
    `/new tausend two_players` gets a table for two.  Without a named preset the
    chat's options refine its default preset, as before."""
    admin, other = users(2)
    assert (await bot.svc.update_setting(CHAT, admin, "tausend.players", "4", is_admin=True)).ok
    assert (await bot.svc.update_setting(CHAT, admin, "preset.tausend", "golden", is_admin=True)).ok
    named = (await bot.svc.create_table(CHAT, admin, "tausend", preset="two_players")).table_id
    assert named is not None
    assert bot.svc.tables[named].players == 2
    default = (await bot.svc.create_table(CHAT, other, "tausend")).table_id
    assert default is not None
    table = bot.svc.tables[default]
    assert table.players == 4 and table.options.golden_round


def test_settings_name_every_rule_option_of_a_game_with_its_default() -> None:
    """An admin finds a game's preset and rule options from the bot itself: the list
    points to them, `/settings dreier` names them all with what a new table gets
    (the chat's preset counted), and one never set reads "default" with its value
    instead of "there is no setting"."""
    chat = (
        ChatSettings()
        .with_value("preset.dreier", "all_contracts")
        .with_value("dreier.assenbettler", "off")
    )
    shown = partial(settings_text, chat, "en", turn_timeout=60, ai_level="strong")
    listed = shown().splitlines()
    assert listed[0] == "Settings for this chat"  # a server is Discord's
    assert listed[-1] == "A game's preset and rule options: /settings dreier"
    # the bot's own timeout, with its unit, and what the setting does
    timeout = "turn_timeout = default (60 s) — seconds for a move (10–3600); then the computer"
    assert timeout + " plays it" in listed
    assert (
        "ai_level = default (strong) — how computer players play: random, heuristic or strong"
        in listed
    )
    assert listed[1].startswith("language = default (en) — ")  # the chat's, else English
    game = shown(key="Dreier").splitlines()
    assert "preset.dreier = all_contracts" in game
    assert "dreier.assenbettler = off" in game  # set by the chat
    assert "dreier.plauderer = default (on)" in game  # on by the preset
    assert "dreier.caller_first = default (off)" in game
    assert len(game) == 1 + 1 + 12 + 1  # title, preset, each option, the presets to choose
    assert shown(key="dreier.zehnergang").splitlines()[1] == "dreier.zehnergang = default (on)"
    assert shown(key="preset.zweier").splitlines()[1] == "preset.zweier = default (standard)"
    assert shown(key="tausend.players").splitlines()[1] == "tausend.players = default (3)"
    nonsense = shown(key="dreier.nonsense")
    assert nonsense.startswith(
        "There is no setting dreier.nonsense; dreier has these: preset.dreier, "
    )
    assert "dreier.plauderer" in nonsense and "turn_timeout" not in nonsense
    listed = nonsense.split(": ", 1)[1].removesuffix(".").split(", ")
    assert len(listed) == 1 + 12 and all(k.startswith(("preset.dreier", "dreier.")) for k in listed)
    assert shown(key="dreier.plauder") == (
        "There is no setting dreier.plauder. Did you mean dreier.plauderer?"
    )
    assert shown(key="turn_timout") == "There is no setting turn_timout. Did you mean turn_timeout?"
    assert shown(key="preset.dreierr").endswith("Did you mean preset.dreier?")
    assert shown(key="preset.zweierr").endswith("Did you mean preset.zweier?")  # never set
    unknown = shown(key="x" * 500)
    assert unknown.startswith("There is no setting " + "x" * 39 + "…. Settings: language, suits, ")
    assert "e.g. dreier." in unknown
    assert shown(key="Plauderer") == (
        "There is no setting Plauderer; a game's rule option goes with its game: dreier.plauderer."
    )
    assert shown(key="auto_claim").endswith(
        " goes with its game: zweier.auto_claim, dreier.auto_claim, bauern.auto_claim."
    )
    german = settings_text(chat, "de", turn_timeout=60, ai_level="strong", key="1000")
    assert "tausend.players = Standard (3)" in german.splitlines()


async def test_rule_options_read_as_typed_on_new_and_in_settings(bot: Bot) -> None:
    """A host's `/new` options and an admin's `/settings` read a value the same way:
    a switch as on/off, yes/no or 1/0, a number as a number (Thousand's fine of 125 is
    not "true"), a name with or without its game in any case."""
    host = users(1)[0]
    out = await bot.svc.create_table(
        CHAT, host, "dreier", options={"Assenbettler": "OFF", "auto_claim": "0"}
    )
    assert out.ok and out.table_id is not None, out
    table = bot.svc.tables[out.table_id]
    assert table.options_json["dreier.assenbettler"] is False
    assert table.options_json["auto_claim"] is False
    # a shared option named as `/settings zweier` lists it
    other = await bot.svc.create_table(
        ChatRef("tg", "-77", "elsewhere"),
        users(2)[1],
        "zweier",
        options={"zweier.auto_claim": "off"},
    )
    assert other.ok and other.table_id is not None, other
    assert bot.svc.tables[other.table_id].options_json["auto_claim"] is False
    chat = ChatSettings().with_value("tausend.barrel_fine", "125")
    assert chat.options == {"tausend": {"tausend.barrel_fine": 125}}
    assert ChatSettings().with_value("zweier.auto_claim", "1").options == {
        "zweier": {"auto_claim": True}
    }
    assert ChatSettings().with_value("dreier.plauderer", "Aus").options == {
        "dreier": {"dreier.plauderer": False}
    }


async def test_saved_says_what_is_now_in_force(bot: Bot) -> None:
    """ "Saved:" answers with the setting as `/settings` shows it, not as typed."""
    admin = users(1)[0]

    async def saved(key: str, value: str) -> str | None:
        return (await bot.svc.update_setting(CHAT, admin, key, value, is_admin=True)).text

    assert await saved("AI_Level", "Heuristic") == "Saved: ai_level = heuristic"
    assert await saved("turn_timeout", "90") == "Saved: turn_timeout = 90 s"
    assert await saved("Zweier.Auto_Claim", "0") == "Saved: zweier.auto_claim = off"
    assert await saved("preset.dreier", "default") == "Saved: preset.dreier = default (standard)"


def test_a_german_chat_reads_its_switches_in_german() -> None:
    """ "an"/"aus" in a German chat's `/settings`, as it may type them."""
    chat = ChatSettings().with_value("zweier.auto_claim", "aus")
    shown = partial(settings_text, chat, "de", turn_timeout=60, ai_level="strong")
    assert "zweier.auto_claim = aus" in shown().splitlines()
    assert "zweier.schneider = Standard (an)" in shown(key="zweier").splitlines()
    assert (
        "zweier.auto_claim = off"
        in settings_text(chat, "en", turn_timeout=60, ai_level="strong").splitlines()
    )


async def test_thousand_boards_name_no_bummerl(bot: Bot) -> None:
    """Thousand has no Bummerl and no Schneider (one player reaches 1000): its board
    and statistics rows leave them out; the other games keep them."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "tausend", [anna, bert])
    assert (await bot.svc.resign(CHAT, bert.user)).ok
    assert tid not in bot.svc.tables
    board = await leaderboard_text(bot.store, CHAT.key, "en", games=["tausend"])  # type: ignore[arg-type]
    stats = await stats_text(bot.store, anna.key, "Anna", CHAT.key, "de")  # type: ignore[arg-type]
    assert "1/1 won" in board and "Bummerl" not in board
    assert "1 gewonnen" in stats and "Bummerl" not in stats and "Schneider" not in stats


async def test_a_preset_is_named_in_any_case_and_a_game_by_any_of_its_names(
    make_bot: Callable[..., Bot],
) -> None:
    """Discord passes /new's preset as typed, and an admin names Thousand as /new
    takes it: "All_Contracts" is the preset all_contracts, "thousand.players" the
    option tausend.players, and the answer says what was saved."""
    bot = await make_bot().start()
    try:
        anna = users(1)[0]
        out = await bot.svc.create_table(CHAT, anna, "dreier", preset="All_Contracts")
        assert out.ok and out.table_id is not None, out
        assert bot.svc.tables[out.table_id].preset == "all_contracts"
        saved = await bot.svc.update_setting(CHAT, anna, "1000.players", "2", is_admin=True)
        assert saved.ok and (saved.text or "").startswith("Saved: tausend.players = 2\n"), saved
        saved = await bot.svc.update_setting(
            CHAT, anna, "preset.Thousand", "default", is_admin=True
        )
        assert saved.ok and "preset.tausend" in (saved.text or ""), saved
    finally:
        await bot.stop()


def test_a_games_rules_and_its_settings_name_what_can_be_chosen() -> None:
    """/rules dreier explains each option with the name to type and its standard
    value; /settings dreier names the presets, not only the one in force."""
    from bot.rules_text import rules_summary

    rules = rules_summary("dreier", "en", standard=True)
    assert "• the Plauderer may be bid (plauderer): off" in rules.splitlines(), rules
    assert "(plauderer)" not in rules_summary("dreier", "en")  # /rules of every game
    shown = settings_text(ChatSettings(), "de", turn_timeout=60, ai_level="strong", key="dreier")
    presets = shown.splitlines()[-1]
    assert presets.startswith(
        "Vorlagen zur Wahl (preset.dreier): Standard (standard), alle Spiele (all_contracts), "
    )
    assert "(carinthian)" in presets and "(manual_claims)" in presets, presets


async def test_two_places_never_show_the_same_rating(make_bot: Callable[..., Bot]) -> None:
    """The board ranks by the rating to a tenth and prints it to a tenth: both must
    round alike, or 0.25 and 0.2 read "0.2" at places 1 and 2 (an argument)."""
    bot = await make_bot().start()
    try:
        store = bot.store
        assert store is not None
        named = [("tg:1", "Anna", 3.25), ("tg:2", "Bert", 3.2), ("tg:3", "Cilli", 3.15)]
        ops: list[tuple[str, tuple[object, ...]]] = [
            ("INSERT INTO players (key, name, lang, updated) VALUES (?, ?, NULL, 0)", (k, n))
            for k, n, _ in named
        ]
        ops += [
            (
                "INSERT INTO ratings (scope, game, player, mu, sigma, games)"
                " VALUES ('global', 'zweier', ?, ?, 1.0, 3)",
                (k, mu),
            )
            for k, _, mu in named
        ]
        await store.write(ops=ops)
        rows = (await leaderboard_text(store, "global", "en", games=["zweier"])).splitlines()[1:]
        shown = [(r.split(".", 1)[0], r.split("rating ", 1)[1].split(",")[0]) for r in rows]
        # places and ratings agree: one place, one number
        assert len(set(shown)) == len({p for p, _ in shown}) == len({v for _, v in shown}), rows
    finally:
        await bot.stop()


async def test_a_rule_option_an_update_took_out_does_not_lock_the_game(
    make_bot: Callable[..., Bot],
) -> None:
    """A chat saved an option (and a preset) that a later version no longer has: its
    tables still open, with the rest of its settings, and /settings names only what
    exists (an admin could not reset what it does not know)."""
    bot = await make_bot().start()
    try:
        store = bot.store
        assert store is not None
        stale = ChatSettings().with_value("dreier.plauderer", "on").to_json()
        stale["options"]["dreier"]["dreier.retired_option"] = True
        stale["presets"]["zweier"] = "retired_preset"
        await store.save_chat_settings(CHAT.key, stale)
        out = await bot.svc.create_table(CHAT, users(1)[0], "dreier")
        assert out.ok and out.table_id is not None, out
        assert bot.svc.tables[out.table_id].options_json["dreier.plauderer"] is True
        listed = settings_text(
            await bot.svc.settings(CHAT), "en", turn_timeout=60, ai_level="strong"
        )
        assert "retired" not in listed and "dreier.plauderer = on" in listed, listed
    finally:
        await bot.stop()


async def test_settings_this_version_cannot_read_survive_a_change_made_here(
    make_bot: Callable[..., Bot],
) -> None:
    """A newer version saved settings this one cannot read (a setting, a game it lacks,
    a preset and a rule option it does not know), then the bot was rolled back.  An
    admin's changes here keep them in the store, unread, so the update brings them
    back; what he resets here stays reset."""
    bot = await make_bot().start()
    try:
        store = bot.store
        assert store is not None
        newer = ChatSettings().with_value("dreier.plauderer", "on").to_json()
        newer["future_setting"] = "on"
        newer["options"]["dreier"]["dreier.future_option"] = 3
        newer["options"]["futuregame"] = {"futuregame.x": 1}
        newer["presets"] |= {"futuregame": "fancy", "zweier": "future_preset"}
        await store.save_chat_settings(CHAT.key, newer)
        admin = users(1)[0]
        for key, value in (("suits", "german"), ("dreier.plauderer", "default")):
            out = await bot.svc.update_setting(CHAT, admin, key, value, is_admin=True)
            assert out.ok, out
        saved = await store.chat_settings(CHAT.key)
        assert saved["suits"] == "german" and saved["future_setting"] == "on"
        assert saved["options"] == {
            "dreier": {"dreier.future_option": 3},  # the plauderer reset
            "futuregame": {"futuregame.x": 1},
        }
        assert saved["presets"] == {"futuregame": "fancy", "zweier": "future_preset"}
        here = await bot.svc.settings(CHAT)  # this version reads none of them
        assert here.options == {} and here.presets == {} and here.suits == "german"
        out = await bot.svc.update_setting(
            CHAT, admin, "preset.zweier", "manual_claims", is_admin=True
        )
        assert out.ok, out
        assert (await store.chat_settings(CHAT.key))["presets"]["zweier"] == "manual_claims"
    finally:
        await bot.stop()


async def test_a_new_table_typed_wrong_is_told_what_to_type(make_bot: Callable[..., Bot]) -> None:
    """'/new auto_claim=off' left the game out: "Unknown game auto_claim=off" does
    not say so.  'assenbettler=' gave no value: "… not " ended in the air."""
    bot = await make_bot().start()
    try:
        anna = users(1)[0]
        out = await bot.svc.create_table(CHAT, anna, "auto_claim=off")
        assert not out.ok and out.code == "game_first", out
        assert "Name the game first" in (out.text or "") and "zweier" in (out.text or "")
        out = await bot.svc.create_table(CHAT, anna, "dreier", options={"assenbettler": ""})
        assert not out.ok and (out.text or "").endswith("is on or off, not nothing"), out
    finally:
        await bot.stop()


async def test_a_setting_is_shown_under_any_of_its_games_names(
    make_bot: Callable[..., Bot],
) -> None:
    """Set as "thousand.players", shown when asked for as "1000.players": one setting
    whatever name the game is given (not "There is no setting")."""
    bot = await make_bot().start()
    try:
        anna = users(1)[0]
        assert (await bot.svc.update_setting(CHAT, anna, "thousand.players", "4", is_admin=True)).ok
        settings = await bot.svc.settings(CHAT)
        for key in ("1000.players", "Thousand.players", "tausend.players"):
            shown = settings_text(settings, "en", turn_timeout=60, ai_level="strong", key=key)
            assert shown.splitlines()[1:] == ["tausend.players = 4"], (key, shown)
    finally:
        await bot.stop()


async def test_a_preset_is_taken_by_its_name_for_players(bot: Bot) -> None:
    """Discord's list shows "alle Spiele (all_contracts)": a host who types the name
    he read, in either language and any case, gets that preset — at /new, in /rules
    and in /settings."""
    anna = bot.player(users(1)[0])
    out = await bot.svc.create_table(CHAT, anna.user, "dreier", preset="Alle Spiele")
    assert out.ok, out
    assert bot.svc.tables[out.table_id or ""].preset == "all_contracts"
    assert "Options:" in asked_rules("tausend", ["Golden Round"], {}, "en")
    # as Discord's list shows it; and Telegram's /settings words
    assert preset_named("alle Spiele (all_contracts)", ("standard", "all_contracts")) == (
        "all_contracts"
    )
    assert setting_words(["dreier", "Alle", "Spiele"]) == ["preset.dreier", "all_contracts"]
    assert setting_words(["dreier", "carinthian"]) == ["dreier.carinthian"]  # the option
    saved = await bot.svc.update_setting(
        CHAT, anna.user, "preset.zweier", "claims by hand", is_admin=True
    )
    assert saved.ok and "preset.zweier = manual_claims" in (saved.text or ""), saved


async def test_only_a_player_at_the_table_changes_its_language_and_a_refusal_is_in_his_own(
    bot: Bot,
) -> None:
    """`set_table_language` (the terminal resuming a game under another locale) is for
    the table's players; anyone else is refused in his own language, not in the one he
    asked the table to speak."""
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    cilli = users(3, lang="en")[2]
    refused = await bot.svc.set_table_language(tid, cilli, "de")
    assert not refused.ok and refused.text == "There is no table of yours here."
    assert bot.svc.tables[tid].settings.get("lang") != "de"
    done = await bot.svc.set_table_language(tid, anna.user, "de")
    assert done.ok and bot.svc.tables[tid].settings.get("lang") == "de"


def test_settings_words_are_read_however_they_were_typed() -> None:
    """An admin types `/settings` words as they come to mind (Telegram: words; Discord:
    a key field and a value field): each form must name the same key and value, or a
    change lands on the wrong setting or is refused as unknown."""
    forms: list[tuple[list[str], list[str]]] = [
        ([], []),
        (["turn_timeout", "90"], ["turn_timeout", "90"]),
        (["turn_timeout=90"], ["turn_timeout", "90"]),
        (["turn_timeout", "=", "90"], ["turn_timeout", "90"]),
        (["turn_timeout="], ["turn_timeout"]),  # nothing after "=": the setting is looked up
        (["turn_timeout=", "90"], ["turn_timeout", "90"]),  # Discord: "=" in the key field
        (["dreier", "plauderer", "on"], ["dreier.plauderer", "on"]),
        (["Dreier", "plauderer", "=", "on"], ["dreier.plauderer", "on"]),
        (["dreier", "plauderer=on"], ["dreier.plauderer", "on"]),
        (["dreier", "Plauderer"], ["dreier.plauderer"]),
        (["dreier.plauderer", "on"], ["dreier.plauderer", "on"]),
        (["1000", "players", "3"], ["tausend.players", "3"]),
        (["dreier"], ["dreier"]),
    ]
    for words, read in forms:
        assert setting_words(words) == read, words
        assert setting_words(words, change=True) == read, words
    # a word that is an option and a preset too: looked up, the option; changed, the preset
    assert setting_words(["dreier", "carinthian"]) == ["dreier.carinthian"]
    assert setting_words(["dreier", "carinthian"], change=True) == ["preset.dreier", "carinthian"]
