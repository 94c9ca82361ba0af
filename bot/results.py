"""Results, contracts, ratings and the leaderboard.

Everything a finished match writes (result rows, the game record, rating updates) is
returned as SQL operations that go into the *same* transaction as the table's last log
entry, so a match is either finished and scored, or not finished at all.

Ratings use OpenSkill's Plackett–Luce model, which rates 2, 3 and 4 players and teams
(Bauernschnapsen) alike.  Each game has a global rating and one per chat.  A rating
compares people with people, and only them: the update sees the people's sides alone,
computers take no part in it, and a match moves it only where one person's side
finished ahead of another's (one played against computers only, a Bauern pair against
two computers, or two friends who both won against a computer, or lost to it with the
same score, counts in /stats but not in the rating; losers with different scores are a
place apart).  A computer's default rating would otherwise be farmed:
two friends with a weak computer at a Dreier table both "beat" it whenever it takes the
Bummerl.  The results a rating stands on are marked (`rated_results`), so the board's
won/games stay those of the rated matches whatever is deleted later (an opponent's
/forgetme).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openskill.models import PlackettLuce

from engine.actions import Action, Bid, Discard, Pass, Raise
from engine.games import available

from .store import Op, Store
from .table import Status, Table

if TYPE_CHECKING:
    from .service_shape import ServiceShape

_MODEL = PlackettLuce()


@dataclass(frozen=True)
class Standing:
    seat: int
    player: str | None  # None for a computer seat
    won: bool
    bummerl: int
    score: int
    team: int
    #: Where the rating puts the seat: 0 for the winners, then the losers by score
    #: (higher first); losers by a verdict (a resignation, walking away) share one
    #: place whatever the scores, which are not theirs to be ranked by.
    place: int


def standings(table: Table) -> list[Standing]:
    """Who won and lost a finished match, seat by seat."""
    assert table.match is not None
    summary = table.match.summary()
    scores = list(summary.get("scores", [0] * table.players))
    bummerl = list(summary.get("bummerl", [0] * table.players))
    teams = [table.side(i) for i in range(table.players)]
    # A person whose seat the computer held at the end (he missed his turns and never
    # took it back) walked away: like a resignation, his side loses and every other
    # side wins, or he could leave a match he was losing to the computer and be
    # credited with what it made of it.  That is a matter of people, not of sides: a
    # partner who stayed does not save the side of one who left, and when every side
    # has one who left while others still play (Bauern: one of each pair), every side
    # loses.  Only when nobody still plays (the last of them walked away on the last
    # move) do the scores decide.  A side that resigned loses too, but a resignation
    # does not hand the win to one who walked away.  Either way the Bummerl follow the
    # verdict, not the scores: a loser has at least one (two at nil, the Schneider),
    # a winner none (a stayer who was behind is not "won, with a Bummerl").
    # One who deleted his data mid-match (/forgetme) left it too: his seat is a
    # computer's now, but a loss it was heading for must not turn into the others'.
    away = {
        teams[i] for i, s in enumerate(table.seats) if s is not None and (s.forgot or s.replaced)
    }
    verdict: set[int] | None = None
    if table.resigned is not None:
        verdict = {teams[table.resigned]} | away
    elif away and table.present():
        verdict = away
    if verdict is not None:
        left = [teams[i] in verdict for i in range(table.players)]
        stay = [i for i, gone in enumerate(left) if not gone]
        if table.game == "tausend" and len(stay) > 1:
            # Thousand has one winner, the first to 1000: of those who stayed, the best
            # score wins (ties share it), the others lose by their scores, and those
            # who left come last.  "Everyone else won" would credit a player at -375.
            best = max(scores[i] for i in stay)
            lost = [left[i] or scores[i] < best for i in range(table.players)]
            place = [
                len(stay)
                if left[i]
                else (1 + sum(scores[j] > scores[i] for j in stay if lost[j]) if lost[i] else 0)
                for i in range(table.players)
            ]
        else:
            lost = left
            place = [int(x) for x in lost]
        # a loser conceding at nil takes the Schneider the end would have given him
        loss = table.match.loss_bummerl
        bummerl = [max(b, loss(i)) if lost[i] else 0 for i, b in enumerate(bummerl)]
    else:
        if any(bummerl):
            lost = [b > 0 for b in bummerl]
        else:
            best = max(scores) if scores else 0
            lost = [s < best for s in scores]
        place = [
            0 if not lost[i] else 1 + _ahead(i, lost, scores, teams) for i in range(table.players)
        ]
    out = []
    for i, seat in enumerate(table.seats):
        player = seat.user if seat is not None else None
        out.append(Standing(i, player, not lost[i], bummerl[i], scores[i], teams[i], place[i]))
    return out


def _ahead(i: int, lost: list[bool], scores: list[int], teams: list[int]) -> int:
    """How many losing seats of other sides scored more than seat `i`."""
    return sum(
        1
        for j, other in enumerate(scores)
        if lost[j] and teams[j] != teams[i] and other > scores[i]
    )


async def result_ops(service: ServiceShape, table: Table, status_before: Status) -> list[Op]:
    """SQL for a match the entries just applied finished (nothing otherwise).

    Contracts are written with the match, not deal by deal: a match aborted after a
    few deals counts nowhere, in /stats' contracts no more than in its games."""
    if status_before == Status.PLAYING and table.status == Status.ABORTED:
        # Closed before its end (a vote, an admin, the channel lost): no result, but
        # the deals that were scored, their seeds published, keep their record for
        # /record — a match closed in a dispute is the one whose deals get checked.
        scored = len(table.deal_points)
        return [_record_op(table, time.time(), scored)] if scored else []
    if status_before == Status.FINISHED or table.status != Status.FINISHED:
        return []
    return await _finish_ops(service, table, time.time())


def _record_op(table: Table, now: float, deals: int | None = None) -> Op:
    # The record is stored compact (it is most of the games table); /record parses it
    # and writes the file with its own indent, so what a player gets is the same.
    return (
        "INSERT OR REPLACE INTO games (table_id, chat, game, record, finished) VALUES (?, ?, ?, ?, ?)",
        (
            table.id,
            table.chat,
            table.game,
            json.dumps(table.record(deals), separators=(",", ":")),
            now,
        ),
    )


async def _contract_ops(store: Store, table: Table) -> list[Op]:
    """The contract each person declared in each deal of the match, and if he made it.

    Declared by him, not by the computer in his seat: a contract counts for a person
    only if he made its declaring move himself (`_declaring_move`), not the computer
    after his time ran out or while it held his seat."""
    assert table.match is not None
    declared: list[tuple[int, str, int]] = []  # deal, player, index of the move
    for k, res in enumerate(table.match.results):
        if res.declarer is None or res.contract is None or res.reason == "redeal":
            continue  # a Thousand redeal counts for nothing, made or failed
        deal = table.deals[k]
        seat = deal.spec.seats[res.declarer]
        s = table.seats[seat]
        move = _declaring_move(deal.actions, seat)
        if s is not None and s.user is not None and move is not None:
            declared.append((k, s.user, move))
    if not declared:
        return []
    own = await _own_moves(store, table)
    ops: list[Op] = []
    for k, player, move in declared:
        if not own[k][move]:
            continue
        res = table.match.results[k]
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
    return ops


def _declaring_move(actions: list[tuple[int, Action]], seat: int) -> int | None:
    """Which of a deal's moves declared the contract that `seat` (its declarer, a
    match seat) played: the one that last fixed it.  That is his winning bid (Dreier
    and Bauern name a contract, Thousand a value; forehand's forced opening included),
    unless he raised it afterwards (Dreier: a higher contract named while discarding;
    Thousand: a value above his bid after the stock; keeping the bid is no new
    declaration).  A contract nobody bid (Dreier's all-pass normal game) was left to
    him by his pass."""
    named: int | None = None
    passed: int | None = None
    bid = 0
    for j, (by, action) in enumerate(actions):
        if by != seat:
            continue
        if isinstance(action, Bid):
            named, bid = j, action.value or 0
        elif (isinstance(action, Discard) and action.contract is not None) or (
            isinstance(action, Raise) and action.value > bid
        ):
            named = j  # a raise: Dreier's higher contract, Thousand's higher value
        elif isinstance(action, Pass) and passed is None:
            passed = j
    return named if named is not None else passed


async def _own_moves(store: Store, table: Table) -> list[list[bool]]:
    """For each deal, for each of its moves, whether a person made it himself.

    The table's log says who made each stored move (``by``: "p" the person, "t" the
    computer when his time ran out, "ai" the computer).  The moves of the change being
    stored (the match's last) are not in the log yet: such a move is the person's if
    his seat shows it, with no missed turn counted since and the computer not holding
    it (`Table._on_act` counts a timeout's move as missed, a person's resets it)."""
    rows = await store.fetchall(
        "SELECT json_extract(entry, '$.k'), json_extract(entry, '$.by') FROM table_log"
        " WHERE table_id = ? AND json_extract(entry, '$.k') IN ('deal', 'act')"
        " ORDER BY version",
        (table.id,),
    )
    own: list[list[bool]] = []
    for kind, by in rows:
        if kind == "deal":
            own.append([])
        elif own:
            own[-1].append(by == "p")
    own += [[] for _ in range(len(table.deals) - len(own))]
    for moves, deal in zip(own, table.deals, strict=True):
        moves += [_seat_moved_itself(table, seat) for seat, _ in deal.actions[len(moves) :]]
    return own


def _seat_moved_itself(table: Table, seat: int) -> bool:
    s = table.seats[seat]
    return s is not None and s.user is not None and s.ai is None and s.missed == 0


async def _finish_ops(service: ServiceShape, table: Table, now: float) -> list[Op]:
    ops: list[Op] = [_record_op(table, now), *await _contract_ops(service.store, table)]
    rows = standings(table)
    sides = _rated_sides(rows)
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
        if sides:
            ops.append(
                (
                    "INSERT OR REPLACE INTO rated_results (player, table_id) VALUES (?, ?)",
                    (st.player, table.id),
                )
            )
    if sides:
        for scope in ("global", table.chat):
            ops.extend(await _rating_ops(service.store, scope, table.game, sides))
    return ops


def _rated_sides(rows: list[Standing]) -> dict[int, list[Standing]]:
    """The people of a match by side (team), when the match moves their ratings:
    one side of people finished ahead of another.  Nothing otherwise: people on one
    side only (against computers), or all their sides level (two who both won against a
    computer, or lost to it with the same score: neither beat the other)."""
    sides: dict[int, list[Standing]] = {}
    for r in rows:
        if r.player is not None:
            sides.setdefault(r.team, []).append(r)
    if len({members[0].place for members in sides.values()}) < 2:
        return {}
    return sides


async def _rating_ops(
    store: Store, scope: str, game: str, sides: dict[int, list[Standing]]
) -> list[Op]:
    humans = [m.player for members in sides.values() for m in members if m.player is not None]
    marks = ",".join("?" for _ in humans)
    current = {
        p: (mu, sigma, n)
        for p, mu, sigma, n in await store.fetchall(
            f"SELECT player, mu, sigma, games FROM ratings WHERE scope=? AND game=? AND player IN ({marks})",
            (scope, game, *humans),
        )
    }
    order = sorted(sides)
    ratings = []
    for team in order:
        objs = []
        for m in sides[team]:
            if m.player is not None and m.player in current:
                mu, sigma, _ = current[m.player]
                objs.append(_MODEL.rating(mu=mu, sigma=sigma))
            else:
                objs.append(_MODEL.rating())
        ratings.append(objs)
    # a side's members share its place (winners 0, then the losers)
    ranks: list[float] = [sides[team][0].place for team in order]
    new = _MODEL.rate(ratings, ranks=ranks)
    ops: list[Op] = []
    for team, objs in zip(order, new, strict=True):
        for m, rating in zip(sides[team], objs, strict=True):
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
    #: Its row in the whole board, 1 first (ties in the place still have an order).
    row: int = 0


async def leaderboard(
    store: Store,
    game: str,
    scope: str,
    limit: int = 10,
    player: str | None = None,
    offset: int = 0,
) -> list[BoardEntry]:
    """The top `limit` players of a game by a conservative rating (mu - 3 sigma).

    Players whose ratings read the same, to the tenth the board shows, share a place
    (a board that ranks equals 1 and 2 starts arguments); equal ratings are listed by
    games played, then by name, so the order does not change from one call to the next.
    `player` (the one asking) below the top rows gets his own row last, with his
    place: a regular wants to see where he stands, not only the best ten.  Games
    and wins are those of the rated matches, the ones the rating stands on.
    `offset`: rows skipped before the `limit` shown (a later page of the board)."""
    rows = await store.fetchall(
        "WITH board AS (SELECT r.player, COALESCE(p.name, r.player) AS name, r.mu, r.sigma,"
        "  RANK() OVER (ORDER BY ROUND(r.mu - 3 * r.sigma, 1) DESC) AS place,"
        "  ROW_NUMBER() OVER (ORDER BY r.mu - 3 * r.sigma DESC, r.games DESC,"
        "   COALESCE(p.name, r.player), r.player) AS n"
        "  FROM ratings r LEFT JOIN players p ON p.key = r.player"
        "  WHERE r.game = ? AND r.scope = ?)"
        " SELECT b.player, b.name, b.mu, b.sigma, b.place, b.n,"
        " COUNT(x.player), COALESCE(SUM(x.won), 0), COALESCE(SUM(x.bummerl), 0)"
        " FROM board b"
        " LEFT JOIN results x ON x.player = b.player AND x.game = ?"
        "  AND (? = 'global' OR x.chat = ?)"
        # the matches the rating stands on, as marked when it moved: the other
        # players' rows may be gone since (their /forgetme)
        "  AND EXISTS (SELECT 1 FROM rated_results k"
        "   WHERE k.player = x.player AND k.table_id = x.table_id)"
        " WHERE (b.n > ? AND b.n <= ?) OR b.player = ?"
        " GROUP BY b.player ORDER BY b.n",
        (game, scope, game, scope, scope, offset, offset + limit, player),
    )
    return [
        BoardEntry(p, n, mu - 3 * sigma, mu, sigma, int(g), int(w), int(b), int(place), int(k))
        for p, n, mu, sigma, place, k, g, w, b in rows
    ]


async def board_size(store: Store, game: str, scope: str) -> int:
    """How many players a game's board has in `scope` (for its pages)."""
    [(n,)] = await store.fetchall(
        "SELECT COUNT(*) FROM ratings WHERE game = ? AND scope = ?", (game, scope)
    )
    return int(n)


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
    # in the boards' order of the games (`available`), not by their ids
    order = {g: i for i, g in enumerate(available())}
    rows = sorted(
        await store.fetchall(
            "SELECT game, COUNT(*), SUM(won), SUM(bummerl), SUM(schneider) FROM results"
            " WHERE player = ?" + where + " GROUP BY game",
            (player, *extra),
        ),
        key=lambda row: (order.get(row[0], len(order)), row[0]),
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


async def forget_ops(
    store: Store,
    player: str,
    seated_after: Callable[[], set[str]] = set,
    pending: Sequence[tuple[str, int, dict[str, Any]]] = (),
) -> list[Op]:
    """The statements that delete a player's rows and scrub his id and name from
    stored table logs: stored with the change that hands over his seats (`pending`,
    its (table id, version, entry) rows, scrubbed as they go in), so that a kill
    between the two cannot keep his data after his seats are given up.

    `seated_after`: the open tables he will still sit at once this is stored, read
    once the log's entries are found.  Those are left as they are: a seat he took
    (Join, a Rematch, /new) while the deletion ran is his new seat, and the table in
    memory says so; scrubbed, it would come back after a restart as a seat of
    "deleted" that collects results and ratings.
    """
    ops: list[Op] = [
        ("DELETE FROM players WHERE key = ?", (player,)),
        ("DELETE FROM results WHERE player = ?", (player,)),
        ("DELETE FROM rated_results WHERE player = ?", (player,)),
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
    found = await store.fetchall(
        "SELECT table_id, version, entry FROM table_log"
        " WHERE json_extract(entry, '$.user') = ? OR json_extract(entry, '$.host') = ?"
        " ORDER BY table_id, version",
        (player, player),
    )
    # no await from here to the write being queued: a seat taken later is stored
    # after this write, and one taken before is in `seated_after`
    keep = seated_after()
    stored = [(tid, v, json.loads(entry)) for tid, v, entry in found]
    for table_id, version, data in [*stored, *pending]:
        if table_id in keep:
            continue
        data = dict(data)
        changed = False
        for key in ("user", "host"):
            if data.get(key) == player:
                data[key] = placeholder
                changed = True
                if key == "user" and "name" in data and data.get("k") == "join":
                    data["name"] = "—"
        if changed:
            # `pending` rows: the store runs these after the change's entries are in
            ops.append(
                (
                    "UPDATE table_log SET entry = ? WHERE table_id = ? AND version = ?",
                    (json.dumps(data, separators=(",", ":")), table_id, version),
                )
            )
    return ops
