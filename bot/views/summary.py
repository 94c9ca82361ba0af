"""The match summary: scores, Bummerl and who won, once a match ends.

Apart from a deal's result, which ends with it, because adapters also show it alone:
a match resigned before any deal was scored has no result to carry it.
"""

from __future__ import annotations

from ..i18n import t
from ..results import standings
from ..table import Status, Table
from .faces import Style
from .scores import _bummerl_line, _scores_line, _team_scores, scores_of, valued
from .seats import names


def match_summary_text(table: Table, style: Style) -> str:
    lg = style.lang
    nm = names(table)
    scores, bummerl = scores_of(table)
    if table.game == "bauern":  # a team's score, once, named as the table names the teams
        score_text = _team_scores(lg, lambda s: nm[s], scores)
    else:
        score_text = " · ".join(valued(nm[i], s) for i, s in enumerate(scores))
    lines = [_scores_line(lg, table, score_text)]
    if table.resigned is not None:
        lines.append(t(lg, "result.resigned", name=nm[table.resigned]))
    if table.ended == "walked_away":
        lines.append(t(lg, "result.ended_walked_away"))
    walked = [i for i, s in enumerate(table.seats) if s is not None and s.user is not None and s.ai]
    if len(walked) == len(table.humans()):
        walked = []  # nobody left playing: the scores decide (`standings`)
    if table.status == Status.FINISHED and walked:
        # the results count it as a resignation (`standings`): the scores alone would
        # not say why his side lost
        lines.append(t(lg, "result.walked_away", names=", ".join(nm[i] for i in walked)))
    winner = table.match.summary().get("winner") if table.match is not None else None
    if table.game == "tausend":
        # no Bummerl in Thousand: one player reaches 1000 and wins
        if isinstance(winner, int):
            # the computer got there in the seat of one who walked away: no win of his
            key = "result.reached_1000.away" if winner in walked else "result.reached_1000"
            lines.append(t(lg, key, name=nm[winner]))
    else:
        said = _bummerl_line(table, lg, nm, bummerl)
        if said is not None:
            lines.append(said)
    if table.status == Status.FINISHED:
        # who won, as the leaderboard counts it: after a resignation the scores alone
        # ("Anna 0 · Bert 0") would not say.  Said already when the one who reached
        # 1000 is the winner; not when he had walked away and the computer got there.
        won = [s.seat for s in standings(table) if s.won]
        if won and won != [winner]:
            lines.append(t(lg, "result.winner", names=", ".join(nm[i] for i in won)))
    return t(lg, "result.match", lines="\n".join(lines))
