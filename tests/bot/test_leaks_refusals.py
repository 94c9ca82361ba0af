"""A player probing with forged presses learns nothing of the others' cards.

`test_leaks.test_refusals_show_no_hidden_card` covers Zweierschnapsen's card plays;
here every game (and Thousand for two, with its laid-away cards) gets every kind of
action code a forged payload can carry, at every turn of a deal: plays and marriages
of every card, bids, gives of every card to every seat, discards of card pairs and
triples, and hand menus (discard picks naming any cards, pages).  A refusal may name
the card the presser named and what his own seat sees, nothing else.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from bot.payload import game_action, table_verb
from engine import protocol as P
from engine.actions import (
    BID_CONTRACT,
    BID_VALUE,
    DISCARD,
    DISCARD3,
    GIVE,
    RAISE,
    decode,
)
from engine.cards import Card

from .fakechat import Bot, open_table, users
from .policies import policy_for
from .test_leaks import Watch, _cards_in


def _probe_codes() -> list[int]:
    """One of every kind of action code (and many cards of each)."""
    pairs = list(itertools.combinations(range(24), 2))[::7]
    triples = list(itertools.combinations(range(24), 3))[::53]
    return sorted(
        {
            *range(128),  # plays, marriages, talon moves, pass, double, redeal, trumps
            *(BID_CONTRACT + i for i in range(32)),
            *(BID_VALUE + v for v in range(20, 61, 3)),
            *(RAISE + v for v in range(20, 61, 5)),
            *(GIVE + c + 32 * s for c in range(24) for s in range(4)),
            *(DISCARD + a + 32 * b + 1024 * k for a, b in pairs for k in range(3)),
            *(DISCARD3 + a + 32 * b + 1024 * c for a, b, c in triples),
        }
    )


def _named(code: int, contracts: tuple[str, ...]) -> set[Card]:
    """The cards a code names itself: the presser knows them already."""
    try:
        action = decode(code, contracts)
    except (ValueError, IndexError):
        return set()
    card = getattr(action, "card", None)
    return {*getattr(action, "cards", ()), *([card] if isinstance(card, Card) else [])}


CODES = _probe_codes()
MASKS = [1 << i | 1 << j for i, j in itertools.combinations(range(24), 2)][::11]


@pytest.mark.parametrize(
    ("game_id", "options"),
    [("zweier", None), ("dreier", None), ("bauern", None), ("tausend", None)]
    + [("tausend", {"tausend.players": 2})],
)
async def test_no_forged_press_is_refused_with_another_seats_card(
    make_bot: Callable[..., Bot], game_id: str, options: dict[str, int] | None
) -> None:
    bot = await make_bot().start()
    try:
        seats = 2 if game_id == "zweier" or options else (4 if game_id == "bauern" else 3)
        players = [bot.player(u, policy_for(game_id)) for u in users(seats)]
        tid = await open_table(bot, game_id, players, options=options)
        watch = Watch(bot.svc)
        problems: list[str] = []
        turns = probed = 0
        table = bot.svc.tables[tid]
        while tid in bot.svc.tables and len(table.deal_points) == 0 and turns < 40:
            turns += 1
            seat = table.to_act()
            assert seat is not None and table.deal is not None
            mover = next(p for p in players if table.seat_of(p.key) == seat)
            hidden = watch.hidden(table)
            own = set(P.view(table.deal, table.deal_seat(seat)).cards_seen())
            legal = set(table.deal.legal())
            version = table.version
            presses: list[tuple[str, int | None]] = [
                (game_action(tid, table.version, c), c) for c in CODES if c not in legal
            ]
            presses += [(table_verb(tid, table.version, "dp", m), None) for m in MASKS]
            presses += [(table_verb(tid, table.version, "pg", n), None) for n in (1, 2, 9)]
            probed += len(presses)
            for payload, code in presses:
                out = await bot.svc.act(mover.user, payload)
                if out.ok:  # a hand menu that is really open: the presser's own hand
                    continue
                named = _named(code, table.deal.contracts) if code is not None else set()
                leaked = _cards_in(out.text or "", hidden - own - named)
                if leaked:
                    problems.append(f"{payload}: {out.text!r} names {sorted(map(str, leaked))}")
            assert table.version == version  # a refusal changes nothing
            await mover.take_turn(tid)
        assert turns > 3 and probed > 1000
        assert not problems, "\n".join(problems[:10])
    finally:
        await bot.stop()
