"""The message after a deal: what it scored, why, and the seed that made it.

Said in full, because the table that showed the play is far up the chat by then: the
reason, the contract, the points that decided it, so anyone can check the numbers.
"""

from __future__ import annotations

from engine import protocol as P
from engine.actions import Claim, PlayCard
from engine.results import DealResult
from engine.tausend.rules import BOLT_FINE

from .. import i18n
from ..i18n import cards_text, contract_name, t
from ..payload import table_verb
from ..table import DealLog, Status, Table
from .faces import Button, Message, ResultView, Style
from .scores import side_points, team_name
from .seats import names
from .summary import match_summary_text
from .table import table_view


def rematch_button(table: Table, lg: str) -> Button | None:
    """ "Rematch" under a finished match's summary (None before the end)."""
    if table.status != Status.FINISHED:
        return None
    return Button(t(lg, "button.rematch"), table_verb(table.id, table.version, "re"))


def deal_result_view(table: Table, style: Style) -> ResultView | None:
    """The message after a deal: what it scored and the seed that made it."""
    if not table.deals:
        return None
    lg = style.lang
    nm = names(table)
    if len(table.deal_points) < len(table.deals):
        if table.status != Status.FINISHED:
            return None  # the deal still runs: its seed stays secret
        # A resignation, or a close that counts (`end`: others walked away), ended
        # the match in the middle of a deal: the deal scores nothing, and its seed is
        # published like that of any deal that ended.  Only a resignation is called one.
        k = len(table.deals)
        seed = table.deals[-1].seed
        unfinished = "result.deal_unfinished" + ("" if table.resigned is not None else ".closed")
        text = "\n".join(
            [
                t(lg, unfinished, deal=k),
                t(lg, "table.seed", deal=k, seed=seed),
                match_summary_text(table, style),
            ]
        )
        return ResultView(
            table.id,
            k,
            (0,) * table.players,
            True,
            Message(text),
            seed=seed,
            table=table_view(table, style),
            rematch=rematch_button(table, lg),
        )
    k = len(table.deal_points)
    log_ = table.deals[k - 1]
    points = tuple(table.deal_points[-1])
    res = P.result(table.deal) if table.deal is not None and log_ is table.deal_log else None
    if log_.spec.game != table.game:
        # a tie-break: its game points decide the Bummerl only, they are not the
        # match's ("+3" beside an unchanged score would not add up); its two players
        seats = log_.spec.seats
        parts = [t(lg, "result.game_points", name=nm[i], points=points[i]) for i in seats]
        text = t(lg, "result.tie_break_deal", deal=k, lines=" · ".join(parts))
    elif table.game == "bauern":
        # partners share what the deal gave: each team once ("+3 · +3" read as 6)
        parts = [
            t(lg, "result.points_line", name=team_name(lg, lambda s: nm[s], k), points=points[k])
            for k in (0, 1)
        ]
        text = t(lg, "result.deal", deal=k, lines=" · ".join(parts))
    else:
        parts = [t(lg, "result.points_line", name=nm[i], points=p) for i, p in enumerate(points)]
        text = t(lg, "result.deal", deal=k, lines=" · ".join(parts))
    if res is not None:
        key = f"result.reason.{res.reason}"
        if key in i18n.TEXTS["en"]:
            said = t(lg, key)
            margin = _margin(res, log_.spec.game)
            if margin:  # a closed deal counts the loser as he was at the closing
                closed = isinstance(res.detail("closed_by"), int)
                said += ", " + t(lg, f"result.margin.{margin}{'.closed' if closed else ''}")
            text += f" ({said})"
        claimer = _wrong_claimer(res, log_)
        if claimer is not None:
            # who said "enough" too soon: the numbers are his opponents' win
            text += " — " + t(lg, "result.wrong_claim_by", name=nm[claimer])
        claimed = res.detail("redeal_by")
        if res.reason == "redeal" and isinstance(claimed, int):
            # Thousand: who claimed it and for which nines, not a bid without a value
            why = t(lg, f"result.redeal.{res.detail('redeal_reason')}")
            name = nm[log_.spec.seats[claimed]]
            text += " — " + t(lg, "result.redeal_by", name=name, why=why)
        elif res.contract and log_.spec.game != "zweier":
            contract = contract_name(res.contract, lg)
            value = res.detail("value")
            if table.game == "tausend" and isinstance(value, int):
                contract += f" {value}"
            if res.detail("without_talon"):  # its extra game point is in the numbers
                contract += " " + t(lg, "table.without_talon")
            if res.declarer is not None:  # whose contract it was: the result is read alone
                name = nm[log_.spec.seats[res.declarer]]
                contract = t(lg, "result.contract", contract=contract, declarer=name)
            if res.multiplier > 1:  # Spritzen, Kontra, a blind bid: why "+72" for a Gang
                contract += t(lg, "table.multiplier", n=res.multiplier)
            text += f" — {contract}"
        # a wrong claim, not the closing, decided a closed deal that ended with one
        closing = _closing_text(table, res, log_.spec.seats, nm, lg) if claimer is None else None
        if closing:
            text += "\n" + closing
        # Thousand: fines and the barrel change scores beyond the deal's points
        notes = getattr(table.match, "notes", ())
        counted = _card_points_text(table, res, log_.spec.seats, nm, style)
        if counted:
            text += "\n" + counted
            frozen = {seat for seat, what in notes if what == "barrel_frozen"}  # score 0
            if log_.spec.game == "tausend" and any(
                p % 5
                for seat, p in enumerate(res.card_points)
                if seat != res.declarer and log_.spec.seats[seat] not in frozen
            ):
                # "39 points" scored "+40": the others' points are rounded (RULES.md §5)
                text += "\n" + t(lg, "result.rounded")
        pile = res.detail("face_down_stock")  # two at Thousand: its points are in the totals
        last = res.detail("last_trick")
        if isinstance(pile, tuple) and pile and isinstance(last, int):
            cards = cards_text(pile, lg, style.suits)
            points = sum(c.points for c in pile)
            name = nm[log_.spec.seats[last]]
            text += "\n" + t(lg, "result.face_down_stock", cards=cards, points=points, name=name)
        bolts = res.detail("bolts")  # Thousand: a bolt now, a fine at the third
        if isinstance(bolts, tuple):
            for seat, n in enumerate(bolts):
                if n:
                    text += "\n" + t(lg, "result.bolt", name=nm[log_.spec.seats[seat]], n=n)
        fine = BOLT_FINE * (2 if res.detail("golden") else 1)  # the golden round doubles it
        for seat, what in notes:
            text += "\n" + t(lg, f"result.note.{what}", name=nm[seat], fine=fine)
        if log_.spec.game != table.game and res.winners:
            # a tie-break: its loser takes the Bummerl, and that is the news
            winner = log_.spec.seats[res.winners[0]]
            loser = next(s for s in log_.spec.seats if s != winner)
            text += "\n" + t(lg, "result.tie_break", winner=nm[winner], loser=nm[loser])
    text += "\n" + t(lg, "table.seed", deal=k, seed=log_.seed)
    finished = table.status == Status.FINISHED
    if finished:
        text += "\n" + match_summary_text(table, style)
    return ResultView(
        table.id,
        k,
        points,
        finished,
        Message(text),
        seed=log_.seed,
        table=table_view(table, style),
        rematch=rematch_button(table, lg),
    )


def _wrong_claimer(res: DealResult, log_: DealLog) -> int | None:
    """The match seat whose claim of 66 proved wrong (the deal's last move), or None.

    The log keeps each move under its match seat, not its deal seat: in a Dreier
    tie-break the two differ, and reading one as the other named the wrong player."""
    if res.reason != "wrong_claim" or not log_.actions:
        return None
    seat, action = log_.actions[-1]
    claim = isinstance(action, Claim) or (isinstance(action, PlayCard) and action.claim)
    return seat if claim else None


def _margin(res: DealResult, game_id: str) -> int | None:
    """2 (Schneider: the losers under 33) or 3 (Schwarz: without a trick) for a game
    won by 66, where "+2" or "+6" beside "66 reached" would otherwise look like a
    miscount; None when the game is worth 1, or is no such game."""
    if res.reason != "reached_66" or res.contract != "normal" or not res.winners:
        return None
    gained = res.points[res.winners[0]]
    if game_id == "dreier":
        value, extra = res.detail("value"), res.detail("without_talon")
        if not isinstance(value, int):
            return None
        gained = value // res.multiplier - (1 if extra else 0)
    elif game_id == "bauern":
        gained //= res.multiplier
    return gained if gained in (2, 3) else None


def _closing_text(
    table: Table, res: DealResult, seats: tuple[int, ...], nm: tuple[str, ...], lg: str
) -> str | None:
    """Zweierschnapsen: who closed the talon, and what his opponent had then.

    A closed deal is scored from that moment (RULES.md §2), not from the final
    points: without it "+3" next to an opponent with tricks cannot be checked.
    """
    closer = res.detail("closed_by")
    if not isinstance(closer, int) or table.deal is None:
        return None
    snapshot = dict(P.view(table.deal, None).extra).get("closing_snapshot")
    if not isinstance(snapshot, tuple):
        return None
    points, tricks = snapshot
    name, other = nm[seats[closer]], nm[seats[1 - closer]]
    if not tricks:
        return t(lg, "result.closed_no_trick", name=name, other=other)
    return t(lg, "result.closed", name=name, other=other, points=points)


#: Reasons a deal ends for its card points, so the points say why it ended.
_POINT_RACE = frozenset({"reached_66", "last_trick", "closer_failed", "under_66", "wrong_claim"})


def _card_points_text(
    table: Table, res: DealResult, seats: tuple[int, ...], nm: tuple[str, ...], style: Style
) -> str | None:
    """Each side's points (cards and marriages) after a deal decided by points.

    The table message shows them too, but far up the chat; without them "66 reached"
    cannot be checked by anyone who did not count every trick.  Thousand is always a
    point race: the declarer's total against his bid.
    """
    game_id = table.deal_log.spec.game if table.deal_log is not None else table.game
    if res.reason not in _POINT_RACE and (game_id != "tausend" or res.reason == "redeal"):
        return None
    if not res.card_points:
        return None
    parts = side_points(game_id, res.card_points, res.declarer, lambda s: nm[seats[s]])
    return t(style.lang, "table.points", points=" · ".join(parts))
