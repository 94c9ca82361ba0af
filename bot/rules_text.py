"""Short rule summaries for the Rules button and /rules, with the table's options."""

from __future__ import annotations

from typing import Any

from .i18n import game_name, norm_lang

SUMMARY = {
    "en": {
        "zweier": "Two players, 20 cards, 5 each, trump turned up under the talon. First to 66 points (card points, and marriages 20/40 once you have a trick) wins 1–3 game points; once the talon is closed or used up, you must follow suit and head the trick if you can, else trump. First to 7 game points wins the match; the loser gets a Bummerl.",
        "dreier": "Three players: the declarer plays alone against two. Forehand names trumps, everyone bids contracts (normal game, Bettler, Schnapser, Gang, ...); the declarer takes the 2-card talon and discards 2. Defenders may double (Spritzen). The match ends when someone reaches 24; the lowest score gets a Bummerl.",
        "bauern": "Four players in two teams (opposite seats). Forehand names trumps; an auction decides the contract; opponents may say Kontra. The team first to 24 wins; the other team gets a Bummerl.",
        "tausend": "Three players, 24 cards. Bid from 100 in steps of 5; the declarer takes the 3-card stock and gives one card to each opponent. Marriages (100/80/60/40) set trumps. First to 1000, via the barrel at 880.",
    },
    "de": {
        "zweier": "Zwei Spieler, 20 Karten, je 5, Trumpf liegt offen unter dem Talon. Wer zuerst 66 Augen hat (Zwanziger/Vierziger zählen ab dem ersten Stich), gewinnt 1–3 Punkte; nach dem Zudrehen oder wenn der Talon aufgebraucht ist, gilt Farb- und Stichzwang. Wer zuerst 7 Punkte hat, gewinnt die Partie; der Verlierer bekommt ein Bummerl.",
        "dreier": "Drei Spieler: einer spielt allein gegen zwei. Vorhand ruft Trumpf, alle lizitieren Spiele (Normalspiel, Bettler, Schnapser, Gang, ...); der Spieler nimmt den Talon und legt 2 Karten ab. Die Gegner können spritzen. Die Partie endet, sobald jemand 24 Punkte hat; wer am wenigsten hat, bekommt ein Bummerl.",
        "bauern": "Vier Spieler in zwei Teams (gegenüber). Vorhand ruft Trumpf, dann wird lizitiert; die Gegner können Kontra geben. Das Team, das zuerst 24 Punkte hat, gewinnt; das andere bekommt ein Bummerl.",
        "tausend": "Drei Spieler, 24 Karten. Geboten wird ab 100 in Fünferschritten; der Spieler nimmt den Stock und gibt jedem Gegner eine Karte. Paare (100/80/60/40) bestimmen Trumpf. Wer zuerst 1000 hat, über das Fass bei 880.",
    },
}


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
        "tausend.golden_round": "golden round: the first round is played at 120, doubled",
        "tausend.blind_bid": "bids before looking at the cards count double",
        "tausend.barrel_fine": "the barrel's fine",
    },
    "de": {
        "auto_claim": "66 wird automatisch angesagt, sobald man sie hat",
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
        "tausend.golden_round": "Goldene Runde: die erste Runde wird um 120 gespielt, doppelt",
        "tausend.blind_bid": "Gebote ohne Kartenansehen zählen doppelt",
        "tausend.barrel_fine": "Strafe am Fass",
    },
}


def rules_summary(game: str, lang: str | None, options: dict[str, Any] | None = None) -> str:
    lg = norm_lang(lang)
    text = SUMMARY.get(lg, SUMMARY["en"]).get(game) or SUMMARY["en"].get(game, game)
    lines = [game_name(game, lg), text]
    if options:
        described = OPTION_TEXT.get(lg, OPTION_TEXT["en"])
        lines.append("Options:" if lg == "en" else "Optionen:")
        for key, value in sorted(options.items()):
            what = described.get(key) or OPTION_TEXT["en"].get(key, key)
            lines.append(f"• {what}: {_fmt(value, lg)}")
    return "\n".join(lines)


def _fmt(v: Any, lang: str = "en") -> str:
    if isinstance(v, bool):
        if lang == "de":
            return "ja" if v else "nein"
        return "yes" if v else "no"
    return str(v)
