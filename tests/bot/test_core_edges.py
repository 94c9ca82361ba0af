"""Edges of the core that mutation testing found no test looking at: what a user reads
on the board (its length, its scope, its pages), on a real SQLite file."""

from __future__ import annotations

import pytest

from bot import results as R
from bot.boards import _shown, leaderboard_text, stats_text
from bot.service import ChatRef, UserRef
from bot.settings import ChatSettings, SettingError

from .fakechat import CHAT, Bot, open_table
from .policies import finisher, heuristic
from .test_expert_views import play_until

OTHER = ChatRef("tg", "-1002", "Nebenan")


def _people(n: int) -> list[UserRef]:
    return [UserRef("tg", str(500 + i), f"P{i:02}", "en") for i in range(n)]


async def _conceded(bot: Bot, winner: UserRef, loser: UserRef, chat: ChatRef = CHAT) -> None:
    await open_table(bot, "zweier", [bot.player(winner), bot.player(loser)], chat=chat)
    assert (await bot.svc.resign(chat, loser)).ok


def _names(text: str) -> list[str]:
    """The board's rows as "place. name", its other lines as they are."""
    return [line.split(" —")[0] for line in text.splitlines()[1:]]


# --- the leaderboard -------------------------------------------------------------------


async def test_a_board_shows_ten_places_and_the_rest_on_the_next_page(bot: Bot) -> None:
    """/leaderboard without a page shows the top ten (not nine, not eleven), and the
    group's eleventh and twelfth are on page 2."""
    people = _people(12)
    for winner, loser in zip(people[::2], people[1::2], strict=True):
        await _conceded(bot, winner, loser)
    store = bot.store
    assert store is not None
    first = _names(await leaderboard_text(store, CHAT.key, "en", games=["zweier"]))
    assert first[0] == "Places 1–10 of 12 (ask with a page number for the others)."
    assert len(first) == 11 and all(". P" in row for row in first[1:])
    second = _names(await leaderboard_text(store, CHAT.key, "en", games=["zweier"], page=2))
    assert second == ["Places 11–12 of 12 (ask with a page number for the others).", *second[1:]]
    assert len(second) == 3
    # the two pages together are the whole board, each player once
    assert sorted(row.split(". ")[1] for row in first[1:] + second[1:]) == [p.name for p in people]


async def test_the_board_title_says_whose_games_it_counts(bot: Bot) -> None:
    """A chat's board says "this chat" (Telegram leaves `servers` unset), Discord's
    says "this server", the global one "everywhere": a player comparing boards must
    know which one he reads."""
    anna, bert = _people(2)
    await _conceded(bot, anna, bert)
    store = bot.store
    assert store is not None
    title = "Leaderboard — Schnapsen (2 players) ({})"
    chat = await leaderboard_text(store, CHAT.key, "en", games=["zweier"])
    server = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], servers=True)
    everywhere = await leaderboard_text(store, "global", "en", games=["zweier"], servers=True)
    assert chat.splitlines()[0] == title.format("this chat")
    assert server.splitlines()[0] == title.format("this server")
    assert everywhere.splitlines()[0] == title.format("everywhere")


async def test_a_page_typed_as_zero_or_huge_is_read_as_the_nearest_page(bot: Bot) -> None:
    """Telegram passes the number typed after /leaderboard as it is: "0" shows the
    first page, and a 20-digit page (beyond SQLite's integers) says the page is empty
    rather than failing."""
    anna, bert = _people(2)
    await _conceded(bot, anna, bert)
    store = bot.store
    assert store is not None
    first = await leaderboard_text(store, CHAT.key, "en", games=["zweier"])
    assert await leaderboard_text(store, CHAT.key, "en", games=["zweier"], page=0) == first
    assert await leaderboard_text(store, CHAT.key, "en", games=["zweier"], page=-3) == first
    huge = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], page=10**20)
    assert huge.splitlines()[1:] == ["No players on this page."], huge


async def test_a_page_past_the_end_is_not_told_that_nobody_played(bot: Bot) -> None:
    """Page 2 of a board with two players has nobody on it, but the chat did play:
    "No players on this page", not "No rated games yet" — for one game and for every
    game alike; a chat that never played is told so on any page."""
    anna, bert = _people(2)
    store = bot.store
    assert store is not None
    nobody = "No rated games yet: only matches against other people count."
    assert await leaderboard_text(store, CHAT.key, "en") == nobody
    assert await leaderboard_text(store, CHAT.key, "en", page=2) == nobody
    await _conceded(bot, anna, bert)
    one = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], page=2)
    assert one.splitlines()[1:] == ["No players on this page."], one
    assert await leaderboard_text(store, CHAT.key, "en", page=2) == "No players on this page."


async def test_a_board_that_fits_one_page_has_no_page_line(bot: Bot) -> None:
    """Four players on a board of four rows: there is no other page to ask for, so
    no "Places 1–4 of 4" line sends anyone looking for one."""
    people = _people(4)
    for winner, loser in zip(people[::2], people[1::2], strict=True):
        await _conceded(bot, winner, loser)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], rows=4)
    assert [row.split(". ")[0] for row in _names(text)] == ["1", "1", "3", "3"], text


async def test_of_two_games_asked_for_only_the_played_one_is_shown(bot: Bot) -> None:
    """`/leaderboard zweier dreier` in a chat that only played Zweierschnapsen shows
    that board alone, as the board of every game leaves out the unplayed ones."""
    anna, bert = _people(2)
    await _conceded(bot, anna, bert)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier", "dreier"])
    assert text.count("Leaderboard — ") == 1 and "Schnapsen (2 players)" in text, text
    assert "No rated games yet" not in text


async def test_a_page_past_the_end_still_shows_the_askers_own_place(bot: Bot) -> None:
    """Anna asks for page 2 of a board whose two players fit on page 1: the page is
    empty, and says so, before her own place after the "…"."""
    anna, bert = _people(2)
    await _conceded(bot, anna, bert)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"], player=anna.key, page=2)
    assert _names(text) == ["No players on this page.", "…", "1. P00"], text
    text = await leaderboard_text(
        store, CHAT.key, "en", games=["zweier"], player=anna.key, rows=2, page=2
    )
    assert _names(text) == ["No players on this page.", "…", "1. P00"], text


async def test_the_asker_just_above_a_later_page_is_set_apart_from_it(bot: Bot) -> None:
    """Page 2 (places 3–4) asked by the one in the second row: his row is not one of
    the page's, so it comes after them and the "…", not at their head."""
    anna, bert, cilli, done = _people(4)
    await _conceded(bot, anna, bert)
    await _conceded(bot, cilli, done)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(
        store, CHAT.key, "en", games=["zweier"], player=cilli.key, rows=2, page=2
    )
    assert _names(text) == [
        "Places 3–4 of 4 (ask with a page number for the others).",
        "3. P01",
        "3. P03",
        "…",
        "1. P02",
    ], text


async def test_a_chats_page_count_is_of_its_own_players(bot: Bot) -> None:
    """Twelve players here and four in another chat: this chat's board says "of 12",
    the global one "of 16"."""
    people = _people(16)
    here, there = people[:12], people[12:]
    for winner, loser in zip(here[::2], here[1::2], strict=True):
        await _conceded(bot, winner, loser)
    for winner, loser in zip(there[::2], there[1::2], strict=True):
        await _conceded(bot, winner, loser, chat=OTHER)
    store = bot.store
    assert store is not None
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"])
    assert "Places 1–10 of 12 " in text, text
    text = await leaderboard_text(store, "global", "en", games=["zweier"])
    assert "Places 1–10 of 16 " in text, text


async def test_equal_ratings_list_the_one_with_more_games_first(bot: Bot) -> None:
    """Two players whose ratings are equal share a place; the one who played more
    rated matches is listed first, whatever their names."""
    store = bot.store
    assert store is not None
    rows = [("tg:1", "Zed", 5), ("tg:2", "Amy", 2), ("tg:3", "Max", 9)]
    await store.write(
        ops=[
            *[
                ("INSERT INTO players (key, name, lang, updated) VALUES (?, ?, 'en', 0)", (k, n))
                for k, n, _ in rows
            ],
            *[
                (
                    "INSERT INTO ratings (scope, game, player, mu, sigma, games)"
                    " VALUES (?, 'zweier', ?, 25.0, 8.0, ?)",
                    (CHAT.key, k, games),
                )
                for k, _, games in rows
            ],
        ]
    )
    text = await leaderboard_text(store, CHAT.key, "en", games=["zweier"])
    assert _names(text) == ["1. Max", "1. Zed", "1. Amy"], text


# --- who is credited ------------------------------------------------------------------


async def test_a_thousand_resignation_with_the_stayers_apart_has_one_winner(bot: Bot) -> None:
    """Cilli resigns a Thousand once Anna and Bert stand at different scores: the one
    ahead wins, the one behind loses, placed between the winner and Cilli — not two
    winners because both stayed."""
    anna, bert, cilli = (bot.player(u, heuristic) for u in _people(3))
    tid = await open_table(bot, "tausend", [anna, bert, cilli])
    table = bot.svc.tables[tid]
    seat = {p.key: table.seat_of(p.key) for p in (anna.user, bert.user)}

    def apart() -> bool:
        assert table.match is not None
        scores = table.match.summary()["scores"]
        return bool(table.deal_points) and len({scores[s] for s in seat.values()}) == 2

    await play_until(bot, tid, [anna, bert, cilli], apart)
    assert tid in bot.svc.tables, "the match ended before the stayers' scores differed"
    assert (await bot.svc.resign(CHAT, cilli.user)).ok
    rows = {r.player: r for r in R.standings(table)}
    ahead, behind = sorted((rows[anna.key], rows[bert.key]), key=lambda r: -r.score)
    assert (ahead.won, behind.won, rows[cilli.key].won) == (True, False, False), rows
    assert (ahead.place, behind.place, rows[cilli.key].place) == (0, 1, 2), rows


async def test_a_dreier_resignation_from_the_middle_seat_leaves_both_others_winners(
    bot: Bot,
) -> None:
    """Bert, between Anna and Cilli, resigns a Dreier once their scores differ: both
    of them win (not only the one ahead: that is Thousand's rule), the channel names
    them both, Bert alone loses and takes a Bummerl, and the stored results and the
    board say the same."""
    people = [bot.player(u, finisher) for u in _people(3)]
    tid = await open_table(bot, "dreier", people)
    table = bot.svc.tables[tid]
    anna, bert, cilli = sorted(people, key=lambda p: table.seat_of(p.key) or 0)
    assert [table.seat_of(p.key) for p in (anna, bert, cilli)] == [0, 1, 2]

    def apart() -> bool:
        assert table.match is not None
        scores = table.match.summary()["scores"]
        return bool(table.deal_points) and scores[0] != scores[2]

    await play_until(bot, tid, people, apart)
    assert tid in bot.svc.tables, "the match ended before the stayers' scores differed"
    said = await bot.svc.resign(CHAT, bert.user)
    assert said.text == "You resigned: you lose the match, and it counts on the leaderboard."
    final = bot.fc.updates[-1]
    assert final.result is not None and final.result.finished
    text = final.result.message.text
    assert f"{bert.user.name} resigned." in text, text
    assert f"Winner: {anna.user.name}, {cilli.user.name}" in text, text
    store = bot.store
    assert store is not None
    rows = await store.fetchall(
        "SELECT seat, player, won, bummerl FROM results WHERE table_id = ? ORDER BY seat", (tid,)
    )
    assert [(s, p, w) for s, p, w, _ in rows] == [
        (0, anna.key, 1),
        (1, bert.key, 0),
        (2, cilli.key, 1),
    ]
    assert [b > 0 for *_, b in rows] == [False, True, False], rows
    rated = await store.fetchall("SELECT player FROM rated_results WHERE table_id = ?", (tid,))
    assert sorted(r[0] for r in rated) == sorted(p.key for p in people)
    board = await R.leaderboard(store, "dreier", CHAT.key)
    assert board[-1].player == bert.key and {e.player for e in board[:2]} == {
        anna.key,
        cilli.key,
    }
    assert board[0].rating == board[1].rating > board[2].rating
    assert (await bot.svc.resign(CHAT, anna.user)).code == "no_table"


# --- /stats ----------------------------------------------------------------------------


async def test_stats_of_one_who_never_played_say_so(bot: Bot) -> None:
    store = bot.store
    assert store is not None
    assert await stats_text(store, "tg:404", "Nobody", CHAT.key, "en") == (
        "Nobody has no finished games yet."
    )


async def test_stats_show_the_rating_the_board_shows_for_the_chat_asked_about(bot: Bot) -> None:
    """Anna won here and lost in another chat: /stats here shows this chat's rating,
    the one on this chat's board, and /stats global the global board's."""
    anna, bert, cilli = _people(3)
    await _conceded(bot, anna, bert)
    await _conceded(bot, cilli, anna, chat=OTHER)
    store = bot.store
    assert store is not None
    for scope in (CHAT.key, "global"):
        [row] = [e for e in await R.leaderboard(store, "zweier", scope) if e.player == anna.key]
        stats = await stats_text(store, anna.key, "P00", scope, "en")
        assert stats.endswith(f"rating {_shown(row.rating)}"), (scope, stats)
    here = await stats_text(store, anna.key, "P00", CHAT.key, "en")
    everywhere = await stats_text(store, anna.key, "P00", "global", "en")
    assert here.split("rating ")[1] != everywhere.split("rating ")[1]


async def test_stats_count_the_bummerl_and_the_schneider_received(bot: Bot) -> None:
    """Bert conceded at nil: the Bummerl he took is a Schneider (two of them), and
    his /stats says so."""
    anna, bert = _people(2)
    await _conceded(bot, anna, bert)
    store = bot.store
    assert store is not None
    stats = await stats_text(store, bert.key, "P01", CHAT.key, "en")
    assert "1 played, 0 won, 2 Bummerl received, 1 lost with Schneider" in stats, stats
    stats = await stats_text(store, anna.key, "P00", CHAT.key, "en")
    assert "1 played, 1 won, 0 Bummerl received, 0 lost with Schneider" in stats, stats


async def test_a_bummerl_lost_with_points_is_no_schneider_in_stats(bot: Bot) -> None:
    """Bert resigns once he has scored: the Bummerl he took is a single one, not a
    Schneider (that is losing at nil), and his /stats says so."""
    anna, bert = (bot.player(u, heuristic) for u in _people(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    table = bot.svc.tables[tid]
    seat = table.seat_of(bert.key)
    assert table.match is not None and seat is not None
    match = table.match

    def bert_scored() -> bool:
        return bool(match.summary()["scores"][seat])

    await play_until(bot, tid, [anna, bert], bert_scored)
    assert tid in bot.svc.tables and bert_scored()
    assert (await bot.svc.resign(CHAT, bert.user)).ok
    store = bot.store
    assert store is not None
    stats = await stats_text(store, bert.key, "P01", CHAT.key, "en")
    assert "1 played, 0 won, 1 Bummerl received, 0 lost with Schneider" in stats, stats


async def test_stats_count_the_contracts_made_and_failed(bot: Bot) -> None:
    """Three contracts declared, two of them made: "contracts 2/3 made"."""
    store = bot.store
    assert store is not None
    await store.write(
        ops=[
            (
                "INSERT INTO results (table_id, chat, game, player, seat, won, bummerl,"
                " schneider, score, at) VALUES ('t1', ?, 'dreier', 'tg:1', 0, 1, 0, 0, 7, 0)",
                (CHAT.key,),
            ),
            *[
                (
                    "INSERT INTO contracts (table_id, deal, chat, game, player, contract, made)"
                    " VALUES ('t1', ?, ?, 'dreier', 'tg:1', 'normal', ?)",
                    (deal, CHAT.key, made),
                )
                for deal, made in ((0, 1), (1, 0), (2, 1))
            ],
        ]
    )
    stats = await stats_text(store, "tg:1", "Zed", CHAT.key, "en")
    assert "contracts 2/3 made" in stats, stats


# --- /settings -------------------------------------------------------------------------


def test_the_turn_timeout_takes_both_ends_of_its_range_and_nothing_beyond() -> None:
    """The refusal says "from 10 to 3600": an admin who types exactly 10 or 3600 gets
    it, 9 and 3601 are refused with that text."""
    for seconds in (10, 3600):
        assert ChatSettings().with_value("turn_timeout", str(seconds)).turn_timeout == seconds
    for typed in ("9", "3601"):
        with pytest.raises(SettingError) as refused:
            ChatSettings().with_value("turn_timeout", typed)
        assert "from 10 to 3600, or default" in str(refused.value)


def test_a_preset_key_with_a_word_too_many_names_no_game() -> None:
    """`/settings preset.dreier.x standard` is a typo, not Dreier's preset: the admin
    is told which games there are, and nothing is set."""
    with pytest.raises(SettingError) as refused:
        ChatSettings().with_value("preset.dreier.x", "standard")
    assert refused.value.code == "game"
