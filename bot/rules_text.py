"""Short rule summaries for the Rules button and /rules, with the table's options."""

from __future__ import annotations

from typing import Any

from .i18n import game_name, norm_lang

SUMMARY = {
    "en": {
        "zweier": "Two players, 20 cards, 5 each, trump turned up under the talon. First to 66 card points (marriages 20/40 count once you have a trick) wins 1–3 game points; close the talon to play with Stichzwang. 7 game points win a Bummerl.",
        "dreier": "Three players: the declarer plays alone against two. Forehand names trumps, everyone bids contracts (normal game, Bettler, Schnapser, Gang, ...); the declarer takes the 2-card talon and discards 2. Defenders may double (Spritzen). First to 24.",
        "bauern": "Four players in two teams (opposite seats). Forehand names trumps; an auction decides the contract; opponents may say Kontra. Team first to 24.",
        "tausend": "Three players, 24 cards. Bid from 100 in steps of 5; the declarer takes the 3-card stock and gives one card to each opponent. Marriages (100/80/60/40) set trumps. First to 1000, via the barrel at 880.",
    },
    "de": {
        "zweier": "Zwei Spieler, 20 Karten, je 5, Trumpf liegt offen unter dem Talon. Wer zuerst 66 Augen hat (Zwanziger/Vierziger zählen ab dem ersten Stich), gewinnt 1–3 Punkte; Zudrehen heißt Farb- und Stichzwang. 7 Punkte gewinnen ein Bummerl.",
        "dreier": "Drei Spieler: einer spielt allein gegen zwei. Vorhand ruft Trumpf, alle lizitieren Spiele (Normalspiel, Bettler, Schnapser, Gang, ...); der Spieler nimmt den Talon und legt 2 Karten ab. Die Gegner können spritzen. Wer zuerst 24 hat.",
        "bauern": "Vier Spieler in zwei Teams (gegenüber). Vorhand ruft Trumpf, dann wird lizitiert; die Gegner können Kontra geben. Das Team mit zuerst 24 gewinnt.",
        "tausend": "Drei Spieler, 24 Karten. Geboten wird ab 100 in Fünferschritten; der Spieler nimmt den Stock und gibt jedem Gegner eine Karte. Paare (100/80/60/40) bestimmen Trumpf. Wer zuerst 1000 hat, über das Fass bei 880.",
    },
}


def rules_summary(game: str, lang: str | None, options: dict[str, Any] | None = None) -> str:
    lg = norm_lang(lang)
    text = SUMMARY.get(lg, SUMMARY["en"]).get(game) or SUMMARY["en"].get(game, game)
    lines = [game_name(game, lg), text]
    if options:
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in sorted(options.items()))
        lines.append(f"Options: {shown}" if lg == "en" else f"Optionen: {shown}")
    return "\n".join(lines)


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    return str(v)
