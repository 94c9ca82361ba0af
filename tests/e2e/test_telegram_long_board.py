"""Every game's board at once in a busy group, end to end: longer than one Telegram
message, it comes as several, cut between lines, and the asker's own rows are there."""

from __future__ import annotations

import time
from pathlib import Path

from adapters.telegram.content import MAX_TEXT, units
from bot.boards import leaderboard_text
from engine.games import available
from tests.e2e.fakes.telegram.server import FakeTelegram
from tests.e2e.telegram_harness import fake, log_guard, make_players, start_rig, stop_rig

__all__ = ["fake", "log_guard"]


async def test_a_board_longer_than_a_message_comes_whole_in_several(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """Fifteen regulars with long names (emoji count twice in Telegram's limit) on
    all four boards, and Anna below them: the reply to /leaderboard is more than 4096
    characters.  It comes in messages Telegram takes, each made of whole lines, which
    together are the whole board, Anna's own row on every game's board included (it
    was the part cut off)."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna"])
        anna = players.users[0]
        group = players.group
        scope = f"tg:{group.id}"
        ops: list[tuple[str, tuple[object, ...]]] = []
        for i in range(15):
            key = f"tg:{1000 + i}"
            name = f"Maximilian-Alexander {i:02d} von Hohenberg-Schwarzenfeld 🃏🃏🃏 Schnapskönig"
            ops.append(
                (
                    "INSERT INTO players (key, name, lang, updated) VALUES (?, ?, NULL, ?)",
                    (key, name, time.time()),
                )
            )
            for game in available():
                ops.append(
                    (
                        "INSERT INTO ratings (scope, game, player, mu, sigma, games)"
                        " VALUES (?, ?, ?, ?, 2.0, 1)",
                        (scope, game, key, 40.0 - i),
                    )
                )
        asker = f"tg:{anna.id}"
        ops.append(
            ("INSERT INTO players (key, name, lang, updated) VALUES (?, 'Anna', NULL, 0)", (asker,))
        )
        for game in available():
            ops.append(
                (
                    "INSERT INTO ratings (scope, game, player, mu, sigma, games)"
                    " VALUES (?, ?, ?, 0.0, 2.0, 1)",
                    (scope, game, asker),
                )
            )
        await rig.store.write(ops=ops)

        typed = anna.send(group, "/leaderboard")
        await fake.wait_for_message(group, after=typed, contains="Leaderboard")
        assert await rig.adapter.outbox.drain(5)
        said = [m.text for m in group.bot_messages() if m.message_id > typed.message_id]

        board = await leaderboard_text(rig.store, scope, "en", player=asker)
        assert units(board) > MAX_TEXT  # too long for one message
        assert len(said) > 1
        assert all(units(text) <= MAX_TEXT for text in said)
        # whole lines, all of them, in order: only the blank lines between boards
        # where a message ends are not sent
        sent = [line for text in said for line in text.splitlines() if line]
        assert sent == [line for line in board.splitlines() if line]
        assert sum(line.startswith("16. Anna — rating") for line in sent) == 4

        # the second page of one board ("1000" names Thousand; "2" names no game)
        typed = anna.send(group, "/leaderboard 1000 2")
        page = await fake.wait_for_message(group, after=typed, contains="Leaderboard")
        lines = page.text.splitlines()
        assert lines[1] == "Places 11–16 of 16 (ask with a page number for the others)."
        assert [line.split(". ", 1)[0] for line in lines[2:]] == [str(n) for n in range(11, 17)]
        assert lines[-1].startswith("16. Anna — rating")
    finally:
        await stop_rig(rig)


def test_parts_cut_between_lines_counting_as_telegram_counts() -> None:
    """The limit is in UTF-16 units: a line of emoji counts twice its characters, and
    a message ends before the line that would take it over, not inside it."""
    from adapters.telegram.content import parts

    line = "🃏" * 30  # 30 characters, 60 units
    text = "\n".join([line] * 3)
    assert parts(text, limit=121) == [line + "\n" + line, line]
    assert parts(text, limit=182) == [text]
    assert parts("\n\nshort\n\n", limit=10) == ["short"]
    assert parts("") == ["…"]


async def test_a_page_beyond_any_board_is_said_to_be_empty(
    fake: FakeTelegram, tmp_path: Path
) -> None:
    """A page number of twenty digits (or a superscript "²", a digit to Python but no
    number) gets an answer, not "Something went wrong" and a traceback."""
    rig = await start_rig(fake, tmp_path / "bot.sqlite3")
    try:
        players = make_players(fake, ["Anna"])
        anna, group = players.users[0], players.group
        await rig.store.write(
            ops=[
                (
                    "INSERT INTO players (key, name, lang, updated) VALUES (?, ?, NULL, ?)",
                    ("tg:1000", "Berti", time.time()),
                ),
                (
                    "INSERT INTO ratings (scope, game, player, mu, sigma, games)"
                    " VALUES (?, 'zweier', 'tg:1000', 30.0, 2.0, 1)",
                    (f"tg:{group.id}",),
                ),
            ]
        )
        typed = anna.send(group, "/leaderboard 99999999999999999999")
        said = await fake.wait_for_message(group, after=typed)
        assert said.text.endswith("No players on this page."), said.text
        typed = anna.send(group, "/leaderboard ²")
        said = await fake.wait_for_message(group, after=typed)
        assert "went wrong" not in said.text, said.text
    finally:
        await stop_rig(rig)
