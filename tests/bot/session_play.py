"""The steps of the random chat sessions (`test_fuzz_service`) at the tables: /new,
lobbies joined, filled, started or left to expire, and play: a seated player's own
presses, another seat's, a stranger's, an old button pressed again, the table
message's buttons, turns that run out or are walked away from, and several of these
at the same moment."""

from __future__ import annotations

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import initialize, precondition, rule

from bot.payload import decode as decode_payload
from bot.table import Status
from engine.games import game

from .fakechat import Player
from .sessions import (
    ADMIN,
    BY_KEY,
    CHAT_OF,
    CHATS,
    EVERYONE,
    GAMES,
    LEVELS,
    PEOPLE,
    SEAT_BOUND,
    STRANGER,
    VERSIONED,
    SessionMachine,
    buttons,
    verb,
)


class PlaySteps(SessionMachine):
    """Tables opened, joined, started and played."""

    # --- steps: opening and lobbies -------------------------------------------------

    @initialize(levels=st.permutations(LEVELS))
    def computer_levels(self, levels: list[str]) -> None:
        """Each chat's computers play a level of their own (its admin's `ai_level`):
        every level in some chat, so every session meets each."""
        for chat, level in zip(CHATS, levels, strict=True):
            admin = ADMIN[chat.platform]
            out = self.run(self.svc.update_setting(chat, admin, "ai_level", level, is_admin=True))
            assert out.ok, out
            self.level_of[chat.key] = level

    @precondition(lambda self: len(self.svc.tables) < 3)
    @rule(game_id=st.sampled_from(GAMES), data=st.data())
    def open_table(self, game_id: str, data: st.DataObject) -> None:
        """/new in a chat, more often in one that has a table already (two tables of
        a chat: a language or an /abort meets both)."""
        busy = [c for c in self.chats if self.svc.tables_in(c.key)]
        chat = data.draw(st.sampled_from([*self.chats, *busy]), label="chat")
        host = data.draw(st.sampled_from(PEOPLE[chat.platform]), label="host")
        preset = data.draw(st.sampled_from([None, *game(game_id).presets]), label="preset")
        out = self.run(self.svc.create_table(chat, host, game_id, preset=preset))
        self.run(self.settle())
        self.check_outcome(host, out)
        if out.ok:
            assert out.table_id in self.svc.tables and out.lobby is not None
            assert self.svc.tables[out.table_id].host == host.key
        else:
            assert out.code in ("seated_elsewhere", "not_allowed_to_start", "rules_fixed"), out

    @precondition(lambda self: self.lobbies())
    @rule(data=st.data())
    def lobby_press(self, data: st.DataObject) -> None:
        """Anybody presses any button of a lobby, in its chat or (a forged one) in
        another; a refusal changes nothing."""
        table = data.draw(st.sampled_from(self.lobbies()), label="lobby")
        lobby = self.fc.lobbies[table.id]
        b = data.draw(st.sampled_from(buttons(lobby.message)), label="button")
        user = data.draw(st.sampled_from(EVERYONE), label="presser")
        chat = data.draw(st.sampled_from([CHAT_OF[table.chat], *self.chats]), label="chat")
        out, unchanged = self.run(self.press(user, b.payload, chat))
        if not out.ok or verb(b.payload) == "ru":
            assert unchanged, (out, b)
        if user.platform != table.platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.lobbies())
    @rule(data=st.data())
    def fill_and_start(self, data: st.DataObject) -> None:
        """Some people press Join, the host seats computers in the seats left and
        presses Start."""
        table = data.draw(st.sampled_from(self.lobbies()), label="lobby")
        host = BY_KEY[table.host]
        chat = CHAT_OF[table.chat]
        people = PEOPLE[table.platform]
        for user in data.draw(st.lists(st.sampled_from(people), max_size=3), label="joiners"):
            join = [b for b in buttons(self.fc.lobbies[table.id].message) if verb(b.payload) == "j"]
            if join:
                out, unchanged = self.run(self.press(user, join[0].payload, chat))
                assert out.ok or unchanged, out
        for _ in table.seats:  # one computer a seat at most: no endless pressing
            if self.fc.lobbies[table.id].can_start:
                break
            ai = next(
                b for b in buttons(self.fc.lobbies[table.id].message) if verb(b.payload) == "ai"
            )
            out, _ = self.run(self.press(host, ai.payload, CHAT_OF[table.chat]))
            assert out.ok, out
        start = next(
            b for b in buttons(self.fc.lobbies[table.id].message) if verb(b.payload) == "st"
        )
        out, _ = self.run(self.press(host, start.payload, CHAT_OF[table.chat]))
        assert out.ok, out
        assert table.id not in self.svc.tables or self.svc.tables[table.id].status != Status.LOBBY
        event(f"a table started on {table.platform}")

    @precondition(lambda self: self.lobbies())
    @rule(data=st.data())
    def lobby_expires(self, data: st.DataObject) -> None:
        if not self.seldom(data, 3):
            return
        table = data.draw(st.sampled_from(self.lobbies()), label="lobby")
        self.run(self.fire(table, "expire"))
        assert table.id not in self.svc.tables
        assert self.fc.kinds(table.id)[-1] == "aborted"

    # --- steps: playing -------------------------------------------------------------

    @precondition(lambda self: any(buttons(hv.message) for hv in self.hands()))
    @rule(data=st.data())
    def own_press(self, data: st.DataObject) -> None:
        """A seated player presses a button of his hand (or of the menu it opened):
        a current one does what it says."""
        hv = data.draw(
            st.sampled_from([h for h in self.hands() if buttons(h.message)]), label="hand"
        )
        b = data.draw(st.sampled_from(buttons(hv.message)), label="button")
        table = self.svc.tables[hv.table_id]
        current = decode_payload(b.payload).version == table.version
        out, unchanged = self.run(self.press(BY_KEY[hv.user], b.payload))
        event(f"own press: {verb(b.payload)} {out.code}")
        if out.hand is not None:
            self.menus[(hv.table_id, hv.user)] = out.hand
        else:
            self.menus.pop((hv.table_id, hv.user), None)
        if current and verb(b.payload) in VERSIONED:
            assert out.ok, (out, b, hv.message.text)
        if not out.ok:
            assert unchanged, out

    @precondition(lambda self: self.playing())
    @rule(data=st.data(), presses=st.integers(1, 40))
    def play_on(self, data: st.DataObject, presses: int) -> None:
        """The people at a table play on for a while, as `play_out` does."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        players = [Player(self.fc, BY_KEY[u]) for u in table.humans()]
        for _ in range(presses):
            if table.id not in self.svc.tables:
                break
            for pl in players:
                out = self.run(pl.take_turn(table.id))
                if out is not None:
                    assert out.ok, out
                    self.run(self.settle())
                    break
            else:
                break  # nobody's turn: a computer's that never comes, caught below
        self.menus.clear()

    @precondition(lambda self: self.hands())
    @rule(data=st.data())
    def foreign_press(self, data: st.DataObject) -> None:
        """Somebody presses a button of another's hand (it was forwarded, or forged):
        refused, nothing changes."""
        bound = [
            (hv, b)
            for hv in self.hands()
            for b in buttons(hv.message)
            if verb(b.payload) in SEAT_BOUND
        ]
        if not bound:
            return
        hv, b = data.draw(st.sampled_from(bound), label="button")
        others = [u for u in EVERYONE if u.key != hv.user]
        user = data.draw(st.sampled_from(others), label="presser")
        out, unchanged = self.run(self.press(user, b.payload))
        event(f"foreign press: {verb(b.payload)} {out.code}")
        assert not out.ok, (user.key, hv.user, b, out)
        assert unchanged, out
        if user.platform != self.svc.tables[hv.table_id].platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def stranger_press(self, data: st.DataObject) -> None:
        """One not seated presses any button of a running table (its message, a
        hand): only the rules answer him, nothing changes."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        shown = buttons(self.fc.tables[table.id].message)
        shown += [b for hv in self.hands() if hv.table_id == table.id for b in buttons(hv.message)]
        if not shown:
            return
        b = data.draw(st.sampled_from(shown), label="button")
        seated = set(table.humans())
        user = data.draw(
            st.sampled_from([u for u in EVERYONE if u.key not in seated]),
            label="presser",
        )
        out, unchanged = self.run(self.press(user, b.payload, CHAT_OF[table.chat]))
        event(f"stranger press: {verb(b.payload)} {out.code}")
        assert unchanged, (user.key, b, out)
        assert not out.ok or verb(b.payload) == "ru", (user.key, b, out)
        if user.platform != table.platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def stale_press(self, data: st.DataObject) -> None:
        """A button drawn at an older version of the table is pressed by the one it
        was shown to (a hand's) or by a seated player (the channel's): a card, a bid
        or a menu is refused; nothing is ever pressed twice."""
        old = [
            (tid, owner, b)
            for tid, owner, b in self.old_buttons()
            if tid in self.svc.tables
            and decode_payload(b.payload).version < self.svc.tables[tid].version
        ]
        moves = [(tid, owner, b) for tid, owner, b in old if verb(b.payload) in VERSIONED]
        prefer_moves = data.draw(st.booleans(), label="a move")
        if moves and prefer_moves:
            old = moves
        if not old:
            return
        tid, owner, b = data.draw(st.sampled_from(old), label="button")
        table = self.svc.tables[tid]
        pressers = [owner] if owner is not None else table.humans()
        if not pressers:
            return
        user = BY_KEY.get(data.draw(st.sampled_from(pressers), label="presser"), STRANGER)
        out, unchanged = self.run(self.press(user, b.payload, CHAT_OF[table.chat]))
        event(f"stale press: {verb(b.payload)} {out.code}")
        if verb(b.payload) in VERSIONED:
            assert not out.ok, (b, out)
        if not out.ok:
            assert unchanged, out

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def table_button(self, data: st.DataObject) -> None:
        """A seated player presses a button of the table message: Show my hand, Take
        my seat back, Close the table too, the rules."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        shown = buttons(self.fc.tables[table.id].message)
        if not shown or not table.humans():
            return
        b = data.draw(st.sampled_from(shown), label="button")
        user = BY_KEY[data.draw(st.sampled_from(table.humans()), label="presser")]
        out, unchanged = self.run(self.press(user, b.payload, CHAT_OF[table.chat]))
        if verb(b.payload) == "h":
            assert out.ok and out.hand is not None, out
        if not out.ok or verb(b.payload) in ("h", "ru"):
            assert unchanged, out

    @precondition(lambda self: self.playing())
    @rule(data=st.data(), what=st.sampled_from(["timeout", "timeout", "remind"]))
    def clock_runs_out(self, data: st.DataObject, what: str) -> None:
        """The person to act lets his reminder come, or his time run out: the
        computer plays for him."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        seat = table.to_act()
        assert seat is not None
        s = table.seats[seat]
        assert s is not None and s.user is not None
        version, seen = table.version, len(self.fc.updates)
        self.run(self.fire(table, what))
        if what == "remind":
            assert [(u.kind, u.user) for u in self.fc.updates[seen:]] == [("reminder", s.user)]
        else:
            assert table.id not in self.svc.tables or table.version > version
        self.menus.clear()

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def walk_away(self, data: st.DataObject) -> None:
        """A player stops pressing: his turns run out until the computer takes his
        seat (the others play on meanwhile)."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        if not table.present():
            return
        walker = data.draw(st.sampled_from(table.present()), label="walker")
        others = [Player(self.fc, BY_KEY[u]) for u in table.humans() if u != walker]
        for _ in range(60):
            seat = table.to_act()
            s = table.seats[seat] if seat is not None else None
            if table.id not in self.svc.tables or s is None or walker not in table.present():
                break
            if s.user == walker:
                self.run(self.fire(table, "timeout"))
            elif not any(self.run(pl.take_turn(table.id)) for pl in others):
                break
            self.run(self.settle())
        self.menus.clear()

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def at_once(self, data: st.DataObject) -> None:
        """Two or three things happen at the same moment: players press what they
        see (a double tap, two players, a stranger), a timer fires.  Each is answered
        as if it came alone, before or after the others."""
        shown = self.pressable()
        if not shown:
            return
        presses = data.draw(
            st.lists(st.sampled_from(shown), min_size=1, max_size=3), label="presses"
        )
        fire = data.draw(st.sampled_from([None, *self.turns()]), label="a timer")
        outs = self.run(self.together([], presses, fire))
        for (user, _, _), out in zip(presses, outs, strict=True):
            self.check_outcome(user, out)
        self.menus.clear()
