"""A finished match's record, as the players of its chat get it (`bot/records.py`)."""

from __future__ import annotations

import json
import re

from bot.records import record_reply
from bot.service import ChatRef
from engine.__main__ import verify_text

from .fakechat import CHAT, Bot, open_table, play_out, users


async def test_the_newest_finished_match_of_the_chat_comes_as_a_checkable_file(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    assert bot.store is not None
    assert (await record_reply(bot.store, CHAT.key, "en")).text.startswith("No finished match")
    first = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, first, [a, b])
    second = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, second, [a, b])

    reply = await record_reply(bot.store, CHAT.key, "en")
    assert reply.file is not None
    assert reply.file.filename == f"schnapsen-zweier-{second}.json"
    record = json.loads(reply.file.data)
    assert record == await bot.store.game_record(second)
    assert verify_text(reply.file.data.decode())[0] == 0  # every deal from its seed
    assert f"table {second}" in reply.text and f"Deals: {len(record['deals'])}." in reply.text
    assert "Seats in the record (numbered from 0, as in the file): 0 Anna · 1 Bert." in reply.text
    assert f"python -m engine verify {reply.file.filename}" in reply.text

    older = await record_reply(bot.store, CHAT.key, "de", f" {first.upper()} ")
    assert older.file is not None and older.file.filename.endswith(f"{first}.json")
    assert older.text.startswith(f"Das Protokoll von Tisch {first}")
    # each reader's way of writing the day it ended
    assert re.search(r", beendet am \d\d\.\d\d\.20\d\d\. Runden:", older.text), older.text
    assert re.search(r", finished 20\d\d-\d\d-\d\d\. Deals:", reply.text), reply.text


async def test_no_record_of_a_running_match_or_of_another_chat(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    assert bot.store is not None
    running = await open_table(bot, "zweier", [a, b])
    refused = await record_reply(bot.store, CHAT.key, "en", running)
    assert refused.file is None and refused.text.startswith(f"No finished match {running}")

    await play_out(bot.fc, running, [a, b])
    elsewhere = ChatRef("tg", "-1002", "Beisl").key
    other = await record_reply(bot.store, elsewhere, "en", running)
    assert other.file is None and running in other.text
    assert (await record_reply(bot.store, CHAT.key, "en", running)).file is not None


async def test_computer_seats_are_named_as_computers(bot: Bot) -> None:
    (a,) = (bot.player(u) for u in users(1))
    assert bot.store is not None
    tid = await open_table(bot, "zweier", [a])
    await play_out(bot.fc, tid, [a])
    reply = await record_reply(bot.store, CHAT.key, "en")
    assert reply.file is not None
    assert (
        "Seats in the record (numbered from 0, as in the file): 0 Anna · 1 computer." in reply.text
    )


async def test_a_player_who_deleted_his_data_is_no_computer_in_the_caption(bot: Bot) -> None:
    a, b = (bot.player(u) for u in users(2))
    assert bot.store is not None
    tid = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, tid, [a, b])
    assert (await bot.svc.forget(b.user)).ok
    reply = await record_reply(bot.store, CHAT.key, "en")
    assert (
        "Seats in the record (numbered from 0, as in the file): 0 Anna · 1 (a deleted player)."
        in reply.text
    )
    assert "Bert" not in reply.text


async def test_the_newest_match_of_a_player_is_his_own(bot: Bot) -> None:
    """Asked for by a player, the newest record is of a match he played (Discord: a
    server's newest may be from a channel he cannot see)."""
    a, b, c = (bot.player(u) for u in users(3))
    assert bot.store is not None
    mine = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, mine, [a, b])
    other = await open_table(bot, "zweier", [c])
    await play_out(bot.fc, other, [c])
    newest = await record_reply(bot.store, CHAT.key, "en")
    assert newest.file is not None and other in newest.file.filename
    own = await record_reply(bot.store, CHAT.key, "en", player=a.key)
    assert own.file is not None and mine in own.file.filename
    named = await record_reply(bot.store, CHAT.key, "en", other, player=a.key)
    assert named.file is not None and other in named.file.filename  # an id shown to all
    stranger = await record_reply(bot.store, CHAT.key, "de", player="tg:999")
    assert stranger.file is None and stranger.text.startswith("Du hast hier noch keine")


async def test_a_match_closed_before_its_end_keeps_the_record_of_its_scored_deals(
    bot: Bot,
) -> None:
    """A match closed in a dispute is the one whose deals get checked: an admin (or a
    vote) closes it in its second deal, and /record gives the first deal, whose seed
    was published, and not the second, whose cards nobody has seen."""
    from .test_expert_views import play_until

    a, b = (bot.player(u) for u in users(2))
    assert bot.store is not None
    tid = await open_table(bot, "zweier", [a, b])
    table = bot.svc.tables[tid]
    await play_until(bot, tid, [a, b], lambda: len(table.deal_points) == 1)
    while len(table.deals[-1].actions) < 2:  # the second deal under way
        assert any([await p.take_turn(tid) is not None for p in (a, b)])
    seed = table.deals[0].seed
    assert (await bot.svc.abort(CHAT, users(3)[2], is_admin=True, table_id=tid)).ok
    assert tid not in bot.svc.tables

    reply = await record_reply(bot.store, CHAT.key, "en", tid)
    assert reply.file is not None, reply.text
    record = json.loads(reply.file.data)
    assert len(record["deals"]) == 1 and seed in reply.file.data.decode()
    assert verify_text(reply.file.data.decode())[0] == 0
    assert "closed on" in reply.text and "before its end. Scored deals: 1." in reply.text

    closed_early = await open_table(bot, "zweier", [a, b])
    assert (await bot.svc.abort(CHAT, users(3)[2], is_admin=True, table_id=closed_early)).ok
    nothing = await record_reply(bot.store, CHAT.key, "en", closed_early)
    assert nothing.file is None and closed_early in nothing.text


async def test_a_closed_match_names_its_players_in_the_caption(bot: Bot) -> None:
    """A closed match wrote no results to name its people by: the caption takes
    their names from the table, not "(a deleted player)" for everyone."""
    from .test_expert_views import play_until

    a, b = (bot.player(u) for u in users(2))
    assert bot.store is not None
    tid = await open_table(bot, "zweier", [a, b])
    table = bot.svc.tables[tid]
    await play_until(bot, tid, [a, b], lambda: len(table.deal_points) == 1)
    assert (await bot.svc.abort(CHAT, users(3)[2], is_admin=True, table_id=tid)).ok
    reply = await record_reply(bot.store, CHAT.key, "en", tid)
    assert (
        "Seats in the record (numbered from 0, as in the file): 0 Anna · 1 Bert." in reply.text
    ), reply.text


async def test_a_closed_match_goes_by_its_id_to_its_players_in_another_channel(bot: Bot) -> None:
    """On Discord a chat is a server: a table id asked for outside the channel it was
    played in names a match only for those who played it.  A closed match wrote no
    results to say who that was; its seats say it, so its players get its record
    anywhere on the server (as for a finished one), and nobody else does."""
    from .test_expert_views import play_until

    a, b = (bot.player(u) for u in users(2))
    assert bot.store is not None
    tid = await open_table(bot, "zweier", [a, b])
    await bot.store.set_place(tid, "channel-1")
    table = bot.svc.tables[tid]
    await play_until(bot, tid, [a, b], lambda: len(table.deal_points) == 1)
    assert (await bot.svc.abort(CHAT, users(3)[2], is_admin=True, table_id=tid)).ok

    for player in (a, b):
        mine = await record_reply(bot.store, CHAT.key, "en", tid, player=player.key, place="x")
        assert mine.file is not None and tid in mine.file.filename, mine.text
    stranger = users(3)[2].key
    other = await record_reply(bot.store, CHAT.key, "en", tid, player=stranger, place="x")
    assert other.file is None and tid in other.text
    there = await record_reply(bot.store, CHAT.key, "en", tid, player=stranger, place="channel-1")
    assert there.file is not None  # where it was played, its id was shown to all


async def test_a_players_newest_match_may_be_one_closed_before_its_end(bot: Bot) -> None:
    """On Discord, /record without a table id gives the newest match the asker played.
    A match closed in a dispute is the one he wants checked, and it wrote no results
    to find him by: its seats say he played it.  A stranger to it does not get it."""
    from .test_expert_views import play_until

    a, b, c = (bot.player(u) for u in users(3))
    assert bot.store is not None
    finished = await open_table(bot, "zweier", [a, b])
    await play_out(bot.fc, finished, [a, b])
    closed = await open_table(bot, "zweier", [a, b])
    table = bot.svc.tables[closed]
    await play_until(bot, closed, [a, b], lambda: len(table.deal_points) == 1)
    assert (await bot.svc.abort(CHAT, c.user, is_admin=True, table_id=closed)).ok

    for player in (a, b):
        newest = await record_reply(bot.store, CHAT.key, "en", player=player.key)
        assert newest.file is not None and closed in newest.file.filename, newest.text
        assert "before its end. Scored deals: 1." in newest.text
    stranger = await record_reply(bot.store, CHAT.key, "en", player=c.key)
    assert stranger.file is None and stranger.text.startswith("You have no finished match"), (
        stranger.text
    )


async def test_a_player_s_newest_match_is_found_behind_twenty_newer_ones_of_others(
    bot: Bot,
) -> None:
    """Anna played one match; twenty newer ones of Cilli and Done fill the group's
    history since.  Her /record still hands out her own match, not "you have none
    here": the search runs over the matches she sat at, not the newest of the chat."""
    a, b, c, d = users(4)
    assert bot.store is not None
    mine = await open_table(bot, "zweier", [bot.player(a), bot.player(b)])
    assert (await bot.svc.resign(CHAT, b)).ok
    for _ in range(20):
        await open_table(bot, "zweier", [bot.player(c), bot.player(d)])
        assert (await bot.svc.resign(CHAT, d)).ok
    own = await record_reply(bot.store, CHAT.key, "en", player=a.key)
    assert own.file is not None and mine in own.file.filename, own.text
