"""Short names of the rule options, for the lobby's "Rules:" line.

Players read words there, as in the table's rules (`rules_text.OPTION_TEXT`, whole
sentences); the ids (``golden_round``) are for admins' /settings and /new.  A test
checks that every option of every game has a name in both languages."""

from __future__ import annotations

OPTION_NAME = {
    "en": {
        "auto_claim": "automatic claims",
        "zweier.schneider": "Schneider",
        "dreier.without_talon": "bids without the talon",
        "dreier.raise_after_talon": "raising after the talon",
        "dreier.caller_first": "forehand announces first",
        "dreier.carinthian": "Carinthian rules",
        "dreier.count_down": "counting down from 24",
        "dreier.cut_ritual": "cutting before the deal",
        "dreier.assenbettler": "Assenbettler",
        "dreier.assbettler": "Ass-Bettler",
        "dreier.plauderer": "Plauderer",
        "dreier.zehnergang": "Zehnergang",
        "dreier.bauernloch": "Bauernloch",
        "bauern.bettler": "Bettler",
        "bauern.bettler_partner_plays": "the Bettler's partner plays",
        "bauern.bettler_points": "points of a Bettler",
        "bauern.kontra_beats_bettler": "Kontra annuls a Bettler",
        "bauern.assbettler": "Ass-Bettler",
        "bauern.zehnergang": "Zehnergang",
        "tausend.players": "players",
        "tausend.golden_round": "golden round",
        "tausend.blind_bid": "blind bids",
        "tausend.barrel_fine": "barrel fine",
    },
    "de": {
        "auto_claim": "automatisches Ausmelden",
        "zweier.schneider": "Schneider",
        "dreier.without_talon": "Ansagen ohne Talon",
        "dreier.raise_after_talon": "Erhöhen nach dem Talon",
        "dreier.caller_first": "Vorhand sagt zuerst an",
        "dreier.carinthian": "Kärntner Art",
        "dreier.count_down": "von 24 abwärts zählen",
        "dreier.cut_ritual": "Abheben vor dem Geben",
        "dreier.assenbettler": "Assenbettler",
        "dreier.assbettler": "Ass-Bettler",
        "dreier.plauderer": "Plauderer",
        "dreier.zehnergang": "Zehnergang",
        "dreier.bauernloch": "Bauernloch",
        "bauern.bettler": "Bettler",
        "bauern.bettler_partner_plays": "Bettler-Partner spielt mit",
        "bauern.bettler_points": "Punkte eines Bettlers",
        "bauern.kontra_beats_bettler": "Kontra hebt Bettler auf",
        "bauern.assbettler": "Ass-Bettler",
        "bauern.zehnergang": "Zehnergang",
        "tausend.players": "Spieler",
        "tausend.golden_round": "Goldene Runde",
        "tausend.blind_bid": "Blindgebote",
        "tausend.barrel_fine": "Fass-Strafe",
    },
}


def option_name(key: str, lang: str) -> str:
    """An option's short name in `lang` (English where a language lacks it, the id
    where both do: an option added without a name still shows)."""
    return OPTION_NAME.get(lang, {}).get(key) or OPTION_NAME["en"].get(key, key)
