"""Short rule summaries for the Rules button and /rules, with the table's options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from engine.bauern import rules as bauern
from engine.dreier import contracts as dreier
from engine.dreier.options import DreierOptions
from engine.dreier.rules import SCHNAPSER_TRICKS as DREIER_SCHNAPSER_TRICKS
from engine.dreier.rules import TRICKS as DREIER_TRICKS
from engine.dreier.rules import enabled_rows, has_talon
from engine.errors import OptionError
from engine.games import game as game_spec
from engine.options import options_to_json
from engine.tricks import Order

from .i18n import (
    contract_name,
    game_name,
    norm_lang,
    option_error,
    preset_name,
    preset_named,
    t,
    typed,
)
from .settings import rule_options, shown_value

SUMMARY = {
    "en": {
        "zweier": "Two players, 20 cards, 5 each, trump turned up under the talon. First to 66 points (card points, and marriages 20/40 once you have a trick) wins 1–3 game points; once the talon is closed or used up, you must follow suit and head the trick if you can, else trump. First to 7 game points wins the match; the loser gets a Bummerl.",
        "dreier": "Three players: the declarer plays alone against two. Forehand names trumps, everyone bids contracts (normal game, Bettler, Schnapser, Gang, ...); the declarer takes the 2-card talon and discards 2. Defenders may double (Spritzen). The match ends when someone reaches 24; the lowest score gets a Bummerl (two with 0 points: Schneider).",
        "bauern": "Four players in two teams (opposite seats). Forehand names trumps; an auction decides the contract; opponents may say Kontra. The team first to 24 wins; the other team gets a Bummerl (two with 0 points: Schneider).",
        "tausend": "Three players, 24 cards. Bid from 100 in steps of 5; the declarer takes the 3-card stock and gives one card to each opponent. Marriages (100/80/60/40) set trumps. First to 1000, via the barrel at 880.",
        "tausend.2": "Two players, 24 cards: 9 each and two stocks of 3. Bid from 100 in steps of 5; the declarer takes one stock and lays 3 cards face down on the other, whose points go to the winner of the last trick. Marriages (100/80/60/40) set trumps. First to 1000, via the barrel at 880.",
        "tausend.4": "Four players, 24 cards: each deal the dealer sits out and scores the stock's points (a marriage in it too); the other three play as three do. Bid from 100 in steps of 5; the declarer takes the 3-card stock and gives one card to each opponent. Marriages (100/80/60/40) set trumps. First to 1000, via the barrel at 880.",
    },
    "de": {
        "zweier": "Zwei Spieler, 20 Karten, je 5, Trumpf liegt offen unter dem Talon. Wer zuerst 66 Augen hat (Zwanziger/Vierziger zählen ab dem ersten Stich), gewinnt 1–3 Punkte; nach dem Zudrehen oder wenn der Talon aufgebraucht ist, gilt Farb- und Stichzwang. Wer zuerst 7 Punkte hat, gewinnt die Partie; der Verlierer bekommt ein Bummerl.",
        "dreier": "Drei Spieler: einer spielt allein gegen zwei. Vorhand ruft Trumpf, alle lizitieren Spiele (Normalspiel, Bettler, Schnapser, Gang, ...); der Spieler nimmt den Talon und legt 2 Karten ab. Die Gegner können spritzen. Die Partie endet, sobald jemand 24 Punkte hat; wer am wenigsten hat, bekommt ein Bummerl (mit 0 Punkten zwei: Schneider).",
        "bauern": "Vier Spieler in zwei Teams (gegenüber). Vorhand ruft Trumpf, dann wird lizitiert; die Gegner können Kontra geben. Das Team, das zuerst 24 Punkte hat, gewinnt; das andere bekommt ein Bummerl (mit 0 Punkten zwei: Schneider).",
        "tausend": "Drei Spieler, 24 Karten. Geboten wird ab 100 in Fünferschritten; der Spieler nimmt den Stock und gibt jedem Gegner eine Karte. Paare (100/80/60/40) bestimmen Trumpf. Es gewinnt, wer zuerst 1000 hat – über das Fass bei 880.",
        "tausend.2": "Zwei Spieler, 24 Karten: je 9 und zwei Stöcke zu 3. Geboten wird ab 100 in Fünferschritten; der Spieler nimmt einen Stock und legt 3 Karten verdeckt auf den anderen, dessen Augen der Sieger des letzten Stichs bekommt. Paare (100/80/60/40) bestimmen Trumpf. Es gewinnt, wer zuerst 1000 hat – über das Fass bei 880.",
        "tausend.4": "Vier Spieler, 24 Karten: in jeder Runde setzt der Geber aus und bekommt die Augen des Stocks (auch ein Paar darin); die anderen drei spielen wie zu dritt. Geboten wird ab 100 in Fünferschritten; der Spieler nimmt den Stock und gibt jedem Gegner eine Karte. Paare (100/80/60/40) bestimmen Trumpf. Es gewinnt, wer zuerst 1000 hat – über das Fass bei 880.",
    },
}

#: What a Thousand player meets in every deal, whatever the number of players: why a
#: bid may be refused, when a marriage may be declared, how a deal is scored.
_TAUSEND_MORE = {
    "en": (
        " Bids above 120 need a marriage in hand; a marriage is declared by leading its"
        " King or Queen once you have taken a trick. The declarer scores + or − his final"
        " bid, the others their points rounded to 5; no trick is a bolt, the third costs"
        " 120. On the barrel you have three deals to make a bid above 120. Four 9s in a"
        " hand (the declarer: two in the stock) may be dealt again."
    ),
    "de": (
        " Über 120 bieten darf nur, wer ein Paar hält; ein Paar wird angesagt, indem man"
        " König oder Dame (Ober) ausspielt, sobald man einen Stich hat. Der Spieler bekommt"
        " sein Endgebot gutgeschrieben oder abgezogen, die anderen ihre Augen auf 5 gerundet; ohne Stich"
        " gibt es einen Nuller, der dritte kostet 120. Auf dem Fass hat man drei Runden,"
        " um ein Gebot über 120 zu erfüllen. Mit vier Neunern in der Hand (der Spieler:"
        " zwei im Stock) darf neu gegeben werden."
    ),
}
for _lang, _more in _TAUSEND_MORE.items():
    for _key in ("tausend", "tausend.2", "tausend.4"):
        SUMMARY[_lang][_key] += _more


#: What each rule option means, for players reading a table's rules (the ids are for
#: admins' /settings).  A test checks that every option of every game has its line.
OPTION_TEXT = {
    "en": {
        "auto_claim": "66 is claimed for you the moment you have it",
        "zweier.schneider": "a loser without a game point gets two Bummerl (Schneider)",
        "dreier.without_talon": "contracts may be bid without the talon (+1)",
        "dreier.raise_after_talon": "the declarer may raise when he discards",
        "dreier.caller_first": "forehand announces or passes before the others bid",
        "dreier.carinthian": "Carinthian: no talon in the normal game and the Bettler",
        "dreier.count_down": "scores count down from 24",
        "dreier.cut_ritual": "middlehand cuts or knocks before the deal",
        "dreier.assenbettler": "the Assenbettler may be bid",
        "dreier.assbettler": "the Ass-Bettler may be bid",
        "dreier.plauderer": "the Plauderer may be bid",
        "dreier.zehnergang": "the Zehnergang may be bid",
        "dreier.bauernloch": "the Bauernloch may be bid",
        "bauern.bettler": "the Bettler may be bid",
        "bauern.bettler_partner_plays": "the Bettler's partner plays instead of sitting out",
        "bauern.bettler_points": "game points of a Bettler",
        "bauern.kontra_beats_bettler": "a Kontra on the normal game annuls a Bettler of forehand's team",
        "bauern.assbettler": "the Ass-Bettler may be bid",
        "bauern.zehnergang": "the Zehnergang may be bid",
        "tausend.players": "players",
        "tausend.golden_round": "golden round: until everyone has dealt once, forehand plays 120 without bidding, everything doubled",
        "tausend.blind_bid": "bids before looking at the cards count double",
        "tausend.barrel_fine": "the barrel's fine",
    },
    "de": {
        "auto_claim": "man meldet sich automatisch aus, sobald man 66 hat",
        "zweier.schneider": "wer keinen Punkt hat, bekommt zwei Bummerl (Schneider)",
        "dreier.without_talon": "Spiele dürfen ohne Talon angesagt werden (+1)",
        "dreier.raise_after_talon": "der Spieler darf beim Ablegen erhöhen",
        "dreier.caller_first": "Vorhand sagt an oder passt, bevor die anderen bieten",
        "dreier.carinthian": "Kärntner Art: kein Talon im Normalspiel und beim Bettler",
        "dreier.count_down": "die Punkte zählen von 24 abwärts",
        "dreier.cut_ritual": "Mittelhand hebt ab oder klopft vor dem Geben",
        "dreier.assenbettler": "Assenbettler darf angesagt werden",
        "dreier.assbettler": "Ass-Bettler darf angesagt werden",
        "dreier.plauderer": "Plauderer darf angesagt werden",
        "dreier.zehnergang": "Zehnergang darf angesagt werden",
        "dreier.bauernloch": "Bauernloch darf angesagt werden",
        "bauern.bettler": "Bettler darf angesagt werden",
        "bauern.bettler_partner_plays": "der Partner des Bettlers spielt mit, statt auszusetzen",
        "bauern.bettler_points": "Punkte eines Bettlers",
        "bauern.kontra_beats_bettler": "Kontra aufs Normalspiel hebt einen Bettler der Vorhand-Partei auf",
        "bauern.assbettler": "Ass-Bettler darf angesagt werden",
        "bauern.zehnergang": "Zehnergang darf angesagt werden",
        "tausend.players": "Spieler",
        "tausend.golden_round": "Goldene Runde: bis jeder einmal gegeben hat, spielt die Vorhand 120 ohne Lizitieren, alles doppelt",
        "tausend.blind_bid": "Gebote ohne Kartenansehen zählen doppelt",
        "tausend.barrel_fine": "Strafe auf dem Fass",
    },
}


#: The words of the contract list: what the declarer must do (``goal.*``), who may bid
#: (``who.*``), what he must hold (``hold.*``) and how the contract differs from the
#: normal game (``tag.*``).  Which words a contract gets is read from the engine's
#: contract tables, so the list cannot drift from the rules the engine plays.
CONTRACT_TEXT = {
    "en": {
        "header": "Contracts, lowest first (game points):",
        "goal.game": "first to 66, else the last trick",
        "goal.no_trick": "take no trick",
        "goal.all_tricks": "take all {n} tricks",
        "goal.schnapser": "take every trick till 66, within {n}",
        "goal.shown": "wins when shown",
        "who.forehand": "forehand only",
        "who.not_forehand": "not forehand",
        "who.forehand_team": "forehand or partner",
        "who.opponents": "forehand's opponents",
        "hold.ace": "with an Ace",
        "hold.suit": "with a whole suit",
        "hold.trumps": "with all trumps",
        "tag.no_trumps": "no trumps",
        "tag.ace_low": "Ace lowest",
        "tag.no_talon": "no talon",
        "tag.open_hand": "hand shown after trick 1",
        "tag.partner_out": "partner sits out",
    },
    "de": {
        "header": "Spiele, vom niedrigsten an (Punkte):",
        "goal.game": "zuerst 66, sonst der letzte Stich",
        "goal.no_trick": "kein Stich",
        "goal.all_tricks": "alle {n} Stiche",
        "goal.schnapser": "jeden Stich, 66 in höchstens {n} Stichen",
        "goal.shown": "gewinnt beim Auflegen",
        "who.forehand": "nur Vorhand",
        "who.not_forehand": "nicht Vorhand",
        "who.forehand_team": "Vorhand oder Partner",
        "who.opponents": "Gegner der Vorhand",
        "hold.ace": "mit einem Ass",
        "hold.suit": "mit einer ganzen Farbe",
        "hold.trumps": "mit allen Trümpfen",
        "tag.no_trumps": "ohne Trumpf",
        "tag.ace_low": "Ass als kleinste Karte",
        "tag.no_talon": "ohne Talon",
        "tag.open_hand": "Karten offen ab dem 2. Stich",
        "tag.partner_out": "Partner setzt aus",
    },
}


class Line(NamedTuple):
    """One contract of the list before it is put in words."""

    contract: str
    value: str
    #: The ``goal.*`` key, and the number of tricks its text names.
    goal: str
    tricks: int
    #: The ``who.*``, ``hold.*`` and ``tag.*`` keys, in the order they are read.
    terms: tuple[str, ...]


#: The normal game's value: 1, 2 or 3 by the losers' points and tricks (RULES.md §3, §4).
NORMAL_VALUE = "1–3"

_DREIER_GOAL = {
    dreier.Goal.GAME: ("goal.game", 0),
    dreier.Goal.NO_TRICK: ("goal.no_trick", 0),
    dreier.Goal.ALL_TRICKS: ("goal.all_tricks", DREIER_TRICKS),
    dreier.Goal.SCHNAPSER: ("goal.schnapser", DREIER_SCHNAPSER_TRICKS),
}
_DREIER_WHO = {
    dreier.Who.ANY: (),
    dreier.Who.FOREHAND: ("who.forehand",),
    dreier.Who.NOT_FOREHAND: ("who.not_forehand",),
}
_DREIER_HOLDING = {
    dreier.Holding.NONE: (),
    dreier.Holding.ACE: ("hold.ace",),
    dreier.Holding.SUIT: ("hold.suit",),
    dreier.Holding.TRUMPS: ("hold.trumps",),
}


def _dreier_lines(opts: DreierOptions) -> list[Line]:
    lines = []
    for row in enabled_rows(opts):
        c = dreier.CONTRACTS[row]
        goal, n = _DREIER_GOAL[c.goal]
        tags = [*_DREIER_WHO[c.who], *_DREIER_HOLDING[c.holding]]
        tags += _play_tags(c.trumps, c.order)
        if not has_talon(opts, c):
            tags.append("tag.no_talon")
        if c.open_hand:
            tags.append("tag.open_hand")
        value = NORMAL_VALUE if c.goal is dreier.Goal.GAME else str(c.points)
        lines.append(Line(c.id, value, goal, n, tuple(tags)))
    return lines


_BAUERN_GOAL = {
    bauern.Kind.NORMAL: ("goal.game", 0),
    bauern.Kind.BETTLER: ("goal.no_trick", 0),
    bauern.Kind.ALL_TRICKS: ("goal.all_tricks", bauern.TRICKS),
    bauern.Kind.SCHNAPSER: ("goal.schnapser", bauern.SCHNAPSER_TRICKS),
    bauern.Kind.SHOWN: ("goal.shown", 0),
}
_BAUERN_WHO = {
    bauern.ANY: (),
    bauern.FOREHAND: ("who.forehand",),
    bauern.NOT_FOREHAND: ("who.not_forehand",),
    bauern.FOREHAND_TEAM: ("who.forehand_team",),
    bauern.OPPONENTS: ("who.opponents",),
}
_BAUERN_HOLDING = {
    bauern.Holding.NONE: (),
    bauern.Holding.ACE: ("hold.ace",),
    bauern.Holding.FULL_SUIT: ("hold.suit",),
    bauern.Holding.ALL_TRUMPS: ("hold.trumps",),
}


def _bauern_lines(opts: bauern.BauernOptions) -> list[Line]:
    lines = []
    for c in bauern.CONTRACTS:
        if not bauern.enabled(c, opts):
            continue
        goal, n = _BAUERN_GOAL[c.kind]
        tags = [*_BAUERN_WHO[c.bidders], *_BAUERN_HOLDING[c.holding]]
        if c.kind != bauern.Kind.SHOWN:  # a shown contract is not played out
            tags += _play_tags(c.trumps, c.order)
        if c.partner_sits_out and not opts.bettler_partner_plays:
            tags.append("tag.partner_out")
        normal = c.kind == bauern.Kind.NORMAL
        value = NORMAL_VALUE if normal else str(bauern.value(c, opts))
        lines.append(Line(c.id, value, goal, n, tuple(tags)))
    return lines


def _play_tags(trumps: bool, order: Order) -> list[str]:
    """How the cards are played, where it is not the normal game's way."""
    tags = [] if trumps else ["tag.no_trumps"]
    if order is Order.ACE_LOW:
        tags.append("tag.ace_low")
    return tags


#: The games whose contracts a player bids by name, and their table's lines.
CONTRACT_LINES: dict[str, Callable[[Any], list[Line]]] = {
    "dreier": _dreier_lines,
    "bauern": _bauern_lines,
}


def contract_values(game: str, options: dict[str, Any] | None) -> dict[str, str]:
    """What each contract the table's options allow is worth, as its list says it
    ("4", or "1–3" for the normal game): the bidding buttons show it, since a bid is
    chosen by what it wins.  Empty for a game without named contracts."""
    lines_of = CONTRACT_LINES.get(game)
    if lines_of is None:
        return {}
    return {line.contract: line.value for line in lines_of(game_spec(game).parse_options(options))}


def without_talon_value(value: str) -> str:
    """A contract's value played without the talon: one game point more (RULES.md §3)."""
    if value == NORMAL_VALUE:
        return "2–4"
    return str(int(value) + 1) if value.isdigit() else value


def _contract_list(game: str, lg: str, options: dict[str, Any] | None) -> str:
    """The contracts the table's options let players bid, in bidding order, each with
    its value and what it takes: the bidding buttons name them and nothing else says
    what they are.  Empty for a game without named contracts."""
    lines_of = CONTRACT_LINES.get(game)
    if lines_of is None:
        return ""
    words = CONTRACT_TEXT.get(lg, CONTRACT_TEXT["en"])
    out = [words["header"]]
    for line in lines_of(game_spec(game).parse_options(options)):
        what = words[line.goal].format(n=line.tricks)
        if line.terms:
            what += "; " + ", ".join(words[k] for k in line.terms)
        out.append(f"• {contract_name(line.contract, lg)} ({line.value}): {what}")
    return "\n".join(out)


def rules_summary(
    game: str,
    lang: str | None,
    options: dict[str, Any] | None = None,
    *,
    contracts: bool = True,
    standard: bool = False,
    changed: str | None = None,
) -> str:
    """A game's rules in short, its contracts and the table's options.  `contracts`
    False leaves the contract list out, for an overview of every game that must fit
    one message (Discord takes 2,000 characters); `standard`, without a table's
    options: the game's options as the standard rules set them (a game asked for by
    name), each with the name a host or an admin types.  `changed`: how the reader
    changes them, where a chat's way (a table's options, /settings) is none of his
    (the terminal has no settings)."""
    lg = norm_lang(lang)
    key = game
    players = (options or {}).get(f"{game}.players")
    if players is not None and f"{game}.{players}" in SUMMARY["en"]:
        key = f"{game}.{players}"  # Thousand for two or four is another game to read
    text = SUMMARY.get(lg, SUMMARY["en"]).get(key) or SUMMARY["en"].get(key, game)
    lines = [game_name(game, lg), text]
    listed = _contract_list(game, lg, options) if contracts else ""
    if listed:
        lines.append(listed)
    described = OPTION_TEXT.get(lg, OPTION_TEXT["en"])
    if options:
        lines.append("Options:" if lg == "en" else "Optionen:")
        for key, value in sorted(options.items()):
            what = described.get(key) or OPTION_TEXT["en"].get(key, key)
            lines.append(f"• {what}: {shown_value(value, lg)}")
    elif standard:
        rules = options_to_json(game_spec(game).parse_options({}), game)
        if changed is None:
            changed = (
                "a table's options or the settings here change them"
                if lg == "en"
                else "Tisch-Optionen oder die Einstellungen hier ändern sie"
            )
        standard_rules = (
            "Options, as the standard rules set them"
            if lg == "en"
            else "Optionen, wie die Standardregeln sie setzen"
        )
        lines.append(f"{standard_rules} ({changed}):")
        for key, value in sorted(rules.items()):
            what = described.get(key) or OPTION_TEXT["en"].get(key, key)
            lines.append(f"• {what} ({key.removeprefix(game + '.')}): {shown_value(value, lg)}")
        presets = [preset_name(p, lg) for p in game_spec(game).presets if p != "standard"]
        if presets:
            # what may follow the game's name (`/new dreier carinthian`), by its id
            lines.append(("Presets: " if lg == "en" else "Vorlagen: ") + ", ".join(presets))
    return "\n".join(lines)


def asked_rules(game_id: str, words: list[str], options: dict[str, str], lang: str | None) -> str:
    """`/rules <game> [preset] [name=value …]`: the game's standard rules with that
    preset and those options (read as `/new` reads them; a chat's own defaults are
    not added), or why there are none — a preset or an option the game does not have
    is said, not dropped for the standard rules."""
    spec = game_spec(game_id)
    if len(words) > 1:
        return t(lang, "new.one_preset", words=", ".join(words))
    preset = (preset_named(words[0], tuple(spec.presets)) or words[0].lower()) if words else None
    if preset is not None and preset not in spec.presets:
        return t(
            lang, "refuse.unknown_preset", preset=typed(preset), presets=", ".join(spec.presets)
        )
    if preset is None and not options:
        return rules_summary(game_id, lang, standard=True)
    raw = {**spec.presets.get(preset or "", {}), **rule_options(game_id, options)}
    try:
        chosen = spec.parse_options(raw)
    except OptionError as e:
        return t(lang, "refuse.bad_options", error=option_error(lang, e, game_id))
    return rules_summary(game_id, lang, options_to_json(chosen, game_id))
