"""Texts that only the Telegram adapter needs (English and German).

The game's texts live in `bot.i18n`; these are about Telegram itself: the command
menu, the private chat that carries hands, and deep links.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import norm_lang

#: The command menu (setMyCommands), per language; the first language is the default.
COMMANDS: dict[str, list[tuple[str, str]]] = {
    "en": [
        ("new", "Open a table: /new <game> [preset] [option=value …]"),
        ("leaderboard", "Best players: /leaderboard [game] [global] [page]"),
        ("stats", "Your statistics: /stats [global]"),
        ("rules", "Rules of a game: /rules [game]"),
        ("settings", "Chat settings (admins): /settings [key value], /settings <game>"),
        ("abort", "Close your table (host) or vote to close it"),
        ("resign", "Give up the running match"),
        ("record", "A finished match's record to verify: /record [table]"),
        ("help", "How to play with this bot"),
        ("forgetme", "Delete your data"),
    ],
    "de": [
        ("new", "Tisch eröffnen: /new <Spiel> [Vorlage] [Option=Wert …]"),
        ("leaderboard", "Rangliste: /leaderboard [Spiel] [global] [Seite]"),
        ("stats", "Deine Statistik: /stats [global]"),
        ("rules", "Spielregeln: /rules [Spiel]"),
        (
            "settings",
            "Chat-Einstellungen (Admins): /settings [Einstellung Wert], /settings <Spiel>",
        ),
        ("abort", "Deinen Tisch schließen oder fürs Schließen stimmen"),
        ("resign", "Die laufende Partie aufgeben"),
        ("record", "Protokoll einer beendeten Partie zum Prüfen: /record [Tisch]"),
        ("help", "So spielst du mit diesem Bot"),
        ("forgetme", "Deine Daten löschen"),
    ],
}

#: German names the commands answer to as well (the names Discord shows a German
#: client, without its hyphen): a German player's /neu opens a table, not a silence.
#: The menu keeps one name each.
GERMAN_COMMANDS: dict[str, str] = {
    "new": "neu",
    "leaderboard": "rangliste",
    "stats": "statistik",
    "rules": "regeln",
    "settings": "einstellungen",
    "abort": "abbrechen",
    "resign": "aufgeben",
    "record": "protokoll",
    "help": "hilfe",
    "forgetme": "vergissmich",
}

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "welcome": "Hello {name}! Your cards and your buttons will come here.",
        "welcome_table": "You sit at table {table}. Your cards and your buttons will come here.",
        "welcome_join": "Hello {name}! To play at table {table}, press Join under its lobby in "
        "the group; your cards and your buttons will then come here.",
        "joined": "You joined table {table}. Your cards will come here, in our private chat.",
        "need_start": "Open our private chat and press Start, so I can send you your cards.",
        "lobby_need_start": "⚠ Waiting for {names} to start a private chat with me: {link}",
        "start_blocked": "Waiting for {names} to open the private chat with me ({link}).",
        "hand_sent": "Your hand is in our private chat.",
        "group_only": "Use this command in a group.",
        "help_german": "The commands go by German names too: {commands}.",
        "forget_private": "To delete your data, send /forgetme in our private chat, where "
        "only you see its button ({link}).",
        "anonymous": (
            "You are posting anonymously (as the group or a channel), so I cannot tell "
            "who you are or send you your cards. Turn off “Remain anonymous” in your "
            "admin rights, or post as yourself, and type the command again. (Buttons "
            "work either way.)"
        ),
        "hand_deal_over": "Deal {deal} is over; the result is in the group.",
        "hand_match_over": "The match is over; the result is in the group.",
        "hand_closed": "This table was closed.",
        "help_start": "Everyone who plays: open {link} and press Start once, so I can send you your cards.",
        "did_you_mean": "I do not know /{command}. Did you mean /{guess}?",
        "unknown_command": "I do not know /{command}; /help lists what I understand.",
        "rules_sent": "The rules are in our private chat.",
        "rules_cut": "… (all: /rules in the group)",
        "refusal_cut": "… (all of it in our private chat)",
        "deliver_hand": "{name}, I cannot send you your cards: open {link} and press Start.",
        "no_games": "No games yet.",
        "failed": "Something went wrong; please try again.",
        "admin_unknown": "Telegram did not tell me whether you are an admin here; please try again in a moment.",
        "admin_refused": "Telegram will not tell me who the admins of this group are, so I cannot let anyone do what needs an admin. An admin can fix this by making me an admin of the group (no rights are needed).",
        "group_lost": "Table {table} was closed: I can no longer post in its group (removed, or not allowed to write there).",
        "topic_lost": "Table {table} was closed: its topic in the group was closed or deleted, so I can no longer post there.",
    },
    "de": {
        "welcome": "Servus {name}! Deine Karten und Knöpfe kommen hierher.",
        "welcome_table": "Du sitzt an Tisch {table}. Deine Karten und Knöpfe kommen hierher.",
        "welcome_join": "Servus {name}! Um an Tisch {table} mitzuspielen, drück in der Gruppe "
        "unter seinem Tisch auf Mitspielen; dann kommen deine Karten und Knöpfe hierher.",
        "joined": "Du sitzt an Tisch {table}. Deine Karten kommen hierher, in unseren privaten Chat.",
        "need_start": "Öffne unseren privaten Chat und drücke „Starten“ (Start), damit ich dir deine Karten schicken kann.",
        # {names} may be several people: worded so that no verb has to agree with it
        "lobby_need_start": "⚠ Bitte noch den privaten Chat mit mir starten ({link}): {names}",
        "start_blocked": "Der Start wartet noch auf den privaten Chat mit mir ({link}): {names}.",
        "hand_sent": "Deine Karten sind in unserem privaten Chat.",
        "group_only": "Diesen Befehl bitte in einer Gruppe verwenden.",
        "help_german": "Die Befehle gehen auch auf Deutsch: {commands}.",
        "forget_private": "Deine Daten löschst du in unserem privaten Chat, wo nur du den "
        "Knopf siehst: schick mir dort /forgetme ({link}).",
        "anonymous": (
            "Du schreibst anonym (als Gruppe oder Kanal), darum weiß ich nicht, wer du "
            "bist, und kann dir deine Karten nicht schicken. Schalte „Anonym bleiben“ in "
            "deinen Admin-Rechten aus oder schreib als du selbst und gib den Befehl noch "
            "einmal ein. (Knöpfe gehen so oder so.)"
        ),
        "hand_deal_over": "Runde {deal} ist vorbei; das Ergebnis steht in der Gruppe.",
        "hand_match_over": "Die Partie ist vorbei; das Ergebnis steht in der Gruppe.",
        "hand_closed": "Dieser Tisch wurde geschlossen.",
        "help_start": "Alle, die mitspielen: einmal {link} öffnen und „Starten“ (Start) drücken, damit ich euch eure Karten schicken kann.",
        "did_you_mean": "/{command} kenne ich nicht. Meintest du /{guess}?",
        "unknown_command": "/{command} kenne ich nicht; /help zeigt, was ich verstehe.",
        "rules_sent": "Die Regeln sind in unserem privaten Chat.",
        "rules_cut": "… (alles: /rules in der Gruppe)",
        "refusal_cut": "… (alles in unserem privaten Chat)",
        "deliver_hand": "{name}, ich kann dir deine Karten nicht schicken: öffne {link} und drücke „Starten“ (Start).",
        "no_games": "Noch keine Spiele.",
        "failed": "Da ist etwas schiefgegangen; bitte noch einmal versuchen.",
        "admin_unknown": "Telegram hat mir nicht gesagt, ob du hier Admin bist; bitte gleich noch einmal versuchen.",
        "admin_refused": "Telegram sagt mir nicht, wer hier Admin ist, also kann ich nichts erlauben, was einen Admin braucht. Ein Admin behebt das, indem er mich zum Admin der Gruppe macht (ohne Rechte).",
        "group_lost": "Tisch {table} wurde geschlossen: Ich kann in seiner Gruppe nicht mehr schreiben (entfernt oder ohne Schreibrecht).",
        "topic_lost": "Tisch {table} wurde geschlossen: Sein Thema in der Gruppe wurde geschlossen oder gelöscht, ich kann dort nicht mehr schreiben.",
    },
}


def tt(lang: str | None, key: str, /, **values: Any) -> str:
    """An adapter text in `lang` (falling back to English)."""
    catalog = TEXTS.get(norm_lang(lang), TEXTS["en"])
    text = catalog.get(key) or TEXTS["en"][key]
    return text.format(**values) if values else text
