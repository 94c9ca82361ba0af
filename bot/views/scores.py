"""Score lines that the table, a deal's result and the match summary share.

The same numbers must read the same wherever they show: a name with its number,
Bauern's partners as one team, each side's card points, who has Bummerl.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.bauern.rules import MATCH_TARGET as MATCH_TARGET_BAUERN
from engine.dreier.match import TARGET as DREIER_TARGET
from engine.tausend.rules import WIN_AT
from engine.zweier import BUMMERL_AT

from ..i18n import t
from ..results import standings
from ..table import Status, Table
from .seats import _deal_over


def valued(name: str, value: object) -> str:
    """A name and its number in a line of several ("Anna: 3 · Computer 2: 0"): with
    only a space, "Computer 2 0" would not say which number is the score."""
    return f"{name}: {value}"


def team_name(lg: str, name: Callable[[int], str], k: int) -> str:
    """Bauern's team `k` (0 or 1) as every line names it: "Team 1 (Anna & Bert)"."""
    return f"{t(lg, 'lobby.team', team=k + 1)} ({name(k)} & {name(k + 2)})"


def _team_scores(lg: str, name: Callable[[int], str], scores: Sequence[int]) -> str:
    """Bauern's partners sit opposite and share a score: the two teams, not four."""
    return " · ".join(valued(team_name(lg, name, k), scores[k]) for k in (0, 1))


def side_points(
    game_id: str, counted: Sequence[int], declarer: int | None, name: Callable[[int], str]
) -> list[str]:
    """A deal's points (cards and counting marriages, per seat of the deal) as the
    sides that score them: Bauern's two teams, Dreier's declarer against the two
    others once there is one, otherwise each player.  Partners add up, so "Anna: 40 ·
    Cilli: 30" would leave the reader to add what decides the deal."""
    if game_id == "bauern" and len(counted) == 4:
        return [valued(f"{name(k)} & {name(k + 2)}", counted[k] + counted[k + 2]) for k in (0, 1)]
    if game_id == "dreier" and declarer is not None and len(counted) == 3:
        others = [s for s in range(3) if s != declarer]
        return [
            valued(name(declarer), counted[declarer]),
            valued(" & ".join(name(s) for s in others), sum(counted[s] for s in others)),
        ]
    return [valued(name(s), p) for s, p in enumerate(counted)]


def scores_of(table: Table) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The scores as the table shows them (Dreier's `count_down`: what each still
    needs of the 24) and the Bummerl."""
    if table.match is None:
        return (0,) * table.players, (0,) * table.players
    summary = table.match.summary()
    shown = summary.get("count_down", summary.get("scores", ()))
    return tuple(shown), tuple(summary.get("bummerl", ()))


#: What ends a match, as its score line says: the Bummerl's points (Zweier), the
#: points of Dreier and of Bauern's teams, Thousand's 1000.
MATCH_TARGET = {
    "zweier": BUMMERL_AT,
    "dreier": DREIER_TARGET,
    "bauern": MATCH_TARGET_BAUERN,
    "tausend": WIN_AT,
}


def _scores_line(lg: str, table: Table, scores: str, *, in_deal: bool = False) -> str:
    down = getattr(table.options, "count_down", False)  # what `scores_of` counts down
    key = "table.scores_down" if down else "table.scores"
    if in_deal and _deal_over(table):
        # the picture of a deal that ended, under its own heading: the score counts it
        key += ".after"
    # where the match ends, or "Game over!" comes without warning (counting down
    # says it already)
    return t(lg, key, scores=scores, target=MATCH_TARGET.get(table.game, "?"))


def _bummerl_line(table: Table, lg: str, nm: tuple[str, ...], bummerl: Sequence[int]) -> str | None:
    """Who has Bummerl, as the results count them: once the match is over, after a
    resignation or with one who walked away, the losers have one at least whatever
    the scores (`standings`).  Bauern's teams have theirs once each, named as the
    table names them; a loser without a point is Schneider, two instead of one
    (Dreier's Retourschneider: four): the number alone would look like several
    matches.  The table's last picture and the match summary say the same."""
    if table.game == "tausend":
        return None
    if table.status == Status.FINISHED:
        bummerl = tuple(s.bummerl for s in standings(table))
    who = [f"{nm[k]} & {nm[k + 2]}" for k in (0, 1)] if table.game == "bauern" else list(nm)
    named = {2: t(lg, "table.schneider"), 4: t(lg, "table.retourschneider")}
    losers = [
        valued(who[i], b) + (f" ({named[b]})" if b in named else "")
        for i, b in enumerate(bummerl[: len(who)])
        if b
    ]
    return t(lg, "table.bummerl", bummerl=" · ".join(losers)) if losers else None
