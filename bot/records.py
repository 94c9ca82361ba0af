"""A finished match's game record, handed to the players as a file (of a match
closed before its end: its scored deals).

The table message shows each deal's seed hash and the result message its seed; the
record (RULES.md §6) holds every deal's cards and actions, so anyone can check with
`python -m engine verify FILE` that each deal was dealt from its published seed, and
replay a disputed deal with `python -m engine replay FILE`.  It names seats, not
people; the caption says who sat where.  A running match has none to give: its
current deal's cards are secret until the deal ends.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from .i18n import game_name, norm_lang, t
from .store import FinishedGame, Store
from .table import Table


@dataclass(frozen=True, slots=True)
class RecordFile:
    filename: str
    data: bytes


@dataclass(frozen=True, slots=True)
class RecordReply:
    """The caption (or the refusal) and, when there is one, the file."""

    text: str
    file: RecordFile | None = None


async def record_reply(
    store: Store,
    chat: str,
    lang: str | None,
    table_id: str | None = None,
    *,
    player: str | None = None,
    place: str | None = None,
    private: bool = False,
) -> RecordReply:
    """The record of `chat`'s finished match `table_id`, or of its newest one (the
    newest `player` played, if given: on Discord a chat is a whole server, whose
    private channels not everybody sees).  Table ids are lower case; one typed
    otherwise (or with spaces) still names its table.  `place`, `private`: see
    `_named`."""
    table_id = (table_id or "").strip().lower() or None
    if table_id is None:
        found = await _newest(store, chat, player)
    else:
        found = await _named(store, chat, table_id, player, place, private)
    if found is None:
        if table_id:
            return RecordReply(t(lang, "record.unknown", table=table_id))
        return RecordReply(t(lang, "record.none" if player is None else "record.none_yours"))
    who = " · ".join(f"{s} {name}" for s, name in enumerate(await _seat_names(store, found, lang)))
    deals = found.record.get("deals", [])
    # the reader's way of writing a date: 29.11.2026 in German
    day_format = "%d.%m.%Y" if norm_lang(lang) == "de" else "%Y-%m-%d"
    day = time.strftime(day_format, time.gmtime(found.finished))
    name = f"schnapsen-{found.game}-{found.table_id}.json"
    row = await store.table_row(found.table_id)
    closed = row is not None and row.status == "aborted"  # its scored deals only
    caption = t(
        lang,
        "record.caption_closed" if closed else "record.caption",
        table=found.table_id,
        game=game_name(found.game, lang),
        deals=len(deals),
        day=day,
        seats=who,
        file=name,
    )
    data = json.dumps(found.record, indent=1, ensure_ascii=False).encode()
    return RecordReply(caption, RecordFile(name, data))


async def _newest(store: Store, chat: str, player: str | None) -> FinishedGame | None:
    """`chat`'s newest match, or the newest `player` sat at to its end or its close
    (one he left before has gone on without him, or was closed without him)."""
    if player is None:
        return await store.finished_game(chat)
    for table_id in await store.matches_joined(chat, player):
        found = await store.finished_game(chat, table_id)
        if found is not None and player in await _players(store, found):
            return found
    return None


async def _players(store: Store, found: FinishedGame) -> frozenset[str]:
    """Who played the match to its end: its results say so; a closed match wrote none,
    its table's seats at the close do."""
    return found.players or await _seated(store, found)


async def _named(
    store: Store,
    chat: str,
    table_id: str,
    player: str | None,
    place: str | None,
    private: bool,
) -> FinishedGame | None:
    """The named match, if the asker may see it; None (as for an unknown id, so that
    nobody learns which matches exist) if not.

    Without a `place` (Telegram) a chat is one group, where every table id was shown:
    any match of `chat`.  With one (Discord: the channel asked in) a chat is a server,
    whose private channels not every member sees, and a table id may be passed on
    beyond them: the match goes to who sat at it to its end (or its close), anywhere in `chat` or in
    his DM with the bot (`private`), and to anyone else only in the place it was played
    in.  A match finished before places were kept has none: its players only."""
    if place is None:
        return await store.finished_game(chat, table_id)
    found = await store.finished_game(None, table_id)
    if found is None:
        return None
    here = found.chat == chat
    if here and found.place == place:
        return found
    if player is None or not (here or private):
        return None
    return found if player in await _players(store, found) else None


async def _table(store: Store, found: FinishedGame) -> Table | None:
    """The match's table as its log left it (its seats: who sat where)."""
    entries = await store.table_log(found.table_id)
    if not entries:  # pragma: no cover - every finished table has its log
        return None
    return Table.from_log(found.table_id, entries)


async def _seated(store: Store, found: FinishedGame) -> frozenset[str]:
    """The people sitting at the match when it ended or was closed."""
    table = await _table(store, found)
    seats = table.seats if table is not None else []
    return frozenset(s.user for s in seats if s is not None and s.user is not None)


async def _seat_names(store: Store, found: FinishedGame, lang: str | None) -> list[str]:
    """Who sat in each seat of the record: a person's name, "computer", or a person
    who has since deleted his data (his name is gone, he was no computer).  The
    table's log says which seats people held."""
    table = await _table(store, found)
    if table is None:  # pragma: no cover - every finished table has its log
        return []
    names = []
    for s, seat in enumerate(table.seats):
        if seat is None or seat.user is None:
            names.append(t(lang, "record.computer"))
        else:
            # a closed match wrote no results to name its people: its log's names,
            # unless /forgetme scrubbed them
            logged = seat.name if seat.user != "deleted" and not found.names else None
            names.append(found.names.get(s) or logged or t(lang, "record.deleted"))
    return names
