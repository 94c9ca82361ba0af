"""Players and chats: names and languages, chat settings, and moving everything of
a chat to its new key when the platform changed its id."""

from __future__ import annotations

import json
import time
from typing import Any

from .database import Database, Op

#: The same player's rating in the same game under another scope (`o.scope = ?`).
_SAME_RATING = " WHERE o.scope = ? AND o.game = ratings.game AND o.player = ratings.player"


def player_op(key: str, name: str, lang: str | None) -> Op:
    """A person's name and language as boards and records show them: stored with the
    change that seats him, or a bot killed in between names him by his key."""
    return (
        "INSERT INTO players (key, name, lang, updated) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(key) DO UPDATE SET name=excluded.name, "
        "lang=COALESCE(excluded.lang, players.lang), updated=excluded.updated",
        (key, name, lang, time.time()),
    )


def chat_settings_op(chat: str, settings: dict[str, Any]) -> Op:
    """A chat's settings: stored with the change of its tables a setting makes (its
    language), or a bot killed in between leaves them speaking two."""
    return (
        "INSERT INTO chats (key, settings, updated) VALUES (?, ?, ?) "
        "ON CONFLICT(key) DO UPDATE SET settings=excluded.settings, "
        "updated=excluded.updated",
        (chat, json.dumps(settings, sort_keys=True), time.time()),
    )


def move_chat_ops(old: str, new: str, settings: dict[str, Any] | None = None) -> list[Op]:
    """The statements that give everything of chat key `old` to `new`, stored in one
    transaction (with its tables' switch to the new key's language, `_carry_chat`):
    its tables (the ``tables.chat`` column and the ``chat`` of each table's
    ``create`` log entry, which rebuilds the table at start-up), its settings, its
    games, results and contracts, and its chat-scoped ratings (the leaderboard's
    scope).

    A Telegram group upgraded to a supergroup gets a new chat id.  Where both keys
    have settings (the new one's made there before the move was noticed),
    `settings` are the new key's from now on (the two merged, `merged_settings`)
    and the old key's go; without it the old key's settings move where the new key
    has none.  A player rated under both keys keeps one rating: that of the
    longer history, with the games of both.  Running it twice changes nothing
    the second time."""
    return [
        (
            "UPDATE table_log SET entry = json_set(entry, '$.chat', ?)"
            " WHERE version = 1 AND json_extract(entry, '$.k') = 'create'"
            " AND table_id IN (SELECT id FROM tables WHERE chat = ?)",
            (new, old),
        ),
        ("UPDATE tables SET chat = ? WHERE chat = ?", (new, old)),
        *(
            [("UPDATE OR IGNORE chats SET key = ? WHERE key = ?", (new, old))]
            if settings is None
            else [chat_settings_op(new, settings), ("DELETE FROM chats WHERE key = ?", (old,))]
        ),
        ("UPDATE games SET chat = ? WHERE chat = ?", (new, old)),
        ("UPDATE results SET chat = ? WHERE chat = ?", (new, old)),
        ("UPDATE contracts SET chat = ? WHERE chat = ?", (new, old)),
        # a player rated in both (the move noticed late): one row, the rating
        # of the longer history, the games of both
        (
            "UPDATE ratings SET mu = (SELECT o.mu FROM ratings AS o" + _SAME_RATING + "),"
            " sigma = (SELECT o.sigma FROM ratings AS o" + _SAME_RATING + ")"
            " WHERE scope = ? AND EXISTS (SELECT 1 FROM ratings AS o"
            + _SAME_RATING
            + " AND o.games > ratings.games)",
            (old, old, new, old),
        ),
        (
            "UPDATE ratings SET games = games + (SELECT o.games FROM ratings AS o"
            + _SAME_RATING
            + ") WHERE scope = ? AND EXISTS (SELECT 1 FROM ratings AS o"
            + _SAME_RATING
            + ")",
            (old, new, old),
        ),
        (
            "DELETE FROM ratings WHERE scope = ? AND EXISTS (SELECT 1 FROM ratings AS n"
            " WHERE n.scope = ? AND n.game = ratings.game AND n.player = ratings.player)",
            (old, new),
        ),
        ("UPDATE ratings SET scope = ? WHERE scope = ?", (new, old)),
    ]


class Chats(Database):
    """The queries of players and chats (a mixin of `Store`)."""

    async def save_player(self, key: str, name: str, lang: str | None) -> None:
        await self.write(ops=[player_op(key, name, lang)])

    async def player(self, key: str) -> tuple[str, str | None] | None:
        async with self.ro.execute("SELECT name, lang FROM players WHERE key=?", (key,)) as cur:
            r = await cur.fetchone()
        return (r[0], r[1]) if r else None

    async def chat_settings(self, chat: str) -> dict[str, Any]:
        return await self.stored_chat_settings(chat) or {}

    async def stored_chat_settings(self, chat: str) -> dict[str, Any] | None:
        """A chat's settings, None where it has none stored (`chat_settings` reads
        both as the defaults; a chat move merges the old key's into the new key's)."""
        async with self.ro.execute("SELECT settings FROM chats WHERE key=?", (chat,)) as cur:
            r = await cur.fetchone()
        return json.loads(r[0]) if r else None

    async def save_chat_settings(self, chat: str, settings: dict[str, Any]) -> None:
        await self.write(ops=[chat_settings_op(chat, settings)])
