"""Every button label the core's views can show, in both languages and with either
deck, is short enough for a phone: Telegram cuts a long label at its end, and what
is cut is what tells one choice from the next ("K♥ + marriage in trumps (40), and
cl…", "Kontrabauernschnapser without th…")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adapters.telegram.layout import _PADDING, ROW_WIDTH
from bot.i18n import LANGUAGES, SUIT_STYLES, card_label, contract_name, t
from bot.rules_text import contract_values
from bot.views.buttons import choice_label
from engine.actions import DISCARD, DISCARD3, GIVE, Bid, Discard, Double, PlayCard, decode
from engine.cards import CARDS, Suit
from engine.games import available, game

#: What a label may take: a phone shows about this much of a button whole.
LIMIT = 30
#: A contract's name is a term of art of up to 21 letters ("Kontrabauernschnapser"),
#: not ours to shorten: a label naming one may take a phone's whole row (its button
#: has a row of its own there), not more.
CONTRACT_LIMIT = ROW_WIDTH - _PADDING
#: The names the table gives the computer seats; a person's name is his own.
NAMES = ("Computer 1", "Computer 2", "Computer 3", "Computer 4")


def _codes(seats: int) -> Iterator[int]:
    """Every action code there is: cards (with a marriage, a claim), the fixed
    actions, bids, raises, gifts to each seat, discards of two cards (and a raise to
    each contract) and of three."""
    yield from range(GIVE + 32 * seats)
    two = [DISCARD + lo + 32 * hi for lo in range(24) for hi in range(lo + 1, 24)]
    for raised in range(15):
        yield from (code + 1024 * raised for code in two)
    yield from (DISCARD3 + a + 32 * b + 1024 * c for a in range(3) for b in (3, 4) for c in (5,))


def _worth(game_id: str) -> dict[str, str]:
    """What each contract wins under any of the game's presets (the most contracts)."""
    spec = game(game_id)
    worth: dict[str, str] = {}
    for preset in spec.presets.values():
        worth.update(contract_values(game_id, dict(preset)))
    return worth


def _choice_labels(game_id: str, lang: str, suits: str) -> Iterator[tuple[str, str | None]]:
    """(label, the contract's name in it) of every choice a hand can offer."""
    spec = game(game_id)
    contracts = spec.start_deal(spec.parse_options({}), 0, seed=bytes(16)).contracts
    worth = _worth(game_id)
    for code in _codes(len(NAMES)):
        try:
            action = decode(code, contracts)
        except (IndexError, ValueError):  # a raise to a contract the game has not
            continue
        levels = (1, 2, 3) if isinstance(action, Double) else (1,)
        trumps: tuple[Suit | None, ...] = (None,)
        if isinstance(action, PlayCard) and action.marriage:
            trumps = (None, action.card.suit, Suit((action.card.suit + 1) % 4))
        contract = action.contract if isinstance(action, (Bid, Discard)) else None
        name = contract_name(contract, lang) if contract else None
        for level in levels:
            for trump in trumps:
                label = choice_label(action, lang, suits, NAMES, game_id, level, trump, worth)
                yield label, name


def _fixed_labels(lang: str, suits: str) -> Iterator[str]:
    """The buttons of the lobby, the table, the results and the hand's menus."""
    for card in CARDS:
        shown = card_label(card, lang, suits)
        yield t(lang, "act.discard_pick", card=shown)
        yield t(lang, "act.give_pick", card=shown)
    for key in ("join", "leave", "add_ai", "start", "rules", "show_hand", "take_back"):
        yield t(lang, f"button.{key}")
    for key in ("resign", "rematch", "forget"):
        yield t(lang, f"button.{key}")
    yield t(lang, "button.sit", seat=4)
    for key in ("button.remove_ai", "button.remove_player"):
        yield t(lang, key, name=NAMES[-1])
    yield t(lang, "button.abort_vote", votes=3, needed=4)
    for key in ("hand.more", "hand.back", "act.discard_again"):
        yield t(lang, key)


@pytest.mark.parametrize("suits", SUIT_STYLES)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("game_id", available())
def test_every_choice_label_fits_a_phone(game_id: str, lang: str, suits: str) -> None:
    too_long = set()
    for label, contract in _choice_labels(game_id, lang, suits):
        if len(label) > (LIMIT if contract is None else CONTRACT_LIMIT):
            too_long.add(label)
        elif contract is not None and len(label.replace(contract, "Gang")) > LIMIT:
            too_long.add(label)  # our words around the name are short all the same
    assert not too_long, sorted(too_long, key=len)[-5:]


@pytest.mark.parametrize("suits", SUIT_STYLES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_other_button_label_fits_a_phone(lang: str, suits: str) -> None:
    too_long = {label for label in _fixed_labels(lang, suits) if len(label) > LIMIT}
    assert not too_long, sorted(too_long, key=len)
