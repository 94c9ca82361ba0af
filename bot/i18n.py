"""Texts in English and German (Austrian card terms), and how cards are written.

`t(lang, key, **values)` looks a text up; a missing German text falls back to English,
a missing key is a bug the tests catch (every key used must exist in English).  Card
display is a setting of its own (`suits`): French suits with symbols, or the German
(William Tell) deck's names — Herz, Schelle, Eichel, Laub; Ass, Zehner, König, Ober,
Unter, Neuner.
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

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        # refusals (shown only to the presser)
        "refuse.malformed": "That button is not one of mine.",
        "refuse.unknown_table": "That table is closed.",
        "refuse.join_in_chat": "Join with the button in the chat where the table is.",
        "refuse.rematch_players_only": "Only the players of table {table} can ask for its rematch; /new opens a table of your own.",
        "refuse.rematch_in_chat": "A rematch opens in the chat its match was played in: press Rematch there.",
        "refuse.stale": "That button is out of date — use the newest message.",
        "refuse.vote_lapsed": "That vote to close ended with its deal; in the new deal /abort asks again.",
        "refuse.too_late": "Too late: your time ran out and the computer played for you. Use the newest message.",
        "refuse.not_saved": "That did not go through: the bot could not save it (its database is not writable right now). Please try again in a moment.",
        "refuse.not_seated": "You are not playing at this table.",
        "refuse.lobby_players_only": "Only those seated at this table can do that: press “{join}” to sit down first.",
        "refuse.not_your_turn": "It is not your turn.",
        "refuse.illegal": "Not allowed: {reason}",
        "illegal.must_follow_suit": "you must follow suit",
        "illegal.must_beat": "you must take the trick if you can",
        "illegal.must_trump": "you cannot follow suit, so you must trump",
        "refuse.not_in_lobby": "The game has already started.",
        "refuse.already_seated": "You already have a seat at this table.",
        "refuse.seated_elsewhere": "You already play at another table here.",
        "refuse.seated_elsewhere_at": "You already play at table {table} here.",
        "refuse.table_full": "The table is full.",
        "refuse.not_host": "Only the host ({host}) can do that.",
        "refuse.not_full": "Every seat must be taken before the start.",
        "refuse.no_ai_seat": "There is no computer player in that seat.",
        "refuse.seat_taken": "That seat is taken.",
        "refuse.not_replaced": "Your seat is not played by the computer.",
        "refuse.not_replaced_others": "Your seat is not played by the computer: this button is for {names}.",
        "refuse.vote_when_away": "The computer plays your seat: press “Take my seat back” first, then vote to close the table.",
        "refuse.no_table": "There is no table of yours here.",
        "refuse.no_table_named": "You are not playing at a table {table} here.",
        "refuse.which_table": "There are several tables here: name one ({tables}).",
        "refuse.not_allowed_to_start": "Only admins can open tables here.",
        "refuse.rules_fixed": "Tables here play the house rules for {game}: {house}. Open one without a preset or options to play them; only an admin changes them (in the settings), or lets hosts choose (set rules to open).",
        "rules.game_standard": "the game's standard rules",
        "refuse.not_admin": "Only admins can change the settings.",
        "refuse.unknown_game": "Unknown game {game}. Games: {games}.",
        "refuse.game_first": "Name the game first, then the options: /new <game> {game} (games: {games}).",
        "refuse.bad_options": "Bad rule options: {error}",
        "refuse.bad_setting": "Bad setting: {error}",
        "refuse.unknown_preset": "Unknown preset {preset}. Presets: {presets}.",
        "refuse.not_playing": "The game is not running.",
        "refuse.vote_in_lobby": "The game has not started: only the host ({host}) can close the table now; press Leave to leave it.",
        "ok.voted": "Your vote to close the table is counted ({votes}/{needed}); it stands until this deal ends.",
        "refuse.no_such_table": "No open table here is called {table} (open here: {tables}).",
        "ok.resigned": "You resigned: you lose the match{rated}.",
        "resign.rated": ", and it counts on the leaderboard",
        "ok.resigned.bauern": "You resigned: the match is lost for your team{rated}.",
        "ok.ended_walked_away": "Table {table} is closed, and its match counts: those who walked away lose it.",
        "refuse.resign_in_lobby": "The game has not started: press Leave to leave the table.",
        "confirm.resign": "Resign the match at table {table}? You lose it{rated}.",
        "confirm.resign.bauern": "Resign the match at table {table}? It is lost for your team{rated}.",
        "refuse.not_your_button": "That button is for the player who typed /resign.",
        # lobby
        "lobby.title": "{game} — table {table}",
        "lobby.host": "Host: {host}",
        "lobby.seat_empty": "(free)",
        "lobby.seat_ai": "{name} (computer, level {level})",
        "table.seat_away": "{name} (the computer plays)",
        "lobby.team": "Team {team}",
        "lobby.waiting": "Waiting for players: {free} seats free.",
        "lobby.rematch": "A rematch of table {table}: same game, same rules.",
        "lobby.waiting.one": "Waiting for players: {free} seat free.",
        "lobby.ready": "All seats taken — the host can start.",
        "lobby.closed": "This table was closed.",
        "lobby.rules": "Rules: {rules}",
        "lobby.expires": "The lobby closes if nobody starts it within {minutes} minutes.",
        "lobby.expires.one": "The lobby closes if nobody starts it within {minutes} minute.",
        "button.join": "Join",
        "button.leave": "Leave",
        "button.add_ai": "Add computer",
        "button.start": "Start",
        "button.rules": "Rules",
        "button.sit": "Sit in seat {seat}",
        "button.remove_ai": "Remove {name}",
        "button.remove_player": "Remove {name}",
        "button.show_hand": "Show my hand",
        "button.take_back": "Take my seat back",
        "button.resign": "Resign",
        "button.rematch": "Rematch",
        "button.forget": "Delete my data",
        "button.abort_vote": "Close the table too ({votes}/{needed})",
        # table
        "table.deal": "Deal {deal} — dealer {dealer}",
        "table.cuts": "{name} cuts the pack.",
        "table.knocks": "{name} knocks: no cut.",
        "table.trump": "Trumps: {trump}",
        "table.trump_card": "Face-up trump: {card}",
        "table.trump_card_exchanged": "Face-up trump: {card}, exchanged by {name}",
        "table.trump_card_closed": "Trump card, under the closed talon: {card}",
        "table.trump_turned": "turned up by {name}: {card}",
        "table.sitting_out": "{name} sits out this deal",
        "table.sitting_out.tausend": "{name} deals and sits out, scoring the stock",
        "table.talon": "Talon: {n} cards",
        "table.talon.zero": "Talon: used up",
        "table.talon_closed": "Talon closed by {name}",
        "table.contract": "Contract: {contract} by {declarer}",
        "result.contract": "{contract} by {declarer}",
        "table.multiplier": " (×{n})",
        "table.turn": "To act: {name}",
        "table.phase.trump": "Trumps — {name} to choose",
        "table.phase.bidding": "Bidding — {name} to bid",
        "table.phase.discard": "Talon — {name} to take it and discard",
        "table.phase.discard.tausend": "Laying away — {name} to lay 3 cards on the face-down stock",
        "table.phase.doubling": "Doubling — {name} to say {double} or pass",
        "table.phase.give": "Stock — {name} to give each opponent a card",
        "table.phase.raise": "Final bid — {name} to state it",
        "table.trick": "Trick: {cards}",
        "table.last_trick": "Last trick: {cards} → {name}",
        "table.tricks_list": "Tricks played: {tricks}",
        "table.first_tricks": "Each side's first trick, face up: {tricks}",
        "table.first_tricks.tausend": "Each player's first trick, face up: {tricks}",
        "table.face_down.tausend": "Face down: the other stock and the 3 cards laid away; their points go to the last trick's winner.",
        "table.first_tricks.zweier": "Each player's first trick, face up: {tricks}",
        "table.tricks_done": "Tricks: {lines}",
        "table.points": "Points: {points}",
        "table.scores": "Score (to {target}): {scores}",
        "table.scores_down": "Score, counting down from 24: {scores}",
        "table.scores.after": "Score after this deal (to {target}): {scores}",
        "table.scores_down.after": "Score after this deal, counting down from 24: {scores}",
        "table.bummerl": "Bummerl: {bummerl}",
        "table.schneider": "Schneider",
        "table.retourschneider": "Retourschneider",
        "table.seed_hash": "Deal fingerprint (SHA-256 of the seed's bytes, the seed read as hex): {hash}",
        "table.tie_break": "Tie-break: {a} against {b}, one deal of {game}; the loser takes the Bummerl",
        "table.votes": "Votes to close the table: {votes} of the {needed} needed",
        "table.seed": "Seed of deal {deal}: {seed}",
        "table.away": "{name} is away — the computer plays for them.",
        "table.bids": "Bids: {bids}",
        "table.looked": "looked at the cards",
        "table.blind": "blind",
        "table.without_talon": "without the talon",
        "table.raised_from": "(raised from {contract})",
        "table.golden": "(golden round)",
        "table.fell_to_kontra": "(the {contract} fell to a Kontra)",
        "table.bolts": "Bolts: {bolts}",
        "table.barrel": "On the barrel: {names}",
        "table.barrel_seat": "{name} (deal {deal} of {of})",
        "table.barrel_seat.sitting_out": "{name} (sits this deal out; deal {deal} of {of} comes next)",
        "table.barrel_seat.after": "{name} ({used} of {of} deals played)",
        "table.marriage": "Marriage — {name}: {points} ({suit})",
        # hand
        "hand.title": "Your hand at table {table} — {game}",
        "hand.title_in": "Your hand at table {table} in {place} — {game}",
        "hand.cards": "Hand: {cards}",
        "hand.your_turn": "Your turn.",
        "hand.forgotten": "Your data was deleted: you left this table, and the computer plays your seat to the end.",
        "hand.high_bid": "Highest bid: {value}, by {name}",
        "hand.caller_first_pass": "Announce a contract now, or pass: if nobody bids after you, you play the normal game and take the talon.",
        "hand.caller_first_pass_carinthian": "Announce a contract now, or pass: if nobody bids after you, you play the normal game (the talon stays aside).",
        "hand.bid_blind": "Your cards are still face down: a bid before you look is blind and counts double (up to {limit}).",
        "hand.needs_marriage": "Above {limit} only with a marriage (King and Queen of one suit) in hand.",
        "hand.give_each": "Give one card to each of the others (the stock's three and yours make ten).",
        "hand.must_open": "You open the bidding, and the opening is {value}: you may not pass it.",
        "hand.name_trumps": "Name trumps: a suit of the three cards you see, or one of your three unseen cards turned up (its suit is trumps, and everyone sees it).",
        "hand.bid_rank": "Bids rank by contract: “without the talon” beats only the same contract, and any higher contract beats it, even one worth fewer points.",
        "hand.computer_plays": "The computer plays your seat now. Choose one of your actions, or “{button}”, to play again yourself.",
        "hand.computer_plays_wait": "The computer plays your seat now. Press “{button}” to play again yourself.",
        "hand.wait": "Waiting for {name}.",
        "hand.match_over": "The match is over.",
        "hand.closed": "This table was closed.",
        "hand.sitting_out": "You sit out this deal.",
        "hand.sitting_out.tausend": "You deal and sit out; the stock's points count for you.",
        "hand.known": "{name} holds: {cards}",
        "hand.discarded": "You laid away: {cards}",
        "hand.received": "{name} gave you: {cards}",
        "hand.talon": "Talon: {cards}",
        "hand.talon.tausend": "Stock: {cards}",
        "hand.pick_second": "Pick the next card to discard (so far: {card}).",
        "hand.pick_contract": "Discard {cards}: keep the contract or raise.",
        "hand.pick_confirm": "Discard {cards}?",
        "hand.give_to": "Who gets {card}?",
        "hand.more": "More…",
        "hand.back": "Back",
        # actions on buttons
        "act.play": "{card}",
        "act.marriage": "{card} + marriage",
        "act.marriage.20": "{card} + marriage (20)",
        "act.marriage.40": "{card} + marriage in trumps (40)",
        "act.marriage_claim": "{card} + marriage, and claim 66",
        "act.marriage_claim.20": "{card} + marriage (20), and claim 66",
        "act.marriage_claim.40": "{card} + marriage in trumps (40), and claim 66",
        "act.exchange": "Exchange trump {jack}",
        "act.close": "Close the talon",
        "act.claim": "Claim 66",
        "act.trump_suit": "Trumps: {suit}",
        "act.trump_blind": "Turn up card {n} unseen",
        "act.redeal": "Redeal",
        "act.redeal.tausend": "Redeal (the nines)",
        "act.bid": "{contract}",
        "act.bid_without_talon": "{contract} without the talon",
        "act.bid_value": "Bid {value}",
        "act.pass": "Pass",
        "act.double": "Double",
        "act.double.2": "Redouble",
        "act.double.3": "Re-redouble",
        "act.double.bauern": "Kontra",
        "act.double.2.bauern": "Rekontra",
        "act.double.3.bauern": "Subkontra",
        "act.marriage.tausend": "{card} + marriage ({points})",
        "table.phase.doubling.bauern": "Kontra — {name} to say {double} or pass",
        "act.discard": "Discard {cards}",
        "act.discard_raise": "Discard {cards}, play {contract}",
        "act.discard_pick": "Discard {card}…",
        "act.discard_again": "↺ Pick again",
        "act.give": "Give {card} to {name}",
        "act.give_pick": "Give {card}…",
        "act.raise": "Final bid {value}",
        "act.look": "Look at my cards",
        # results
        "result.deal": "Deal {deal} over: {lines}",
        "result.tie_break_deal": "Deal {deal} (the tie-break) over: {lines}",
        "result.game_points": "{name}: {points}",
        "result.points_line": "{name} {points:+d}",
        "result.reason.reached_66": "66 reached",
        "result.margin.2": "Schneider: the losing side under 33",
        "result.margin.3": "Schwarz: the losing side without a trick",
        "result.margin.2.closed": "Schneider at the closing",
        "result.margin.3.closed": "Schwarz at the closing",
        "result.reason.last_trick": "last trick",
        "result.reason.closer_failed": "the closer failed",
        "result.closed": "{name} closed the talon when {other} had {points} points.",
        "result.closed_no_trick": "{name} closed the talon when {other} had no trick yet.",
        "result.bolt": "{name} took no trick: {n} bolts.",
        "result.bolt.one": "{name} took no trick: a bolt.",
        "result.reason.wrong_claim": "wrong claim",
        "result.wrong_claim_by": "{name} claimed 66 without having it",
        "result.reason.made": "contract made",
        "result.reason.failed": "contract lost",
        "result.reason.redeal": "redeal",
        "result.redeal_by": "claimed by {name}: {why}",
        "result.face_down_stock": "Face-down stock, laid-away cards included: {cards} — {points} points to {name} (last trick)",
        "result.redeal.four_nines": "four 9s in the hand",
        "result.redeal.stock_nines": "two 9s in the stock",
        "result.redeal.given_nine": "four 9s with the card given",
        "result.rounded": "The others score their points rounded to 5 (62 → 60, 63 → 65).",
        "result.reached_1000": "{name} reaches 1000 and wins.",
        "result.reached_1000.away": "{name}'s seat reaches 1000, played by the computer: no win for one who walked away.",
        "result.note.bolt_fine": "{name}: the third bolt, fined −{fine}.",
        "result.note.barrel_frozen": "{name} is on the barrel: only a bid above 120 counts there.",
        "result.note.barrel_failed": "{name} failed the bid on the barrel and falls off.",
        "result.note.barrel_won": "{name} made the bid on the barrel: 1000.",
        "result.note.barrel_climbed": "{name} reaches the barrel (880).",
        "result.note.barrel_crowded": "{name} reached the barrel (880) together with another player: both drop back.",
        "result.note.barrel_pushed_off": "{name} is pushed off the barrel.",
        "result.note.barrel_attempts": "{name} had three deals on the barrel and falls off.",
        "result.note.barrel_reset": "{name} falls off the barrel the third time: back to 0.",
        "result.tie_break": "Tie-break won by {winner}: {loser} takes the Bummerl.",
        "result.reason.shown": "shown",
        "result.reason.took_trick": "the declarer took a trick",
        "result.reason.no_trick": "no trick taken",
        "result.reason.lost_trick": "a trick lost",
        "result.reason.under_66": "66 not reached in time",
        "result.reason.all_tricks": "every trick taken",
        "result.match": "Game over! {lines}",
        "result.deal_unfinished": "Deal {deal} was not played out: the match ended with a resignation.",
        "result.winner": "Winner: {names}",
        "record.caption": (
            "The record of table {table} — {game}, finished {day}. Deals: {deals}.\n"
            "Seats in the record (numbered from 0, as in the file): {seats}.\n"
            "Check that every deal was dealt from its published seed: "
            "python -m engine verify {file}; replay it: python -m engine replay {file}"
        ),
        "record.caption_closed": (
            "The record of table {table} — {game}, closed on {day} before its end. Scored deals: {deals}.\n"
            "Seats in the record (numbered from 0, as in the file): {seats}.\n"
            "Check that every deal was dealt from its published seed: "
            "python -m engine verify {file}; replay it: python -m engine replay {file}"
        ),
        "record.none": "No finished match here yet: a record is kept once a match ends.",
        "record.unknown": (
            "No finished match {table} here (a running table has none yet, nor one closed before its first deal was scored)."
        ),
        "record.computer": "computer",
        "record.deleted": "(a deleted player)",
        "record.none_yours": "You have no finished match here yet: a record is kept once a match ends.",
        "result.bummerl_line": "{name}: {n} Bummerl",
        "result.aborted": "Table {table} was closed: {reason}.",
        "result.resigned": "{name} resigned.",
        "result.ended_walked_away": "Ended early: those still playing closed the table after the others walked away, and it counts.",
        "result.walked_away": "Walked away (the computer finished for them, so their side loses): {names}",
        "abort.host": "the host closed it",
        "abort.vote": "its players voted to close it",
        "abort.expired": "nobody started it in time",
        "abort.empty": "every player left",
        "abort.walked_away": "every player walked away (the computer had taken all their seats)",
        "abort.admin": "an admin closed it",
        # timers
        "remind.turn": "{name}, it is your turn ({seconds} s left).",
        "turn.ping": "Your turn at table {table} ({seconds} s).",
        "turn.ping.untimed": "Your turn at table {table}.",
        "remind.replaced": "{name} missed {n} turns; the computer takes the seat. Press “Take my seat back” to return.",
        "remind.replaced.one": "{name} missed a turn; the computer takes the seat. Press “Take my seat back” to return.",
        "remind.back": "{name} is back and plays the seat again.",
        # leaderboard and stats
        "board.title": "Leaderboard — {game} ({scope})",
        "board.page": "Places {first}–{last} of {total} (ask with a page number for the others).",
        "board.no_page": "No players on this page.",
        "board.scope.chat": "this chat",
        "board.scope.server": "this server",
        "board.scope.global": "everywhere",
        "board.row": "{rank}. {name} — rating {rating}, {won}/{games} won, {bummerl} Bummerl",
        "board.row.tausend": "{rank}. {name} — rating {rating}, {won}/{games} won",
        "board.empty": "No rated games yet: only matches against other people count.",
        "stats.title": "Statistics for {name}",
        "stats.row": "{game}: {games} played, {won} won, {bummerl} Bummerl received, {schneider} lost with Schneider, {contracts}{rating}",
        "stats.row.tausend": "{game}: {games} played, {won} won, {contracts}{rating}",
        "stats.contracts": "contracts {made}/{played} made, ",
        "stats.rating": "rating {rating}",
        "stats.unrated": "not rated (only games against other people count)",
        "stats.none": "{name} has no finished games yet.",
        "stats.usage": "/stats shows your statistics in this chat, /stats global those of every chat. For another player's, send /stats as a reply to one of their messages.",
        "forget.done": "Your data is deleted: results, ratings and settings. Running games continue with a computer player in your seat.",
        "forget.partly": "Your seats are given up (in running games a computer plays on), but deleting your results, ratings and settings did not go through. Send /forgetme again in a moment.",
        "confirm.forget": "Delete your data: results, ratings and settings? It cannot be undone.",
        "confirm.forget_playing": "Delete your data: results, ratings and settings? It cannot be undone, and the computer takes your seat in your running games.",
        "settings.title": "Settings for this chat",
        "settings.title.server": "Settings for this server",
        "settings.line": "{key} = {value}",
        "settings.default": "default ({value})",
        "settings.presets": "Presets to choose from (preset.{game}): {presets}.",
        "settings.unknown": "There is no setting {key}. Settings: {keys}; a game's preset and rule options are under its name, e.g. dreier.",
        "settings.unknown_close": "There is no setting {key}. Did you mean {guess}?",
        "settings.unknown_in_game": "There is no setting {key}; {game} has these: {keys}.",
        "settings.games": "A game's preset and rule options: {example}",
        "settings.unknown_option": "There is no setting {key}; a game's rule option goes with its game: {keys}.",
        "setting.choice": "{key} must be one of {allowed} or default",
        "setting.timeout": "turn_timeout must be a number of seconds from 10 to 3600, or default",
        "setting.preset": "unknown preset '{value}' for {game} (presets: {presets}; or default)",
        "setting.option": "unknown option '{key}' (options of {game}: {options})",
        "setting.rule": "{error}",
        "setting.game": "unknown game '{game}' (games: {games})",
        "option.not_object": "rule options are given as name=value",
        "option.unknown": "unknown option '{key}' for {game} (options: {known})",
        "option.bool": "{key} is on or off, not {value}",
        "option.int": "{key} must be a whole number, not {value}",
        "option.str": "{key} must be a word, not {value}",
        "option.choice": "{key} must be one of {allowed}, not {value}",
        "option.invalid": "{detail}",
        "option.nothing": "nothing",
        "setting.unknown_option": "unknown setting '{key}': a game's rule option goes with its game ({keys})",
        "setting.unknown": "unknown setting '{key}' (settings: language, suits, starters, rules, turn_timeout, ai_level, tricks, preset.<game>, <game>.<option>; a game's preset and options are listed under the game's name, e.g. dreier; the value default resets one)",
        "settings.saved": "Saved: {key} = {value}",
        "settings.about.language": "the language the tables here speak (en, de)",
        "settings.about.suits": "card pictures: french (♥ ♦ ♣ ♠) or german (Herz, Schelle, Eichel, Laub)",
        "settings.about.starters": "who may open tables: anyone, or admins only",
        "settings.about.rules": "open: a host may pick a preset and options for his table; fixed: every table here plays the house rules set here",
        "settings.about.turn_timeout": "seconds for a move (10–3600); then the computer plays it",
        "settings.about.ai_level": "how computer players play: random, heuristic or strong",
        "settings.about.tricks": "table: only the last trick and each side's first show, as at a card table; open: every trick and the points so far",
        "settings.saved_later": "It applies to tables opened from now on; tables open now ({n}) keep what they were opened with.",
        "new.one_preset": "One preset at a time (you named {words}); other rules go as name=value, e.g. auto_claim=off.",
        "help.text": (
            "Schnapsen bot — play the Austrian Schnapsen family here.\n"
            "Open a table: /new <game> (zweier, dreier, bauern, tausend), then press Join.\n"
            "Other rules: /new <game> <preset> [option=value …]; /rules <game> describes them,\n"
            "/settings <game> names a game's presets and options (admins set the chat's own).\n"
            "Your hand comes to you privately; play with the buttons.\n"
            "Other commands: /leaderboard, /stats, /rules, /settings (admins), /abort, /resign, /record, /forgetme, /help."
        ),
        "ai.name": "Computer {n}",
    },
    "de": {
        "refuse.malformed": "Dieser Knopf stammt nicht von mir.",
        "refuse.unknown_table": "Dieser Tisch ist geschlossen.",
        "refuse.join_in_chat": "Setz dich mit dem Knopf im Chat des Tisches dazu.",
        "refuse.rematch_players_only": "Nur wer an Tisch {table} gespielt hat, kann die Revanche verlangen; /new öffnet einen eigenen Tisch.",
        "refuse.rematch_in_chat": "Eine Revanche wird im Chat ihrer Partie eröffnet: drück dort auf „Revanche“.",
        "refuse.stale": "Dieser Knopf ist veraltet — bitte die neueste Nachricht verwenden.",
        "refuse.vote_lapsed": "Diese Abstimmung übers Schließen endete mit ihrer Runde; in der neuen Runde fragt /abort noch einmal.",
        "refuse.too_late": "Zu spät: deine Zeit war um, der Computer hat für dich gespielt. Bitte die neueste Nachricht verwenden.",
        "refuse.not_saved": "Das hat nicht geklappt: der Bot konnte es nicht speichern (seine Datenbank ist gerade nicht beschreibbar). Bitte gleich noch einmal versuchen.",
        "refuse.not_seated": "Du spielst an diesem Tisch nicht mit.",
        "refuse.lobby_players_only": "Das können nur die, die an diesem Tisch sitzen: drück zuerst „{join}“.",
        "refuse.not_your_turn": "Du bist nicht an der Reihe.",
        "refuse.illegal": "Nicht erlaubt: {reason}",
        "illegal.must_follow_suit": "du musst Farbe bekennen",
        "illegal.must_beat": "du musst den Stich nehmen, wenn du kannst",
        "illegal.must_trump": "du kannst nicht bedienen, also musst du stechen",
        "refuse.not_in_lobby": "Die Partie hat schon begonnen.",
        "refuse.already_seated": "Du sitzt bereits an diesem Tisch.",
        "refuse.seated_elsewhere": "Du spielst hier schon an einem anderen Tisch.",
        "refuse.seated_elsewhere_at": "Du spielst hier schon an Tisch {table}.",
        "refuse.table_full": "Der Tisch ist voll.",
        "refuse.not_host": "Das kann nur der Gastgeber ({host}).",
        "refuse.not_full": "Vor dem Start müssen alle Plätze besetzt sein.",
        "refuse.no_ai_seat": "Auf diesem Platz sitzt kein Computer.",
        "refuse.seat_taken": "Dieser Platz ist besetzt.",
        "refuse.not_replaced": "Dein Platz wird nicht vom Computer gespielt.",
        "refuse.not_replaced_others": "Dein Platz wird nicht vom Computer gespielt: dieser Knopf ist für {names}.",
        "refuse.vote_when_away": "Der Computer spielt deinen Platz: nimm ihn zuerst zurück („Platz zurücknehmen“), dann stimm für das Schließen des Tisches.",
        "refuse.no_table": "Du hast hier keinen Tisch.",
        "refuse.no_table_named": "Einen Tisch {table} hast du hier nicht.",
        "refuse.which_table": "Hier gibt es mehrere Tische: nenne einen ({tables}).",
        "refuse.not_allowed_to_start": "Hier dürfen nur Admins Tische eröffnen.",
        "refuse.rules_fixed": "Hier gelten für {game} die Hausregeln: {house}. Eröffne einen Tisch ohne Vorlage und Optionen, um sie zu spielen; nur ein Admin ändert sie (in den Einstellungen) oder lässt die Gastgeber wählen (Einstellung rules, Wert open).",
        "rules.game_standard": "die Standardregeln des Spiels",
        "refuse.not_admin": "Nur Admins dürfen die Einstellungen ändern.",
        "refuse.unknown_game": "Unbekanntes Spiel {game}. Spiele: {games}.",
        "refuse.game_first": "Zuerst das Spiel, dann die Optionen: /new <Spiel> {game} (Spiele: {games}).",
        "refuse.bad_options": "Ungültige Regeloptionen: {error}",
        "refuse.bad_setting": "Ungültige Einstellung: {error}",
        "refuse.unknown_preset": "Unbekannte Vorlage {preset}. Vorlagen: {presets}.",
        "refuse.not_playing": "Die Partie läuft nicht.",
        "refuse.vote_in_lobby": "Die Partie hat noch nicht begonnen: nur der Gastgeber ({host}) kann den Tisch jetzt schließen; mit „Aufstehen“ gehst du.",
        "ok.voted": "Deine Stimme zum Schließen des Tisches zählt ({votes}/{needed}); sie gilt bis zum Ende dieser Runde.",
        "refuse.no_such_table": "Hier heißt kein offener Tisch {table} (offen hier: {tables}).",
        "ok.resigned": "Du hast aufgegeben: du verlierst die Partie{rated}.",
        "resign.rated": ", und sie zählt in der Rangliste",
        "ok.resigned.bauern": "Du hast aufgegeben: die Partie ist für dein Team verloren{rated}.",
        "ok.ended_walked_away": "Tisch {table} ist geschlossen, und die Partie zählt: wer ausgestiegen ist, hat sie verloren.",
        "refuse.resign_in_lobby": "Die Partie hat noch nicht begonnen: mit „Aufstehen“ verlässt du den Tisch.",
        "confirm.resign": "Die Partie an Tisch {table} aufgeben? Du verlierst sie dann{rated}.",
        "confirm.resign.bauern": "Die Partie an Tisch {table} aufgeben? Sie ist dann für dein Team verloren{rated}.",
        "refuse.not_your_button": "Dieser Knopf gehört dem, der /resign geschrieben hat.",
        "lobby.title": "{game} — Tisch {table}",
        "lobby.host": "Gastgeber: {host}",
        "lobby.seat_empty": "(frei)",
        "lobby.seat_ai": "{name} (Computer, spielt {level})",
        "table.seat_away": "{name} (der Computer spielt)",
        "lobby.team": "Team {team}",
        "lobby.waiting": "Warte auf Mitspieler: {free} Plätze frei.",
        "lobby.rematch": "Revanche für Tisch {table}: dasselbe Spiel, dieselben Regeln.",
        "lobby.waiting.one": "Warte auf Mitspieler: {free} Platz frei.",
        "lobby.ready": "Alle Plätze besetzt — der Gastgeber kann starten.",
        "lobby.closed": "Dieser Tisch wurde geschlossen.",
        "lobby.rules": "Regeln: {rules}",
        "lobby.expires": "Der Tisch schließt, wenn ihn niemand binnen {minutes} Minuten startet.",
        "lobby.expires.one": "Der Tisch schließt, wenn ihn niemand binnen {minutes} Minute startet.",
        "button.join": "Mitspielen",
        "button.leave": "Aufstehen",
        "button.add_ai": "Computer dazu",
        "button.start": "Start",
        "button.rules": "Regeln",
        "button.sit": "Platz {seat}",
        "button.remove_ai": "{name} entfernen",
        "button.remove_player": "{name} entfernen",
        "button.show_hand": "Meine Karten",
        "button.take_back": "Platz zurücknehmen",
        "button.resign": "Aufgeben",
        "button.rematch": "Revanche",
        "button.forget": "Meine Daten löschen",
        "button.abort_vote": "Auch fürs Schließen stimmen ({votes}/{needed})",
        "table.deal": "Runde {deal} — Geber {dealer}",
        "table.cuts": "{name} hebt ab.",
        "table.knocks": "{name} klopft: nicht abgehoben.",
        "table.trump": "Trumpf: {trump}",
        "table.trump_card": "Aufgedeckter Trumpf: {card}",
        "table.trump_card_exchanged": "Aufgedeckter Trumpf: {card}, getauscht von {name}",
        "table.trump_card_closed": "Trumpfkarte, unter dem zugedrehten Talon: {card}",
        "table.trump_turned": "aufgeschlagen von {name}: {card}",
        "table.sitting_out": "{name} setzt diese Runde aus",
        "table.sitting_out.tausend": "{name} gibt, setzt aus und bekommt die Augen des Stocks",
        "table.talon": "Talon: {n} Karten",
        "table.talon.zero": "Talon: aufgebraucht",
        "table.talon_closed": "Zugedreht von {name}",
        "table.contract": "Spiel: {contract} von {declarer}",
        "result.contract": "{contract} von {declarer}",
        "table.turn": "Am Zug: {name}",
        "table.phase.trump": "Trumpf — {name} wählt",
        "table.phase.bidding": "Lizitieren — {name} ist dran",
        "table.phase.discard": "Talon — {name} nimmt ihn und legt ab",
        "table.phase.discard.tausend": "Ablegen — {name} legt 3 Karten auf den verdeckten Stock",
        "table.phase.doubling": "Spritzen — {name}: {double} oder weiter",
        "table.phase.give": "Abgeben — {name} gibt jedem Gegner eine Karte",
        "table.phase.raise": "Endgebot — {name} sagt es an",
        "table.trick": "Stich: {cards}",
        "table.last_trick": "Letzter Stich: {cards} → {name}",
        "table.tricks_list": "Gespielte Stiche: {tricks}",
        "table.first_tricks": "Erster Stich jeder Seite, offen: {tricks}",
        "table.first_tricks.tausend": "Erster Stich jedes Spielers, offen: {tricks}",
        "table.face_down.tausend": "Verdeckt: der andere Stock und die 3 abgelegten Karten; ihre Augen bekommt, wer den letzten Stich macht.",
        "table.first_tricks.zweier": "Erster Stich jedes Spielers, offen: {tricks}",
        "table.tricks_done": "Stiche: {lines}",
        "table.points": "Augen: {points}",
        "table.scores": "Stand (bis {target}): {scores}",
        "table.scores_down": "Stand, von 24 abwärts: {scores}",
        "table.scores.after": "Stand nach dieser Runde (bis {target}): {scores}",
        "table.scores_down.after": "Stand nach dieser Runde, von 24 abwärts: {scores}",
        "table.bummerl": "Bummerl: {bummerl}",
        "table.schneider": "Schneider",
        "table.retourschneider": "Retourschneider",
        "table.seed_hash": "Fingerabdruck der Runde (SHA-256 der Bytes des Seeds, als Hex gelesen): {hash}",
        "table.tie_break": "Stechen: {a} gegen {b}, eine Runde {game}; der Verlierer bekommt das Bummerl",
        "table.votes": "Stimmen fürs Schließen des Tisches: {votes} von {needed} nötigen",
        "table.seed": "Seed der Runde {deal}: {seed}",
        "table.away": "{name} ist weg — der Computer übernimmt den Platz.",
        "table.bids": "Gebote: {bids}",
        "table.looked": "Karten angesehen",
        "table.blind": "blind",
        "table.without_talon": "ohne Talon",
        "table.raised_from": "(vorher {contract})",
        "table.golden": "(goldene Runde)",
        "table.fell_to_kontra": "({contract} durch Kontra aufgehoben)",
        "table.bolts": "Nuller: {bolts}",
        "table.barrel": "Auf dem Fass: {names}",
        "table.barrel_seat": "{name} (Runde {deal} von {of})",
        "table.barrel_seat.sitting_out": "{name} (setzt diese Runde aus; danach Runde {deal} von {of})",
        "table.barrel_seat.after": "{name} ({used} von {of} Runden gespielt)",
        "table.marriage": "Ansage — {name}: {points} ({suit})",
        "hand.title": "Deine Karten am Tisch {table} — {game}",
        "hand.title_in": "Deine Karten am Tisch {table} in „{place}“ — {game}",
        "hand.cards": "Karten: {cards}",
        "hand.your_turn": "Du bist dran.",
        "hand.forgotten": "Deine Daten wurden gelöscht: du hast den Tisch verlassen, der Computer spielt deinen Platz zu Ende.",
        "hand.high_bid": "Höchstes Gebot: {value}, von {name}",
        "hand.caller_first_pass": "Sag jetzt ein Spiel an oder weiter: bietet nach dir niemand, spielst du das Normalspiel und nimmst den Talon.",
        "hand.caller_first_pass_carinthian": "Sag jetzt ein Spiel an oder weiter: bietet nach dir niemand, spielst du das Normalspiel (der Talon bleibt liegen).",
        "hand.bid_blind": "Deine Karten liegen noch verdeckt: ein Gebot, bevor du sie ansiehst, ist blind und zählt doppelt (bis {limit}).",
        "hand.needs_marriage": "Über {limit} nur mit einem Paar (König und Dame bzw. Ober einer Farbe) in der Hand.",
        "hand.give_each": "Gib jedem der anderen eine Karte (mit den drei aus dem Stock hast du zehn).",
        "hand.must_open": "Du eröffnest das Bieten, und die Eröffnung ist {value}: du darfst nicht passen.",
        "hand.name_trumps": "Sag Trumpf an: eine Farbe deiner drei aufgedeckten Karten — oder schlag eine deiner drei verdeckten Karten auf (ihre Farbe ist Trumpf, alle sehen sie).",
        "hand.bid_rank": "Gebote zählen nach dem Spiel: „ohne Talon“ schlägt nur dasselbe Spiel, und jedes höhere Spiel schlägt es, auch wenn es weniger Punkte bringt.",
        "hand.computer_plays": "Der Computer spielt gerade für dich. Wähl selbst einen Zug oder „{button}“, um wieder selbst zu spielen.",
        "hand.computer_plays_wait": "Der Computer spielt gerade für dich. Drück „{button}“, um wieder selbst zu spielen.",
        "hand.wait": "Warte auf {name}.",
        "hand.match_over": "Die Partie ist vorbei.",
        "hand.closed": "Dieser Tisch wurde geschlossen.",
        "hand.sitting_out": "Du setzt diese Runde aus.",
        "hand.sitting_out.tausend": "Du gibst und setzt aus; die Augen des Stocks zählen für dich.",
        "hand.known": "{name} hat: {cards}",
        "hand.discarded": "Abgelegt: {cards}",
        "hand.received": "Von {name} bekommen: {cards}",
        "hand.talon": "Talon: {cards}",
        "hand.talon.tausend": "Stock: {cards}",
        "hand.pick_second": "Nächste Karte zum Ablegen wählen (bisher: {card}).",
        "hand.pick_contract": "{cards} ablegen: Spiel behalten oder erhöhen.",
        "hand.pick_confirm": "{cards} ablegen?",
        "hand.give_to": "Wer bekommt {card}?",
        "hand.more": "Mehr…",
        "hand.back": "Zurück",
        "act.marriage": "{card} + Zwanziger/Vierziger",
        "act.marriage.20": "{card} + Zwanziger",
        "act.marriage.40": "{card} + Vierziger",
        "act.marriage_claim": "{card} + Zwanziger/Vierziger und aus (66)",
        "act.marriage_claim.20": "{card} + Zwanziger und aus (66)",
        "act.marriage_claim.40": "{card} + Vierziger und aus (66)",
        "act.exchange": "Trumpf-{jack} tauschen",
        "act.close": "Zudrehen",
        "act.claim": "Ich hab 66 (Aus!)",
        "act.trump_suit": "Trumpf: {suit}",
        "act.trump_blind": "Karte {n} aufschlagen",
        "act.redeal": "Neu geben",
        "act.redeal.tausend": "Neu geben (die Neuner)",
        "act.bid_without_talon": "{contract} ohne Talon",
        "act.bid_value": "{value} bieten",
        "act.pass": "Weiter",
        "act.double": "Spritzen",
        "act.double.2": "Retour",
        "act.double.3": "Re",
        "act.double.bauern": "Kontra",
        "act.double.2.bauern": "Rekontra",
        "act.double.3.bauern": "Subkontra",
        "act.marriage.tausend": "{card} + Paar ansagen ({points})",
        "table.phase.doubling.bauern": "Kontra — {name}: {double} oder weiter",
        "act.discard": "{cards} ablegen",
        "act.discard_raise": "{cards} ablegen, {contract} spielen",
        "act.discard_pick": "{card} ablegen…",
        "act.discard_again": "↺ Neu wählen",
        "act.give": "{card} an {name}",
        "act.give_pick": "{card} geben…",
        "act.raise": "Endgebot {value}",
        "act.look": "Karten ansehen",
        "result.deal": "Runde {deal} vorbei: {lines}",
        "result.tie_break_deal": "Runde {deal} (das Stechen) vorbei: {lines}",
        "result.game_points": "{name}: {points}",
        "result.reason.reached_66": "66 erreicht",
        "result.margin.2": "Schneider: die unterlegene Seite unter 33",
        "result.margin.3": "Schwarz: die unterlegene Seite ohne Stich",
        "result.margin.2.closed": "Schneider beim Zudrehen",
        "result.margin.3.closed": "Schwarz beim Zudrehen",
        "result.reason.last_trick": "letzter Stich",
        "result.reason.closer_failed": "Zudrehen misslungen",
        "result.closed": "{name} hat zugedreht, als {other} {points} Augen hatte.",
        "result.closed_no_trick": "{name} hat zugedreht, als {other} noch keinen Stich hatte.",
        "result.bolt": "{name} hat keinen Stich: {n} Nuller.",
        "result.bolt.one": "{name} hat keinen Stich: ein Nuller.",
        "result.reason.wrong_claim": "falsch ausgemeldet",
        "result.wrong_claim_by": "{name} hat ausgemeldet, ohne 66 zu haben",
        "result.reason.made": "Spiel gewonnen",
        "result.reason.failed": "Spiel verloren",
        "result.reason.redeal": "neu gegeben",
        "result.redeal_by": "verlangt von {name}: {why}",
        "result.face_down_stock": "Verdeckter Stock, mit den abgelegten Karten: {cards} — {points} Augen für {name} (letzter Stich)",
        "result.redeal.four_nines": "vier Neuner in der Hand",
        "result.redeal.stock_nines": "zwei Neuner im Stock",
        "result.redeal.given_nine": "vier Neuner mit der erhaltenen Karte",
        "result.rounded": "Die anderen schreiben ihre Augen auf 5 gerundet (62 → 60, 63 → 65).",
        "result.reached_1000": "{name} erreicht 1000 und gewinnt.",
        "result.reached_1000.away": "Der Platz von {name} erreicht 1000, gespielt vom Computer: kein Sieg für jemanden, der ausgestiegen ist.",
        "result.note.bolt_fine": "{name}: der dritte Nuller, Strafe −{fine}.",
        "result.note.barrel_frozen": "{name} sitzt auf dem Fass: dort zählt nur ein Gebot über 120.",
        "result.note.barrel_failed": "{name} hat das Gebot auf dem Fass nicht erfüllt und fällt herunter.",
        "result.note.barrel_won": "{name} hat das Gebot auf dem Fass erfüllt: 1000.",
        "result.note.barrel_climbed": "{name} erreicht das Fass (880).",
        "result.note.barrel_crowded": "{name} hat das Fass (880) zugleich mit einem anderen erreicht: beide fallen zurück.",
        "result.note.barrel_pushed_off": "{name} wird vom Fass gestoßen.",
        "result.note.barrel_attempts": "{name} hatte drei Runden auf dem Fass und fällt herunter.",
        "result.note.barrel_reset": "{name} fällt zum dritten Mal vom Fass: zurück auf 0.",
        "result.tie_break": "Stechen gewonnen von {winner}: {loser} bekommt das Bummerl.",
        "result.reason.shown": "aufgelegt",
        "result.reason.took_trick": "der Spieler hat einen Stich gemacht",
        "result.reason.no_trick": "keinen Stich gemacht",
        "result.reason.lost_trick": "einen Stich abgegeben",
        "result.reason.under_66": "66 nicht rechtzeitig erreicht",
        "result.reason.all_tricks": "alle Stiche gemacht",
        "result.match": "Partie vorbei! {lines}",
        "result.deal_unfinished": "Runde {deal} wurde nicht zu Ende gespielt: die Partie endete mit einer Aufgabe.",
        "result.winner": "Gewonnen: {names}",
        "record.caption": (
            "Das Protokoll von Tisch {table} — {game}, beendet am {day}. Runden: {deals}.\n"
            "Plätze im Protokoll (ab 0 gezählt, wie in der Datei): {seats}.\n"
            "Prüfen, dass jede Runde aus ihrem veröffentlichten Seed gegeben wurde: "
            "python -m engine verify {file}; nachspielen: python -m engine replay {file}"
        ),
        "record.caption_closed": (
            "Das Protokoll von Tisch {table} — {game}, am {day} vor dem Ende geschlossen. Gewertete Runden: {deals}.\n"
            "Plätze im Protokoll (ab 0 gezählt, wie in der Datei): {seats}.\n"
            "Prüfen, dass jede Runde aus ihrem veröffentlichten Seed gegeben wurde: "
            "python -m engine verify {file}; nachspielen: python -m engine replay {file}"
        ),
        "record.none": "Hier ist noch keine Partie beendet: Ein Protokoll gibt es ab dem Ende einer Partie.",
        "record.unknown": (
            "Keine beendete Partie {table} hier (ein laufender Tisch hat noch kein Protokoll, ein vor der ersten gewerteten Runde geschlossener auch nicht)."
        ),
        "record.computer": "Computer",
        "record.deleted": "(gelöschte Person)",
        "record.none_yours": "Du hast hier noch keine beendete Partie: Ein Protokoll gibt es ab dem Ende einer Partie.",
        "result.bummerl_line": "{name}: {n} Bummerl",
        "result.aborted": "Tisch {table} wurde geschlossen: {reason}.",
        "result.resigned": "{name} hat aufgegeben.",
        "result.ended_walked_away": "Vorzeitig beendet: die noch Spielenden haben den Tisch geschlossen, nachdem die anderen ausgestiegen waren; die Partie zählt.",
        "result.walked_away": "Ausgestiegen (der Computer spielte für sie zu Ende, ihre Seite verliert): {names}",
        "abort.host": "der Gastgeber hat ihn geschlossen",
        "abort.vote": "seine Spieler haben fürs Schließen gestimmt",
        "abort.expired": "niemand hat rechtzeitig gestartet",
        "abort.empty": "alle Spieler sind ausgestiegen",
        "abort.walked_away": "alle Spieler sind ausgestiegen (der Computer hatte alle ihre Plätze übernommen)",
        "abort.admin": "ein Admin hat ihn geschlossen",
        "remind.turn": "{name}, du bist dran (noch {seconds} s).",
        "turn.ping": "Du bist dran am Tisch {table} (noch {seconds} s).",
        "turn.ping.untimed": "Du bist dran am Tisch {table}.",
        "remind.replaced": "{name} hat {n} Züge verpasst; der Computer übernimmt. Mit „Platz zurücknehmen“ spielt man wieder selbst.",
        "remind.replaced.one": "{name} hat einen Zug verpasst; der Computer übernimmt. Mit „Platz zurücknehmen“ spielt man wieder selbst.",
        "remind.back": "{name} ist zurück und spielt wieder selbst.",
        "board.title": "Rangliste — {game} ({scope})",
        "board.page": "Plätze {first}–{last} von {total} (mit einer Seitenzahl die anderen).",
        "board.no_page": "Auf dieser Seite ist niemand.",
        "board.scope.chat": "dieser Chat",
        "board.scope.server": "dieser Server",
        "board.scope.global": "überall",
        "board.row": "{rank}. {name} — Wertung {rating}, {won}/{games} gewonnen, {bummerl} Bummerl",
        "board.row.tausend": "{rank}. {name} — Wertung {rating}, {won}/{games} gewonnen",
        "board.empty": "Noch keine gewerteten Partien: nur Partien gegen andere Menschen zählen.",
        "stats.title": "Statistik für {name}",
        "stats.row": "{game}: {games} gespielt, {won} gewonnen, {bummerl} Bummerl erhalten, {schneider} mit Schneider verloren, {contracts}{rating}",
        "stats.row.tausend": "{game}: {games} gespielt, {won} gewonnen, {contracts}{rating}",
        "stats.contracts": "angesagte Spiele {made}/{played} gewonnen, ",
        "stats.rating": "Wertung {rating}",
        "stats.unrated": "ohne Wertung (nur Partien gegen andere Menschen zählen)",
        "stats.none": "{name} hat noch keine beendete Partie.",
        "stats.usage": "/stats zeigt deine Statistik in diesem Chat, /stats global die aus allen Chats. Für die eines anderen: /stats als Antwort auf eine seiner Nachrichten.",
        "forget.done": "Deine Daten sind gelöscht: Ergebnisse, Wertungen, Einstellungen. Laufende Partien spielt der Computer für dich weiter.",
        "forget.partly": "Deine Plätze sind abgegeben (laufende Partien spielt der Computer weiter), aber das Löschen deiner Ergebnisse, Wertungen und Einstellungen hat nicht geklappt. Schick /forgetme gleich noch einmal.",
        "confirm.forget": "Deine Daten löschen: Ergebnisse, Wertungen, Einstellungen? Das lässt sich nicht rückgängig machen.",
        "confirm.forget_playing": "Deine Daten löschen: Ergebnisse, Wertungen, Einstellungen? Das lässt sich nicht rückgängig machen, und in deinen laufenden Partien übernimmt der Computer deinen Platz.",
        "settings.title": "Einstellungen für diesen Chat",
        "settings.title.server": "Einstellungen für diesen Server",
        "settings.saved": "Gespeichert: {key} = {value}",
        "settings.about.language": "die Sprache der Tische hier (en, de)",
        "settings.about.suits": "Kartenbilder: french (♥ ♦ ♣ ♠) oder german (Herz, Schelle, Eichel, Laub)",
        "settings.about.starters": "wer Tische eröffnen darf: anyone (alle) oder admins (nur Admins)",
        "settings.about.rules": "open: der Gastgeber wählt Vorlage und Optionen seines Tisches; fixed: jeder Tisch hier spielt die hier gesetzten Hausregeln",
        "settings.about.turn_timeout": "Sekunden für einen Zug (10–3600), danach spielt der Computer ihn",
        "settings.about.ai_level": "wie Computerspieler spielen: random (zufällig), heuristic (regelbasiert) oder strong (stark)",
        "settings.about.tricks": "table: nur der letzte Stich und der erste jeder Seite liegen offen, wie am Kartentisch; open: alle Stiche und die Augen bisher",
        "settings.saved_later": "Das gilt für Tische, die ab jetzt eröffnet werden; offene Tische ({n}) behalten, womit sie eröffnet wurden.",
        "new.one_preset": "Nur eine Vorlage (genannt: {words}); andere Regeln als Name=Wert, z. B. auto_claim=off.",
        "settings.default": "Standard ({value})",
        "settings.presets": "Vorlagen zur Wahl (preset.{game}): {presets}.",
        "settings.unknown": "Die Einstellung {key} gibt es nicht. Einstellungen: {keys}; Vorlage und Regeloptionen eines Spiels stehen unter seinem Namen, z. B. dreier.",
        "settings.unknown_close": "Die Einstellung {key} gibt es nicht. Meintest du {guess}?",
        "settings.unknown_in_game": "Die Einstellung {key} gibt es nicht; {game} hat diese: {keys}.",
        "settings.games": "Vorlage und Regeloptionen eines Spiels: {example}",
        "settings.unknown_option": "Die Einstellung {key} gibt es nicht; eine Regeloption steht mit ihrem Spiel: {keys}.",
        "setting.choice": "{key} muss einer dieser Werte sein: {allowed} oder Standard",
        "setting.timeout": "turn_timeout muss eine Zahl von Sekunden zwischen 10 und 3600 sein, oder Standard",
        "setting.preset": "unbekannte Vorlage '{value}' für {game} (Vorlagen: {presets}; oder Standard)",
        "setting.option": "unbekannte Option '{key}' (Optionen von {game}: {options})",
        "setting.rule": "{error}",
        "setting.game": "unbekanntes Spiel '{game}' (Spiele: {games})",
        "option.not_object": "Regeloptionen werden als Name=Wert angegeben",
        "option.unknown": "unbekannte Option '{key}' für {game} (Optionen: {known})",
        "option.bool": "{key} ist an oder aus, nicht {value}",
        "option.int": "{key} muss eine ganze Zahl sein, nicht {value}",
        "option.str": "{key} muss ein Wort sein, nicht {value}",
        "option.choice": "{key} muss einer dieser Werte sein: {allowed}; nicht {value}",
        "option.invalid": "{detail}",
        "option.nothing": "nichts",
        "setting.unknown_option": "unbekannte Einstellung '{key}': eine Regeloption steht mit ihrem Spiel ({keys})",
        "setting.unknown": "unbekannte Einstellung '{key}' (alle zeigt /settings allein; Vorlage und Regeloptionen eines Spiels stehen unter seinem Namen, z. B. dreier; der Wert Standard setzt eine zurück)",
        "help.text": (
            "Schnapsen-Bot — hier wird Schnapsen gespielt.\n"
            "Tisch eröffnen: /new <Spiel> (zweier, dreier, bauern, tausend), dann „Mitspielen“ drücken.\n"
            "Andere Regeln: /new <Spiel> <Vorlage> [Option=Wert …]; /rules <Spiel> beschreibt sie,\n"
            "/settings <Spiel> nennt Vorlagen und Optionen eines Spiels (Admins setzen die des Chats).\n"
            "Deine Karten bekommst du privat; gespielt wird mit den Knöpfen.\n"
            "Weitere Befehle: /leaderboard, /stats, /rules, /settings (Admins), /abort, /resign, /record, /forgetme, /help."
        ),
        "ai.name": "Computer {n}",
    },
}


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


def option_error(lang: str | None, error: OptionError) -> str:
    """An engine's refusal of a rule option in the reader's language (the engine's
    own text is English; its code and values say the same)."""
    key = f"option.{error.code}"
    if key not in TEXTS["en"]:
        return str(error)
    values = {
        k: typed(v) if k in ("key", "value") and isinstance(v, str) else v
        for k, v in error.values.items()
    }
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
