"""What the auction said, which both the table and a hand show: public, said aloud.

Blind bids (Thousand), the doubles that stand (Kontra, Spritzen) and the contract
with its value: the group's table and a player's private hand must name them alike.
"""

from __future__ import annotations

from engine.actions import Action, Bid, Double, Look
from engine.views import SeatView

from ..i18n import contract_name, t
from ..rules_text import contract_values, without_talon_value
from ..table import Table
from .seats import _match_seat


def _doubles(pv: SeatView) -> list[tuple[int, Action]]:
    """The doubles that stand, in order, with their doublers (deal seats): public, as
    they are said aloud.  Bauern's Kontra round follows the auction in `bids`; Dreier
    keeps its Spritzen round apart, in ``extra["spritzen"]``.  A Kontra said in
    Bauern's auction (`bauern.kontra_beats_bettler`) is wiped by a later bid: each
    standing double doubles the deal, so they are the last log2(multiplier) said, and
    the next one's name (Kontra, Rekontra, Subkontra) follows from them."""
    said = dict(pv.extra).get("spritzen")
    rounds = pv.bids + (said if isinstance(said, tuple) else ())
    every: list[tuple[int, Action]] = [(s, a) for s, a in rounds if isinstance(a, Double)]
    standing = max(pv.multiplier, 1).bit_length() - 1
    return every[len(every) - standing :] if standing else []


def _blind_bids(sv: SeatView) -> list[tuple[int, Action]]:
    """Thousand's bids made before their bidder looked at his cards (with blind
    bidding): they count double."""
    if "looked" not in dict(sv.extra):
        return []
    looked: set[int] = set()
    blind: list[tuple[int, Action]] = []
    for seat, action in sv.bids:
        if isinstance(action, Look):
            looked.add(seat)
        elif isinstance(action, Bid) and action.value is not None and seat not in looked:
            blind.append((seat, action))
    return blind


def _contract_line(
    table: Table, pv: SeatView, lg: str, nm: tuple[str, ...], game_id: str
) -> str | None:
    """The contract as everyone heard it: its name and value, a raise or a Kontra
    that changed it, the declarer, the doubling."""
    extra = dict(pv.extra)
    declarer = _match_seat(table, pv.declarer)
    if pv.contract is None or declarer is None:
        return None
    worth = contract_values(game_id, table.options_json)
    name = _contract_text(lg, worth, pv.contract, bool(extra.get("without_talon")))
    value = extra.get("value") or extra.get("bid")
    if table.game == "tausend" and isinstance(value, int):
        name = f"{name} {value}"
    if extra.get("golden"):  # Thousand's first round: why it counts double
        name += " " + t(lg, "table.golden")
    said = [a for s, a in pv.bids if s == pv.declarer and isinstance(a, Bid)]
    if said and said[-1].contract and said[-1].contract != pv.contract:
        bid = contract_name(said[-1].contract, lg)
        if game_id == "bauern":
            # `kontra_beats_bettler`: the Kontra made his Bettler a normal game
            name += " " + t(lg, "table.fell_to_kontra", contract=bid)
        else:  # Dreier: raised when he discarded
            name += " " + t(lg, "table.raised_from", contract=bid)
    elif said and said[-1].value is not None and said[-1].value != value:
        # Thousand: raised after the gifts, above the bid the auction shows
        name += " " + t(lg, "table.raised_from", contract=said[-1].value)
    text = t(lg, "table.contract", contract=name, declarer=nm[declarer])
    if pv.multiplier > 1:
        text += t(lg, "table.multiplier", n=pv.multiplier)
    return text


def _worth(worth: dict[str, str], contract: str, without_talon: bool) -> str:
    """ " (4)": what a Dreier or Bauern contract wins (`contract_values`), as its bid
    button, the bidding and the table say it; "" for another game's."""
    value = worth.get(contract)
    if value is None:
        return ""
    return f" ({without_talon_value(value) if without_talon else value})"


def _contract_text(lg: str, worth: dict[str, str], contract: str, without_talon: bool) -> str:
    """A contract as bid: "Gang without the talon (10)"."""
    name = contract_name(contract, lg)
    if without_talon:
        name += " " + t(lg, "table.without_talon")
    return name + _worth(worth, contract, without_talon)
