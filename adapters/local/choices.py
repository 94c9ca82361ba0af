"""What a typed card or bid means among the numbered choices of the terminal.

The choices are the hand's buttons; a button's payload says what it does (the
engine's action code, or a hand menu), so a card or a value is found by decoding
payloads, never by reading labels.  Nothing here sees more than the player's own
buttons and hand.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from math import gcd

from bot.i18n import card_label
from bot.payload import parsed
from bot.settings import shown_value
from bot.table import Table
from bot.views import Button
from engine.actions import Action, Bid, Give, PlayCard, Raise
from engine.actions import decode as decode_action
from engine.cards import CARDS, Card, Rank, Suit
from engine.options import options_to_json

#: Rank letters: English, "T" for ten, and German French-suited Dame and Bube (D, B).
RANKS = {
    "a": Rank.ACE,
    "10": Rank.TEN,
    "t": Rank.TEN,
    "k": Rank.KING,
    "q": Rank.QUEEN,
    "d": Rank.QUEEN,
    "j": Rank.JACK,
    "b": Rank.JACK,
    "9": Rank.NINE,
}
#: Suit letters (English: German French-suit names would make Karo and Kreuz both K)
#: and the symbols the table prints.
SUITS = {
    "s": Suit.SPADES,
    "h": Suit.HEARTS,
    "d": Suit.DIAMONDS,
    "c": Suit.CLUBS,
    "♠": Suit.SPADES,
    "♥": Suit.HEARTS,
    "♦": Suit.DIAMONDS,
    "♣": Suit.CLUBS,
}
#: Emoji presentation selector some keyboards add after ♥ and friends.
_VARIATION = "\ufe0f"


def parse_card(text: str, lang: str, suits: str) -> Card | None:
    """The card `text` names: rank then suit letter (``as``, ``10h``, ``th``, ``dh``),
    or the card as the table prints it in `lang` with `suits` (``K♥``, ``🍃Ober``).

    A card name has at least two characters, so no one-letter command is one; the
    word commands (``quit``, ``show``, ...) end in no suit letter after a rank.
    """
    key = "".join(text.split()).replace(_VARIATION, "").casefold()
    for card in CARDS:
        if key == card_label(card, lang, suits).replace(_VARIATION, "").casefold():
            return card
    rank, suit = RANKS.get(key[:-1]), SUITS.get(key[-1:])
    if rank is None or suit is None:
        return None
    return Card(suit, rank)


def _action(button: Button) -> Action | None:
    """The game action a button takes, or None for a menu or table button.

    Without the game's contract table a contract bid cannot be decoded; none is a
    card or a value, which is all that is asked of an action here.
    """
    p = parsed(button.payload)
    if p is None:
        return None
    if not p.is_game_action or p.arg is None:
        return None
    try:
        return decode_action(p.arg)
    except (IndexError, ValueError):
        return None


def card_of(button: Button, picked: int) -> Card | None:
    """The card a button plays, gives (or picks to give), or picks for a discard.

    `picked` is the mask of the cards of a discard picked so far (the ``dp`` menu
    shown): a pick button's mask is those plus the card it picks.
    """
    p = parsed(button.payload)
    if p is None:
        return None
    if p.verb == "dp" and p.arg:
        new = p.arg & ~picked
        return CARDS[new.bit_length() - 1] if new and not new & (new - 1) else None
    if p.verb == "gv" and p.arg:  # a gift's card, its player asked next
        return CARDS[p.arg - 1]
    action = _action(button)
    return action.card if isinstance(action, (PlayCard, Give)) else None


def plays_card(button: Button) -> bool:
    """The button plays a card or picks one for a discard (not a gift, a bid)."""
    p = parsed(button.payload)
    if p is not None and p.verb == "dp":
        return True
    return isinstance(_action(button), PlayCard)


def typed_rules(table: Table) -> tuple[str | None, dict[str, str] | None]:
    """A table's preset and the options it plays that differ from the preset's, as
    they would be typed after the game's name (``players=4``): its rematch opens with
    them, as after a game chosen at the menu."""
    spec = table.spec
    base = options_to_json(
        spec.parse_options(dict(spec.presets.get(table.preset or "", {}))), table.game
    )
    differ = {
        key.removeprefix(table.game + "."): shown_value(value)
        for key, value in table.options_json.items()
        if base.get(key) != value
    }
    return table.preset, differ or None


def value_of(button: Button) -> int | None:
    """The value a button bids (Thousand's bids and final bid), or None."""
    action = _action(button)
    if isinstance(action, Raise) or (isinstance(action, Bid) and action.value is not None):
        return action.value
    return None


def step_of(values: list[int]) -> int:
    """The step between the legal values (Thousand's: 5), 0 for a single value."""
    low = min(values)
    step = 0
    for v in values:
        step = gcd(step, v - low)
    return step


#: The fewest letters of one word that may stand for a name it begins ("close").
MIN_LEADING = 5


def _words(text: str) -> list[str]:
    return re.findall(r"[^\s,:;]+", text.replace(_VARIATION, "").casefold())


def _name(label: str) -> list[str]:
    """A label's words without the points or range it ends with ("Gang (9)")."""
    return _words(re.sub(r"\s*\([^()]*\)\s*$", "", label))


def named(text: str, labels: list[str]) -> list[int]:
    """The choices (indices into `labels`) that `text` names, as a player says them.

    The closest kind of match wins: the whole label ("Normal game (1–3)"), then its
    name without the points ("gang", "normal game"), then the first words of a name
    ("plauderer no", "close"), never a word inside one ("the" would close the
    talon).  More than one index: the typed words fit several, for him to pick.
    """
    typed = _words(text)
    if not typed:
        return []
    n = len(typed)

    ways: list[Callable[[str], bool]] = [
        lambda label: _words(label) == typed,
        lambda label: _name(label) == typed,
    ]
    if n > 1 or len(typed[0]) >= MIN_LEADING:
        # a name's first words; one short word would be a filler ("the", German
        # "ich" of "Ich hab 66 (Aus!)", a claim that loses the deal when wrong)
        ways.append(lambda label: _name(label)[:n] == typed)
    for fits in ways:
        found = [i for i, label in enumerate(labels) if fits(label)]
        if found:
            return found
    return []
