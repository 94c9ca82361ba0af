"""Random chat sessions against the core: hypothesis drives `TableService` the way
chats do and checks, after every step, what users count on.

Every example opens tables of every game in two Telegram groups and a Discord server
(whose locale is German), each chat's computers at a level of their own (random,
heuristic, strong: every level in every session), and mixes, in any order: /new,
lobby buttons pressed by anyone, the start, a seated player pressing a button he was
shown (a card, a bid, a page of his hand), the same press by another seat, by a
stranger or by somebody of the other platform (one has a Telegram user's id on
Discord), an old button pressed again, "Show my hand", "Take my seat back", votes to
close, /abort, /resign and its confirmation (pressed by its asker or another),
/forgetme with or without its question (its button pressed by its asker or another),
a rematch, a chat's language and other settings (its computers' level among them), a
player switching his table's language (`set_table_language`), the bot removed from a
chat, a turn's reminder and time-out firing, Telegram or Discord out of reach for a
while, a few of these at the same moment (presses and a time-out, with one or two
commands of a chat typed then: /abort, /resign, /forgetme, /new, its language set, its
upgrade), and the bot stopping or crashing and starting again on the same file.

What must hold after each step:

* nothing public (the channel's messages, the events announced, a refusal's text)
  shows a card still hidden, and a hand shows only what its seat may see (the same
  judge as `test_leaks`: the engine's public view);
* a button bound to a seat (a game action, a hand's menu, a resignation's
  confirmation) does nothing for anybody else: refused, the table as it was; a
  table of the other platform is unknown to the presser;
* what the chat shows is the table as it is: every message a player holds is the one
  the core would draw now (a change never goes unannounced), and every open table has
  its next step armed (a computer never stalls, a turn always has its clock);
* a computer plays the level its table was opened with (its chat's then), and each
  decision is asked at the table as it stands, with the seat's own view and the
  legal moves only, and answers one of them;
* a table speaks its chat's language (the Discord server's own until an admin sets
  one), a chat's switch reaches all its tables (one opened at that moment too), a
  player's switch his table alone;
* a person is stored under his account's name (not a Discord server's nickname);
* /forgetme's question changes nothing; his deletion hands over his seats, nobody
  else's (not his namesake's on the other platform), and leaves nothing stored that
  names him;
* a stop or a crash loses nothing: every open table comes back with the same
  state and draws the same messages;
* no exception escapes and the core logs no error;
* a finished or closed match's stored record replays with the engine to its score.

Timers are driven by hand: the clock stands still and turns are long, so nothing fires
on its own but a computer's move (`ai_delay` 0); a reminder, a time-out or a lobby's
expiry fires when a step says so, exactly as its timer would (`_fire`).  Each step
waits until the core is idle, so no step races a timer.  The computer decides on the
loop (`think`), the strong level on a small budget (`STRONG_BUDGET`).

The steps are in `session_play` (tables opened and played), `session_commands`
(commands and settings) and `session_platforms` (outages, chats lost or upgraded,
restarts); what they share in `sessions`.  This module holds what must hold.
"""

from __future__ import annotations

from hypothesis import event
from hypothesis.stateful import invariant

from bot.table import Status
from engine.record import replay_record

from .session_commands import CommandSteps
from .session_platforms import PlatformSteps
from .session_play import PlaySteps
from .sessions import BY_KEY, LANGS, buttons, long_sessions


class ChatSessions(PlaySteps, CommandSteps, PlatformSteps):
    """One bot on one SQLite file, its chats and their users; see the module."""

    @invariant()
    def nothing_hidden_shown(self) -> None:
        assert not self.watch.problems, "\n".join(self.watch.problems[:5])
        for table in self.playing():
            tv = self.svc.table(table.id)
            assert tv is not None
            text = tv.message.text + "\n" + " ".join(b.label for b in buttons(tv.message))
            assert table.deal_log is not None
            self.watch.check_text("table", text, self.watch.hidden(table), table.deal_log.seed)
            assert not self.watch.problems, self.watch.problems[0]
            for user in table.humans():
                hv = self.svc.hand(table.id, user, LANGS.get(user))
                assert hv is not None and hv.user == user
                self.check_hand(hv)

    @invariant()
    def the_chat_shows_the_table(self) -> None:
        """Every message players hold is what the core draws now."""
        svc, fc = self.svc, self.fc
        for tid, table in svc.tables.items():
            if table.status == Status.LOBBY:
                assert fc.lobbies[tid] == svc.lobby(tid), f"lobby {tid} not redrawn"
                continue
            assert fc.tables[tid] == svc.table(tid), f"table {tid} not redrawn"
            for user in table.humans():
                assert fc.hands.get((tid, user)) == svc.hand(tid, user, LANGS.get(user)), (
                    f"{user}'s hand at {tid} not redrawn"
                )

    @invariant()
    def every_table_moves_on(self) -> None:
        """An open table waits for a person, and the clock of his turn runs (or its
        lobby's): a timer of its current version, for a timer of an older one does
        nothing."""
        for tid, table in self.svc.tables.items():
            assert not table.unsaved
            timers = self.svc._timers.get(tid)
            armed = {
                h._args[1:]  # (table, version, what)
                for h in (timers.handles if timers else [])
                if not h.cancelled()
            }
            if table.status == Status.LOBBY:
                assert (table.version, "expire") in armed, (tid, armed)
                continue
            seat = table.to_act()
            assert seat is not None, f"nobody to act at {tid}"
            s = table.seats[seat]
            assert s is not None and s.human_playing, self.describe()
            assert (table.version, "timeout") in armed, (tid, armed, self.describe())

    @invariant()
    def computers_play_their_level(self) -> None:
        """Every computer at a table plays the level the table was opened with (its
        chat's then), and each decision was asked and answered as `think` checks."""
        assert not self.ai_problems, "\n".join(self.ai_problems[:5])
        for tid, table in self.svc.tables.items():
            level = self.opened_with.get(tid)
            assert table.settings.get("ai_level") == level, (tid, table.settings, level)
            for s in table.seats:
                assert s is None or s.ai in (None, level), (tid, s, level)
        for level in sorted(self.thought):
            event(f"the {level} computer moved")
        self.thought.clear()

    @invariant()
    def tables_open_as_their_chat_says(self) -> None:
        """A table opened in a chat speaks its language: the one its admin set, else
        the platform's for it (the Discord server's German)."""
        assert not self.opening_problems, "\n".join(self.opening_problems[:5])

    @invariant()
    def the_store_agrees(self) -> None:
        """The open tables and their versions, and each seated person as the boards
        name him: his account's name (on Discord not a server's nickname), and his
        own language."""

        async def check() -> None:
            store = self.bot.store
            assert store is not None
            rows = await store.open_tables()
            assert sorted(r.id for r in rows) == sorted(self.svc.tables)
            for r in rows:
                assert r.version == self.svc.tables[r.id].version
            for table in self.svc.tables.values():
                for key in set(table.humans()) - self.names_checked:
                    user = BY_KEY[key]
                    stored = await store.player(key)
                    assert stored == (user.account_name or user.name, user.lang), (key, stored)
                    self.names_checked.add(key)

        self.run(check())

    @invariant()
    def records_replay(self) -> None:
        """A match that ended (or closed after a scored deal) replays to its score."""
        for tid, (summary, deals) in self.ended.items():
            if tid in self.checked_records:
                continue
            self.checked_records.add(tid)
            record = self.run(self.bot.store.game_record(tid))  # type: ignore[union-attr]
            if record is None:
                # closed before any deal was scored: no record (docs/records.md)
                assert not any(summary.get("scores", [])), (tid, summary)
                continue
            event(f"record replayed: {record['game']}")
            code, answer = replay_record(record)
            assert code == 0, (tid, answer)
            assert isinstance(answer, dict)
            assert answer["scores"] == list(summary["scores"]), (tid, answer, summary)
            assert len(record["deals"]) in (deals, deals - 1), (tid, deals)


ChatSessions.TestCase.settings = long_sessions(2)
TestChatSessions = ChatSessions.TestCase
