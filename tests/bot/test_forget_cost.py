"""/forgetme on a bot with a long history: it finds the log entries that name the
player without reading every entry ever stored (the read connection it uses is the
one every other query waits for), and scrubs exactly those."""

from __future__ import annotations

import json
from typing import Any

from bot import results as R
from bot.store import Op, Store

from .fakechat import Bot, open_table, play_out, users
from .test_long_run import _vm_steps

Log = dict[tuple[str, int], str]


def _table_entries(host: str, guest: str, name: str) -> list[dict[str, Any]]:
    """Every kind of entry that names a person, among those that name none."""
    return [
        {"k": "create", "chat": "tg:-5", "game": "zweier", "host": host, "options": {}},
        {"k": "join", "seat": 0, "user": host, "name": name},
        {"k": "join", "seat": 1, "user": guest, "name": f"{name}'s friend"},
        {"k": "start", "dealer": 0},
        {"k": "deal", "seed": "s"},
        {"k": "act", "seat": 0, "code": 3, "by": "p"},
        {"k": "act", "seat": 1, "code": 7, "by": "t"},
        {"k": "vote", "user": guest},
        {"k": "host", "user": guest},
        {"k": "forget", "seat": 0, "user": host, "name": "Computer 1", "level": "random"},
    ]


async def _add_tables(store: Store, tables: dict[str, list[dict[str, Any]]]) -> None:
    ops: list[Op] = [
        (
            "INSERT INTO table_log (table_id, version, entry, at) VALUES (?, ?, ?, 0)",
            (tid, v, json.dumps(e, separators=(",", ":"))),
        )
        for tid, entries in tables.items()
        for v, e in enumerate(entries, 1)
    ]
    await store.write(ops=ops)


async def _log(store: Store) -> Log:
    rows = await store.fetchall("SELECT table_id, version, entry FROM table_log")
    return {(tid, v): entry for tid, v, entry in rows}


async def _forget(store: Store, key: str) -> None:
    await store.write(ops=await R.forget_ops(store, key))


def _names(entry: str, key: str) -> bool:
    data = json.loads(entry)
    return key in (data.get("user"), data.get("host"))


async def test_forget_me_costs_the_same_however_long_the_history(bot: Bot) -> None:
    """With a hundred times the tables of other players in the log, scrubbing one
    player's entries walks no more of the database."""
    store = bot.store
    assert store is not None

    def history(start: int, n: int) -> dict[str, list[dict[str, Any]]]:
        return {
            f"h{i}": _table_entries(f"tg:9{i}", f"tg:8{i}", f"Player {i}")
            for i in range(start, start + n)
        }

    # two players with the same share of the log: one forgets before, one after
    mine = {f"{who}{i}": _table_entries(f"tg:{who}", "tg:7", "Me") for who in "ab" for i in (1, 2)}
    await _add_tables(store, mine | history(0, 30))
    before = await _vm_steps(store, lambda: _forget(store, "tg:a"))
    await _add_tables(store, history(30, 3000))
    after = await _vm_steps(store, lambda: _forget(store, "tg:b"))
    assert after <= before + 2, (before, after)
    log = await _log(store)
    for who in ("tg:a", "tg:b"):  # both were found, all of their entries
        assert not [k for k, e in log.items() if _names(e, who)]
    assert sum(_names(e, "deleted") for e in log.values()) == 2 * 2 * 3


async def test_forget_me_scrubs_his_entries_and_no_one_elses(bot: Bot) -> None:
    """Every entry that names him (as host, seat, new host, voter, forgotten seat),
    in a match he played and in any other table, reads "deleted", his seat's name
    "—"; entries of a player whose key starts with his, or whose name contains his
    key, stay as they were, byte for byte."""
    store = bot.store
    assert store is not None
    anna, bert = (bot.player(u) for u in users(2))
    tid = await open_table(bot, "zweier", [anna, bert])
    await play_out(bot.fc, tid, [anna, bert])
    key = anna.key  # "tg:100"
    await _add_tables(
        store,
        {
            "x1": _table_entries(key, "tg:1000", "Anna"),
            "x2": _table_entries("tg:1000", key, f"{key} fan"),
            "x3": _table_entries("tg:1000", "TG:100", f'"{key}"'),
        },
    )
    before = await _log(store)
    hers = {k for k, e in before.items() if _names(e, key)}
    assert len(hers) == 2 + 3 + 3  # the match she played (create, join), x1, x2

    assert (await bot.svc.forget(anna.user)).ok

    after = await _log(store)
    assert after.keys() == before.keys()
    assert {k for k, e in after.items() if e != before[k]} == hers
    for k in hers:
        old, new = json.loads(before[k]), json.loads(after[k])
        for field in ("user", "host"):
            if old.get(field) == key:
                old[field] = "deleted"
        if old["k"] == "join":
            old["name"] = "—"
        assert new == old, (k, new)
    assert json.loads(after[("x2", 2)])["name"] == "tg:100 fan"
