"""Every rule option of every game, played through the bot as people play it.

The engine's tests play each option; the bot's whole-match, leak and random-session
tests play mostly the standard rules.  Here each option value a host or an admin can
pick (read from the games' option dataclasses, so a new option is played the day it
is added), and a few that only work together, is played as a whole match through
buttons only (Thousand's from 800 points a seat, `policies.near_the_barrel`: the
options show in its first deals, the barrel and the win in its last), in English and
German: the option's own choices are pressed by people (a blind bid, the second
stock's laying-away, a manual claim, an optional contract), no turn is left without
a button, every message is rendered (no text key, no ``{field}``, no Python repr,
no word of the other language), no hand card shows before it is played, only a
seat's owner may press its buttons, and the lobby and the Rules button name the
option before anybody joins.
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable

import pytest

from bot.i18n import TEXTS, contract_name
from bot.option_names import option_name
from bot.payload import decode as decode_payload
from bot.rules_text import OPTION_TEXT
from bot.service import Outcome, TableService, TableUpdate
from bot.settings import shown_value
from bot.table import Status, Table
from bot.views import Button, Message
from engine import protocol as P
from engine.actions import Action, Bid, Claim, Discard, Double, Look, PlayCard, decode
from engine.bauern.rules import CONTRACTS as BAUERN_CONTRACTS
from engine.dreier import CONTRACTS as DREIER_CONTRACTS
from engine.games import available, game
from engine.options import option_id
from engine.views import SeatView

from ..engine.props import option_values
from .fakechat import CHAT, Bot, Player, button, play_out, seat_computers, seeds, users
from .policies import ai_for, finisher, heuristic, near_the_barrel
from .test_leaks import Watch, _label_cards_in
from .test_texts_audit import PLACEHOLDER, foreign_words


def _single_options() -> list[tuple[str, dict[str, object]]]:
    out = []
    for game_id in available():
        standard = game(game_id).parse_options({})
        for f in dataclasses.fields(standard):
            default = getattr(standard, f.name)
            # the values other than the default: a switch flipped, each other choice
            values = [v for v in option_values(f) if v != default]
            assert values, f"{game_id}.{f.name}: which values to play?"
            out += [(game_id, {option_id(game_id, f.name): v}) for v in values]
    return out


#: Options that change each other's play: a two-player or four-player Thousand with
#: blind bids or the golden round, a Carinthian table where forehand calls first, a
#: Bettler partner who plays when a Kontra may beat a Bettler, every optional
#: contract at once, manual claims with Bauern's optional contracts.
COMBINED: list[tuple[str, dict[str, object]]] = [
    ("tausend", {"tausend.players": 2, "tausend.blind_bid": True}),
    ("tausend", {"tausend.players": 2, "tausend.golden_round": True}),
    ("tausend", {"tausend.players": 4, "tausend.blind_bid": True, "tausend.golden_round": True}),
    ("dreier", {"dreier.carinthian": True, "dreier.caller_first": True}),
    (
        "dreier",
        {
            "dreier.assenbettler": True,
            "dreier.assbettler": True,
            "dreier.plauderer": True,
            "dreier.zehnergang": True,
            "dreier.bauernloch": True,
        },
    ),
    ("bauern", {"bauern.bettler_partner_plays": True, "bauern.kontra_beats_bettler": True}),
    ("bauern", {"auto_claim": False, "bauern.assbettler": True, "bauern.zehnergang": True}),
    ("zweier", {"auto_claim": False, "zweier.schneider": False}),
]

CASES = _single_options() + COMBINED

#: The contracts an option adds (its id is the contract's): someone must bid them.
OPTIONAL_CONTRACTS = {
    "dreier": {c.option for c in DREIER_CONTRACTS if c.option},
    "bauern": {c.option for c in BAUERN_CONTRACTS if c.option and c.option != "bettler"},
    "zweier": set(),
    "tausend": set(),
}


def _case_id(case: tuple[str, dict[str, object]]) -> str:
    """``tausend-players_4+blind_bid_True``: no "=" or ":", which `-k` cannot take."""
    game_id, options = case
    named = (f"{k.removeprefix(game_id + '.')}_{v}" for k, v in options.items())
    return game_id + "-" + "+".join(named)


#: What no rendered text may hold: a field left unfilled, a Python repr of a card, an
#: enum or a flag.
RAW = re.compile(
    r"[{}]|Card\(|<\w+\.|\b(?:Suit|Rank|Phase|Kind|Status)\.[A-Z]|\b(?:None|True|False)\b"
)
#: A text key shown as it is ("hand.sitting_out"): a word with dots that is a key.
KEY_LIKE = re.compile(r"\b[a-z_]+(?:\.[a-z_0-9]+)+\b")
KEYS = frozenset(TEXTS["en"])


@dataclasses.dataclass
class Seen:
    """What a match showed and what its people pressed, for the checks at its end."""

    #: (where, language, text) of every message and button label rendered
    texts: list[tuple[str, str, str]] = dataclasses.field(default_factory=list)
    #: (pressing user, action, whether a Thousand bidder had looked at his hand)
    pressed: list[tuple[str, Action, bool]] = dataclasses.field(default_factory=list)
    problems: list[str] = dataclasses.field(default_factory=list)
    foreign_refused: int = 0
    #: hands looked at of a person who holds no card this deal
    sat_out: int = 0

    def render(self, where: str, lang: str, message: Message) -> None:
        self.texts.append((where, lang, message.text))
        for b in message.all_buttons():
            self.texts.append((f"{where} button", lang, b.label))


class Person(Player):
    """A player who notes every game action he presses (decoded as the table read it)."""

    seen: Seen

    async def press(self, b: Button) -> Outcome:
        p = decode_payload(b.payload)
        table = self.chat.service.tables.get(p.table)
        if p.is_game_action and table is not None and table.deal is not None:
            assert p.arg is not None
            seat = table.seat_of(self.key)
            blind = seat is not None and _unseen(table, seat)
            self.seen.pressed.append((self.key, decode(p.arg, table.deal.contracts), not blind))
        out = await super().press(b)
        if out.hand is not None:  # a page of bids, a discard menu: shown to him alone
            self.seen.render("hand", self.user.lang or "en", out.hand.message)
        return out


def _keenness(table: Table, blind: bool, action: Action) -> float:
    """How often a person takes a choice that only an option puts on a button (0 for
    any other): a claim by hand, a blind bid or a look at a blind hand, an optional
    contract (seldom: a high one ends a match before a claim comes up)."""
    if isinstance(action, Claim) or (isinstance(action, PlayCard) and action.claim):
        return 0.6
    if isinstance(action, Look) or (blind and isinstance(action, Bid)):
        return 0.6
    if isinstance(action, Bid) and action.contract in OPTIONAL_CONTRACTS[table.game]:
        return 0.3
    return 0.0


def _unseen(table: Table, seat: int) -> bool:
    """Whether the seat has not looked at its Thousand hand yet (a bid is blind)."""
    assert table.deal is not None
    dseat = table.deal_seat(seat)
    looked = getattr(table.deal, "looked", None)
    return looked is not None and dseat is not None and not looked >> dseat & 1


#: Thousand's deals played at random before `finisher` plays to end the match.
RANDOM_DEALS = 2


def _looking(contracts: tuple[str, ...], codes: list[int]) -> int | None:
    """Looking at a blind hand, when it is offered: `finisher` would never bid above
    120 on the barrel with cards unseen, and a match of blind passes would not end."""
    return next((c for c in codes if isinstance(decode(c, contracts), Look)), None)


def _thousand_ai(service: TableService) -> Callable[[str, SeatView, list[int], str], int]:
    """Thousand's computer seats as `policies.ai_for` plays them, looking first."""
    choose = ai_for("tausend", service)
    assert choose is not None

    def look_first(level: str, view: SeatView, legal: list[int], seed: str) -> int:
        table = service.tables[seed.rsplit(":", 1)[0]]
        assert table.deal is not None
        look = _looking(table.deal.contracts, legal)
        return look if look is not None else choose(level, view, legal, seed)

    return look_first


def explorer(table: Table, seat: int, codes: list[int], rng: random.Random) -> int | None:
    """Presses the option's own choices when they are offered (more often than not),
    else plays as people do: mostly as the rule-based AI would, sometimes at random
    (random bidders alone end a match in a deal or two, before an option shows).  At
    Thousand random only in the first deals, then `finisher`'s, or it never ends."""
    assert table.deal is not None
    contracts = table.deal.contracts
    blind = _unseen(table, seat)
    keen = [(c, k) for c in codes if (k := _keenness(table, blind, decode(c, contracts)))]
    if table.game == "tausend" and len(table.deals) > RANDOM_DEALS:
        look = _looking(contracts, codes)
        return look if look is not None else finisher(table, seat, codes, rng)
    if keen:
        code, k = rng.choice(keen)
        if rng.random() < k:
            return code
    if table.game == "tausend":
        return rng.choice(codes)
    plain = [c for c in codes if isinstance(a := decode(c, contracts), Discard) and not a.contract]
    if plain:  # a raise to a contract nobody bid ends a match in one deal
        return rng.choice(plain)
    bidding = any(isinstance(decode(c, contracts), Bid | Double) for c in codes)
    if not bidding and rng.random() < 0.3:
        return rng.choice(codes)
    return heuristic(table, seat, codes, rng)


async def _open(
    bot: Bot, game_id: str, options: dict[str, object], lang: str, people: list[Person]
) -> str:
    """A lobby with the option: English tables get it from the host's /new, German
    ones from the chat's /settings (the path an admin takes); its lobby and Rules
    button name it before anybody joins, then the others join and it starts."""
    admin = people[0].user
    assert (await bot.svc.update_setting(CHAT, admin, "language", lang, is_admin=True)).ok
    if lang == "de":
        for key, value in options.items():
            named = key if "." in key else f"{game_id}.{key}"  # /settings zweier.auto_claim
            out = await bot.svc.update_setting(
                CHAT, admin, named, shown_value(value), is_admin=True
            )
            assert out.ok, out
    out = await bot.svc.create_table(
        CHAT, admin, game_id, options=dict(options) if lang == "en" else None
    )
    assert out.ok and out.table_id is not None, out
    tid = out.table_id
    table = bot.svc.tables[tid]
    for key, value in options.items():
        assert table.options_json[key] == value, (key, table.options_json)
    lobby = bot.fc.lobbies[tid].message.text
    rules = await people[-1].press(button(bot.fc.lobbies[tid].message, "ru"))
    assert rules.ok and rules.text
    for key, value in options.items():
        shown = shown_value(value, lang)
        # by its name in the table's language, not the id admins type
        assert f"{option_name(key, lang)} {shown}" in lobby, (key, lobby)
        # the Rules button answers the one who pressed it, in his language
        reader = people[-1].user.lang or lang
        line = f"• {OPTION_TEXT[reader][key]}: {shown_value(value, reader)}"
        assert line in rules.text.splitlines(), (key, rules.text)
    return tid


async def _seat(bot: Bot, tid: str, people: list[Person], lang: str) -> list[Person]:
    """The second person joins, except at a German table for two: there he only
    watches (and tries the host's buttons) while a computer plays; the host fills the
    rest with computers.  Those who sit."""
    table = bot.svc.tables[tid]
    sitting = people[:1] if lang == "de" and table.players == 2 else people
    for pl in sitting[1:]:
        assert (await pl.press(button(bot.fc.lobbies[tid].message, "j"))).ok
    await seat_computers(bot, tid, people[0])
    return sitting


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("case", CASES, ids=_case_id)
async def test_an_option_plays_a_whole_match_through_buttons(
    make_bot: Callable[..., Bot],
    monkeypatch: pytest.MonkeyPatch,
    case: tuple[str, dict[str, object]],
    lang: str,
) -> None:
    game_id, options = case
    other = "de" if lang == "en" else "en"
    # computers bid as people do: random ones end a Dreier match in one deal
    bot = await make_bot(ai_level="heuristic", seed_source=seeds(lang)).start()
    seen = Seen()
    watch = Watch(bot.svc)
    try:
        if game_id == "tausend":
            monkeypatch.setattr("bot.service.choose_action", _thousand_ai(bot.svc))
            near_the_barrel(monkeypatch)
        # one person reads in the chat's language, the other in the other one
        people = [
            Person(bot.fc, dataclasses.replace(u, lang=(lang, other)[i]), explorer)
            for i, u in enumerate(users(2))
        ]
        for pl in people:
            pl.seen = seen
            bot.fc.langs[pl.key] = pl.user.lang or lang
        tid = await _open(bot, game_id, options, lang, people)
        seen.render("lobby", lang, bot.fc.lobbies[tid].message)

        def check(update: TableUpdate) -> None:
            """Runs inside the chat's listener, whose failures the service only logs:
            what goes wrong is kept for the end of the test."""
            try:
                judge(update)
            except Exception as e:
                seen.problems.append(f"checking {update.kind} failed: {e!r}")

        def judge(update: TableUpdate) -> None:
            watch.on_update(bot.fc.channel, update)
            table = bot.svc.tables.get(tid)
            if table is None or update.table_id != tid:
                return
            # the channel and every hand in both languages (the other one now and
            # then: every fourth move still shows a Thousand deal's texts in both)
            both = update.kind != "action" or table.version % 4 == 0
            for lg in (lang, other) if both else (lang,):
                tv = bot.svc.table(tid, lg)
                if tv is not None:
                    seen.render("table", lg, tv.message)
                for pl in people:
                    hv = bot.svc.hand(tid, pl.key, lg)
                    if hv is not None:
                        seen.render("hand", lg, hv.message)
            if update.result is not None:
                seen.render(update.kind, lang, update.result.message)
            if table.status != Status.PLAYING or table.deal is None:
                return
            # a seat without cards this deal (Thousand's dealer with four, a Dreier
            # tie-break's third) sees no card of it
            hidden = watch.hidden(table)
            for pl in people:
                seat = table.seat_of(pl.key)
                if seat is None:
                    continue
                dseat = table.deal_seat(seat)
                if dseat is not None and P.view(table.deal, dseat).sitting_out != dseat:
                    continue
                hv = bot.svc.hand(tid, pl.key)
                assert hv is not None, f"{pl.key} sits at the table and has no hand"
                text = hv.message.text + " " + " ".join(b.label for b in hv.message.all_buttons())
                own = set(P.view(table.deal, dseat).hand) if dseat is not None else set()
                shown = _label_cards_in(text, hidden - own)  # a Bettler's partner keeps his
                seen.sat_out += 1
                if shown:
                    seen.problems.append(
                        f"{pl.key} sits out and sees {sorted(c.id for c in shown)}"
                    )
            # whose turn it is has a button, or a computer moves (a deal's end is
            # followed by the next deal's start, which brings its hands)
            to_act = table.to_act()
            if to_act is not None and update.kind in ("started", "action"):
                s = table.seats[to_act]
                if s is not None and s.user is not None and not s.replaced:
                    hv = bot.fc.hands.get((tid, s.user))
                    if hv is None or not hv.your_turn:
                        seen.problems.append(f"{s.user}'s turn shows no button: {update.kind}")

        sitting = await _seat(bot, tid, people, lang)
        bot.fc.on_update.append(check)
        assert (await people[0].press(button(bot.fc.lobbies[tid].message, "st"))).ok

        async def foreign_press(_: Outcome) -> None:
            """Whose turn it is now: another person presses his first button."""
            table = bot.svc.tables.get(tid)
            if table is None or table.to_act() is None:
                return
            owner = next((p for p in people if table.seat_of(p.key) == table.to_act()), None)
            hv = owner.hand(tid) if owner is not None else None
            if owner is None or hv is None or not hv.your_turn:
                return
            moves = [
                b for b in hv.message.all_buttons() if decode_payload(b.payload).is_game_action
            ]
            if not moves:
                return
            intruder = next(p for p in people if p is not owner)
            before = table.version
            out = await bot.svc.act(intruder.user, moves[0].payload)
            assert not out.ok, f"{intruder.key} pressed {owner.key}'s {moves[0].label}"
            assert table.version == before
            seen.foreign_refused += 1

        await play_out(bot.fc, tid, list[Player](sitting), after_press=foreign_press)
        kinds = bot.fc.kinds(tid)
        assert kinds[-1] == "finished" and "aborted" not in kinds, kinds[-5:]
        final = bot.fc.channel[-1]
        assert final.kind == "finished" and final.message.text
    finally:
        await bot.stop()

    assert not watch.problems, "\n".join(watch.problems[:10])
    assert not seen.problems, "\n".join(seen.problems[:10])
    assert watch.checked.get("hand", 0) > 0 and seen.foreign_refused > 0
    words = {lg: foreign_words(lg) for lg in ("en", "de")}
    for where, lg, text in set(seen.texts):
        for line in text.splitlines():
            assert not RAW.search(line), (where, lg, line)
            assert not PLACEHOLDER.search(line), (where, lg, line)
            keys = [k for k in KEY_LIKE.findall(line) if k in KEYS]
            assert not keys, (where, lg, line)
            assert not words[lg].search(line), (where, lg, line)
    _check_option_was_played(game_id, options, seen)


def _check_option_was_played(game_id: str, options: dict[str, object], seen: Seen) -> None:
    """The option's own choice was on a button and pressed (or showed) in this match."""
    actions = [a for _, a, _ in seen.pressed]
    texts = "\n".join(text for _, _, text in seen.texts)
    if options.get("auto_claim") is False:
        claims = [a for a in actions if isinstance(a, Claim) or getattr(a, "claim", False)]
        assert claims, "nobody claimed by hand"
    if options.get("tausend.blind_bid") and not options.get("tausend.golden_round"):
        assert any(isinstance(a, Bid) and not looked for _, a, looked in seen.pressed)
        assert any(isinstance(a, Look) for a in actions)
    if options.get("tausend.players") == 2:
        assert any(isinstance(a, Discard) for a in actions), "no stock laid away"
    if options.get("tausend.players") == 4:
        assert seen.sat_out > 0, "no person dealt and sat out"
    if options.get("tausend.golden_round"):  # in play, not the lobby's "golden round on"
        played = "\n".join(text for where, _, text in seen.texts if where != "lobby")
        assert "(golden round)" in played or "(goldene Runde)" in played
    if options.get("dreier.carinthian"):  # the contracts it plays without talon
        assert any(isinstance(a, Bid) and a.contract in ("normal", "bettler") for a in actions)
    said = {
        "dreier.count_down": ("table.scores_down",),
        "dreier.cut_ritual": ("table.cuts", "table.knocks"),
    }
    for key, text_keys in said.items():
        if options.get(key):
            lines = [
                TEXTS[lg][k].replace("{name}", "").split("{")[0] for k in text_keys for lg in TEXTS
            ]
            assert any(line in texts for line in lines), f"the table never said {key}"
    offered = {text for where, _, text in seen.texts if where == "hand button"}
    if options.get("bauern.bettler") is False:
        names = {contract_name("bettler", lg) for lg in TEXTS}
        assert not any(b.startswith(n) for b in offered for n in names), "a Bettler button"
    for key, value in options.items():
        name = key.removeprefix(game_id + ".")
        if value is True and name in OPTIONAL_CONTRACTS[game_id]:
            words = {contract_name(name, lg) for lg in ("en", "de")}
            bid = any(isinstance(a, Bid) and a.contract == name for a in actions)
            assert bid or any(w in b for b in offered for w in words), f"no {name} button"
