"""What a hard kill kept from Discord: a real bot process killed (SIGKILL) while the
end of a match, or of a deal, was stored and counted but its messages were still on
their way shows that end after the restart, once.

discord.py has no base-URL setting, so the bot process is ``python -m bot`` run with
discord.py pointed at the fake first (as `FakeDiscord.patched` does in this process).
The messages on their way are held by the fake and dropped at the kill (`Hold.drop`):
they never reach Discord, as with a real kill.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from adapters.discord.texts import text
from bot.i18n import t
from bot.payload import decode as decode_payload
from bot.table import Table
from engine import protocol as P
from engine.actions import Action
from engine.actions import decode as decode_action
from tests.e2e.discord_harness import World, discord_world
from tests.e2e.fakes.discord.messages import FakeMessage
from tests.e2e.processes import sigkill
from tests.test_run import PYTHON, ROOT, START_WAIT, clean_env

#: ``python -m bot`` with discord.py pointed at the fake (its REST base, its gateway),
#: its adapter noting each answer it cuts in a file (`World.cut_notes`): the fake
#: refuses the re-sent one (40060) as it would an interaction answered twice.
BOT_ON_THE_FAKE = """
import runpy, sys
import discord.gateway, discord.http, yarl
from adapters.discord.adapter import DiscordAdapter
from adapters.recent import Recent

discord.http.Route.BASE = sys.argv[1]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(sys.argv[2])
notes = open(sys.argv[3], "a", buffering=1)

class Noted(Recent):
    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        notes.write(f"{key}\\n")

made = DiscordAdapter.__init__

def noting(self, *args, **kwargs):
    made(self, *args, **kwargs)
    self.answers_cut = Noted(self.answers_cut.cap)

DiscordAdapter.__init__ = noting
del sys.argv[1:]
runpy.run_module("bot", run_name="__main__", alter_sys=True)
"""


async def _bot_process(world: World, tmp_path: Path) -> asyncio.subprocess.Process:
    """A real bot on ``world.db``, connecting to the world's fake Discord."""
    fake = world.fake
    env = clean_env(tmp_path, DISCORD_TOKEN=fake.token, DATABASE_PATH=str(world.db))
    notes = tmp_path / f"cuts-{len(world.cut_notes)}"
    world.cut_notes.append(notes)
    return await asyncio.create_subprocess_exec(
        PYTHON,
        "-c",
        BOT_ON_THE_FAKE,
        fake.api_base,
        fake.gateway_url,
        str(notes),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )


def _rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    """Rows of `sql` in the bot's store, read beside the running bot."""
    conn = sqlite3.connect(db)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


async def _until_stored(db: Path, sql: str, *args: Any, want: list[tuple[Any, ...]]) -> None:
    """Wait until the running bot's store answers `sql` with `want` (a bot process
    tells the fake nothing of its store: polled)."""
    for _ in range(400):
        if _rows(db, sql, *args) == want:
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"{sql} {args}: {_rows(db, sql, *args)}, not {want}")


def _summaries(world: World) -> list[FakeMessage]:
    return [m for m in world.fake.channel_messages(world.channel) if "bert resigned." in m.content]


async def _board(world: World, anna_wins: str) -> str:
    """/leaderboard as Anna reads it: her row."""
    board = await world.slash(world["anna"], "leaderboard")
    [row] = [line for line in board.content.splitlines() if " anna " in line]
    assert anna_wins in row, board.content
    return row


async def test_a_match_end_a_hard_kill_kept_from_discord_is_shown_after_the_restart(
    tmp_path: Path,
) -> None:
    """Bert resigns; the match is stored as ended and counted, and the bot is killed
    while its last messages are on their way (the table message's edit, which the
    summary waits behind, and the hands' edits).  Before, the restart showed nothing:
    no summary, no Rematch, a table message and hands whose buttons only got
    refusals.  Now the restart shows the end once, as the killed run would have, and
    a further start shows nothing again."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        proc = await _bot_process(world, tmp_path)
        try:
            await fake.wait_for(lambda: fake.sessions, timeout=START_WAIT, description="the bot")
            table_id, lobby = await world.open_table(anna, "zweier")
            await world.click(bert, lobby, "Join")
            await fake.wait_for(lambda: "bert" in lobby.content, description="bert seated")
            await world.click(anna, lobby, "Start")
            [board] = await fake.wait_for(
                lambda: world.table_messages(table_id), description="the table message"
            )

            def dealt() -> list[FakeMessage] | None:
                hands = [world.hand_message(user, table_id) for user in (anna, bert)]
                return [h for h in hands if h is not None] if all(hands) else None

            hands = await fake.wait_for(dealt, description="the hands")
            held = [
                fake.hold("PATCH", f"/channels/{m.channel.id}/messages/{m.id}")
                for m in (board, *hands)
            ]
            await world.resign(bert)
            await _until_stored(
                world.db, "SELECT status FROM tables WHERE id = ?", table_id, want=[("finished",)]
            )
            for hold in held:
                await hold.wait_held()
        finally:
            await sigkill(proc)
        # as the kill left them: the table's buttons, no summary
        assert board.buttons and not _summaries(world)
        for hold in held:
            hold.drop()

        await world.start_bot()
        [summary] = await fake.wait_for(lambda: _summaries(world), description="the summary")
        assert [b.label for b in summary.buttons] == ["Rematch"]
        await world.settle()
        assert board.buttons == []  # the table as it was left, without buttons
        for hand, lang in zip(hands, ("en", "de"), strict=True):  # no hand waits for a move
            assert hand.buttons == [] and hand.content.endswith(t(lang, "hand.match_over"))
        await _board(world, "1/1 won")
        await world.restart()  # once shown, it is not shown again
        await world.settle()
        assert len(_summaries(world)) == 1
        await _board(world, "1/1 won")  # counted once
        assert _rows(world.db, "SELECT slot FROM message_refs WHERE table_id = ?", table_id) == []
        errors = (await proc.stderr.read()).decode() if proc.stderr else ""
        assert "Traceback" not in errors, errors


def _ending(table: Table) -> tuple[int, Action] | None:
    """The seat to act and a move of his that ends the deal, if he has one."""
    state = table.deal
    seat = table.to_act()
    if state is None or seat is None or (turn := P.to_act(state)) is None:
        return None
    for action in P.legal_actions(state):
        after, _ = P.apply(state, turn, action)
        if P.result(after) is not None:
            return seat, action
    return None


def _button(message: FakeMessage, table: Table, action: Action) -> str:
    """The custom_id of the hand's button for `action`."""
    for button in message.buttons:
        payload = decode_payload((button.custom_id or "").removeprefix("s:"))
        if (
            payload.verb == "a"
            and payload.arg is not None
            and table.deal is not None
            and decode_action(payload.arg, table.deal.contracts) == action
        ):
            return button.custom_id or ""
    raise AssertionError(f"no button for {action} in {message.content!r}")


async def test_a_deal_end_a_hard_kill_kept_from_the_hands_is_shown_after_the_restart(
    tmp_path: Path,
) -> None:
    """The last card of a deal: the channel got the deal's result and the next deal's
    table, but the players' DM hands (a queue of their own each) were still on their
    way with the hand as the deal left it when the bot was killed.  Before, the end
    counted as shown once the channel's queue sent it: the restart drew the next
    deal's hand over the old message, and "Deal 1 is over" never came.  Now the old
    hand shows how the deal left it, and the next deal's hand comes as a new
    message."""
    async with discord_world(tmp_path) as world:
        fake = world.fake
        anna, bert = world["anna"], world["bert"]
        await world.start_bot()
        table_id = await world.start_match(anna, bert)
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: _ending(table) is not None)
        ending = _ending(table)
        assert ending is not None and len(table.deals) == 1
        seat, action = ending
        await world.stop_bot()
        # the bot process's moves are not known here: its messages are checked for
        # hidden cards by no stale picture of the table (the restart's are again)
        del fake.tables[table_id]
        sitting = table.seats[seat]
        assert sitting is not None
        presser = anna if sitting.user == f"dc:{anna.id}" else bert
        hands = [world.hand_message(user, table_id) for user in (anna, bert)]
        paths = [f"/channels/{h.channel.id}/messages/{h.id}" for h in hands if h is not None]
        assert len(paths) == 2

        def edited(path: str) -> int:
            return sum(r.status == 200 for r in fake.requests_to("PATCH", path))

        redrawn = [edited(path) + 1 for path in paths]

        proc = await _bot_process(world, tmp_path)
        try:
            await fake.wait_for(lambda: fake.sessions, timeout=START_WAIT, description="the bot")
            # the start redraws the hands as they stand: the deal's last move comes after
            await fake.wait_for(
                lambda: all(edited(path) >= n for path, n in zip(paths, redrawn, strict=True)),
                timeout=START_WAIT,
                description="the hands redrawn after the start",
            )
            held = [fake.hold("PATCH", path) for path in paths]
            hand = world.hand_message(presser, table_id)
            assert hand is not None
            await world.click(presser, hand, _button(hand, table, action))
            # the channel's queue went on to the next deal
            await fake.wait_for(
                lambda: len(world.table_messages(table_id)) == 2, description="deal 2's table"
            )
            for hold in held:
                await hold.wait_held()
        finally:
            await sigkill(proc)
        for hold in held:
            hold.drop()

        await world.start_bot()
        await world.settle()
        for user, lang, old in zip((anna, bert), ("en", "de"), hands, strict=True):
            assert old is not None and old.buttons == []
            assert old.content.endswith(text(lang, "hand_deal_over", deal=1)), old.content
            assert world.hand_message(user, table_id) is not old  # deal 2's, a new message
        assert len(world.service.tables[table_id].deal_points) == 1


async def test_a_deal_end_that_went_out_is_not_shown_again_after_a_restart(
    tmp_path: Path,
) -> None:
    """A deal ends and all of it goes out (the result in the channel, each hand as the
    deal left it, the next deal's messages); then the bot restarts.  Its end was
    shown, so the restart does not show it again: the channel has one "Deal 1 over",
    and the restarted bot sends nothing until someone plays on."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        fake = world.fake
        table_id = await world.start_match(world["anna"], world["bert"])
        table = world.service.tables[table_id]
        await world.play(table_id, until=lambda: len(table.deal_points) >= 1)
        await world.settle()
        seen = len(fake.requests)
        await world.restart()
        await world.settle()

        over = [m for m in fake.channel_messages(world.channel) if "Deal 1 over" in m.content]
        assert len(over) == 1
        assert len(world.table_messages(table_id)) == 2
        posts = fake.requests_to("POST", "/channels/{channel_id}/messages")
        assert [r for r in fake.requests[seen:] if r in posts] == []


async def test_a_match_whose_end_went_out_leaves_nothing_to_tell_again(tmp_path: Path) -> None:
    """Bert resigns and the match's end goes out (the table's last picture, the
    summary, the hands): the bot confirms it once sent, so the store keeps nothing of
    it to tell again and a restart shows nothing more.  Unconfirmed, every start for a
    week rebuilt the table from its log to tell an end it can show nowhere (its
    messages are forgotten at the close), and counted it in the log as waiting."""
    async with discord_world(tmp_path) as world:
        await world.start_bot()
        table_id = await world.start_match(world["anna"], world["bert"])
        await world.resign(world["bert"])
        await world.settle()
        assert table_id not in world.service.tables
        assert await world.service.store.closed_untold() == []
        await world.restart()
        await world.settle()
        assert world.service.untold_closed == {}
        assert len(_summaries(world)) == 1
