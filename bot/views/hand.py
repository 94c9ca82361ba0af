"""A seat's private hand message: his cards, what he alone knows, what he decides on.

Built from the engine's ``view(state, seat)``; the buttons under it come from
`buttons`.
"""

from __future__ import annotations

from engine import protocol as P
from engine.actions import Bid, Double, Give, Look, Raise
from engine.cards import Card
from engine.tausend.rules import FREE_BID_LIMIT, OPENING_BID
from engine.views import SeatView

from ..i18n import cards_text, contract_name, game_key, game_name, t
from ..payload import table_verb
from ..rules_text import contract_values
from ..table import Status, Table
from .auction import _blind_bids, _contract_line, _contract_text
from .buttons import _action_buttons
from .faces import Button, HandView, Message, Style
from .seats import _match_seat, _remap, deal_game, names
from .table import _talon_shown, _tie_break_line, _trick_text, _trump_lines


def hand_view(
    table: Table, user: str, style: Style, menu: tuple[str, int] | None = None
) -> HandView | None:
    """The private message for `user`'s seat: hand, what it knows, and its buttons.

    `menu` is a hand menu the user opened (a page of choices, or the first card of a
    discard); it never changes the table.
    """
    seat = table.seat_of(user)
    if seat is None:
        return None
    lg = style.lang
    nm = names(table)
    dseat = table.deal_seat(seat)
    if table.deal is None or dseat is None:
        lines = [hand_title(table, lg)]
        if table.deal is not None:  # a Dreier tie-break between the two others
            tie = _tie_break_line(table, lg, nm)
            lines += [tie] if tie else []
            lines.append(t(lg, "hand.sitting_out"))
        return HandView(table.id, seat, user, False, None, Message("\n".join(lines)))
    sv = P.view(table.deal, dseat)
    lines = [hand_title(table, lg)]
    lines.append(t(lg, "hand.cards", cards=cards_text(sv.hand, lg, style.suits)))
    lines += _trump_lines(table, sv, nm, style)
    if _talon_shown(sv):
        talon = game_key("hand.talon", table.game)  # Thousand's is the stock
        lines.append(t(lg, talon, cards=cards_text(sv.talon_cards, lg, style.suits)))
    known: dict[int, list[Card]] = {}
    for s, c in sv.known:
        known.setdefault(s, []).append(c)
    for s, cards in known.items():
        lines.append(
            t(
                lg,
                "hand.known",
                name=nm[_match_seat(table, s) or 0],
                cards=cards_text(cards, lg, style.suits),
            )
        )
    extra = dict(sv.extra)
    received = extra.get("received")  # Thousand: the card the declarer gave
    if isinstance(received, Card) and sv.declarer is not None:
        name = nm[_match_seat(table, sv.declarer) or 0]
        lines.append(
            t(lg, "hand.received", name=name, cards=cards_text((received,), lg, style.suits))
        )
    if sv.sitting_out == dseat:  # a hand that waits for nothing this deal
        lines.append(t(lg, game_key("hand.sitting_out", deal_game(table))))
    discarded = extra.get("discarded")  # the declarer's own, Dreier and Thousand
    if isinstance(discarded, tuple) and discarded:
        lines.append(t(lg, "hand.discarded", cards=cards_text(discarded, lg, style.suits)))
    if sv.trick:
        lines.append(t(lg, "table.trick", cards=_trick_text(_remap(table, sv.trick), nm, style)))
    your_turn = sv.to_act == dseat and table.status == Status.PLAYING
    buttons: tuple[tuple[Button, ...], ...] = ()
    held = table.seats[seat]
    if table.status == Status.PLAYING and held is not None and held.ai is not None:
        # he walked away and the computer took his seat: his buttons still work, and
        # a press takes the seat back; say so, or "Your turn." reads as if nothing
        # had happened
        # (with no move of his to choose now, the button is all there is to press)
        key = "hand.computer_plays" if your_turn else "hand.computer_plays_wait"
        lines.append(t(lg, key, button=t(lg, "button.take_back")))
    elif your_turn and table.playing_out == seat:
        # his time ran out and the computer's move kept the turn: it plays the rest in
        # a moment, on no clock; "Your turn." alone reads as if his clock still ran
        lines.append(t(lg, "hand.playing_out"))
    if your_turn:
        lines += _bidding_lines(table, sv, lg, nm)
        lines.append(t(lg, "hand.your_turn"))
        buttons = _action_buttons(table, sv, lg, style, nm, menu, lines)
    elif table.status == Status.FINISHED:
        lines.append(t(lg, "hand.match_over"))
    elif table.status == Status.ABORTED:
        lines.append(t(lg, "hand.closed"))
    elif sv.to_act is not None:
        game_id = deal_game(table)
        if game_id in ("dreier", "bauern") and sv.phase != "bidding":
            # what the deal is played for (and doubled to) while he waits too: it is
            # in the group's table, far from his private hand on Telegram
            line = _contract_line(table, sv, lg, nm, game_id)
            lines += [line] if line is not None else []
        lines.append(t(lg, "hand.wait", name=nm[_match_seat(table, sv.to_act) or 0]))
    if not buttons and table.status == Status.PLAYING and held is not None and held.ai:
        # the line above names this button: here, not only under the table in the group
        take = Button(t(lg, "button.take_back"), table_verb(table.id, table.version, "tb"))
        buttons = ((take,),)
    return HandView(table.id, seat, user, your_turn, sv, Message("\n".join(lines), buttons))


def hand_title(table: Table, lang: str | None) -> str:
    """The first line of every hand message: which table and game it belongs to (a
    player may sit at tables in several chats, and his private chat holds them all)."""
    game = game_name(table.game, lang)
    if table.place:
        return t(lang, "hand.title_in", table=table.id, place=table.place, game=game)
    return t(lang, "hand.title", table=table.id, game=game)


def _bidding_lines(table: Table, sv: SeatView, lg: str, nm: tuple[str, ...]) -> list[str]:
    """What a seat decides against, in its own hand (on Telegram the table is in
    another chat): Thousand's bid to beat, and why no higher one is offered (a bid or
    final bid above 120 needs a marriage in hand, RULES.md §5, and a lone "Pass"
    button would not say so); Dreier's and Bauern's highest bid, then the contract
    (what a Kontra or Spritzen doubles, what the play is for)."""
    game_id = deal_game(table)
    if game_id == "dreier" and sv.phase == "trump":
        # "Turn up card 4 unseen" beside "Trumps: ♥ Hearts" needs its rule said
        return [t(lg, "hand.name_trumps")]
    if game_id in ("dreier", "bauern"):
        if sv.phase == "bidding":
            bids = [(s, a) for s, a in sv.bids if isinstance(a, Bid) and a.contract]
            first = not sv.bids and sv.seat == sv.to_act
            options = dict(sv.options)
            if first and options.get("dreier.caller_first"):
                # forehand's "Pass" is no dropping out: it keeps the normal game
                # (whose talon is set aside unseen in the Carinthian rules)
                carinthian = options.get("dreier.carinthian")
                return [t(lg, "hand.caller_first_pass" + ("_carinthian" if carinthian else ""))]
            if not bids:
                return []
            seat, bid = bids[-1]
            assert bid.contract is not None
            worth = contract_values(game_id, table.options_json)
            value = _contract_text(lg, worth, bid.contract, bid.without_talon)
            if any(isinstance(a, Double) for _, a in sv.bids[sv.bids.index((seat, bid)) :]):
                # `bauern.kontra_beats_bettler`: the Kontra made the Bettler void, and
                # forehand holds the normal game again, doubled: that is what stands
                fell = t(lg, "table.fell_to_kontra", contract=contract_name(bid.contract, lg))
                value = f"{_contract_text(lg, worth, 'normal', False)} ×2 {fell}"
                seat = (sv.dealer + 1) % sv.players
            out = [t(lg, "hand.high_bid", value=value, name=nm[_match_seat(table, seat) or 0])]
            outbid = any(isinstance(a, Bid) and a.contract for a in sv.legal)
            if bid.without_talon and sv.to_act == sv.seat and outbid:
                # "Kontraschnapser (12)" offered over "… without the talon (13)" reads
                # as a lower bid: say how bids rank (not beside a lone Pass)
                out.append(t(lg, "hand.bid_rank"))
            return out
        line = _contract_line(table, sv, lg, nm, game_id)
        return [line] if line is not None else []
    if game_id != "tausend":
        return []
    out = []
    if sv.phase != "bidding" and sv.multiplier > 1:
        # a blind bid or the golden round doubles what he plays for: the table says
        # so in the group, the hand in the private chat too
        line = _contract_line(table, sv, lg, nm, game_id)
        out += [line] if line is not None else []
    if sv.phase == "give" and any(isinstance(a, Give) for a in sv.legal):
        out.append(t(lg, "hand.give_each"))  # the buttons say "to whom", not "how many"
    if sv.phase not in ("bidding", "raise"):
        return out
    bids = [(s, a) for s, a in sv.bids if isinstance(a, Bid) and a.value is not None]
    if sv.phase == "bidding" and not bids and _only_opening(sv):
        # a lone "Bid 100" and no Pass: the rule, not a glitch
        out.append(t(lg, "hand.must_open", value=OPENING_BID))
    if sv.phase == "bidding" and bids:
        seat, bid = bids[-1]
        value = str(bid.value)
        if (seat, bid) in _blind_bids(sv):
            value += " " + t(lg, "table.blind")
        out.append(t(lg, "hand.high_bid", value=value, name=nm[_match_seat(table, seat) or 0]))
    offered = [a.value for a in sv.legal if isinstance(a, (Bid, Raise)) and a.value is not None]
    top = (bids[-1][1].value or 0) if bids else 0
    limit = FREE_BID_LIMIT
    blind = any(isinstance(a, Look) for a in sv.legal)  # blind bids stop at 120 anyway
    if blind:
        out.append(t(lg, "hand.bid_blind", limit=limit))
    elif max(offered, default=top) == limit or (top >= limit and not offered):
        out.append(t(lg, "hand.needs_marriage", limit=limit))
    return out


def _only_opening(sv: SeatView) -> bool:
    """Thousand's forehand, who must open with 100 (he may not pass it)."""
    values = [a.value for a in sv.legal if isinstance(a, Bid)]
    return values == [OPENING_BID]
