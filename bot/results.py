"""Results, contracts, ratings and the leaderboard.

Everything a finished match writes (result rows, the game record, rating updates) is
returned as SQL operations that go into the *same* transaction as the table's last log
entry, so a match is either finished and scored, or not finished at all.

Ratings use OpenSkill's Plackett–Luce model, which rates 2, 3 and 4 players and teams
(Bauernschnapsen) alike.  Each game has a global rating and one per chat.  A rating
compares people: only a match with people on at least two sides moves it (one played
against computers only, or a Bauern pair against two computers, counts in /stats but
not in the rating), for a computer's default rating would otherwise be farmed by
winning again and again against a weak one.  Where people did meet, computer seats take
part in the update with that default rating, never stored.
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
    # A person whose seat the computer held at the end (he missed his turns and never
    # took it back) walked away: like a resignation, his side loses and every other
    # side wins, or he could leave a match he was losing to the computer and be
    # credited with what it made of it.  Unless everybody walked away.  A side that
    # resigned loses too, but a resignation does not hand the win to one who walked
    # away.  Either way the Bummerl follow the verdict, not the scores: a loser has at
    # least one, a winner none (a stayer who was behind is not "won, with a Bummerl").
    away = {
        teams[i]
        for i, s in enumerate(table.seats)
        if s is not None and s.user is not None and s.ai is not None
    }
    verdict: set[int] | None = None
    if table.resigned is not None:
        verdict = {teams[table.resigned]} | away
    elif away and away != {teams[i] for i, s in enumerate(table.seats) if s and s.user}:
        verdict = away
    if verdict is not None:
        lost = [teams[i] in verdict for i in range(table.players)]
        bummerl = [max(b, 1) if lost[i] else 0 for i, b in enumerate(bummerl)]
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


async def result_ops(service: TableService, table: Table, status_before: Status) -> list[Op]:
    """SQL for a match the entries just applied finished (nothing otherwise).

    Contracts are written with the match, not deal by deal: a match aborted after a
    few deals counts nowhere, in /stats' contracts no more than in its games."""
    if status_before == Status.FINISHED or table.status != Status.FINISHED:
        return []
    return await _finish_ops(service, table, time.time())


def _contract_ops(table: Table) -> list[Op]:
    """The contract each person declared in each deal of the match, and if he made it."""
    assert table.match is not None
    ops: list[Op] = []
    for k, res in enumerate(table.match.results):
        if res.declarer is None or res.contract is None:
            continue
        s = table.seats[table.deals[k].spec.seats[res.declarer]]
        if s is None or s.user is None:
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
                    s.user,
                    res.contract,
                    int(res.declarer in res.winners),
                ),
            )
        )
    return ops


async def _finish_ops(service: TableService, table: Table, now: float) -> list[Op]:
    # The record is stored compact (it is most of the games table); /record parses it
    # and writes the file with its own indent, so what a player gets is the same.
    ops: list[Op] = [
        (
            "INSERT OR REPLACE INTO games (table_id, chat, game, record, finished) VALUES (?, ?, ?, ?, ?)",
            (
                table.id,
                table.chat,
                table.game,
                json.dumps(table.record(), separators=(",", ":")),
                now,
            ),
        ),
        *_contract_ops(table),
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
    if len({r.team for r in rows if r.player is not None}) >= 2:
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
    #: The place to show: players whose ratings read the same share one (1, 1, 3).
    rank: int = 0


async def leaderboard(
    store: Store, game: str, scope: str, limit: int = 10, player: str | None = None
) -> list[BoardEntry]:
    """The top `limit` players of a game by a conservative rating (mu - 3 sigma).

    Players whose ratings read the same, to the tenth the board shows, share a place
    (a board that ranks equals 1 and 2 starts arguments); equal ratings are listed by
    games played, then by name, so the order does not change from one call to the next.
    `player` (the one asking) below the top rows gets his own row last, with his
    place: a regular wants to see where he stands, not only the best ten.  Games
    and wins are those of the rated matches, the ones the rating stands on."""
    rows = await store.fetchall(
        "WITH board AS (SELECT r.player, COALESCE(p.name, r.player) AS name, r.mu, r.sigma,"
        "  RANK() OVER (ORDER BY ROUND(r.mu - 3 * r.sigma, 1) DESC) AS place,"
        "  ROW_NUMBER() OVER (ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC,"
        "   COALESCE(p.name, r.player), r.player) AS n"
        "  FROM ratings r LEFT JOIN players p ON p.key = r.player"
        "  WHERE r.game = ? AND r.scope = ?)"
        " SELECT b.player, b.name, b.mu, b.sigma, b.place,"
        " COUNT(x.player), COALESCE(SUM(x.won), 0), COALESCE(SUM(x.bummerl), 0)"
        " FROM board b"
        " LEFT JOIN results x ON x.player = b.player AND x.game = ?"
        "  AND (? = 'global' OR x.chat = ?)"
        # the matches the rating counts: people on two sides at least (Bauern's
        # sides are the teams, seats 0 & 2 and 1 & 3), not those against computers
        "  AND (SELECT COUNT(DISTINCT CASE WHEN y.game = 'bauern' THEN y.seat % 2"
        "   ELSE y.seat END) FROM results y WHERE y.table_id = x.table_id) >= 2"
        " WHERE b.n <= ? OR b.player = ?"
        " GROUP BY b.player ORDER BY b.n",
        (game, scope, game, scope, scope, limit, player),
    )
    return [
        BoardEntry(p, n, mu - 3 * sigma, mu, sigma, int(g), int(w), int(b), int(place))
        for p, n, mu, sigma, place, g, w, b in rows
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
    # Only the keys checked below name a person; each has a partial index (migration
    # 0005), so this reads the player's own entries, not the whole history, and the
    # read connection every other query waits for is free again at once.
    for table_id, version, entry in await store.fetchall(
        "SELECT table_id, version, entry FROM table_log"
        " WHERE json_extract(entry, '$.user') = ? OR json_extract(entry, '$.host') = ?"
        " ORDER BY table_id, version",
        (player, player),
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
