"""Texts in English and German (Austrian card terms), and how cards are written.

The texts themselves are in `texts_en` and `texts_de`, one catalog per language, so
that this module holds the lookup and the names.  `t(lang, key, **values)` looks a
text up; a missing German text falls back to English, a missing key is a bug the
tests catch (every key used must exist in English).  Card display is a setting of its
own (`suits`): French suits with symbols, or the German (William Tell) deck's names —
Herz, Schelle, Eichel, Laub; Ass, Zehner, König, Ober, Unter, Neuner.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.actions import (
    Action,
    Bid,
    ChooseTrump,
    Claim,
    CloseTalon,
    Discard,
    Double,
    ExchangeTrump,
    Give,
    Look,
    Pass,
    PlayCard,
    Raise,
    Redeal,
)
from engine.cards import Card, Rank, Suit
from engine.errors import OptionError
from engine.tausend.rules import MARRIAGE_VALUE

from . import texts_de, texts_en

LANGUAGES = ("en", "de")
SUIT_STYLES = ("french", "german")

_SUIT_SYMBOL = {Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣", Suit.SPADES: "♠"}
_RANK_SHORT = {
    Rank.ACE: "A",
    Rank.TEN: "10",
    Rank.KING: "K",
    Rank.QUEEN: "Q",
    Rank.JACK: "J",
    Rank.NINE: "9",
}
_SUIT_NAMES = {
    ("en", "french"): {
        Suit.HEARTS: "Hearts",
        Suit.DIAMONDS: "Diamonds",
        Suit.CLUBS: "Clubs",
        Suit.SPADES: "Spades",
    },
    ("de", "french"): {
        Suit.HEARTS: "Herz",
        Suit.DIAMONDS: "Karo",
        Suit.CLUBS: "Kreuz",
        Suit.SPADES: "Pik",
    },
    ("en", "german"): {
        Suit.HEARTS: "Hearts",
        Suit.DIAMONDS: "Bells",
        Suit.CLUBS: "Acorns",
        Suit.SPADES: "Leaves",
    },
    ("de", "german"): {
        Suit.HEARTS: "Herz",
        Suit.DIAMONDS: "Schelle",
        Suit.CLUBS: "Eichel",
        Suit.SPADES: "Laub",
    },
}
_GERMAN_RANKS = {
    "de": {
        Rank.ACE: "Ass",
        Rank.TEN: "Zehner",
        Rank.KING: "König",
        Rank.QUEEN: "Ober",
        Rank.JACK: "Unter",
        Rank.NINE: "Neuner",
    },
    "en": {
        Rank.ACE: "Ace",
        Rank.TEN: "Ten",
        Rank.KING: "King",
        Rank.QUEEN: "Ober",
        Rank.JACK: "Unter",
        Rank.NINE: "Nine",
    },
}
_GERMAN_SUIT_MARK = {Suit.HEARTS: "❤", Suit.DIAMONDS: "🔔", Suit.CLUBS: "🌰", Suit.SPADES: "🍃"}


#: French-suited cards in German: Dame and Bube, as printed on Austrian cards.
_RANK_SHORT_DE = {**_RANK_SHORT, Rank.QUEEN: "D", Rank.JACK: "B"}

#: The trump Jack on the exchange button, named as the reader's cards call it (the
#: German deck's Unter, French cards' Bube — "den Trumpf-Buben tauschen").
_JACK = {
    ("en", "french"): "Jack",
    ("en", "german"): "Unter",
    ("de", "french"): "Buben",
    ("de", "german"): "Unter",
}


def card_label(card: Card, lang: str = "en", style: str = "french") -> str:
    """How a card is written on a button or in a message."""
    if style == "german":
        ranks = _GERMAN_RANKS.get(lang, _GERMAN_RANKS["en"])
        return f"{_GERMAN_SUIT_MARK[card.suit]}{ranks[card.rank]}"
    short = _RANK_SHORT_DE if lang == "de" else _RANK_SHORT
    return f"{short[card.rank]}{_SUIT_SYMBOL[card.suit]}"


def suit_label(suit: Suit, lang: str = "en", style: str = "french") -> str:
    names = _SUIT_NAMES.get((lang, style), _SUIT_NAMES[("en", style)])
    mark = _GERMAN_SUIT_MARK[suit] if style == "german" else _SUIT_SYMBOL[suit]
    return f"{mark} {names[suit]}"


def cards_text(
    cards: tuple[Card, ...] | list[Card], lang: str = "en", style: str = "french"
) -> str:
    return " ".join(card_label(c, lang, style) for c in cards) or "—"


GAME_NAMES = {
    "en": {
        "zweier": "Schnapsen (2 players)",
        "dreier": "Dreierschnapsen (3 players)",
        "bauern": "Bauernschnapsen (4 players)",
        "tausend": "Thousand (Russian Schnapsen)",
    },
    "de": {
        "zweier": "Schnapsen (zu zweit)",
        "dreier": "Dreierschnapsen",
        "bauern": "Bauernschnapsen",
        "tausend": "Tausend (Russisches Schnapsen)",
    },
}

#: House-rule presets by id (`/new dreier carinthian`): the lobby names them.
PRESET_NAMES = {
    "en": {
        "standard": "standard",
        "manual_claims": "claims by hand",
        "all_contracts": "all contracts",
        "no_bettler": "no Bettler",
        "kontra_beats_bettler": "Kontra beats Bettler",
        "golden": "golden round",
        "blind": "blind bidding",
        "fine_125": "barrel fine 125",
        "two_players": "two players",
        "four_players": "four players",
        "carinthian": "Carinthian (contracts without talon)",
        "caller_first": "caller first",
        "count_down": "counting down",
    },
    "de": {
        "standard": "Standard",
        "manual_claims": "selbst ausmelden",
        "all_contracts": "alle Spiele",
        "no_bettler": "ohne Bettler",
        "kontra_beats_bettler": "Kontra schlägt Bettler",
        "golden": "goldene Runde",
        "blind": "blind bieten",
        "fine_125": "Fass-Strafe 125",
        "two_players": "zu zweit",
        "four_players": "zu viert",
        "carinthian": "Kärntner Art (Spiele ohne Talon)",
        "caller_first": "Rufer zuerst",
        "count_down": "Abwärtszählen",
    },
}


#: The computer levels as players read them (the id is what an admin types).
LEVEL_NAMES = {"de": {"random": "zufällig", "heuristic": "regelbasiert", "strong": "stark"}}


def level_name(level: str, lang: str | None) -> str:
    return LEVEL_NAMES.get(norm_lang(lang), {}).get(level, level)


def preset_name(preset: str, lang: str | None) -> str:
    """A preset's name for players, with its id for the admin who types it."""
    name = PRESET_NAMES.get(norm_lang(lang), {}).get(preset) or PRESET_NAMES["en"].get(preset)
    return f"{name} ({preset})" if name and name != preset else preset


def preset_named(text: str, presets: Sequence[str]) -> str | None:
    """The preset of `presets` that `text` names: its id, or its name for players in
    any language ("Alle Spiele", "golden round"), or both as lists show them ("alle
    Spiele (all_contracts)"), in any case; None for none."""
    key = " ".join(text.split()).casefold()
    shown = re.fullmatch(r".*\(([a-z0-9_]+)\)", key)  # "alle Spiele (all_contracts)"
    if shown is not None and shown.group(1) in presets:
        return shown.group(1)
    for preset in presets:
        names = {preset, *(n.get(preset, "") for n in PRESET_NAMES.values())}
        if key in {n.casefold() for n in names if n}:
            return preset
    return None


CONTRACT_NAMES = {
    "en": {
        "normal": "Normal game",
        "bettler": "Bettler",
        "assenbettler": "Assenbettler",
        "assbettler": "Ass-Bettler",
        "schnapser": "Schnapser",
        "plauderer": "Plauderer",
        "gang": "Gang",
        "zehnergang": "Zehnergang",
        "bauernloch": "Bauernloch",
        "bauernschnapser": "Bauernschnapser",
        "kontraschnapser": "Kontraschnapser",
        "farbenringerl": "Farbenringerl",
        "kontrabauernschnapser": "Kontrabauernschnapser",
        "herrenschnapser": "Herrenschnapser",
        "farbengang": "Farbengang",
        "bid": "Bid",
    },
    "de": {"normal": "Normalspiel", "bid": "Gebot"},
}

#: Every text by language and key (one module per language).
TEXTS: dict[str, dict[str, str]] = {"en": texts_en.TEXTS, "de": texts_de.TEXTS}


def norm_lang(lang: str | None) -> str:
    """Our language for a platform's language code (``de-AT`` → ``de``)."""
    return supported_lang(lang) or "en"


def supported_lang(lang: str | None) -> str | None:
    """Our language for a platform's language code, or None for one we do not speak
    (``fr``): then the chat's language serves, not English — a French reader of a
    German group reads its messages in German anyway."""
    if not lang:
        return None
    short = lang.split("-")[0].split("_")[0].lower()
    return short if short in LANGUAGES else None


#: Texts whose wording depends on a number, and the value that holds it: they have a
#: form of their own for 0 or 1 (``key.zero``, ``key.one``) next to the plural one, so
#: nobody reads "1 seat(s)" or "0 cards".
COUNTED = {
    "table.talon": "n",
    "lobby.waiting": "free",
    "lobby.expires": "minutes",
    "remind.replaced": "n",
    "result.bolt": "n",
}

_FORMS = {0: "zero", 1: "one"}


def template(
    catalog: Mapping[str, str], fallback: Mapping[str, str], key: str, count: object = None
) -> str:
    """The text of `key` in `catalog`, in its form for `count` where it has one.

    A form is only looked up in the reader's own catalog: an English "1 seat" must not
    stand in for a German text that has no form of its own (the tests require both).
    """
    if isinstance(count, int) and not isinstance(count, bool) and count in _FORMS:
        form = catalog.get(f"{key}.{_FORMS[count]}")
        if form:
            return form
    return catalog.get(key) or fallback[key]


def t(lang: str | None, key: str, /, **values: Any) -> str:
    catalog = TEXTS.get(norm_lang(lang), TEXTS["en"])
    text = template(catalog, TEXTS["en"], key, values.get(COUNTED.get(key, "")))
    return text.format(**values) if values else text


#: How much of a word a user typed an answer repeats: enough to see the typo, not a
#: pasted page that would push the useful part (the choices) past a message's end.
TYPED_MAX = 40


def typed(word: str) -> str:
    """A word as typed, for an answer that names it (cut after `TYPED_MAX`)."""
    word = " ".join(word.split())
    return word if len(word) <= TYPED_MAX else word[: TYPED_MAX - 1] + "…"


def option_error(lang: str | None, error: OptionError, table_of: str | None = None) -> str:
    """An engine's refusal of a rule option in the reader's language (the engine's
    own text is English; its code and values say the same); `table_of` the game of
    a table being opened, whose options are named without its prefix."""
    key = f"option.{error.code}"
    if key not in TEXTS["en"]:
        return str(error)
    values = {
        k: typed(v) if k in ("key", "value") and isinstance(v, str) else v
        for k, v in error.values.items()
    }
    key_id = values.get("key")
    if table_of is not None and error.code != "unknown" and isinstance(key_id, str):
        # the engine names the option by its id ("tausend.players"); a host opening
        # a table types "players=5", as the lobby shows it (an admin's setting keeps
        # the prefix, as he typed it)
        values["key"] = key_id.removeprefix(f"{table_of}.")
    if error.code == "unknown" and isinstance(known := values.get("known"), str):
        # as a host types them: "schneider", not "zweier.schneider" beside "auto_claim"
        game = f"{values.get('game')}."
        values["known"] = ", ".join(k.strip().removeprefix(game) for k in known.split(","))
    if values.get("value") == "":  # "assenbettler=": "… not nothing", not "… not "
        values["value"] = t(lang, "option.nothing")
    try:
        return t(lang, key, **values)
    except KeyError:  # a value the text needs is missing: say it as the engine did
        return str(error)


def game_name(game: str, lang: str | None) -> str:
    return GAME_NAMES.get(norm_lang(lang), GAME_NAMES["en"]).get(game, game)


#: The other names a game goes by (the rules' own list, in English and German): a
#: player who types one at the terminal's menu or after a Telegram command means it.
GAME_ALIASES: dict[str, tuple[str, ...]] = {
    "zweier": ("Schnapsen", "Zweierschnapsen", "66", "Sechsundsechzig"),
    "dreier": ("Dreierschnapsen", "Talonschnapsen", "Staperlschnapsen"),
    "bauern": ("Bauernschnapsen", "Viererschnapsen"),
    "tausend": (
        "Thousand",
        "Tausend",
        "1000",
        "Russian Schnapsen",
        "Russisches Schnapsen",
        "Russisch Schnapsen",
        "Russischer Schnapsen",
        "Tysiacha",
    ),
}


def fold_name(text: str) -> str:
    """A name as names are compared: case-folded, spaces squeezed."""
    return " ".join(text.split()).casefold()


def game_names_of(game: str) -> set[str]:
    """Everything that names `game`, folded: its id, its menu names, its aliases."""
    shown = (names.get(game, game) for names in GAME_NAMES.values())
    return {fold_name(n) for n in (game, *shown, *GAME_ALIASES.get(game, ()))}


def game_named(text: str, games: Sequence[str]) -> str | None:
    """The one game of `games` that `text` names exactly, or None."""
    key = fold_name(text)
    return next((g for g in games if key in game_names_of(g)), None)


def contract_name(contract: str | None, lang: str | None) -> str:
    if contract is None:
        return "—"
    names = CONTRACT_NAMES.get(norm_lang(lang), {})
    return names.get(contract) or CONTRACT_NAMES["en"].get(contract, contract)


def game_key(key: str, game: str) -> str:
    """`key`, or `key.<game>` where that game has a word of its own for it (Bauern's
    Kontra for a double, Thousand's marriages)."""
    own = f"{key}.{game}"
    return own if own in TEXTS["en"] else key


def action_label(
    action: Action,
    lang: str | None,
    style: str = "french",
    seat_names: tuple[str, ...] = (),
    game: str = "",
    level: int = 1,
    trump: Suit | None = None,
) -> str:
    """The text on the button for an action; `game` picks a game's own word where it
    has one (Bauernschnapsen's Kontra, Thousand's marriages).  `level` is which double
    a `Double` is (1 to 3): each has its name (Kontra, Rekontra, Subkontra).  With
    `trump` known a marriage says what it is worth: a Zwanziger, or in trumps a
    Vierziger (Thousand's marriages have values of their own)."""
    lg = norm_lang(lang)
    if isinstance(action, PlayCard):
        card = card_label(action.card, lg, style)
        if not action.marriage:
            return card
        key = "act.marriage_claim" if action.claim else game_key("act.marriage", game)
        if game == "tausend":  # what it scores, as the Schnapsen games' 20 and 40 say
            return t(lg, key, card=card, points=MARRIAGE_VALUE[action.card.suit])
        if trump is not None:
            key += ".40" if action.card.suit == trump else ".20"
        return t(lg, key, card=card)
    if isinstance(action, ExchangeTrump):
        return t(lg, "act.exchange", jack=_JACK.get((lg, style), _JACK[("en", "french")]))
    if isinstance(action, CloseTalon):
        return t(lg, "act.close")
    if isinstance(action, Claim):
        return t(lg, "act.claim")
    if isinstance(action, ChooseTrump):
        if action.suit is not None:
            return t(lg, "act.trump_suit", suit=suit_label(action.suit, lg, style))
        return t(lg, "act.trump_blind", n=(action.blind or 0) + 1)
    if isinstance(action, Redeal):
        return t(lg, game_key("act.redeal", game))
    if isinstance(action, Bid):
        if action.value is not None:
            return t(lg, "act.bid_value", value=action.value)
        name = contract_name(action.contract, lg)
        key = "act.bid_without_talon" if action.without_talon else "act.bid"
        return t(lg, key, contract=name)
    if isinstance(action, Pass):
        return t(lg, "act.pass")
    if isinstance(action, Double):
        key = "act.double" if level <= 1 else f"act.double.{min(level, 3)}"
        return t(lg, game_key(key, game))
    if isinstance(action, Discard):
        cards = cards_text(action.cards, lg, style)
        if action.contract:
            return t(
                lg, "act.discard_raise", cards=cards, contract=contract_name(action.contract, lg)
            )
        return t(lg, "act.discard", cards=cards)
    if isinstance(action, Give):
        name = seat_names[action.to] if action.to < len(seat_names) else str(action.to)
        return t(lg, "act.give", card=card_label(action.card, lg, style), name=name)
    if isinstance(action, Raise):
        return t(lg, "act.raise", value=action.value)
    if isinstance(action, Look):
        return t(lg, "act.look")
    return type(action).__name__  # pragma: no cover
