"""What players read, in both languages: whole matches rendered in German and in
English, read for words of the other language and for "card(s)"-style placeholders;
and every text catalog checked for a German text for each English one, with the same
fields to fill in."""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping

import pytest

from adapters.discord import texts as discord_texts
from adapters.local import texts as local_texts
from adapters.telegram import texts as telegram_texts
from bot import i18n, option_names, rules_text
from bot.i18n import SUIT_STYLES
from engine.games import available

from .fakechat import CHAT, Bot, button, open_table, play_out, users
from .policies import ai_for, policy_for


def _words(text: str) -> list[str]:
    return text.split()


#: Words that give English away in a German text (whole words, case as written), and
#: German ones in an English text.  Terms of art both languages share (Bummerl, Kontra,
#: Talon, Team, Start, Computer, the contracts) are in neither list.
ENGLISH = _words(
    "the and of to by card cards trick tricks Trick Tricks Score Deal dealer Waiting Your "
    "your turn Pass Bid Bids Trumps Contract over reached Join Leave Rules seat seats free "
    "computer AI Double Marriage Last First won lost Options yes no players"
)
GERMAN = _words(
    "der die das und von ist dran Karte Karten Stich Stiche Trumpf Runde Geber Warte "
    "Gastgeber Mitspielen Zudrehen Weiter Spiel Spiele Gebot Gebote Tisch Stand Augen "
    "Platz Plätze frei Regeln Meldung Normalspiel Optionen ja nein"
)


def foreign_words(lang: str) -> re.Pattern[str]:
    """Any word of the other language's list, standing alone."""
    words = ENGLISH if lang == "de" else GERMAN
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, words)) + r")(?![\w-])")


#: "card(s)", "Karte(n)": a plural left for the reader to pick; "0 cards": a talon
#: that is used up says so.
PLACEHOLDER = re.compile(r"\w\([a-z]{1,2}\)|\b0 (?:cards|Karten)\b")


async def _match_texts(bot: Bot, game_id: str, lang: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """Everything two `lang` players see of a whole match in a `lang` chat: the lobby
    (with a seat free), the rules, the table messages, every hand and its buttons, the
    results."""
    host, guest = users(2, lang=lang)
    assert (await bot.svc.update_setting(CHAT, host, "language", lang, is_admin=True)).ok
    ai = ai_for(game_id, bot.svc)
    if ai is not None:
        monkeypatch.setattr("bot.service.choose_action", ai)
    humans = [bot.player(u, policy_for(game_id)) for u in (host, guest)]
    tid = await open_table(bot, game_id, humans, start=False)
    rules = await humans[0].press(button(bot.fc.lobbies[tid].message, "ru"))
    assert rules.ok and rules.text
    await humans[0].press(button(bot.fc.lobbies[tid].message, "st"))
    await play_out(bot.fc, tid, humans)
    assert bot.fc.kinds(tid)[-1] == "finished"
    messages = [p.message for p in bot.fc.channel] + [h.message for h in bot.fc.hand_history]
    parts = [rules.text]
    for m in messages:
        parts.append(m.text)
        parts.extend(b.label for b in m.all_buttons())
    return "\n".join(parts)


@pytest.mark.parametrize("lang", ["de", "en"])
async def test_a_match_reads_in_one_language_without_placeholders(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, lang: str
) -> None:
    """A German player meets no English word (and an English one no German word) in
    any game, with either deck, and no "Karte(n)"-style plural: counts are written out
    for 0, 1 and more."""
    word = foreign_words(lang)
    bot = await make_bot().start()
    try:
        admin = users(1)[0]
        for i, game_id in enumerate(available()):
            suits = SUIT_STYLES[(i + (lang == "en")) % 2]  # each game in both, over the two
            assert (await bot.svc.update_setting(CHAT, admin, "suits", suits, is_admin=True)).ok
            text = await _match_texts(bot, game_id, lang, monkeypatch)
            for line in set(text.splitlines()):
                assert not word.search(line), (game_id, suits, line)
                assert not PLACEHOLDER.search(line), (game_id, suits, line)
    finally:
        await bot.stop()


#: (key, values, what it reads in English, in German)
COUNTS = [
    ("lobby.waiting", {"free": 1}, "1 seat free", "1 Platz frei"),
    ("lobby.waiting", {"free": 2}, "2 seats free", "2 Plätze frei"),
    ("lobby.expires", {"minutes": 1}, "1 minute.", "1 Minute "),
    ("lobby.expires", {"minutes": 15}, "15 minutes.", "15 Minuten "),
    ("table.talon", {"n": 8}, "Talon: 8 cards", "Talon: 8 Karten"),
    ("table.talon", {"n": 0}, "Talon: used up", "Talon: aufgebraucht"),
]


@pytest.mark.parametrize(("key", "values", "en", "de"), COUNTS)
def test_counts_read_right_for_zero_one_and_more(
    key: str, values: dict[str, int], en: str, de: str
) -> None:
    assert en in i18n.t("en", key, **values)
    assert de in i18n.t("de", key, **values)


def test_the_terminal_counts_its_computer_players() -> None:
    assert "you and 1 computer player." in local_texts.say("en", "created", game="x", n=1)
    assert "you and 2 computer players." in local_texts.say("en", "created", game="x", n=2)
    assert "du und 1 Computer-Spieler." in local_texts.say("de", "created", game="x", n=1)


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


#: Texts that read the same in both languages (a card, a contract's Austrian name, a
#: number): German falls back to the English catalog for these on purpose.
SHARED = {
    "i18n": {"act.play", "act.bid", "result.points_line", "settings.line", "table.multiplier"},
    "local": {"game_line", "refused"},
    "contracts": set(i18n.CONTRACT_NAMES["en"]) - {"normal", "bid"},
}

CATALOGS: dict[str, Mapping[str, Mapping[str, str]]] = {
    "i18n": i18n.TEXTS,
    "local": local_texts.TEXTS,
    "discord": discord_texts.TEXTS,
    "telegram": telegram_texts.TEXTS,
    "contracts": i18n.CONTRACT_NAMES,
    "games": i18n.GAME_NAMES,
    "rules": rules_text.SUMMARY,
    "options": rules_text.OPTION_TEXT,
    "option_names": option_names.OPTION_NAME,
    "contract_list": rules_text.CONTRACT_TEXT,
}


@pytest.mark.parametrize("name", sorted(CATALOGS))
def test_every_text_is_in_both_languages_with_the_same_fields(name: str) -> None:
    """A German reader never falls back to English, except for texts that are the same
    in both; and a text's forms for 0 or 1 exist wherever its plural does."""
    catalog = CATALOGS[name]
    en, de = catalog["en"], catalog["de"]
    assert set(de) <= set(en), set(de) - set(en)
    assert set(en) - set(de) == SHARED.get(name, set())
    for key, text in de.items():
        assert _fields(text) == _fields(en[key]), key
    for key in en:
        base, _, form = key.rpartition(".")
        if form in ("zero", "one"):
            assert base in en and key in de, key


@pytest.mark.parametrize("lang", ["de", "en"])
def test_no_text_mixes_in_the_other_language(lang: str) -> None:
    """The texts no match shows (help, refusals, the adapters' notes, the rules, command
    menus and Discord's German command names) are in their own language too."""
    word = foreign_words(lang)
    texts = [text for catalog in CATALOGS.values() for text in catalog[lang].values()]
    texts += [d for _, d in telegram_texts.COMMANDS[lang]]
    if lang == "de":
        texts += discord_texts.GERMAN.values()
    for text in texts:
        for line in re.sub(r"\{[^}]*\}", "…", text).splitlines():  # not the fields' names
            assert not word.search(line), line
            assert not PLACEHOLDER.search(line), line


def test_telegram_menus_offer_the_same_commands_in_both_languages() -> None:
    menus = telegram_texts.COMMANDS
    assert [c for c, _ in menus["en"]] == [c for c, _ in menus["de"]]


@pytest.mark.parametrize("lang", ["en", "de"])
def test_telegrams_own_answers_to_a_press_fit_in_its_alert(lang: str) -> None:
    """A press is answered in a popup of at most 200 characters; the adapter's own
    answers must fit whole (a German "make me an admin" lost its end)."""
    answers = ["failed", "need_start", "rules_sent", "hand_sent", "admin_unknown", "admin_refused"]
    for key in answers:
        assert len(telegram_texts.tt(lang, key)) <= 200, (key, telegram_texts.tt(lang, key))


@pytest.mark.parametrize(
    ("said", "lang", "shown"),
    [
        (
            "…; /new opens a table of your own.",
            "en",
            "…; /schnapsen new opens a table of your own.",
        ),
        (
            "…; /new öffnet einen eigenen Tisch.",
            "de",
            "…; /schnapsen neu öffnet einen eigenen Tisch.",
        ),
        ("the player who typed /resign.", "de", "the player who typed /aufgeben."),
        ("(/new)", "en", "(/schnapsen new)"),
        # not a command: a link, a path, another word
        ("https://example.org/-/new", "en", "https://example.org/-/new"),
        ("./new ~/new a/new /new-york /newbie", "en", "./new ~/new a/new /new-york /newbie"),
    ],
)
def test_discord_replies_name_its_own_commands(said: str, lang: str, shown: str) -> None:
    """The core names /new and /resign as Telegram has them; a Discord reply names
    them as the reader's Discord shows them (a group command, German names)."""
    assert discord_texts.as_on_discord(said, lang) == shown
