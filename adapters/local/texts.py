"""The terminal's own words (menus, help, errors); game texts come from `bot.i18n`."""

from __future__ import annotations

from typing import Any

from bot.i18n import template

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "banner": "Schnapsen — a table in your terminal against computer players.\n"
        "(No chat token is configured; see .env.example to run the Discord/Telegram bot.)",
        "games": "Games (type a number or a name):",
        "game_line": "  {n}) {name}  [{id}]",
        # Fits 80 columns with the longest default game, so it stays one line there.
        "choose": "Choose a game (Enter: {default} · h: help · q: quit)",
        "bad_game": "There is no game {text!r}: type a number from 1 to {n}, a game's name, or q to quit.",
        "short_game": "{text!r} is too short to tell: type at least {least} letters of a game's name, or its number.",
        "ambiguous_game": "{text!r} fits more than one game: {games}. "
        "Type more of the name, or its number.",
        "menu_help": "Choosing a game:\n"
        "  <number>  the game with that number in the list\n"
        "  <name>    a game's name or its [id], in English or German, another name it\n"
        "            goes by (Zweierschnapsen, 66, Talonschnapsen, 1000), or just the\n"
        "            first 3 letters or more if no other game starts with them (thou)\n"
        "  Enter     the game offered: {default}\n"
        "  <game> [preset] [name=value …]  with other rules, e.g. thousand players=4,\n"
        "            dreier all_contracts (r lists each game's presets and options)\n"
        "  r         the rules of every game\n"
        "  h         this help\n"
        "  q         quit\n"
        "Once a game is on, h tells how to play your cards.",
        "resume": "Your unfinished game {game} at table {table} is still open.\n"
        "Enter: continue it · n: abandon it and start a new one (or type the new game's "
        "name) · q: quit",
        "resume_bad": "Type Enter to continue, n (or a game's name) for a new game, or q to quit.",
        "abandoned": "The unfinished game is closed.",
        "resume_closed": "Your unfinished game {game} at table {table} is closed: the "
        "computer had taken your seat when your turns ran out, and nobody was left playing.",
        "ended_meanwhile": "Your game {game} at table {table} ended as the bot stopped:",
        "closed_meanwhile": "Your game {game} at table {table} was closed, without a result, "
        "as the bot stopped.",
        "closed_meanwhile_why": "Your game {game} at table {table} was closed, without a result, "
        "as the bot stopped: {reason}.",
        "presets": "Presets: {presets}.",
        # the menu's rules: the terminal has no settings, a table's rules are typed
        "options_changed": "others go after the game's name: {game} name=value",
        "created": "{game}: you and {n} computer players. Starting…",
        "created.one": "{game}: you and {n} computer player. Starting…",
        "playing_as": "The table calls you {name}.",
        "player_name": "Player",
        "cannot_start": "Could not open the table: {reason}",
        "your_actions": "Your choices:",
        "nothing_to_press": "Nothing to choose now — wait for {name}.",
        "nothing_yet": "Nothing to choose now.",
        "no_such_action": "There is no choice {n}: type a number from 1 to {max}.",
        "no_such_action.one": "There is no choice {n}: type 1 (the only choice).",
        "unknown_command": "Unknown command {text!r}. Type a number or a card to choose, "
        "or h for help.",
        "no_such_bid": "There is no choice {n} and no bid {n}: type {numbers}, "
        "or a bid from {low} to {high} in steps of {step}.",
        "no_such_bid.one": "There is no choice {n} and no bid {n}: type {numbers}, or the bid "
        "{low}.",
        "numbers": "a number from 1 to {max}",
        "numbers.one": "1",
        "which_card": "{card} is more than one choice: {choices}. Type the number of one.",
        "which_choice": "{text!r} fits more than one choice: {choices}. Type the number of "
        "one, or more of its words.",
        "new_cards": "New in your hand: {cards}",
        "card_not_held": "{card} is not in your hand.",
        "card_not_now": "{card} cannot be played now: it is not one of your choices.",
        "card_picked": "{card} is picked already: pick another card, or type the number of a choice.",
        "card_picked_all": "{card} is picked already, and so are the others: type the number of a choice.",
        "card_not_now_why": "{card} cannot be played now: {why}.",
        "resign_ask": "Resign this match? It counts as lost. (y: resign · anything else: play on)",
        "resign_kept": "You play on.",
        "resign_not_now": "There is no running match to resign.",
        "refused": "✗ {reason}",
        "failed": "✗ Something went wrong, so that did not go through. Please try again.",
        "not_shown": "✗ Something went wrong, so the table could not be shown: type s to see it.",
        "timed_out": "Your time ran out: the computer played for you ({n} of {limit} turns missed; "
        "at {limit} the table closes).",
        "match_over": "Match over. Enter: the same game again · m: choose another · q: quit",
        "match_over_bad": "Type Enter to play the same game again, m to choose another, or q "
        "to quit.",
        "aborted": "The table was closed.",
        "aborted_why": "The table was closed: {reason}.",
        "closed_over": "No result: the match was not played out. Enter: the same game again · "
        "m: choose another · q: quit",
        "bye": "Bye.",
        "bye_saved": "Bye — your game is kept; run the bot again to continue it.",
        "no_input": "No keyboard input (stdin is closed), so no local game. "
        "To run the chat bot, set DISCORD_TOKEN or TELEGRAM_TOKEN (see .env.example).",
        "help": "Commands:\n"
        "  <number>  choose that action (play a card, bid, close the talon, …)\n"
        "  <card>    play that card (or give or discard it): its rank A 10 K Q J 9\n"
        "            (T for 10; German D for Dame, B for Bube), then its suit s h d c\n"
        "            (♠ ♥ ♦ ♣), e.g. as, 10h, th, qc; or as shown, e.g. K♥\n"
        "  <value>   Thousand: bid that value, e.g. 120, even one on another page\n"
        "            (a number that is a choice shown is that choice)\n"
        "  <choice>  a choice by its words, e.g. pass, double, close the talon\n"
        "  s, Enter  show the table and your hand again\n"
        "  r         the rules of this game\n"
        "  resign    give up the match (asks first; it counts as lost)\n"
        "  h         this help\n"
        "  q         quit (an unfinished game is kept: start again to continue it)",
    },
    "de": {
        "banner": "Schnapsen — ein Tisch im Terminal gegen Computer-Spieler.\n"
        "(Kein Chat-Token eingerichtet; siehe .env.example für den Discord/Telegram-Bot.)",
        "games": "Spiele (Nummer oder Name eingeben):",
        "choose": "Spiel wählen (Enter: {default} · h: Hilfe · q: Ende)",
        "bad_game": "Es gibt kein Spiel {text!r}: eine Nummer von 1 bis {n}, einen Spielnamen oder q eingeben.",
        "short_game": "{text!r} ist zu kurz: mindestens {least} Buchstaben eines Spielnamens oder die Nummer eingeben.",
        "ambiguous_game": "{text!r} passt zu mehr als einem Spiel: {games}. "
        "Mehr vom Namen oder die Nummer eingeben.",
        "menu_help": "Spiel wählen:\n"
        "  <Nummer>  das Spiel mit dieser Nummer in der Liste\n"
        "  <Name>    der Name eines Spiels oder sein [Kürzel], deutsch oder englisch,\n"
        "            ein anderer Name dafür (Zweierschnapsen, 66, Talonschnapsen, 1000)\n"
        "            oder nur die ersten 3 Buchstaben oder mehr, wenn kein anderes\n"
        "            Spiel so beginnt (taus, drei)\n"
        "  Enter     das angebotene Spiel: {default}\n"
        "  <Spiel> [Vorlage] [Name=Wert …]  mit anderen Regeln, z. B. zweier\n"
        "            auto_claim=aus, dreier all_contracts (r nennt Vorlagen und Optionen)\n"
        "  r, regeln die Regeln aller Spiele\n"
        "  h, hilfe  diese Hilfe\n"
        "  q, ende   beenden\n"
        "Während einer Partie erklärt h, wie man Karten spielt.",
        "resume": "Deine unfertige Partie {game} am Tisch {table} ist noch offen.\n"
        "Enter: weiterspielen · n: verwerfen und neu beginnen (oder den Namen des neuen "
        "Spiels eingeben) · q: Ende",
        "resume_bad": "Enter zum Weiterspielen, n (oder der Name eines Spiels) für eine neue "
        "Partie, q zum Beenden.",
        "abandoned": "Die unfertige Partie ist geschlossen.",
        "resume_closed": "Deine unfertige Partie {game} am Tisch {table} ist geschlossen: Der "
        "Computer hatte deinen Platz übernommen, als deine Züge abgelaufen waren, und "
        "niemand spielte mehr.",
        "ended_meanwhile": "Deine Partie {game} am Tisch {table} endete, als der Bot anhielt:",
        "closed_meanwhile": "Deine Partie {game} am Tisch {table} wurde ohne Ergebnis "
        "geschlossen, als der Bot anhielt.",
        "closed_meanwhile_why": "Deine Partie {game} am Tisch {table} wurde ohne Ergebnis "
        "geschlossen, als der Bot anhielt: {reason}.",
        "presets": "Vorlagen: {presets}.",
        "options_changed": "andere nach dem Spielnamen: {game} Name=Wert",
        "created": "{game}: du und {n} Computer-Spieler. Los geht's…",
        "created.one": "{game}: du und {n} Computer-Spieler. Los geht's…",  # same in German
        "playing_as": "Am Tisch heißt du {name}.",
        "player_name": "Spieler",
        "cannot_start": "Der Tisch ließ sich nicht eröffnen: {reason}",
        "your_actions": "Deine Möglichkeiten:",
        "nothing_to_press": "Gerade nichts zu wählen — warte auf {name}.",
        "nothing_yet": "Gerade nichts zu wählen.",
        "no_such_action": "Keine Möglichkeit {n}: eine Nummer von 1 bis {max} eingeben.",
        "no_such_action.one": "Keine Möglichkeit {n}: 1 eingeben (die einzige Möglichkeit).",
        "unknown_command": "Unbekannter Befehl {text!r}. Eine Nummer oder Karte wählen "
        "oder h für Hilfe.",
        "no_such_bid": "Keine Möglichkeit {n} und kein Gebot {n}: {numbers} "
        "eingeben oder ein Gebot von {low} bis {high} in Schritten von {step}.",
        "no_such_bid.one": "Keine Möglichkeit {n} und kein Gebot {n}: {numbers} eingeben "
        "oder das Gebot {low}.",
        "numbers": "eine Nummer von 1 bis {max}",
        "numbers.one": "1",
        "which_card": "{card} ist mehr als eine Möglichkeit: {choices}. Eine Nummer davon "
        "eingeben.",
        "which_choice": "{text!r} passt zu mehr als einer Möglichkeit: {choices}. Eine "
        "Nummer davon eingeben oder mehr Worte.",
        "new_cards": "Neu auf deiner Hand: {cards}",
        "card_not_held": "{card} hast du nicht auf der Hand.",
        "card_not_now": "{card} kann jetzt nicht gespielt werden: keine deiner Möglichkeiten.",
        "card_picked": "{card} ist schon gewählt: eine andere Karte oder die Nummer einer Möglichkeit eingeben.",
        "card_picked_all": "{card} ist schon gewählt, die anderen auch: die Nummer einer Möglichkeit eingeben.",
        "card_not_now_why": "{card} kann jetzt nicht gespielt werden: {why}.",
        "resign_ask": "Diese Partie aufgeben? Sie zählt als verloren. (j: aufgeben · sonst: weiterspielen)",
        "resign_kept": "Du spielst weiter.",
        "resign_not_now": "Es läuft keine Partie, die du aufgeben könntest.",
        "failed": "✗ Da ist etwas schiefgegangen, das hat nicht geklappt. Bitte noch einmal "
        "versuchen.",
        "not_shown": "✗ Da ist etwas schiefgegangen, der Tisch konnte nicht gezeigt werden: s "
        "zeigt ihn.",
        "timed_out": "Deine Zeit ist um: der Computer hat für dich gespielt ({n} von {limit} "
        "Zügen verpasst; bei {limit} wird der Tisch geschlossen).",
        "match_over": "Partie vorbei. Enter: dasselbe Spiel noch einmal · m: ein anderes · q: Ende",
        "match_over_bad": "Enter für dasselbe Spiel noch einmal, m für ein anderes, q zum Beenden.",
        "aborted": "Der Tisch wurde geschlossen.",
        "aborted_why": "Der Tisch wurde geschlossen: {reason}.",
        "closed_over": "Kein Ergebnis: die Partie wurde nicht zu Ende gespielt. Enter: dasselbe "
        "Spiel noch einmal · m: ein anderes · q: Ende",
        "bye": "Servus.",
        "bye_saved": "Servus — die Partie bleibt gespeichert; beim nächsten Start geht's weiter.",
        "no_input": "Keine Tastatureingabe (stdin ist zu), also kein lokales Spiel. "
        "Für den Chat-Bot DISCORD_TOKEN oder TELEGRAM_TOKEN setzen (siehe .env.example).",
        "help": "Befehle:\n"
        "  <Nummer>  diese Möglichkeit wählen (Karte spielen, bieten, zudrehen, …)\n"
        "  <Karte>   diese Karte spielen (oder geben, ablegen): ihr Rang A 10 K D B 9\n"
        "            (auch T für 10, Q und J für Dame und Bube), dann die Farbe s h d c\n"
        "            (Pik, Herz, Karo, Kreuz), z. B. as, 10h, th, dc; oder wie\n"
        "            angezeigt, z. B. K♥\n"
        "  <Wert>    Tausend: diesen Wert bieten, z. B. 120, auch auf einer anderen Seite\n"
        "            (eine Nummer, die als Möglichkeit da steht, wählt diese)\n"
        "  <Wahl>    eine Möglichkeit mit ihren Worten, z. B. weiter, kontra, zudrehen\n"
        "  s, zeigen Tisch und Karten noch einmal zeigen (auch Enter)\n"
        "  r, regeln die Regeln dieses Spiels\n"
        "  aufgeben  die Partie aufgeben (fragt zuerst; sie zählt als verloren)\n"
        "  h, hilfe  diese Hilfe\n"
        "  q, ende   beenden (eine unfertige Partie bleibt gespeichert)",
    },
}


#: Texts with a form of their own for a count of 1 (see `bot.i18n.COUNTED`).
COUNTED = {
    "created": "n",
    "no_such_bid": "bids",
    "no_such_action": "max",
    "numbers": "max",
}


def say(lang: str, key: str, **values: Any) -> str:
    count = values.get(COUNTED.get(key, ""))
    text = template(TEXTS.get(lang, {}), TEXTS["en"], key, count)
    return text.format(**values) if values else text
