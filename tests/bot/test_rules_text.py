"""The rules text lists the contracts a player can bid, in both languages: each with
its value and what it takes, only those the table's options allow, short enough for
a narrow terminal and a Discord message."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from adapters.discord.render import MAX_CONTENT
from bot.i18n import contract_name
from bot.rules_text import rules_summary
from engine.bauern import rules as bauern
from engine.dreier import CONTRACTS as DREIER_CONTRACTS
from engine.dreier.rules import enabled_rows
from engine.games import available, game
from engine.options import options_to_json

from .fakechat import Bot, button, open_table, users

#: RULES.md §3 and §4: the contracts played under default options, in bidding order,
#: with their game points.
DEFAULT_CONTRACTS = {
    "dreier": {
        "normal": "1–3",
        "bettler": "4",
        "schnapser": "6",
        "gang": "9",
        "bauernschnapser": "12",
        "kontraschnapser": "12",
        "farbenringerl": "18",
        "kontrabauernschnapser": "24",
        "herrenschnapser": "24",
    },
    "bauern": {
        "normal": "1–3",
        "bettler": "4",
        "schnapser": "6",
        "gang": "9",
        "kontraschnapser": "12",
        "bauernschnapser": "12",
        "farbengang": "18",
        "kontrabauernschnapser": "24",
        "herrenschnapser": "24",
    },
}

#: The optional contracts (RULES.md: *option*), their option id and value.
OPTIONAL_CONTRACTS = [
    ("dreier", "assenbettler", "dreier.assenbettler", "5"),
    ("dreier", "assbettler", "dreier.assbettler", "5"),
    ("dreier", "plauderer", "dreier.plauderer", "7"),
    ("dreier", "zehnergang", "dreier.zehnergang", "10"),
    ("dreier", "bauernloch", "dreier.bauernloch", "12"),
    ("bauern", "assbettler", "bauern.assbettler", "5"),
    ("bauern", "zehnergang", "bauern.zehnergang", "10"),
]

GAMES = sorted(DEFAULT_CONTRACTS)
LANGS = ["en", "de"]

#: A contract's line: "• Name (value): what it takes".
LINE = re.compile(r"^• (?P<name>.+?) \((?P<value>[\d–]+)\): (?P<what>.+)$")

#: Words that give English away in the German list, and German ones in the English.
ENGLISH = "the and of no all every trick tricks take with only not forehand trumps Ace "
ENGLISH += "lowest talon shown after wins opponents partner sits out whole suit first else"
GERMAN = "der die das und kein alle jeden Stich Stiche nur nicht Vorhand Trumpf Trümpfen "
GERMAN += "mit ohne Ass Karten offen Gegner setzt aus zuerst sonst Spiele Punkte"


def table_options(game_id: str, **changed: object) -> dict[str, Any]:
    """A table's options JSON, as the core passes it: every option, some changed."""
    return options_to_json(game(game_id).parse_options(changed), game_id)


def listed(text: str, lang: str) -> dict[str, str]:
    """Contract id → value, for each contract line of a rules text, in its order."""
    ids = {contract_name(cid, lang): cid for c in DEFAULT_CONTRACTS.values() for cid in c}
    ids |= {contract_name(cid, lang): cid for _, cid, _, _ in OPTIONAL_CONTRACTS}
    out = {}
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out[ids[m["name"]]] = m["value"]
    return out


def contract_lines(text: str) -> dict[str, str]:
    """Contract name → what its line says it takes."""
    return {m["name"]: m["what"] for line in text.splitlines() if (m := LINE.match(line))}


def engine_contracts(game_id: str, options: dict[str, Any]) -> set[str]:
    """What the engine lets players bid under these options (before their cards)."""
    opts = game(game_id).parse_options(options)
    if game_id == "dreier":
        return {DREIER_CONTRACTS[row].id for row in enabled_rows(opts)}
    return {c.id for c in bauern.CONTRACTS if bauern.enabled(c, opts)}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", GAMES)
def test_every_contract_a_player_may_bid_is_listed_with_its_value(game_id: str, lang: str) -> None:
    """With the table's options and with none (``/rules dreier``), every contract the
    bidding buttons offer is listed, in bidding order, with its game points."""
    expected = DEFAULT_CONTRACTS[game_id]
    assert engine_contracts(game_id, {}) == set(expected)
    for options in (None, table_options(game_id)):
        text = rules_summary(game_id, lang, options)
        assert list(listed(text, lang).items()) == list(expected.items()), text


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("game_id", "contract", "option", "value"), OPTIONAL_CONTRACTS)
def test_an_optional_contract_is_listed_only_when_its_option_is_on(
    game_id: str, contract: str, option: str, value: str, lang: str
) -> None:
    off = rules_summary(game_id, lang, table_options(game_id))
    assert contract not in listed(off, lang)
    on_options = table_options(game_id, **{option: True})
    assert contract in engine_contracts(game_id, on_options)
    on = listed(rules_summary(game_id, lang, on_options), lang)
    assert on[contract] == value
    assert set(on) == set(DEFAULT_CONTRACTS[game_id]) | {contract}


@pytest.mark.parametrize("lang", LANGS)
def test_bauern_bettler_follows_its_options(lang: str) -> None:
    """Without the Bettler it is not listed; its value is the table's."""
    none = rules_summary("bauern", lang, table_options("bauern", **{"bauern.bettler": False}))
    assert "bettler" not in listed(none, lang)
    five = rules_summary("bauern", lang, table_options("bauern", **{"bauern.bettler_points": 5}))
    assert listed(five, lang)["bettler"] == "5"


@pytest.mark.parametrize(
    ("lang", "what"),
    [
        ("en", {"Bettler": "take no trick", "Gang": "take all", "Schnapser": "till 66"}),
        ("de", {"Bettler": "kein Stich", "Gang": "alle", "Schnapser": "66 in höchstens"}),
    ],
)
@pytest.mark.parametrize("game_id", GAMES)
def test_each_contract_says_what_it_takes_and_who_may_bid(
    game_id: str, lang: str, what: dict[str, str]
) -> None:
    lines = contract_lines(rules_summary(game_id, lang))
    for name, words in what.items():
        assert words in lines[name], (name, lines[name])
    tricks = {"dreier": "6", "bauern": "5"}[game_id]
    assert tricks in lines["Gang"]
    forehand_only = "forehand only" if lang == "en" else "nur Vorhand"
    assert forehand_only in lines[contract_name("normal", lang)]
    not_forehand = {
        ("dreier", "en"): "not forehand",
        ("dreier", "de"): "nicht Vorhand",
        ("bauern", "en"): "forehand's opponents",
        ("bauern", "de"): "Gegner der Vorhand",
    }[game_id, lang]
    assert not_forehand in lines["Kontrabauernschnapser"]
    assert not_forehand not in lines["Gang"]  # anyone may bid it: nothing said


@pytest.mark.parametrize("lang", LANGS)
def test_carinthian_tables_say_which_contracts_are_played_without_talon(lang: str) -> None:
    no_talon = "no talon" if lang == "en" else "ohne Talon"
    plain = contract_lines(rules_summary("dreier", lang, table_options("dreier")))
    assert not [name for name, what in plain.items() if no_talon in what]
    carinthian = table_options("dreier", **{"dreier.carinthian": True})
    lines = contract_lines(rules_summary("dreier", lang, carinthian))
    without = [name for name, what in lines.items() if no_talon in what]
    assert without == [contract_name("normal", lang), "Bettler"]


def every_option_on(game_id: str) -> dict[str, Any]:
    options = table_options(game_id)
    return {k: True if isinstance(v, bool) else v for k, v in options.items()}


def foreign(lang: str) -> Callable[[str], list[str]]:
    words = (ENGLISH if lang == "de" else GERMAN).split()
    pattern = re.compile(r"(?<![\w'-])(" + "|".join(map(re.escape, words)) + r")(?![\w'-])")
    return pattern.findall


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", GAMES)
def test_the_contract_list_is_in_the_reader_s_language(game_id: str, lang: str) -> None:
    text = rules_summary(game_id, lang, every_option_on(game_id))
    lines = [line for line in text.splitlines() if LINE.match(line)]
    assert len(lines) > len(DEFAULT_CONTRACTS[game_id])
    for line in lines:
        assert not foreign(lang)(line), line


@pytest.mark.parametrize("lang", LANGS)
def test_rules_fit_a_terminal_line_and_a_discord_message(lang: str) -> None:
    """Each contract is one line of a classic terminal; a table's whole rules, with
    every contract and option on, fit one Discord message (its Rules button), and so
    does the overview of every game without the contract lists."""
    for game_id in available():
        text = rules_summary(game_id, lang, every_option_on(game_id))
        assert len(text) < MAX_CONTENT - 100, (game_id, len(text))
        for line in text.splitlines():
            if LINE.match(line):
                assert len(line) <= 82, line
    overview = "\n\n".join(rules_summary(g, lang, contracts=False) for g in available())
    assert len(overview) < MAX_CONTENT - 100
    assert not LINE.search(overview)


async def test_the_rules_button_lists_the_table_s_contracts(bot: Bot) -> None:
    """The lobby's Rules button answers with the table's contracts, optional ones
    included when the table plays them."""
    host = bot.player(users(1, lang="de")[0])
    options = {"bauern.zehnergang": True}
    tid = await open_table(bot, "bauern", [host], options=options, start=False)
    rules = await host.press(button(bot.fc.lobbies[tid].message, "ru"))
    # its code: Telegram sends a summary too long for an alert to his private chat
    assert rules.ok and rules.code == "rules" and rules.text
    assert "• Kontrabauernschnapser (24): alle 5 Stiche; Gegner der Vorhand" in rules.text
    assert listed(rules.text, "de")["zehnergang"] == "10"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("players", "says"), [(2, ("9", "3")), (3, ()), (4, ())])
def test_thousand_for_two_or_four_is_described_as_it_is_played(
    lang: str, players: int, says: tuple[str, ...]
) -> None:
    """Two players hold 9 cards and have two stocks; with four the dealer sits out:
    a table of either reads its own game, not the three-player one."""
    text = rules_summary("tausend", lang, {"tausend.players": players})
    first = text.splitlines()[1]
    count = {2: ("Two players", "Zwei Spieler"), 3: ("Three", "Drei"), 4: ("Four", "Vier")}
    assert first.startswith(count[players][lang == "de"]), first
    assert all(s in first for s in says)
    assert ("sits out" in first or "setzt" in first) == (players == 4), first
