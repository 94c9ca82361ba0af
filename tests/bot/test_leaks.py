"""Hidden information: over whole games of every game, nothing public and no log line
shows a card that is still hidden, or the seed of a running deal.

"Hidden" is judged per deal from the engine's public view, never from the bot's own
texts: a card is public once the public view has shown it (a played card, Zweier's
face-up trump, a shown marriage partner, Thousand's turned-up stock); every other
card of the deal (in a hand, in the talon, discarded) stays hidden until the deal
ends.  A private hand message may show only what that seat's view shows.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pytest

from bot.i18n import card_label
from bot.payload import game_action, loggable, table_verb
from bot.service import TableService, TableUpdate
from bot.table import Status, Table
from bot.views import Button
from engine import protocol as P
from engine.actions import decode
from engine.cards import CARDS, Card
from engine.events import (
    CardDrawn,
    CardGiven,
    CardPlayed,
    DealEnded,
    Discarded,
    Event,
    HandShown,
    MarriageDeclared,
    TalonTaken,
    TrickTaken,
    TrumpChosen,
    TrumpExchanged,
)
from engine.games import available
from engine.views import SeatView

from ..engine.props import cards_in
from .fakechat import CHAT, Bot, Posted, open_table, play_out, users
from .policies import ai_for, near_the_barrel, policy_for


def _public_cards(pv: SeatView) -> set[Card]:
    seen = set(pv.cards_seen())
    for trick in pv.tricks:
        seen.update(c for _, c in trick)
    return seen


def _shown_by(event: Event) -> set[Card]:
    """Cards an event shows everybody by the rules (played, shown, turned up)."""
    if isinstance(event, CardPlayed):
        return {event.card}
    if isinstance(event, TrickTaken):
        return {c for _, c in event.cards}
    if isinstance(event, MarriageDeclared):
        return {event.shown} if event.shown is not None else set()
    if isinstance(event, TrumpExchanged):
        return {event.jack, event.taken}
    if isinstance(event, HandShown):
        return set(event.cards)
    if isinstance(event, TrumpChosen):
        return {event.shown} if event.shown is not None else set()
    if isinstance(event, CardDrawn) and event.public and event.card is not None:
        return {event.card}
    if isinstance(event, TalonTaken) and event.shown and event.cards:
        return set(event.cards)
    return set()


def _private_part(event: Event) -> object:
    """What a public copy of an event must have blanked (None when nothing)."""
    if isinstance(event, CardDrawn) and not event.public:
        return event.card
    if isinstance(event, TalonTaken) and not event.shown:
        return event.cards
    if isinstance(event, Discarded):
        return event.cards
    if isinstance(event, CardGiven):
        return event.card
    return None


def _patterns(card: Card) -> list[str]:
    """Every way a card could be written: labels of both suit styles and languages,
    its id as a word, and its repr."""
    out = {card_label(card, lang, style) for lang in ("en", "de") for style in ("french", "german")}
    return [*out, f"Card({card.id})"]


_ID_WORD = {c: re.compile(rf"(?<![A-Za-z0-9]){c.id}(?![A-Za-z0-9])") for c in CARDS}


def _cards_in(text: str, cards: Iterable[Card]) -> set[Card]:
    found = set()
    for c in cards:
        if any(p in text for p in _patterns(c)) or _ID_WORD[c].search(text):
            found.add(c)
    return found


def _label_cards_in(text: str, cards: Iterable[Card]) -> set[Card]:
    """Cards written as labels (what a message shows), ids aside (words like 'AH')."""
    return {c for c in cards if any(p in text for p in _patterns(c)[:-1])}


@dataclass
class Watch:
    """Tracks, per table, the current deal's public cards, and checks what is shown."""

    service: TableService | None = None
    revealed: dict[str, tuple[int, set[Card]]] = field(default_factory=dict)
    seen_posts: int = 0
    problems: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)

    def _running(self, table: Table) -> bool:
        return table.status == Status.PLAYING and table.deal is not None and table.deal.turn >= 0

    def hidden(self, table: Table, events: tuple[Event, ...] = ()) -> set[Card]:
        """The current deal's cards the public has not seen (empty between deals)."""
        if not self._running(table):
            return set()
        assert table.deal is not None
        deal_no = len(table.deals)
        no, public = self.revealed.get(table.id, (deal_no, set()))
        if no != deal_no:
            public = set()
        public |= _public_cards(P.view(table.deal, None))
        for e in events:
            public |= _shown_by(e)
        self.revealed[table.id] = (deal_no, public)
        dealt = {CARDS[i] for part in table.deal.dealt for i in part}
        return dealt - public

    def secrets(self) -> dict[str, tuple[set[Card], str]]:
        out: dict[str, tuple[set[Card], str]] = {}
        if self.service is None:
            return out
        for tid, table in self.service.tables.items():
            if self._running(table):
                assert table.deal_log is not None
                out[tid] = (self.hidden(table), table.deal_log.seed)
        return out

    def fail(self, what: str) -> None:
        self.problems.append(what)

    def check_text(self, where: str, text: str, hidden: set[Card], seed: str | None) -> None:
        self.checked[where] = self.checked.get(where, 0) + 1
        leaked = _cards_in(text, hidden)
        if leaked:
            self.fail(f"{where} shows hidden {sorted(c.id for c in leaked)}: {text!r}")
        if seed and seed in text:
            self.fail(f"{where} shows the running deal's seed: {text!r}")

    def on_update(self, chat_posts: list[Posted], update: TableUpdate) -> None:
        svc = self.service
        assert svc is not None
        table = svc.tables.get(update.table_id)
        # a deal_end update carries the end of one deal, then (maybe) the next one's start
        ended = [i for i, e in enumerate(update.events) if isinstance(e, DealEnded)]
        events = update.events[ended[-1] + 1 :] if ended else update.events
        for e in update.events:
            if _private_part(e) is not None:
                self.fail(f"a public {type(e).__name__} event carries private cards: {e!r}")
        hidden: set[Card] = set()
        seed = None
        if table is not None and self._running(table):
            hidden = self.hidden(table, events)
            assert table.deal_log is not None
            seed = table.deal_log.seed
        # The result of the deal that ended may name the cards its end turned up
        # (Thousand for two: the face-down stock); the same cards of the next deal,
        # dealt anew, are no concern of that message.
        turned_up = {c for i in ended for c in cards_in(update.events[i])}
        # what the group chat got in this update
        for post in chat_posts[self.seen_posts :]:
            labels = " | ".join(b.label for b in post.message.all_buttons())
            secret = hidden - turned_up if post.kind in ("deal_end", "finished") else hidden
            self.check_text(f"public {post.kind}", post.message.text + "\n" + labels, secret, seed)
        self.seen_posts = len(chat_posts)
        self.check_text(f"events of {update.kind}", repr(events), hidden, seed)
        self.check_text(f"all events of {update.kind}", repr(update.events), set(), seed)
        if update.result is not None:
            self.check_text("result", update.result.message.text, hidden - turned_up, seed)
        # each private hand message shows only what that seat may know
        if table is not None and self._running(table) and update.kind in ("started", "action"):
            assert table.deal is not None
            for user in svc.seat_users(table.id):
                hv = svc.hand(table.id, user)
                seat = table.seat_of(user)
                dseat = table.deal_seat(seat) if seat is not None else None
                if hv is None or dseat is None:
                    continue
                sv = P.view(table.deal, dseat)
                allowed = _public_cards(sv) | self.revealed[table.id][1]
                extra = _label_cards_in(hv.message.text, hidden - allowed)
                labels = " ".join(b.label for b in hv.message.all_buttons())
                extra |= _label_cards_in(labels, hidden - allowed)
                self.checked["hand"] = self.checked.get("hand", 0) + 1
                if extra:
                    self.fail(f"{user}'s hand shows {sorted(c.id for c in extra)}")
                if seed is not None and seed in hv.message.text:
                    self.fail(f"{user}'s hand shows the seed")


class LogWatch(logging.Handler):
    """Every log record at DEBUG and above, checked as it is emitted."""

    def __init__(self, watch: Watch) -> None:
        super().__init__(logging.DEBUG)
        self.watch = watch
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        text = record.getMessage()
        if record.exc_info:
            text += "\n" + logging.Formatter().formatException(record.exc_info)
        if record.stack_info:
            text += "\n" + record.stack_info
        for hidden, seed in self.watch.secrets().values():
            self.watch.check_text(f"log {record.name}", text, hidden, seed)


GAMES = available()


@pytest.mark.parametrize(
    ("game_id", "suits"),
    [(g, "french") for g in GAMES] + [("zweier", "german")],
)
async def test_nothing_public_shows_a_hidden_card(
    make_bot: Callable[..., Bot], monkeypatch: pytest.MonkeyPatch, game_id: str, suits: str
) -> None:
    await _watch_a_match(make_bot, monkeypatch, game_id, suits=suits)


#: Tables whose rules change who sees what (RULES.md §3-§5): Thousand for two (a
#: second stock and three cards laid face down) and four (a dealer sitting out), blind
#: bidding, the golden round; Dreier's Plauderer hand laid open and the Carinthian
#: talon; Bauern's Bettler with the partner playing.  Every seat is a person, so every
#: seat's hand message is checked.
VARIANTS = [
    ("tausend", {"tausend.players": 2, "tausend.blind_bid": True}, 2),
    ("tausend", {"tausend.players": 4, "tausend.golden_round": True}, 4),
    ("dreier", {"dreier.plauderer": True, "dreier.carinthian": True}, 3),
    ("dreier", {"dreier.plauderer": True, "dreier.caller_first": True}, 3),
    ("bauern", {"bauern.bettler_partner_plays": True}, 4),
]


@pytest.mark.parametrize(("game_id", "options", "people"), VARIANTS)
async def test_no_variant_shows_a_hidden_card(
    make_bot: Callable[..., Bot],
    monkeypatch: pytest.MonkeyPatch,
    game_id: str,
    options: dict[str, object],
    people: int,
) -> None:
    await _watch_a_match(make_bot, monkeypatch, game_id, options=options, people=people)


async def _watch_a_match(
    make_bot: Callable[..., Bot],
    monkeypatch: pytest.MonkeyPatch,
    game_id: str,
    *,
    suits: str = "french",
    options: dict[str, object] | None = None,
    people: int = 2,
) -> None:
    """A whole match played through the bot, every post, event, hand and log line
    watched for a hidden card or the running deal's seed."""
    root = logging.getLogger()
    old_level = root.level
    watch = Watch()
    handler = LogWatch(watch)
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
    bot = await make_bot().start()
    watch.service = bot.svc
    try:
        ai = ai_for(game_id, bot.svc)
        if ai is not None:
            monkeypatch.setattr("bot.service.choose_action", ai)
        if game_id == "tausend":  # every phase and the barrel in a few deals, not fifty
            near_the_barrel(monkeypatch)
        fc = bot.fc
        fc.on_update.append(lambda u: watch.on_update(fc.channel, u))
        if suits != "french":
            host = users(1)[0]
            assert (await bot.svc.update_setting(CHAT, host, "suits", suits, is_admin=True)).ok
        players = [bot.player(u, policy_for(game_id)) for u in users(people)]
        tid = await open_table(bot, game_id, players, options=options)
        # a forged press naming every card: its refusal text is checked as well
        table = bot.svc.tables[tid]
        for pl in players:
            out = await pl.press(Button("x", f"{tid}:{table.version}:h"))
            hv = out.hand
            assert hv is not None and hv.user == pl.key
        await play_out(fc, tid, players)
        assert fc.kinds(tid)[-1] == "finished"
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        await bot.stop()
    assert not watch.problems, "\n".join(watch.problems[:10])
    assert watch.checked.get("public action", 0) > 5
    assert watch.checked.get("hand", 0) > 5
    assert handler.count > 0  # the log was watched (the store logs its migrations)


async def test_refusals_show_no_hidden_card(bot: Bot) -> None:
    """An illegal press is explained without naming a card another seat holds."""
    players = [bot.player(u) for u in users(2)]
    tid = await open_table(bot, "zweier", players)
    watch = Watch(bot.svc)
    for _ in range(30):
        table = bot.svc.tables.get(tid)
        if table is None:
            break
        seat = table.to_act()
        assert seat is not None and table.deal is not None
        mover = next(p for p in players if p.key == table.seats[seat].user)  # type: ignore[union-attr]
        hidden = watch.hidden(table)
        own = set(P.view(table.deal, table.deal_seat(seat)).hand)
        legal = set(table.deal.legal())
        for code in range(0, 70):
            if code in legal:
                continue
            out = await bot.svc.act(mover.user, f"{tid}:{table.version}:a{code}")
            assert not out.ok and out.text
            try:
                named = {getattr(decode(code, table.deal.contracts), "card", None)}
            except (ValueError, IndexError):
                named = set()
            leaked = _cards_in(out.text, hidden - own - named)
            assert not leaked, (code, out.text)
        await mover.take_turn(tid)


def test_a_press_in_a_log_line_names_no_card() -> None:
    """Adapters log a press they could not answer; the line keeps the table, version
    and verb, never the argument (the card played, or the cards picked to discard)."""
    assert loggable(game_action("t1abc", 7, 17)) == "t1abc:7:a"
    assert loggable(table_verb("t1abc", 7, "dp", 1 << 17 | 1 << 3)) == "t1abc:7:dp"
    assert loggable("t1abc:7:a17; DROP") == "malformed payload"
