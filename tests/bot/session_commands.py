"""The steps of the random chat sessions (`test_fuzz_service`) that people type or
confirm: /abort, /resign and its button, /forgetme with or without its question, a
rematch, and the settings: a chat's language, a player's for his table, and the
other chat settings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from bot.i18n import norm_lang, t
from bot.service import Outcome, UserRef

from .fakechat import stored_mentions
from .sessions import (
    ADMIN,
    BY_KEY,
    CHAT_OF,
    EVERYONE,
    LEVELS,
    PEOPLE,
    SETTINGS,
    STRANGERS,
    SessionMachine,
)


class CommandSteps(SessionMachine):
    """Commands typed, their questions answered, and settings changed."""

    # --- steps: closing -------------------------------------------------------------

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data(), is_admin=st.booleans())
    def abort(self, data: st.DataObject, is_admin: bool) -> None:
        """/abort typed in a chat (by a player: his vote; by an admin: any table)."""
        if not self.seldom(data, 2 if not is_admin else 4):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        people = [*PEOPLE[chat.platform], STRANGERS[chat.platform]]
        user = data.draw(st.sampled_from(people), label="user")
        out = self.run(self.svc.abort(chat, user, is_admin=is_admin))
        self.run(self.settle())
        self.check_outcome(user, out)

    @precondition(lambda self: self.playing())
    @rule(data=st.data())
    def resign(self, data: st.DataObject) -> None:
        """/resign asks first; its button resigns for its asker only."""
        table = data.draw(st.sampled_from(self.playing()), label="table")
        if not table.humans():
            return
        user = BY_KEY[data.draw(st.sampled_from(table.humans()), label="asker")]
        out = self.run(self.svc.resign(CHAT_OF[table.chat], user, ask=True))
        assert out.ok and out.confirm is not None, out
        payload = out.confirm[1]
        presser = data.draw(st.sampled_from(EVERYONE), label="presser")
        out, unchanged = self.run(self.press(presser, payload, CHAT_OF[table.chat]))
        if presser.key == user.key:
            assert out.ok and out.code == "resigned", out
            assert table.id not in self.svc.tables
        else:
            assert not out.ok and unchanged, out
            if presser.platform != table.platform:
                expected = "unknown_table"
            elif table.seat_of(presser.key) is not None:
                expected = "not_your_button"
            else:
                expected = "not_seated"
            assert out.code == expected, out

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def forget(self, data: st.DataObject) -> None:
        """/forgetme, mostly of one seated somewhere: it asks first, changing nothing;
        its button (shown to him alone, in his private chat) deletes whoever presses
        it.  Or a command that does not ask."""
        if not self.seldom(data, 4):
            return
        seated = [BY_KEY[u] for tb in self.svc.tables.values() for u in tb.humans()]
        # one whose namesake on the other platform sits somewhere: not his seat to give up
        namesakes = [u for u in EVERYONE if any(o.id == u.id and o != u for o in seated)]
        user = data.draw(st.sampled_from([*seated, *namesakes, *EVERYONE]), label="user")
        ask = data.draw(st.sampled_from([True, True, False]), label="ask")
        if not ask:
            self.forgotten(user, lambda: self.svc.forget(user))
            return
        playing = any(tb.seat_of(user.key) is not None for tb in self.svc.tables.values())
        out, unchanged = self.run(self.change(user, lambda: self.svc.forget(user, ask=True)))
        assert out.ok and out.code == "confirm" and out.confirm is not None, out
        assert unchanged, out
        # the question says that his seats go to the computer, when he has any
        asked = "confirm.forget_playing" if playing else "confirm.forget"
        assert out.text == t(norm_lang(user.speaks), asked), (playing, out)
        payload = out.confirm[1]
        presser = data.draw(st.sampled_from([user, user, user, *EVERYONE]), label="presser")
        event(f"/forgetme asked, pressed by {'him' if presser == user else 'another'}")
        self.forgotten(presser, lambda: self.svc.act(presser, payload))

    def forgotten(self, user: UserRef, request: Callable[[], Awaitable[Outcome]]) -> None:
        """`user` deletes his data: his seats go, nobody else's (his namesake on the
        other platform keeps his), and nothing stored names him any more."""
        others = {
            tid: sorted(u for u in tb.humans() if u != user.key)
            for tid, tb in self.svc.tables.items()
        }
        seated = sum(tb.seat_of(user.key) is not None for tb in self.svc.tables.values())
        event(f"forgotten with {seated} seat(s)")
        out, _ = self.run(self.change(user, request))
        assert out.ok and out.code == "forgotten", out
        for tid, tb in self.svc.tables.items():
            assert tb.seat_of(user.key) is None and user.key not in tb.votes, (tid, user)
            assert tb.host != user.key, (tid, user)
            if tid in others:
                assert sorted(u for u in tb.humans()) == others[tid], (tid, user, others[tid])
        found = self.run(self.stored_of(user.key))
        assert not found, f"{user.key} forgotten, but the store holds {found}"
        self.names_checked.discard(user.key)  # stored again when he sits down again

    async def stored_of(self, key: str) -> list[str]:
        store = self.bot.store
        assert store is not None
        return await stored_mentions(store, key)

    @precondition(lambda self: any(f in self.ended for f in self.chat_of))
    @rule(data=st.data())
    def rematch(self, data: st.DataObject) -> None:
        rematches = self.rematches()
        if not rematches:
            return
        tid, b = data.draw(st.sampled_from(rematches), label="button")
        user = data.draw(st.sampled_from(EVERYONE), label="presser")
        chat = CHAT_OF[self.chat_of[tid]]
        out, unchanged = self.run(self.press(user, b.payload, chat))
        if not out.ok:
            assert unchanged, out
        if user.platform != chat.platform:
            assert out.code == "unknown_table", out

    @precondition(lambda self: self.svc.tables)
    @rule(lang=st.sampled_from(["de", "en"]), data=st.data())
    def language(self, lang: str, data: st.DataObject) -> None:
        """An admin sets the chat's language: its running tables speak it (a table
        one of its players switched follows it, even when the chat spoke it
        already); another chat's keep theirs."""
        if not self.seldom(data, 2):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        admin = ADMIN[chat.platform]
        before = self.languages()
        out = self.run(self.svc.update_setting(chat, admin, "language", lang, is_admin=True))
        self.run(self.settle())
        assert out.ok, out
        self.lang_of[chat.key] = lang
        for tid, spoken in self.languages().items():
            if self.svc.tables[tid].chat == chat.key:
                assert spoken == lang, (tid, spoken, lang)
            else:
                assert spoken == before.get(tid), (tid, spoken, before.get(tid))

    def languages(self) -> dict[str, str | None]:
        """The language each open table speaks."""
        return {tid: tb.settings.get("lang") for tid, tb in self.svc.tables.items()}

    @precondition(lambda self: self.svc.tables)
    @rule(lang=st.sampled_from(["de", "en", "de-AT", "fr"]), data=st.data())
    def table_language(self, lang: str, data: st.DataObject) -> None:
        """A player makes his table speak another language (`set_table_language`: the
        terminal resuming a game under another locale; one we lack is English): that
        table alone, redrawn.  Anybody not seated there is refused, nothing changed."""
        table = data.draw(st.sampled_from(list(self.svc.tables.values())), label="table")
        seated = [BY_KEY[u] for u in table.humans()]
        user = data.draw(st.sampled_from([*seated, *EVERYONE]), label="user")
        mine = table.seat_of(user.key) is not None
        before = self.languages()
        out, unchanged = self.run(
            self.change(user, lambda: self.svc.set_table_language(table.id, user, lang))
        )
        event(f"table language: {'seated' if mine else 'not seated'}")
        if mine:
            assert out.ok and out.table_id == table.id, out
            before[table.id] = norm_lang(lang)
        else:
            assert not out.ok and out.code == "no_table" and unchanged, out
        assert self.languages() == before

    @precondition(lambda self: self.svc.tables)
    @rule(setting=st.sampled_from(SETTINGS), data=st.data())
    def setting(self, setting: tuple[str, str], data: st.DataObject) -> None:
        """An admin changes a chat setting: tables opened afterwards follow it."""
        if not self.seldom(data, 2):
            return
        chat = data.draw(st.sampled_from(self.chats), label="chat")
        admin = ADMIN[chat.platform]
        out = self.run(self.svc.update_setting(chat, admin, *setting, is_admin=True))
        self.run(self.settle())
        assert out.ok, out
        key, value = setting
        if key == "ai_level":
            self.level_of[chat.key] = LEVELS[0] if value == "default" else value
