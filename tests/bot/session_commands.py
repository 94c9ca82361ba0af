"""The steps of the random chat sessions (`test_fuzz_service`) that people type or
confirm: /abort, /resign and its button, /forgetme with or without its question, a
rematch, and the settings: a chat's language, a player's for his table, and the
other chat settings."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import precondition, rule

from bot.i18n import norm_lang, t
from bot.service import ChatRef, Outcome, UserRef

from .fakechat import stored_mentions
from .sessions import (
    ADMIN,
    BY_KEY,
    CHAT_OF,
    CHATS,
    EVERYONE,
    LEVELS,
    PEOPLE,
    SETTINGS,
    STRANGERS,
    UPGRADED,
    SessionMachine,
    verb,
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

    @precondition(lambda self: self.svc.tables)
    @rule(data=st.data())
    def typed_at_once(self, data: st.DataObject) -> None:
        """One or two commands are typed at the moment players press what they see
        (none, one or two presses) and maybe a turn's time runs out: /abort (a vote,
        an admin's, a stranger's), /resign, /forgetme, /new, the chat's language set,
        the group upgraded by Telegram.  Each is answered as if it came alone, before
        or after the others; the language switched reaches every table of the chat,
        one opened meanwhile too, and a person deleted holds no seat and is stored
        nowhere.  The store takes their writes one at a time (`turns_of_writes`):
        each request runs until it waits for its write or a lock, the others
        meanwhile, alike on every replay of the session."""
        if not self.seldom(data, 2):
            return
        now = self.typed_now()
        first = data.draw(st.sampled_from(now), label="typed")
        # a second one, in the same chat (where commands meet): a group's key, or its
        # language, changes once a step
        also = [
            c
            for c in now
            if c[3] == first[3]
            and "upgraded" not in (first[0], c[0])
            and not (first[0].startswith("language") and c[0].startswith("language"))
        ]
        second = data.draw(st.sampled_from([None, *also]), label="typed too")
        typed = [first] if second is None else [first, second]
        shown = self.pressable()
        presses = data.draw(
            st.lists(st.sampled_from(shown), max_size=2) if shown else st.just([]),
            label="presses",
        )
        fire = data.draw(st.sampled_from([None, *self.turns()]), label="a timer")
        problems = len(self.opening_problems)
        event(f"typed at once: {' + '.join(sorted(c[0] for c in typed))}")
        for what, *_ in typed:
            if what == "upgraded":
                self.upgrading()
        outs = self.run(self.together([c[2] for c in typed], presses, fire, in_turns=True))
        for user, out in zip([c[1] for c in typed] + [p[0] for p in presses], outs, strict=True):
            self.check_outcome(user, out)
        self.menus.clear()
        for (what, user, _, chat), out in zip(typed, outs, strict=False):
            if what.startswith("language"):
                assert out.ok, out
                lang = what.split()[-1]
                self.lang_of[chat.key] = lang
                # a table opened at the same moment opened in the old language or
                # the new one; either way it speaks the new one now
                del self.opening_problems[problems:]
                spoken = {tb.id: tb.settings.get("lang") for tb in self.svc.tables_in(chat.key)}
                assert set(spoken.values()) <= {lang}, (lang, spoken)
            elif what == "upgraded":
                assert not self.svc.tables_in(CHATS[1].key), self.describe()
            elif what == "/forgetme" and out.code == "forgotten":
                # not seated again by a Join or a Rematch he pressed, or his /new, after
                again = [u for u, b, _ in presses if u == user and verb(b.payload) in ("j", "re")]
                again += [u for w, u, _, _ in typed if u == user and w == "/new"]
                if not again:
                    for tid, tb in self.svc.tables.items():
                        assert tb.seat_of(user.key) is None and tb.host != user.key, (tid, user)
                    found = self.run(self.stored_of(user.key))
                    assert not found, f"{user.key} forgotten, but the store holds {found}"
                self.names_checked.discard(user.key)

    def typed_now(self) -> list[tuple[str, UserRef, Callable[[], Awaitable[Outcome]], ChatRef]]:
        """The commands `typed_at_once` may type now: (what, who, the request, its chat)."""
        svc = self.svc
        out: list[tuple[str, UserRef, Callable[[], Awaitable[Outcome]], ChatRef]] = []
        for chat in self.chats:
            admin = ADMIN[chat.platform]
            people = [*PEOPLE[chat.platform], STRANGERS[chat.platform]]
            if svc.tables_in(chat.key):
                for u in people:
                    out.append(("/abort", u, functools.partial(svc.abort, chat, u), chat))
                by_admin = functools.partial(svc.abort, chat, admin, is_admin=True)
                out.append(("/abort by an admin", admin, by_admin, chat))
            if len(svc.tables) < 3:
                for u in people:
                    new = functools.partial(svc.create_table, chat, u, "zweier")
                    out.append(("/new", u, new, chat))
            for lang in ("de", "en"):
                switch = functools.partial(
                    svc.update_setting, chat, admin, "language", lang, is_admin=True
                )
                out.append((f"language {lang}", admin, switch, chat))
        for table in self.playing():
            chat = CHAT_OF[table.chat]
            for key in table.humans():
                resign = functools.partial(svc.resign, chat, BY_KEY[key])
                out.append(("/resign", BY_KEY[key], resign, chat))
        for table in list(svc.tables.values()):
            for key in table.humans():
                out.append(
                    (
                        "/forgetme",
                        BY_KEY[key],
                        functools.partial(svc.forget, BY_KEY[key]),
                        CHAT_OF[table.chat],
                    )
                )
        if CHATS[1] in self.chats:
            admin = ADMIN[CHATS[1].platform]
            out.append(("upgraded", admin, self.upgrade_request, CHATS[1]))
        return out

    async def upgrade_request(self) -> Outcome:
        moved = await self.svc.move_chat(CHATS[1], UPGRADED)
        return Outcome(True, table_id=moved[0] if moved else None)

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
