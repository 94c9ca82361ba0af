"""A hand's buttons are the seat's legal moves: every one of them, no other, and only
for the seat to act.  A card button for a card the seat does not hold would show
another player's card in a private chat; a missing one leaves a legal move out of
reach; buttons at a waiting seat invite a press that can only be refused.  And they fit
Discord's 5 rows of 5, which its adapter keeps to by leaving out whatever is beyond."""

from __future__ import annotations

from collections import Counter

import pytest

from bot.i18n import card_label
from bot.payload import decode as decode_payload
from bot.views import Style, hand_view
from engine import protocol as P
from engine.actions import BID_VALUE, PASS, RAISE, PlayCard, decode

from .fakechat import Bot, open_table, users
from .policies import heuristic

#: Discord's most rows of buttons in a message, and buttons in a row.
DISCORD_ROWS = DISCORD_ROW = 5


def _card(code: int, contracts: tuple[str, ...]) -> bool:
    action = decode(code, contracts)
    return isinstance(action, PlayCard) and not action.claim


@pytest.mark.parametrize(
    ("game_id", "people"), [("zweier", 2), ("dreier", 3), ("bauern", 4), ("tausend", 3)]
)
async def test_the_seat_to_act_is_offered_exactly_its_legal_moves(
    bot: Bot, game_id: str, people: int
) -> None:
    players = [bot.player(u, heuristic) for u in users(people)]
    tid = await open_table(bot, game_id, players)
    seen: Counter[str] = Counter()
    for _ in range(150):
        moved = False
        for mover in players:
            table = bot.svc.tables.get(tid)
            if table is None:
                break
            assert table.deal is not None
            legal = set(table.deal.legal())
            for pl in players:
                hv = hand_view(table, pl.key, Style())
                assert hv is not None and hv.view is not None
                payloads = [decode_payload(b.payload) for b in hv.message.all_buttons()]
                codes = [p.arg for p in payloads if p.is_game_action]
                if not hv.your_turn:
                    assert not hv.message.buttons, hv.message.text
                    continue
                seen["turns"] += 1
                rows = hv.message.buttons
                assert len(rows) <= DISCORD_ROWS, [len(r) for r in rows]
                assert all(len(r) <= DISCORD_ROW for r in rows), [len(r) for r in rows]
                assert all(p.table == tid and p.version == table.version for p in payloads)
                assert len(codes) == len(set(codes)), codes
                assert set(codes) <= legal, (codes, legal)
                if len(codes) == len(payloads):  # no menu: every legal move at once
                    assert set(codes) == legal, (codes, legal)
                    seen["whole"] += 1
                # a claim or "Close the talon" beside a card is a costly mis-tap: when
                # the choices fit, cards and the other choices are on separate rows
                kinds = [
                    {
                        _card(p.arg, table.deal.contracts)
                        for p in map(decode_payload, (b.payload for b in row))
                        if p.is_game_action and p.arg is not None
                    }
                    for row in hv.message.buttons
                ]
                if len(codes) == len(payloads) and len(kinds) > 1:
                    seen["split"] += 1
                    assert all(len(k) <= 1 for k in kinds), hv.message.buttons
                own = set(P.view(table.deal, hv.view.seat).hand)
                for b in hv.message.all_buttons():
                    p = decode_payload(b.payload)
                    if not p.is_game_action or p.arg is None:
                        continue
                    action = decode(p.arg, table.deal.contracts)
                    if isinstance(action, PlayCard):
                        seen["cards"] += 1
                        assert action.card in own, (action, own)
                        assert card_label(action.card) in b.label, (b.label, action)
            moved |= await mover.take_turn(tid) is not None
        if not moved:
            break
    assert seen["whole"] > 0 and seen["cards"] > 0, seen
    if game_id == "zweier":  # "Close the talon" comes with the cards
        assert seen["split"] > 0, seen


@pytest.mark.parametrize("with_pass", [True, False], ids=["bid", "raise"])
async def test_any_number_of_choices_pages_into_full_pages_with_each_choice_once(
    bot: Bot, monkeypatch: pytest.MonkeyPatch, with_pass: bool
) -> None:
    """Thousand offers up to 60 bids (and Pass) or 61 raises (RULES.md §5), more than a
    message holds: for each number of them, "More…" and "Back" lead through pages that
    together offer every choice once, Pass first on each; every page fits Discord's 5
    rows of 5, all but the last full, and the last has more than the one choice that
    could have stood in for the page before's "More…" (no page more than needed)."""
    players = [bot.player(u) for u in users(3)]
    tid = await open_table(bot, "tausend", players)
    table = bot.svc.tables[tid]
    assert table.deal is not None
    user = next(p.key for p in players if (h := p.hand(tid)) and h.your_turn)
    for n in range(1, 62):
        first = [PASS] if with_pass else []
        codes = first + [(BID_VALUE if with_pass else RAISE) + 20 + k for k in range(n)]
        if with_pass:
            codes = codes[:-1]  # the bids are 105..400: Pass and 60 values at most
        monkeypatch.setattr(type(table.deal), "legal", lambda self, codes=codes: codes)
        pages: list[list[int]] = []  # each page's choices
        menu: tuple[str, int] | None = None
        while len(pages) < 5:
            hv = hand_view(table, user, Style(), menu)
            assert hv is not None and hv.your_turn
            rows = hv.message.buttons
            assert len(rows) <= DISCORD_ROWS and all(len(r) <= DISCORD_ROW for r in rows)
            payloads = [decode_payload(b.payload) for b in hv.message.all_buttons()]
            choices = [p.arg for p in payloads if p.is_game_action and p.arg is not None]
            pages.append(choices)
            nav = {p.arg: p for p in payloads if p.verb == "pg"}
            assert (len(pages) - 2 in nav) == (len(pages) > 1), (n, nav)  # Back
            if with_pass:
                assert choices[0] == PASS, (n, choices)
            if len(pages) in nav:  # More…
                assert len(payloads) == 25, (n, len(pages), len(payloads))
                menu = ("pg", len(pages))
                continue
            break
        offered = [c for page in pages for c in page if c != PASS]
        assert sorted(offered) == [c for c in codes if c != PASS], (n, pages)
        assert len(pages) == 1 or len(pages[-1]) - with_pass > 1, (n, [len(p) for p in pages])
