"""A seat's action buttons, and the menus that keep long choices within a message.

Buttons are laid out for the stricter platform (Discord: 5 rows of 5); longer choices
are split into pages and, for a discard, into a pick-one-card-then-the-other menu
(Thousand's gifts: a card, then to whom).  A menu is its user's alone and never changes
the table; `menu_valid` checks that one a payload names can be reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine import protocol as P
from engine.actions import DISCARD, PASS, Action, Bid, Discard, Give, PlayCard, decode
from engine.cards import CARDS, Suit
from engine.views import SeatView

from ..i18n import action_label, card_label, cards_text, t
from ..payload import game_action, table_verb
from ..rules_text import contract_values
from ..table import Table
from .auction import _doubles, _worth
from .faces import MAX_PER_ROW, MAX_ROWS, Button, Style, _Layout
from .seats import deal_game


def _action_buttons(
    table: Table,
    sv: SeatView,
    lg: str,
    style: Style,
    nm: tuple[str, ...],
    menu: tuple[str, int] | None,
    lines: list[str],
) -> tuple[tuple[Button, ...], ...]:
    assert table.deal is not None and table.deal_log is not None
    contracts = table.deal.contracts
    codes = table.deal.legal()
    v = table.version
    deal_names = tuple(nm[s] for s in table.deal_log.spec.seats)

    # A double is named by its level: the one after a Kontra is a Rekontra (the
    # doubles are public: the seat's own view has them all).
    level = 1 + len(_doubles(sv))

    worth = contract_values(deal_game(table), table.options_json)

    def button(code: int) -> Button:
        action = decode(code, contracts)
        label = choice_label(
            action, lg, style.suits, deal_names, deal_game(table), level, sv.trump, worth
        )
        return Button(label, game_action(table.id, v, code))

    discards = [c for c in codes if c >= DISCARD]
    if discards:
        return _discard_menu(table, lg, style, codes, discards, menu, lines, button)
    gifts = _gifts(codes, contracts)
    if gifts:
        return _gift_menu(table, lg, style, codes, gifts, menu, lines, button)
    # Every legal value gets a button (Thousand: any multiple of 5, RULES.md §5); the
    # pages keep the first 24 — the values people bid — on the first page.
    lay = _Layout()
    # cards (with their marriages) first; a claim, even one with a marriage, goes with
    # the other choices, on rows of their own where they fit: a mis-tap on "Claim 66"
    # beside a card costs game points
    plays = [c for c in codes if isinstance(a := decode(c, contracts), PlayCard) and not a.claim]
    others = _pass_first([c for c in codes if c not in plays])
    rows = -(-len(plays) // MAX_PER_ROW) + -(-len(others) // MAX_PER_ROW)
    if plays and others and rows <= MAX_ROWS:
        lay.add_row([button(c) for c in plays])
        lay.add_row([button(c) for c in others])
        return lay.done()
    buttons = [button(c) for c in plays] + [button(c) for c in others]
    page = menu[1] if menu is not None and menu[0] == "pg" else 0
    if len(buttons) > MAX_ROWS * MAX_PER_ROW:
        # Pass leads every page, not the first only (`_pass_first`): pressed by habit
        # on the page of high bids, the first choice must not be a bid of 220
        coded = list(zip(plays + others, buttons, strict=True))
        pinned = [b for c, b in coded if c == PASS]
        rest = [b for c, b in coded if c != PASS]
        starts = _page_starts(codes)
        page = min(page, len(starts) - 1)
        end = starts[page + 1] if page + 1 < len(starts) else len(rest)
        chunk = pinned + rest[starts[page] : end]
        if page > 0:
            chunk.append(Button(t(lg, "hand.back"), table_verb(table.id, v, "pg", page - 1)))
        if page + 1 < len(starts):
            chunk.append(Button(t(lg, "hand.more"), table_verb(table.id, v, "pg", page + 1)))
        buttons = chunk
    lay.add_row(buttons)
    return lay.done()


def choice_label(
    action: Action,
    lg: str,
    suits: str,
    names: tuple[str, ...],
    game: str,
    level: int,
    trump: Suit | None,
    worth: dict[str, str],
) -> str:
    """The label of a choice's button: the action, and what a contract bid wins."""
    label = action_label(action, lg, suits, names, game, level, trump=trump)
    if isinstance(action, Bid) and action.contract:
        # what it wins: a bid is chosen by its value, which else only /rules says
        label += _worth(worth, action.contract, action.without_talon)
    return label


def _page_starts(codes: Sequence[int]) -> list[int]:
    """Where each page of a long menu starts among its choices other than Pass.

    A page is the 25 buttons Discord allows: Pass (on every page), the choices, and
    "More…" (all but the last page) and "Back" (all but the first), so a player on a
    middle page of Thousand's bids can step either way.
    """
    slots = MAX_ROWS * MAX_PER_ROW - (PASS in codes)
    n = len(codes) - (PASS in codes)
    starts = [0]
    start = slots - 1
    while start < n:
        starts.append(start)
        start += slots - 1 if n - start <= slots - 1 else slots - 2
    return starts


def _pass_first(codes: list[int]) -> list[int]:
    """Pass leads every prompt where one may pass (bidding, doubling, a redeal claim):
    a player who presses the first choice by habit must not bid or double by mistake."""
    return sorted(codes, key=lambda c: c != PASS)


def menu_valid(table: Table, seat: int, menu: tuple[str, int]) -> bool:
    """Whether a hand menu (a page, the cards of a discard picked so far) is one the
    seat's buttons can lead to now; a forged number is not."""
    if table.deal is None or table.to_act() != seat:
        return False
    verb, arg = menu
    contracts = table.deal.contracts
    codes = table.deal.legal()
    discards = [c for c in codes if c >= DISCARD]
    if verb == "dp":
        for c in discards:
            a = decode(c, contracts)
            if isinstance(a, Discard):
                mask = sum(1 << x.index for x in a.cards)
                if mask & arg == arg:  # 0: start the pick again
                    return True
        return False
    gifts = _gifts(codes, contracts)
    if verb == "gv":
        return bool(gifts) and (arg == 0 or any(a.card.index == arg - 1 for a in gifts.values()))
    if verb == "pg":
        return not discards and not gifts and 0 <= arg < len(_page_starts(codes))
    return False


def _gifts(codes: Sequence[int], contracts: Any) -> dict[int, Give]:
    """Thousand's gifts, by code, when they go to more than one player: the first of
    the declarer's two (the second has one player left to get it, and its buttons
    are the cards alone)."""
    gifts = {c: a for c in codes if isinstance(a := decode(c, contracts), Give)}
    return gifts if len({a.to for a in gifts.values()}) > 1 else {}


def _gift_menu(
    table: Table,
    lg: str,
    style: Style,
    codes: list[int],
    gifts: dict[int, Give],
    menu: tuple[str, int] | None,
    lines: list[str],
    button: Any,
) -> tuple[tuple[Button, ...], ...]:
    """A gift as a card, then who gets it: ten cards and two players would be twenty
    buttons, each long ("Give A♥ to Berti"), for a choice people make in two steps.

    The menu state (payload verb ``gv``) is the card picked, its index plus one (0:
    none picked yet).
    """
    assert table.deal is not None and table.deal_log is not None
    v = table.version
    picked = menu[1] if menu is not None and menu[0] == "gv" else 0
    lay = _Layout()
    # the others in the order they sit after him
    giver, n = P.to_act(table.deal) or 0, len(table.deal_log.spec.seats)
    to_whom = sorted(
        (c for c, a in gifts.items() if a.card.index == picked - 1),
        key=lambda c: (gifts[c].to - giver) % n,
    )
    if to_whom:
        card = CARDS[picked - 1]
        lines.append(t(lg, "hand.give_to", card=card_label(card, lg, style.suits)))
        lay.add_row([button(c) for c in to_whom])
        lay.add_row([Button(t(lg, "act.discard_again"), table_verb(table.id, v, "gv", 0))])
        return lay.done()
    cards = sorted({a.card for a in gifts.values()}, key=lambda c: c.index)
    lay.add_row(
        [
            Button(
                t(lg, "act.give_pick", card=card_label(c, lg, style.suits)),
                table_verb(table.id, v, "gv", c.index + 1),
            )
            for c in cards
        ]
    )
    rest = _pass_first([c for c in codes if c not in gifts])
    if rest:
        lay.add_row([button(c) for c in rest])
    return lay.done()


def _discard_menu(
    table: Table,
    lg: str,
    style: Style,
    codes: list[int],
    discards: list[int],
    menu: tuple[str, int] | None,
    lines: list[str],
    button: Any,
) -> tuple[tuple[Button, ...], ...]:
    """Discarding cards (and maybe raising) one card at a time, then the contract.

    The menu state is the mask of the cards picked so far (payload verb ``dp``); once
    the picked cards make a whole discard, the choices are that discard's actions
    (keep the contract, or raise).
    """
    assert table.deal is not None
    contracts = table.deal.contracts
    v = table.version
    options: list[tuple[int, int]] = []  # (code, mask of its cards)
    for c in discards:
        a = decode(c, contracts)
        if isinstance(a, Discard):
            options.append((c, sum(1 << x.index for x in a.cards)))
    picked = menu[1] if menu is not None and menu[0] == "dp" else 0
    lay = _Layout()
    complete = [c for c, m in options if m == picked]
    # a mis-tap is not a discard: once a card is picked, the pick can start again
    again = Button(t(lg, "act.discard_again"), table_verb(table.id, v, "dp", 0))
    if picked and complete:
        cards = [CARDS[i] for i in range(24) if picked >> i & 1]
        # "or raise" only where a raise is among the choices (not in Thousand, whose
        # raise comes later, nor with `dreier.raise_after_talon` off)
        key = "hand.pick_contract" if len(complete) > 1 else "hand.pick_confirm"
        lines.append(t(lg, key, cards=cards_text(cards, lg, style.suits)))
        lay.add_row([button(c) for c in complete][:24])
        lay.add_row([again])
        return lay.done()
    next_cards = sorted(
        {i for _, m in options if m & picked == picked for i in range(24) if (m & ~picked) >> i & 1}
    )
    if picked:
        cards = [CARDS[i] for i in range(24) if picked >> i & 1]
        lines.append(t(lg, "hand.pick_second", card=cards_text(cards, lg, style.suits)))
    lay.add_row(
        [
            Button(
                t(lg, "act.discard_pick", card=card_label(CARDS[c], lg, style.suits)),
                table_verb(table.id, v, "dp", picked | 1 << c),
            )
            for c in next_cards
        ]
    )
    rest = _pass_first([c for c in codes if c < DISCARD])
    if rest and not picked:
        lay.add_row([button(c) for c in rest])
    if picked:
        lay.add_row([again])
    return lay.done()
