"""The steps of the random chat sessions (`test_fuzz_service`) that no person takes:
Telegram or Discord out of reach for a while, the bot removed from a chat, a group
upgraded to a supergroup, and the bot stopped or crashed and started again on the
same file."""

from __future__ import annotations

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from .sessions import CHATS, LANGS, PLATFORMS, UPGRADED, SessionMachine


class PlatformSteps(SessionMachine):
    """What the platforms and the machine the bot runs on do to it."""

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def outage(self, data: st.DataObject) -> None:
        """Telegram or Discord is out of reach for a while (`hold`, then `listen`): no
        person's clock there runs meanwhile, not even a time-out that fires as it goes."""
        playing = sorted({tb.platform for tb in self.playing()})
        platform = data.draw(st.sampled_from(playing or PLATFORMS), label="platform")
        before = self.run(self.drawn())

        async def hold() -> None:  # on the loop, as an adapter calls it
            self.svc.hold(platform)

        self.run(hold())
        turns = [tb for tb in self.playing() if tb.to_act() is not None and tb.platform == platform]
        if turns:
            table = data.draw(st.sampled_from(turns), label="table")
            self.run(self.fire(table, data.draw(st.sampled_from(["timeout", "remind"]))))
        assert self.run(self.drawn()) == before, "a person's turn moved while he could not press"
        self.run(self.serve(self.bot, platform))
        self.run(self.settle())
        assert self.run(self.drawn()) == before

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def chat_lost(self, data: st.DataObject) -> None:
        """The bot was removed from a chat: its tables close."""
        if not self.seldom(data, 4):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        closed = self.run(self.svc.close_chat(chat, "group_lost"))
        self.run(self.settle())
        assert not self.svc.tables_in(chat.key)
        assert all(self.fc.kinds(tid)[-1] == "aborted" for tid in closed)

    @precondition(lambda self: CHATS[1] in self.chats and self.svc.tables_in(CHATS[1].key))
    @rule()
    def chat_upgraded(self) -> None:
        """Telegram made the second group a supergroup, with a new id: its tables
        follow, and play on there.  The old group is gone for good (Telegram sends
        nothing of it again), so no step uses it after."""
        self.upgrading()
        moved = self.run(self.svc.move_chat(CHATS[1], UPGRADED))
        self.run(self.settle())
        assert moved and all(self.svc.tables[tid].chat == UPGRADED.key for tid in moved)
        assert not self.svc.tables_in(CHATS[1].key)

    # --- steps: the bot stops --------------------------------------------------------

    @precondition(lambda self: self.svc.tables)
    @rule(crash=st.booleans(), data=st.data())
    def restart(self, crash: bool, data: st.DataObject) -> None:
        """Stop (or kill) the bot and start it on the same file: every open table is
        back as it was, drawing the same messages."""
        if not self.seldom(data, 3):
            return
        before = self.run(self.drawn())
        self.old_chats.append(self.fc)
        self.run(self.bot.crash() if crash else self.bot.stop())
        self.bot = self.run(self._start())
        after = self.run(self.drawn())
        event(f"restart with {len(after)} open table(s)")
        for tid in sorted(before.keys() | after.keys()):
            assert after.get(tid) == before.get(tid), f"table {tid} came back otherwise"

    async def drawn(self) -> dict[str, object]:
        """Every open table's state and every message it draws."""
        svc = self.svc
        out: dict[str, object] = {}
        for tid, table in sorted(svc.tables.items()):
            log = await self.bot.store.table_log(tid)  # type: ignore[union-attr]
            for e in log:
                e.pop("at", None)
            out[tid] = (
                table.version,
                str(table.status),
                table.host,
                [(s.user, s.name, s.ai, s.missed, s.forgot) if s else None for s in table.seats],
                sorted(table.votes),
                table.record(),
                table.legal_codes(),
                table.deadline,
                log,
                svc.lobby(tid),
                svc.table(tid),
                [svc.hand(tid, u, LANGS.get(u)) for u in table.humans()],
            )
        return out
