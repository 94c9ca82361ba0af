"""Results, contracts, ratings and the leaderboard.

Everything a finished match writes (result rows, the game record, rating updates) is
returned as SQL operations that go into the *same* transaction as the table's last log
entry, so a match is either finished and scored, or not finished at all.

Ratings use OpenSkill's Plackett–Luce model, which rates 2, 3 and 4 players and teams
(Bauernschnapsen) alike.  Each game has a global rating and one per chat.  Computer
seats take part in the update with a default rating that is never stored.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce

from .store import Op, Store
from .table import Status, Table

if TYPE_CHECKING:
    from .service import TableService

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class Standing:
    seat: int
    player: str | None  # None for a computer seat
    won: bool
    bummerl: int
    score: int
    team: int


def standings(table: Table) -> list[Standing]:
    """Who won and lost a finished match, seat by seat."""
    assert table.match is not None
    summary = table.match.summary()
    scores = list(summary.get("scores", [0] * table.players))
    bummerl = list(summary.get("bummerl", [0] * table.players))
    teams = (
        [i % 2 for i in range(table.players)]
        if table.game == "bauern"
        else list(range(table.players))
    )
    if table.resigned is not None:
        losing_team = teams[table.resigned]
        lost = [teams[i] == losing_team for i in range(table.players)]
        bummerl = [max(b, 1) if lost[i] else b for i, b in enumerate(bummerl)]
    elif any(bummerl):
        lost = [b > 0 for b in bummerl]
    else:
        best = max(scores) if scores else 0
        lost = [s < best for s in scores]
    out = []
    for i, seat in enumerate(table.seats):
        player = seat.user if seat is not None else None
        out.append(Standing(i, player, not lost[i], bummerl[i], scores[i], teams[i]))
    return out


async def result_ops(
    service: TableService, table: Table, status_before: Status, deals_before: int
) -> list[Op]:
    """SQL for what the entries just applied finished: deals and maybe the match."""
    ops: list[Op] = []
    now = time.time()
    if table.match is not None:
        results = table.match.results
        for k in range(deals_before, len(table.deal_points)):
            res = results[k] if k < len(results) else None
            if res is None or res.declarer is None or res.contract is None:
                continue
            spec = table.deals[k].spec
            seat = spec.seats[res.declarer]
            s = table.seats[seat]
            player = s.user if s is not None and s.user is not None else None
            if player is None:
                continue
            ops.append(
                (
                    "INSERT OR REPLACE INTO contracts (table_id, deal, chat, game, player, contract, made)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        table.id,
                        k,
                        table.chat,
                        table.game,
                        player,
                        res.contract,
                        int(res.declarer in res.winners),
                    ),
                )
            )
    if status_before != Status.FINISHED and table.status == Status.FINISHED:
        ops.extend(await _finish_ops(service, table, now))
    return ops


async def _finish_ops(service: TableService, table: Table, now: float) -> list[Op]:
    ops: list[Op] = [
        (
            "INSERT OR REPLACE INTO games (table_id, chat, game, record, finished) VALUES (?, ?, ?, ?, ?)",
            (table.id, table.chat, table.game, json.dumps(table.record()), now),
        )
    ]
    rows = standings(table)
    for st in rows:
        if st.player is None:
            continue
        ops.append(
            (
                "INSERT OR REPLACE INTO results (table_id, chat, game, player, seat, won, bummerl,"
                " schneider, score, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    table.id,
                    table.chat,
                    table.game,
                    st.player,
                    st.seat,
                    int(st.won),
                    st.bummerl,
                    int(st.bummerl >= 2),
                    st.score,
                    now,
                ),
            )
        )
    for scope in ("global", table.chat):
        ops.extend(await _rating_ops(service.store, scope, table.game, rows))
    return ops


async def _rating_ops(store: Store, scope: str, game: str, rows: list[Standing]) -> list[Op]:
    humans = [r.player for r in rows if r.player is not None]
    if not humans:
        return []
    marks = ",".join("?" for _ in humans)
    current = {
        p: (mu, sigma, n)
        for p, mu, sigma, n in await store.fetchall(
            f"SELECT player, mu, sigma, games FROM ratings WHERE scope=? AND game=? AND player IN ({marks})",
            (scope, game, *humans),
        )
    }
    teams: dict[int, list[Standing]] = {}
    for r in rows:
        teams.setdefault(r.team, []).append(r)
    order = sorted(teams)
    ratings = []
    ranks: list[float] = []
    for team in order:
        members = teams[team]
        objs = []
        for m in members:
            if m.player is not None and m.player in current:
                mu, sigma, _ = current[m.player]
                objs.append(_MODEL.rating(mu=mu, sigma=sigma))
            else:
                objs.append(_MODEL.rating())
        ratings.append(objs)
        # winners share rank 1; losers are ranked by their score (higher is better)
        best = members[0]
        ranks.append(0 if best.won else 1 + _rank_by_score(best, rows))
    new = _MODEL.rate(ratings, ranks=ranks)
    ops: list[Op] = []
    for team, objs in zip(order, new, strict=True):
        for m, rating in zip(teams[team], objs, strict=True):
            if m.player is None:
                continue
            games = current.get(m.player, (0, 0, 0))[2] + 1
            ops.append(
                (
                    "INSERT INTO ratings (scope, game, player, mu, sigma, games) VALUES (?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT(scope, game, player) DO UPDATE SET mu=excluded.mu,"
                    " sigma=excluded.sigma, games=excluded.games",
                    (scope, game, m.player, rating.mu, rating.sigma, games),
                )
            )
    return ops


def _rank_by_score(me: Standing, rows: list[Standing]) -> int:
    return sum(1 for r in rows if not r.won and r.team != me.team and r.score > me.score)


# --- reading --------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardEntry:
    player: str
    name: str
    rating: float
    mu: float
    sigma: float
    games: int
    won: int
    bummerl: int


async def leaderboard(store: Store, game: str, scope: str, limit: int = 10) -> list[BoardEntry]:
    """Players of a game ordered by a conservative rating (mu - 3 sigma)."""
    rows = await store.fetchall(
        "SELECT r.player, COALESCE(p.name, r.player), r.mu, r.sigma,"
        " COUNT(x.player), COALESCE(SUM(x.won), 0), COALESCE(SUM(x.bummerl), 0)"
        " FROM ratings r"
        " LEFT JOIN players p ON p.key = r.player"
        " LEFT JOIN results x ON x.player = r.player AND x.game = r.game"
        "  AND (? = 'global' OR x.chat = ?)"
        " WHERE r.game = ? AND r.scope = ?"
        " GROUP BY r.player ORDER BY r.mu - 3 * r.sigma DESC LIMIT ?",
        (scope, scope, game, scope, limit),
    )
    return [
        BoardEntry(p, n, mu - 3 * sigma, mu, sigma, int(g), int(w), int(b))
        for p, n, mu, sigma, g, w, b in rows
    ]


@dataclass(frozen=True)
class GameStats:
    game: str
    games: int
    won: int
    bummerl: int
    schneider: int
    played: int
    made: int
    rating: float | None


async def player_stats(store: Store, player: str, scope: str = "global") -> list[GameStats]:
    where = "" if scope == "global" else " AND chat = ?"
    extra: tuple[Any, ...] = () if scope == "global" else (scope,)
    rows = await store.fetchall(
        "SELECT game, COUNT(*), SUM(won), SUM(bummerl), SUM(schneider) FROM results"
        " WHERE player = ?" + where + " GROUP BY game ORDER BY game",
        (player, *extra),
    )
    contracts = {
        g: (int(n), int(m or 0))
        for g, n, m in await store.fetchall(
            "SELECT game, COUNT(*), SUM(made) FROM contracts WHERE player = ?"
            + where
            + " GROUP BY game",
            (player, *extra),
        )
    }
    ratings = {
        g: mu - 3 * sigma
        for g, mu, sigma in await store.fetchall(
            "SELECT game, mu, sigma FROM ratings WHERE player = ? AND scope = ?", (player, scope)
        )
    }
    out = []
    for g, n, won, bummerl, schneider in rows:
        played, made = contracts.get(g, (0, 0))
        out.append(
            GameStats(
                g,
                int(n),
                int(won or 0),
                int(bummerl or 0),
                int(schneider or 0),
                played,
                made,
                ratings.get(g),
            )
        )
    return out


async def forget_player(store: Store, player: str) -> None:
    """Delete a player's rows and scrub their id and name from stored table logs."""
    ops: list[Op] = [
        ("DELETE FROM players WHERE key = ?", (player,)),
        ("DELETE FROM results WHERE player = ?", (player,)),
        ("DELETE FROM contracts WHERE player = ?", (player,)),
        ("DELETE FROM ratings WHERE player = ?", (player,)),
        # adapters' private message slots are named "<what>:<user key>"
        (
            "DELETE FROM message_refs WHERE substr(slot, -?) = ?",
            (len(player) + 1, ":" + player),
        ),
    ]
    placeholder = "deleted"
    for table_id, version, entry in await store.fetchall(
        "SELECT table_id, version, entry FROM table_log WHERE entry LIKE ?", (f"%{player}%",)
    ):
        data = json.loads(entry)
        changed = False
        for key in ("user", "host"):
            if data.get(key) == player:
                data[key] = placeholder
                changed = True
                if key == "user" and "name" in data and data.get("k") == "join":
                    data["name"] = "—"
        if changed:
            ops.append(
                (
                    "UPDATE table_log SET entry = ? WHERE table_id = ? AND version = ?",
                    (json.dumps(data, separators=(",", ":")), table_id, version),
                )
            )
    await store.write(ops=ops)
