"""Texts that only the Discord adapter needs (English and German).

The game's texts live in `bot.i18n`; these are about Discord itself: the slash
commands' German names and descriptions (Discord shows each user their client
language), and the few notes that exist because of Discord (closed DMs, a table's
channel or server lost, a channel the bot may not post in).
"""

from __future__ import annotations

import re
from typing import Any

from bot.i18n import norm_lang

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "done": "Done.",
        "failed": "Something went wrong; please try again.",
        "dm_closed": (
            "{mention}, I cannot send you direct messages. Press “{show_hand}” on the "
            "table message to see your cards and play."
        ),
        "not_here": "This button is not one of mine.",
        "seated_at": "It plays in {channel}.",
        "aborted": "Table {table} is closed; it counts for nobody.",
        "abort_where": (
            "No table plays in this channel. To close one elsewhere, name it: /abort "
            "table:<id> ({tables})."
        ),
        "hand_deal_over": "Deal {deal} is over; the result is in the channel.",
        "setting_without_value": "Which value should {key} get? Name it too, as in /settings key:{key} value:on; /settings key:{key} shows it.",
        "rules_preset_game": "Which game's preset? Name the game too, e.g. /rules game:Dreierschnapsen preset:all_contracts.",
        "setting_without_key": (
            "Which setting should be {value}? Name it too, as in /settings key:language "
            "value:de; /settings alone lists them."
        ),
        "live_ended": (
            "(This view has stopped following the game: press “{show_hand}” on the "
            "table message to see your cards as they are now.)"
        ),
        "live_moved": "(Shown again below: this view no longer follows the game.)",
        "channel_lost": (
            "Table {table} was closed: I cannot post in {channel} any more (the channel "
            "was deleted, or I may no longer see it or send messages there). Nothing of "
            "the match counts for anybody."
        ),
        "server_lost": (
            "Table {table} was closed: I was removed from the server it was played on. "
            "Nothing of the match counts for anybody."
        ),
        "missing_permission": (
            "I cannot open a table here: I lack the {permissions} permission in this "
            "channel, and without it nobody could follow the game. A server admin can "
            "grant it to me in the channel's settings (Permissions); then try again."
        ),
        "missing_permissions": (
            "I cannot open a table here: I lack the permissions {permissions} in this "
            "channel, and without them nobody could follow the game. A server admin can "
            "grant them to me in the channel's settings (Permissions); then try again."
        ),
        # Discord's own names of the permissions, as its settings show them
        "perm.view_channel": "“View Channel”",
        "perm.and": " and ",
        "perm.send_messages": "“Send Messages”",
        "perm.send_messages_in_threads": "“Send Messages in Threads”",
        "settings_game": "/settings key:dreier",
        "help": (
            "Schnapsen bot — play the Austrian Schnapsen family here.\n"
            "• /schnapsen new game:<game> opens a table; the others press “{join}”, the host "
            "presses “{start}”. Computer players fill seats with “{add_ai}”. Other rules: "
            "preset:<preset>; /rules game:<game> lists a game's rule options.\n"
            "• Your hand comes by direct message, with a button for every move. If your "
            "DMs are closed, press “{show_hand}” on the table message.\n"
            "• /leaderboard, /stats, /rules, /record (a finished match's record, to "
            "check its deals), /abort (the host closes a lobby; in a match it is a vote), /resign, "
            "/forgetme, /settings (Manage Server).\n"
            "Games: {games}."
        ),
    },
    "de": {
        "done": "Erledigt.",
        "failed": "Da ist etwas schiefgegangen; bitte noch einmal versuchen.",
        "dm_closed": (
            "{mention}, ich kann dir keine Direktnachrichten schicken. Drück bei der "
            "Tisch-Nachricht auf „{show_hand}“, um deine Karten zu sehen und zu spielen."
        ),
        "not_here": "Dieser Knopf stammt nicht von mir.",
        "seated_at": "Gespielt wird in {channel}.",
        "aborted": "Tisch {table} ist geschlossen; von ihm wird nichts gewertet.",
        "abort_where": (
            "In diesem Kanal wird an keinem Tisch gespielt. Um einen anderswo zu "
            "schließen, nenne ihn: /abbrechen tisch:<Kennung> ({tables})."
        ),
        "hand_deal_over": "Runde {deal} ist vorbei; das Ergebnis steht im Kanal.",
        "setting_without_value": "Welchen Wert soll {key} bekommen? Nenn ihn mit, wie in /einstellungen einstellung:{key} wert:an; /einstellungen einstellung:{key} zeigt ihn.",
        "rules_preset_game": "Für welches Spiel? Nenn es mit, z. B. /regeln spiel:Dreierschnapsen vorlage:all_contracts.",
        "setting_without_key": (
            "Welche Einstellung soll {value} sein? Nenn sie mit, wie in /einstellungen "
            "einstellung:language wert:de; /einstellungen allein zeigt alle."
        ),
        "live_ended": (
            "(Diese Ansicht folgt dem Spiel nicht mehr: Drück bei der Tisch-Nachricht auf "
            "„{show_hand}“, um deine Karten so zu sehen, wie sie jetzt sind.)"
        ),
        "live_moved": "(Weiter unten neu gezeigt: diese Ansicht folgt dem Spiel nicht mehr.)",
        "channel_lost": (
            "Tisch {table} wurde geschlossen: Ich kann in {channel} nicht mehr schreiben "
            "(der Kanal wurde gelöscht, oder ich darf ihn nicht mehr sehen oder dort nicht "
            "mehr schreiben). Von der Partie wird nichts gewertet."
        ),
        "server_lost": (
            "Tisch {table} wurde geschlossen: Ich wurde vom Server entfernt, auf dem er "
            "gespielt wurde. Von der Partie wird nichts gewertet."
        ),
        "missing_permission": (
            "Ich kann hier keinen Tisch eröffnen: Mir fehlt in diesem Kanal die "
            "Berechtigung {permissions}, und ohne sie könnte niemand dem Spiel folgen. Ein "
            "Server-Admin kann sie mir in den Kanaleinstellungen (Berechtigungen) geben; "
            "dann bitte noch einmal versuchen."
        ),
        "missing_permissions": (
            "Ich kann hier keinen Tisch eröffnen: Mir fehlen in diesem Kanal die "
            "Berechtigungen {permissions}, und ohne sie könnte niemand dem Spiel folgen. "
            "Ein Server-Admin kann sie mir in den Kanaleinstellungen (Berechtigungen) "
            "geben; dann bitte noch einmal versuchen."
        ),
        "perm.view_channel": "„Kanal ansehen“",
        "perm.and": " und ",
        "perm.send_messages": "„Nachrichten senden“",
        "perm.send_messages_in_threads": "„Nachrichten in Threads senden“",
        "settings_game": "/einstellungen einstellung:dreier",
        "help": (
            "Schnapsen-Bot — hier wird Schnapsen gespielt.\n"
            "• /schnapsen neu spiel:<Spiel> eröffnet einen Tisch; die anderen drücken "
            "„{join}“, der Gastgeber „{start}“. Mit „{add_ai}“ spielt der Computer mit. "
            "Andere Regeln: vorlage:<Vorlage>; /regeln spiel:<Spiel> nennt die "
            "Regeloptionen eines Spiels.\n"
            "• Deine Karten kommen per Direktnachricht, mit einem Knopf für jeden Zug. Sind "
            "deine Direktnachrichten zu, drück bei der Tisch-Nachricht auf „{show_hand}“.\n"
            "• /rangliste, /statistik, /regeln, /protokoll (das Protokoll einer beendeten "
            "Partie, zum Nachprüfen ihrer Runden), /abbrechen (der Gastgeber schließt einen "
            "offenen Tisch; in einer Partie ist es eine Abstimmung), /aufgeben, /vergiss-mich, "
            "/einstellungen (Server verwalten).\n"
            "Spiele: {games}."
        ),
    },
}


def text(lang: str | None, key: str, /, **values: Any) -> str:
    catalog = TEXTS.get(norm_lang(lang), TEXTS["en"])
    template = catalog.get(key) or TEXTS["en"][key]
    return template.format(**values) if values else template


#: German names and descriptions of the slash commands, their options and choices,
#: keyed by the English text (what `app_commands.locale_str` carries).  Names must be
#: lower case, without spaces, at most 32 characters (Discord's rule).
GERMAN: dict[str, str] = {
    # /schnapsen new
    "schnapsen": "schnapsen",
    "Play Schnapsen": "Schnapsen spielen",
    "new": "neu",
    "Open a table in this channel": "Einen Tisch in diesem Kanal eröffnen",
    "game": "spiel",
    "The game to play": "Das Spiel",
    "preset": "vorlage",
    "A set of house rules": "Eine Vorlage mit Hausregeln",
    # /leaderboard
    "leaderboard": "rangliste",
    "The best players": "Die besten Spieler",
    "The game (all games if left out)": "Das Spiel (ohne Angabe: alle Spiele)",
    "Which ten places (1: the best ten)": "Welche zehn Plätze (1: die besten zehn)",
    "scope": "bereich",
    "This server or everywhere": "Dieser Server oder überall",
    "page": "seite",
    "This server": "Dieser Server",
    "Everywhere": "Überall",
    # /stats
    "stats": "statistik",
    "Statistics of a player": "Statistik eines Spielers",
    "user": "spieler",
    "Whose statistics (you if left out)": "Wessen Statistik (ohne Angabe: deine)",
    # /record
    "record": "protokoll",
    "The record of a finished match, as a file to check": "Das Protokoll einer beendeten Partie, als Datei zum Nachprüfen",
    "The id of a finished table (the newest one here if left out)": "Die Kennung eines beendeten Tisches (ohne Angabe: der zuletzt hier beendete)",
    # /rules
    "rules": "regeln",
    "The rules of a game": "Die Regeln eines Spiels",
    "The game (your table's if left out)": "Das Spiel (ohne Angabe: das deines Tisches)",
    # /settings
    "settings": "einstellungen",
    "Show or change this server's settings": "Die Einstellungen dieses Servers zeigen oder ändern",
    "key": "einstellung",
    "The setting, e.g. language, suits, turn_timeout": "Die Einstellung, z. B. language, suits, turn_timeout",
    "value": "wert",
    "Its new value": "Ihr neuer Wert",
    # the rest
    "abort": "abbrechen",
    "Close your table (host) or vote to close it": "Deinen Tisch schließen (Gastgeber) oder fürs Schließen stimmen",
    "table": "tisch",
    "Admins: the id of a table to close (from its table message)": "Admins: die Kennung eines Tisches, der geschlossen werden soll (aus seiner Tisch-Nachricht)",
    "resign": "aufgeben",
    "Give up your running match": "Deine laufende Partie aufgeben",
    "forgetme": "vergiss-mich",
    "Delete your data (results, ratings)": "Deine Daten löschen (Ergebnisse, Wertungen)",
    "help": "hilfe",
    "How to play with this bot": "So spielst du mit diesem Bot",
}


#: The core names the commands as Telegram and the terminal spell them ("/new",
#: "/resign"): a command word that starts the text, a word or a bracket.
_COMMAND = re.compile(
    r"(?:^|(?<=[\s(„\"“]))/(new|resign|rules|stats|abort|record|settings|leaderboard|forgetme|help)"
    r"(?![\w/-])",
    re.MULTILINE,
)


def as_on_discord(text: str, lang: str | None) -> str:
    """The core's words with Discord's commands: `/schnapsen new`, and each command
    under the name the reader's Discord shows him (German: `/schnapsen neu`,
    `/aufgeben`)."""
    german = norm_lang(lang) == "de"

    def named(m: re.Match[str]) -> str:
        name = m.group(1)
        shown = GERMAN.get(name, name) if german else name
        return f"/schnapsen {shown}" if name == "new" else f"/{shown}"

    return _COMMAND.sub(named, text)
