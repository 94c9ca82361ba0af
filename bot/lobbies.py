"""A lobby, from /new (or a finished match's rematch) to the start of its match.

Opening one settles the rules its table plays (the host's preset and options over the
chat's, unless the chat's house rules are fixed).  A person holds one seat per chat,
claimed before the store is awaited, so two requests at once cannot both seat him.
Then its players join, change seats, seat or remove computers, and the host starts.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

from engine.errors import OptionError
from engine.games import GAME_MODULES, UnknownGame, game
from engine.protocol import GameSpec

from .i18n import game_name, norm_lang, option_error, preset_name, preset_named, t, typed
from .payload import Payload
from .ports import ChatRef, Outcome, UserRef
from .refusals import refuse
from .service_shape import ServiceShape
from .settings import ChatSettings, chat_language, rule_options, shown_value
from .table import Entry, Status, Table, seat_count


def computer_name(table: Table) -> str:
    """ "Computer n" with the lowest n no seat is called: names must tell the seats
    apart (a computer removed and another added must not give two "Computer 2")."""
    taken = {s.name for s in table.seats if s is not None}
    n = 1
    while (name := t(table.settings.get("lang"), "ai.name", n=n)) in taken:
        n += 1
    return name


def left_behind(table: Table, user: str, rest: list[str]) -> list[Entry]:
    """The entries after `user` leaves `table` (or the computer takes his seat) with
    `rest` the persons still in it: with nobody left it closes, else his host role
    passes to the first of them."""
    if not rest:
        return [{"k": "abort", "reason": "empty"}]
    if table.host == user:
        return [{"k": "host", "user": rest[0]}]
    return []


@dataclasses.dataclass(eq=False)
class Opening:
    """A /new or Rematch under way in `chat`; `lost`: the reason its chat was closed
    meanwhile (`close_chat`), for its table to close too once stored."""

    chat: str
    lost: str | None = None
    #: The table it opened, once stored.
    table_id: str | None = None


@dataclasses.dataclass(frozen=True)
class Rules:
    """The rules a new table plays: its game, the parsed options, the raw options it
    stores, and the preset they came from."""

    spec: GameSpec
    opts: Any
    raw: dict[str, Any]
    preset: str | None


def table_rules(
    settings: ChatSettings,
    game_id: str,
    preset: str | None,
    options: dict[str, Any] | None,
    lang: str,
) -> Rules | Outcome:
    """The rules of a table the host opens with `preset` and `options` in a chat of
    `settings`, or the refusal to tell him (an unknown game or preset, a bad option,
    rules other than the chat's fixed house rules)."""
    try:
        spec = game(game_id)
    except UnknownGame:
        # "/new auto_claim=off": an option where the game belongs
        why = "game_first" if "=" in game_id else "unknown_game"
        return refuse(lang, why, game=typed(game_id), games=", ".join(GAME_MODULES))
    # A preset the host names wins over the chat's single options; the chat's own
    # default preset is the base its options refine.
    named = preset is not None
    # a preset's id as typed ("All_Contracts"), as /settings takes it, or its name
    # for players ("Alle Spiele")
    if preset is not None:
        preset = preset_named(preset, tuple(spec.presets)) or (preset.strip().lower() or None)
    preset = preset or settings.presets.get(game_id)
    if preset and preset not in spec.presets:
        return refuse(
            lang,
            "unknown_preset",
            preset=typed(preset),
            presets=", ".join(spec.presets) or "—",
        )
    chosen = spec.presets[preset] if preset else {}
    chat_options = settings.options.get(game_id, {})
    raw: dict[str, Any] = {**chat_options, **chosen} if named else {**chosen, **chat_options}
    raw.update(rule_options(game_id, options or {}))
    try:
        opts = spec.parse_options(raw)
    except OptionError as e:
        return refuse(lang, "bad_options", error=option_error(lang, e, game_id))
    if settings.rules == "fixed" and (named or options):
        # house rules: a table plays the chat's, whatever the host names; naming
        # the house preset again is the house rules (its options refine it then)
        house = settings.presets.get(game_id)
        base = {**(spec.presets[house] if house else {}), **chat_options}
        if preset == house:
            raw = {**base, **rule_options(game_id, options or {})}
            try:
                opts = spec.parse_options(raw)
            except OptionError as e:
                return refuse(lang, "bad_options", error=option_error(lang, e, game_id))
        if opts != spec.parse_options(base):
            # what the house rules are, and the way to play them: on Discord the
            # members cannot see /settings, so "see the settings" would not do
            lg = norm_lang(lang)
            named_rules = [preset_name(house, lg)] if house else []
            named_rules += [
                f"{k.removeprefix(game_id + '.')}={shown_value(v, lg)}"
                for k, v in chat_options.items()
            ]
            house_text = ", ".join(named_rules) or t(lang, "rules.game_standard")
            return refuse(lang, "rules_fixed", game=game_name(game_id, lang), house=house_text)
    return Rules(spec, opts, raw, preset)


class Lobbies(ServiceShape):
    """The lobby use cases of `TableService` (a mixin: it commits and locks as the
    service does)."""

    def _seated_elsewhere(self, lang: str, chat: str, user: str) -> Outcome:
        """One seat per player per chat: the refusal names the table he has."""
        table = self.table_of(chat, user)
        if table is None:  # the one he is opening right now
            return refuse(lang, "seated_elsewhere")
        text = t(lang, "refuse.seated_elsewhere_at", table=table.id)
        return Outcome(False, text, "seated_elsewhere")

    def _seated_in(self, chat: str, user: str) -> bool:
        """One seat per player per chat: a seat, or a table being opened right now."""
        return (chat, user) in self._claims or self.table_of(chat, user) is not None

    @contextlib.contextmanager
    def _opening(self, chat: str) -> Iterator[Opening]:
        """A /new or Rematch in `chat` under way, from its first read of the store to
        its table among the chat's or refused: a `close_chat` meanwhile marks it."""
        opening = Opening(chat)
        self._openings.add(opening)
        try:
            yield opening
        finally:
            self._openings.discard(opening)

    async def create_table(
        self,
        chat: ChatRef,
        host: UserRef,
        game_id: str,
        *,
        preset: str | None = None,
        options: dict[str, Any] | None = None,
        is_admin: bool = False,
    ) -> Outcome:
        """Open a lobby in `chat` with `host` in the first seat."""
        return await self._outcome(
            host, self._create_table(chat, host, game_id, preset, options, is_admin)
        )

    async def _create_table(
        self,
        chat: ChatRef,
        host: UserRef,
        game_id: str,
        preset: str | None,
        options: dict[str, Any] | None,
        is_admin: bool,
        rematch: Table | None = None,
        opening: Opening | None = None,
    ) -> Outcome:
        async with contextlib.AsyncExitStack() as stack:
            if opening is None:
                opening = stack.enter_context(self._opening(chat.key))
            # after the settings are let go: a table opened as its chat was closed
            # (`close_chat` found no table of it yet) closes too, not left open until
            # it expires in a chat the bot lost
            stack.push_async_callback(self._close_if_lost, opening)
            lang = await self.reply_lang(host, chat)
            # The chat's settings, held until the table is among the chat's: a language
            # switch stored meanwhile would not reach it (`_update_setting` switches the
            # chat's tables), and the table would speak the old language to its end.
            await stack.enter_async_context(self._chat_held(chat.key))
            settings = await self.settings(chat)
            if settings.starters == "admins" and not is_admin:
                return refuse(lang, "not_allowed_to_start")
            rules = table_rules(settings, game_id, preset, options, lang)
            if isinstance(rules, Outcome):
                return rules
            if self._seated_in(chat.key, host.key):
                return self._seated_elsewhere(lang, chat.key, host.key)
            # Opening a table awaits the store before the host is seated: hold the claim
            # so a concurrent join or open by the same person in this chat is refused.
            claim = (chat.key, host.key)
            self._claims.add(claim)
            try:
                # not while his /forgetme runs: the table's row names him as its host
                # before the table is in memory, where the deletion would look for it
                async with self._people.hold([host.key]):
                    opened = await self._open(chat, host, game_id, rules, settings, rematch)
                    opening.table_id = opened.table_id if opened.ok else None
                    return opened
            finally:
                self._claims.discard(claim)

    async def _close_if_lost(self, opening: Opening) -> None:
        if opening.lost is not None and opening.table_id is not None:
            await self._close_tables([opening.table_id], opening.lost)

    async def _open(
        self,
        chat: ChatRef,
        host: UserRef,
        game_id: str,
        rules: Rules,
        settings: ChatSettings,
        rematch: Table | None = None,
    ) -> Outcome:
        create: Entry = {
            "k": "create",
            "chat": chat.key,
            "platform": chat.platform,
            "game": game_id,
            "options": rules.raw,
            "preset": rules.preset,
            "host": host.key,
            "at": self._clock(),
            # the chat's name as the platform gave it: hands name it, for a player may
            # sit at tables in several chats and get all his hands in one private chat
            "place": chat.title,
            "settings": {
                "turn_timeout": settings.turn_timeout or self.timings.turn_timeout,
                "ai_level": settings.ai_level or self.ai_level,
                "lang": chat_language(settings, chat.lang),
                "suits": settings.suits,
                "tricks": settings.tricks,
            },
        }
        if rematch is not None:
            create["rematch"] = rematch.id
        draft = Table("", create)
        assert seat_count(rules.spec, rules.opts) == draft.players
        entries: list[Entry] = [{"k": "join", "seat": 0, "user": host.key, "name": host.name}]
        if rematch is not None and rematch.players == draft.players:
            # the match's computers come back too (the people join again), where
            # they sat as seen from the host: Bauern's partners stay partners
            level = draft.settings.get("ai_level", self.ai_level)
            me = rematch.seat_of(host.key) or 0
            for i, s in enumerate(rematch.seats):
                seat = (i - me) % draft.players
                if s is not None and s.is_computer and seat:
                    entries.append({"k": "ai", "seat": seat, "name": s.name, "level": level})
        # the host is seated in the transaction that stores the table: no empty lobby
        # can stay behind a failed write or a crash (nobody could close it but an
        # admin, and its host was never told of it); his name and language go with
        # it, as with a join's seat
        table_id = await self.store.create_table(
            chat.key, game_id, create, entries, [self.player_op(host)]
        )
        table = Table(table_id, create)
        for e in entries:
            table.apply(e)
        moved_to = self._moved.get(chat.key)
        if moved_to is not None:
            # the chat changed its id while this table was being stored: follow it,
            # speaking the new chat's language if it has settings of its own
            await self._carry_chat(chat.key, moved_to, [table], chat.lang)
        self.tables[table_id] = table
        async with self.lock(table_id):
            self._arm(table)
            await self._notify(table, "lobby")
        return Outcome(True, table_id=table_id, lobby=self.lobby(table_id))

    async def _rematch(
        self, user: UserRef, p: Payload, chat: ChatRef | None, is_admin: bool
    ) -> Outcome:
        """ "Rematch" under a finished match: a lobby for the same game and rules in the
        same chat, its computers seated again, the presser its host; a press of another
        of its players while that lobby is open seats him there instead of opening a
        second one.  Only its players may ask (anyone may /new), and only from its
        chat: the button is public on Telegram, its payload easily sent elsewhere."""
        with self._opening(chat.key if chat is not None else "") as opening:
            return await self._rematch_in(user, p, chat, is_admin, opening)

    async def _rematch_in(
        self, user: UserRef, p: Payload, chat: ChatRef | None, is_admin: bool, opening: Opening
    ) -> Outcome:
        lang = await self.reply_lang(user, chat)
        row = await self.store.table_row(p.table)
        if row is None or row.status != Status.FINISHED.value:
            return refuse(lang, "unknown_table")
        if not row.chat.startswith(user.platform + ":"):
            return refuse(lang, "unknown_table")  # another platform's: not his to see
        if chat is None or chat.key != row.chat:
            return refuse(lang, "rematch_in_chat")
        old = Table.from_log(row.id, await self.store.table_log(row.id))
        mine = old.seat_of(user.key)
        if mine is None:
            return refuse(lang, "rematch_players_only", table=old.id)
        async with self._rematch_locks.hold([old.id]):
            waiting = next(
                (
                    tb
                    for tb in self.tables_in(chat.key)
                    if tb.rematch_of == old.id and tb.status == Status.LOBBY
                ),
                None,
            )
            if waiting is not None:
                if waiting.seat_of(user.key) is not None:
                    # which table: a Telegram player who cannot get his hand gets the
                    # link to the private chat again, as on Join
                    seated = refuse(lang, "already_seated")
                    return dataclasses.replace(seated, table_id=waiting.id)
                return await self._rematch_join(waiting, old, user, lang)
            # the match's own options, every one of them: a chat's defaults changed
            # since must not change the rules (or the seats) of its rematch
            options = dict(old.options_json)
            opened = await self._create_table(
                chat, user, old.game, old.preset, options, is_admin, old, opening
            )
            # the adapter shows the new lobby, as after /new
            return dataclasses.replace(opened, code="rematch") if opened.ok else opened

    async def _rematch_join(self, table: Table, old: Table, user: UserRef, lang: str) -> Outcome:
        """A player of `old` joins its rematch `table`: in his old seat as seen from
        where its host sits now, if free (Bauern's partners sit together again,
        whoever presses first), else in the first free one.  One change: a join and
        then a move, a kill in between left him in the wrong seat, unanswered."""
        async with self.lock(table.id):  # as `_act` takes a press
            if self.tables.get(table.id) is not table:
                return refuse(lang, "unknown_table")
            if table.unsaved:
                return refuse(lang, "not_saved")
            seat = None
            mine, was, now = (
                old.seat_of(user.key),
                old.seat_of(table.host),
                table.seat_of(table.host),
            )
            if mine is not None and was is not None and now is not None:
                seat = (now + mine - was) % table.players
                if table.seats[seat] is not None:
                    seat = None
            p = Payload(table.id, table.version, "j")
            return await self._join(table, user, p, lang, at=seat)

    async def _join(
        self, table: Table, user: UserRef, p: Payload, lang: str, at: int | None = None
    ) -> Outcome:
        """Join, in the first free seat or at `at` (a free Bauern seat pressed)."""
        if table.status != Status.LOBBY:
            return refuse(lang, "not_in_lobby")
        if table.seat_of(user.key) is not None:
            return refuse(lang, "already_seated")
        if self._seated_in(table.chat, user.key):
            return self._seated_elsewhere(lang, table.chat, user.key)
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free:
            return refuse(lang, "table_full")
        seat = free[0] if at is None else at
        if seat not in free:
            return refuse(lang, "seat_taken")
        # no await between the checks above and the seat taken in memory (`_commit`
        # applies before it stores), so two joins in one chat cannot both pass
        # his name and language with his seat: boards and records name him by them
        await self._commit(
            table,
            [{"k": "join", "seat": seat, "user": user.key, "name": user.name}],
            ops=[self.player_op(user)],
        )
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _leave(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        seat = table.seat_of(user.key)
        if seat is None:
            return refuse(lang, "not_seated")
        if table.status != Status.LOBBY:
            return refuse(lang, "not_in_lobby")
        remaining = [u for u in table.humans() if u != user.key]
        entries: list[Entry] = [{"k": "leave", "seat": seat}]
        entries += left_behind(table, user.key, remaining)
        await self._commit(table, entries)
        await self._after_lobby_change(table)
        return Outcome(True, table_id=table.id)

    def _onlooker(self, table: Table, user: UserRef, lang: str) -> Outcome:
        """A lobby's onlooker pressing what its players may: told to Join first where
        Join would seat him, else only that he does not play here."""
        if table.is_full() or self._seated_in(table.chat, user.key):
            return refuse(lang, "not_seated")
        # the button as the lobby labels it, in the table's language (not the reader's)
        join = t(table.settings.get("lang"), "button.join")
        return refuse(lang, "lobby_players_only", join=join)

    async def _add_ai(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return refuse(lang, "not_in_lobby")
        if table.seat_of(user.key) is None:
            return self._onlooker(table, user, lang)
        if p.version != table.version:  # a double tap: the first one seated a computer
            return refuse(lang, "stale")
        free = [i for i, s in enumerate(table.seats) if s is None]
        if not free:
            return refuse(lang, "table_full")
        name = computer_name(table)
        level = table.settings.get("ai_level", self.ai_level)
        await self._commit(table, [{"k": "ai", "seat": free[0], "name": name, "level": level}])
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _remove_ai(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return refuse(lang, "not_in_lobby")
        if table.seat_of(user.key) is None:
            return self._onlooker(table, user, lang)
        seat = p.arg if p.arg is not None else -1
        if not (0 <= seat < table.players) or (s := table.seats[seat]) is None:
            return refuse(lang, "no_ai_seat")
        if s.user is not None:
            # a person: only the host may send him away (one who never started the
            # bot on Telegram, or who went away, would otherwise block the start) —
            # and only from a current lobby: the seat may have changed hands since
            if p.version != table.version:
                return refuse(lang, "stale")
            if s.user == table.host:
                return refuse(lang, "no_ai_seat")  # the host leaves with Leave
            if user.key != table.host:
                return refuse(lang, "not_host", host=table.host_name() or "?")
        await self._commit(table, [{"k": "leave", "seat": seat}])
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _sit(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return refuse(lang, "not_in_lobby")
        seat = table.seat_of(user.key)
        to = p.arg if p.arg is not None else -1
        if seat is None:
            # a free seat pressed by one not yet at the table: he joins in that seat
            # (as Join would seat him, greeted alike: the adapters see "joined")
            if not 0 <= to < table.players:
                return refuse(lang, "seat_taken")
            joined = await self._join(table, user, p, lang, at=to)
            return dataclasses.replace(joined, code="joined") if joined.ok else joined
        if not 0 <= to < table.players or table.seats[to] is not None:
            return refuse(lang, "seat_taken")
        await self._commit(table, [{"k": "sit", "from": seat, "to": to}])
        await self._notify(table, "lobby")
        return Outcome(True, table_id=table.id)

    async def _start(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.status != Status.LOBBY:
            return refuse(lang, "not_in_lobby")
        if user.key != table.host:
            return refuse(lang, "not_host", host=table.host_name() or "?")
        if not table.is_full():
            return refuse(lang, "not_full")
        # The first dealer is drawn like a seed (from `secrets` unless a test injects a
        # deterministic source), so a table's whole history follows from its seeds.
        dealer = int(self._seed_source(), 16) % table.players
        await self._play(table, [{"k": "start", "dealer": dealer}], kind="started")
        return Outcome(True, table_id=table.id)
