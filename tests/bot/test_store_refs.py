"""Where a table was shown (message refs) and how far its ends were told, read back
from a real database file after a restart.

A ref lost makes the restarted bot post a new table message instead of editing the
one the players have (the old one's buttons then answer nothing); a ref of another
table dropped by mistake does the same to a table nobody touched; a told mark wrong
either way tells an end twice or never.  The adapters' tests reach these only through
a whole run, where one table at a time hides a query that touches every table.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from bot.store import Store

from .fakechat import CHAT, Bot, open_table, running, users


async def _table(store: Store, status: str = "lobby") -> str:
    """A new table at `status`: version 1 for a lobby, 2 once it changed."""
    table_id = await store.create_table(CHAT.key, "zweier", {"k": "create"})
    if status != "lobby":
        await store.append(table_id, 2, [{"k": status}], status=status, deadline=None)
    return table_id


async def _shown(store: Store, status: str, message: str) -> str:
    """A new table at `status` whose table message is `message` (chat/message id)."""
    table_id = await _table(store, status)
    await store.set_message_ref(table_id, "table", message)
    return table_id


async def test_a_tables_refs_change_one_slot_at_a_time_and_leave_other_tables_alone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        mine, other = (
            await _shown(store, "playing", "-1001/7"),
            await _shown(store, "playing", "-1001/9"),
        )
        await store.set_message_ref(mine, "ping", "-1001/8")
        await store.set_message_ref(mine, "table", "-1001/10")  # posted anew: replaces
    async with Store(path) as store:
        assert await store.message_refs(mine) == {"table": "-1001/10", "ping": "-1001/8"}
        await store.drop_message_ref(mine, "ping")
        assert await store.message_refs(mine) == {"table": "-1001/10"}
        await store.forget_message_ref(mine, "table", "-1001/7")  # an older one: stays
        assert await store.message_refs(mine) == {"table": "-1001/10"}
        await store.forget_message_ref(mine, "table", "-1001/10")
        assert await store.message_refs(mine) == {}
        await store.set_message_ref(mine, "table", "-1001/11")
        await store.drop_message_refs(mine)
        assert await store.message_refs(mine) == {}
        assert await store.message_refs(other) == {"table": "-1001/9"}


async def test_a_table_closed_unrestorable_forgets_only_its_own_refs(tmp_path: Path) -> None:
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        broken, other = (
            await _shown(store, "playing", "-1001/7"),
            await _shown(store, "playing", "-1001/9"),
        )
        await store.close_unrestorable(broken, 2)
    async with Store(path) as store:
        assert await store.message_refs(broken) == {}
        assert await store.message_refs(other) == {"table": "-1001/9"}
        assert [r.id for r in await store.closed_untold()] == []


async def test_a_close_told_to_its_end_forgets_its_refs_and_nothing_earlier_does(
    tmp_path: Path,
) -> None:
    """The refs of a closed table stay until its close was told (a restart shows the
    end on those messages); then they go, and only that table's."""
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        closed = await _shown(store, "finished", "-1001/7")
        playing = await _shown(store, "playing", "-1001/9")
        await store.set_told(playing, 2)
        await store.set_told(closed, 1)  # an earlier end: the close is still to tell
    async with Store(path) as store:
        assert [r.id for r in await store.closed_untold()] == [closed]
        assert await store.message_refs(closed) == {"table": "-1001/7"}
        await store.set_told(closed, 2)
        assert await store.closed_untold() == []
        assert await store.message_refs(closed) == {}
        assert await store.message_refs(playing) == {"table": "-1001/9"}


async def test_a_told_mark_never_goes_back_nor_past_the_tables_version(tmp_path: Path) -> None:
    """An adapter confirming an older end late must not make a restart tell the newer
    one again; one confirming more than was stored must not hide an end to come."""
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        tid, other = await _table(store, "playing"), await _table(store, "playing")
        await store.set_told(tid, 2)
        await store.set_told(tid, 1)  # late
        assert (row := await store.table_row(tid)) is not None and row.told == 2
        await store.set_told(other, 9)  # beyond its version 2
        await store.append(other, 3, [{"k": "a"}, {"k": "b"}], status="finished", deadline=None)
    async with Store(path) as store:
        assert (row := await store.table_row(tid)) is not None and row.told == 2
        assert [r.id for r in await store.closed_untold()] == [other]


async def test_a_start_forgets_refs_of_closes_already_told_and_keeps_the_rest(
    tmp_path: Path,
) -> None:
    """Refs stored after a close was told (a post that raced the end) go; a lobby's,
    a running table's and those of a close not told yet are what a restart edits."""
    path = tmp_path / "bot.sqlite3"
    async with Store(path) as store:
        lobby, playing = await _table(store), await _table(store, "playing")
        told, untold = await _table(store, "finished"), await _table(store, "aborted")
        await store.set_told(told, 2)
        await store.set_told(untold, 1)
        for tid in (lobby, playing, told, untold):
            await store.set_message_ref(tid, "table", f"-1001/{tid}")
        await store.drop_refs_of_closed_tables()
    async with Store(path) as store:
        assert await store.message_refs(told) == {}
        for tid in (lobby, playing, untold):
            assert await store.message_refs(tid) == {"table": f"-1001/{tid}"}, tid


async def test_a_restart_forgets_a_ref_stored_after_a_told_close(
    make_bot: Callable[..., Bot],
) -> None:
    """A post that raced the end of a match stored its ref after the end was told:
    the next start of the service forgets it, nothing is drawn there any more."""
    bot = await make_bot().start()
    try:
        a, b = (bot.player(u) for u in users(2))
        tid = await open_table(bot, "zweier", [a, b])
        assert (await bot.svc.resign(CHAT, b.user)).ok  # the chat confirms the end
        await bot.db.set_message_ref(tid, "table", "-1001/77")
    finally:
        await bot.stop()
    async with running(make_bot()) as bot:
        assert await bot.db.message_refs(tid) == {}
