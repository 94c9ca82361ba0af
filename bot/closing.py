"""How a table ends before its match does: votes to close it, aborts, resigning, and
tables whose chat or people are gone.

A host who is losing must not wipe a running match off the record: with other people
playing, his abort is a vote like anyone's, and /resign concedes it.  One who walked
away (the computer took his seat) neither votes nor saves his side: when the others
close the match it ends counted, his side losing.
"""

from __future__ import annotations

from collections.abc import Iterable

from .i18n import game_key, t, typed
from .payload import Payload, table_verb
from .ports import ChatRef, Outcome, UserRef
from .refusals import refuse
from .service_shape import ServiceShape
from .table import Entry, Status, Table


class Closing(ServiceShape):
    """Ending tables early, for `TableService` (a mixin: it commits and locks as the
    service does)."""

    async def _vote_abort(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        if table.seat_of(user.key) is None:
            return refuse(lang, "not_seated")
        if table.status == Status.LOBBY:
            # before the start the host closes a lobby, and anyone else may leave it;
            # a vote kept from there would count in the match (one more would close it)
            return Outcome(
                False,
                t(lang, "refuse.vote_in_lobby", host=table.host_name() or "—"),
                "vote_in_lobby",
            )
        if p.version < table.deal_from:
            # "Close the table too" pressed as the deal it was drawn in ended: that
            # vote lapsed with its deal, and a press must not open a new one alone
            return refuse(lang, "vote_lapsed")
        if user.key not in table.present():
            # one who walked away does not vote (he might be the only one left to
            # count): a losing player could skip his turns and wipe the match
            return refuse(lang, "vote_when_away")
        votes = len(table.abort_votes() | {user.key})
        needed = table.votes_needed()
        if user.key in table.votes:  # pressed again: counted already, nothing to store
            return Outcome(True, t(lang, "ok.voted", votes=votes, needed=needed), table_id=table.id)
        entries: list[Entry] = [{"k": "vote", "user": user.key}]
        if votes >= needed and table.walked_out():
            return await self._end_walked_out(table, entries, lang)
        if votes >= needed:
            entries.append({"k": "abort", "reason": "vote"})
        await self._commit(table, entries)
        if table.status == Status.ABORTED:
            await self._closed_table(table, "aborted")
            return Outcome(True, table_id=table.id)
        # The vote is a new version of the table: every message is drawn again, so
        # the buttons players see stay current and the channel sees the vote.
        await self._redraw(table)
        return Outcome(True, t(lang, "ok.voted", votes=votes, needed=needed), table_id=table.id)

    async def _end_walked_out(
        self, table: Table, entries: list[Entry], lang: str | None = None
    ) -> Outcome:
        """Those still playing close a match others walked out of: it ends counted,
        the walkers' sides losing (`Table.walked_out`)."""
        await self._play(table, [*entries, {"k": "end", "reason": "walked_away"}])
        said = t(lang, "ok.ended_walked_away", table=table.id) if lang else None
        return Outcome(True, said, "ended", table.id)

    async def abort(
        self,
        chat: ChatRef,
        user: UserRef,
        *,
        is_admin: bool = False,
        table_id: str | None = None,
    ) -> Outcome:
        """The host closes his table in the lobby, or when he is its only human still
        playing; in a running match with other humans his abort is a vote like
        anyone's, so a host who is losing cannot wipe the match off the record
        (`/resign` concedes).  Those whose seats the computer took over do not vote.

        A chat's admin (the adapter checked) closes any table of the chat he does not
        sit at — an abandoned game, a spam lobby — naming it by `table_id` when the
        chat has several."""
        return await self._outcome(user, self._abort(chat, user, is_admin, table_id))

    async def _abort(
        self, chat: ChatRef, user: UserRef, is_admin: bool, table_id: str | None
    ) -> Outcome:
        lang = await self.reply_lang(user, chat)
        in_chat = self.tables_in(chat.key)
        if table_id is not None:
            table_id = table_id.strip().lower()  # ids are lowercase base 36, as typed
        if table_id:
            table = next((tb for tb in in_chat if tb.id == table_id), None)
            if table is None and is_admin:  # a typo: say which tables there are
                # (to an admin only: a server's tables may be in channels others
                # cannot see)
                ids = ", ".join(tb.id for tb in in_chat) or "—"
                return refuse(lang, "no_such_table", table=table_id, tables=ids)
        else:
            table = self.table_of(chat.key, user.key)
            if table is None and is_admin and len(in_chat) > 1:
                ids = ", ".join(tb.id for tb in in_chat)
                return Outcome(False, t(lang, "refuse.which_table", tables=ids), "which_table")
            if table is None and is_admin and in_chat:
                table = in_chat[0]
        # a table he named is named in the refusal (whether there is one he does not
        # play at is not said: a server's tables may be in channels he cannot see)
        none = (
            refuse(lang, "no_table_named", table=typed(table_id))
            if table_id
            else refuse(lang, "no_table")
        )
        if table is None:
            return none
        async with self.lock(table.id):
            if self.tables.get(table.id) is not table:
                return none  # it closed meanwhile
            if table.seat_of(user.key) is None:
                if not is_admin:
                    return none  # or they left meanwhile
                await self._commit(table, [{"k": "abort", "reason": "admin"}])
                await self._closed_table(table, "aborted")
                return Outcome(True, table_id=table.id)
            alone = table.present() == [user.key]
            if alone and table.walked_out():
                return await self._end_walked_out(table, [], lang)
            if table.host == user.key and (table.status == Status.LOBBY or alone):
                await self._commit(table, [{"k": "abort", "reason": "host"}])
                await self._closed_table(table, "aborted")
                return Outcome(True, table_id=table.id)
            return await self._vote_abort(table, user, Payload(table.id, table.version, "ab"), lang)

    async def close_chat(self, chat: ChatRef, reason: str) -> list[str]:
        """The platform took the chat from the bot (removed from a group, no longer
        allowed to post there): its open tables close as an abort closes them, with
        `reason`, for nobody could see them or stop them any more — left open, the
        computer would play the absent players' turns to the end and score a match
        nobody saw.  Returns the ids closed; a second call finds nothing."""
        for opening in self._openings:
            if opening.chat == chat.key:
                opening.lost = reason  # a /new or Rematch under way there closes too
        return await self.close_tables([tb.id for tb in self.tables_in(chat.key)], reason)

    async def close_tables(self, table_ids: Iterable[str], reason: str) -> list[str]:
        """`close_chat` for some of a chat's tables (a Discord server keeps its other
        channels when the bot loses one)."""
        return await self._to_completion(self._close_tables(sorted(table_ids), reason))

    async def _close_tables(self, table_ids: list[str], reason: str) -> list[str]:
        closed: list[str] = []
        for table in [tb for tid in table_ids if (tb := self.tables.get(tid)) is not None]:
            async with self.lock(table.id):
                if self.tables.get(table.id) is not table:
                    continue  # it closed meanwhile
                await self._commit(table, [{"k": "abort", "reason": reason}])
                await self._closed_table(table, "aborted")
                closed.append(table.id)
        return closed

    async def resign(self, chat: ChatRef, user: UserRef, *, ask: bool = False) -> Outcome:
        """Concede the match: the resigner (and partner) lose it; the others win.

        `ask`: only ask first (/resign typed, where a slip would cost a match): the
        answer's `confirm` button, bound to his seat, resigns (`_resign_press`)."""
        return await self._outcome(user, self._resign(chat, user, ask))

    async def _resign(self, chat: ChatRef, user: UserRef, ask: bool) -> Outcome:
        lang = await self.reply_lang(user, chat)
        table = self.table_of(chat.key, user.key)
        if table is None:
            return refuse(lang, "no_table")
        async with self.lock(table.id):
            seat = table.seat_of(user.key)
            if self.tables.get(table.id) is not table or seat is None:
                return refuse(lang, "no_table")  # it closed, or they left, meanwhile
            if ask:
                refused = _not_resignable(table, lang)
                if refused is not None:
                    return refused
                label = t(lang, "button.resign")
                payload = table_verb(table.id, table.version, "rs", seat)
                return Outcome(
                    True,
                    t(
                        lang,
                        game_key("confirm.resign", table.game),
                        table=table.id,
                        rated=_rated_clause(table, seat, lang),
                    ),
                    "confirm",
                    table.id,
                    confirm=(label, payload),
                )
            return await self._resign_seat(table, seat, lang)

    async def _resign_press(self, table: Table, user: UserRef, p: Payload, lang: str) -> Outcome:
        """The confirmation of /resign: valid while that match runs, for its asker
        only (on Telegram the group sees the button too)."""
        seat = table.seat_of(user.key)
        if seat is None:
            return refuse(lang, "not_seated")
        if p.arg != seat:
            return refuse(lang, "not_your_button")
        return await self._resign_seat(table, seat, lang)

    async def _resign_seat(self, table: Table, seat: int, lang: str) -> Outcome:
        refused = _not_resignable(table, lang)
        if refused is not None:
            return refused
        rated = _rated_clause(table, seat, lang)  # before the table is scored and gone
        await self._play(table, [{"k": "resign", "seat": seat}])
        said = t(lang, game_key("ok.resigned", table.game), rated=rated)
        return Outcome(True, said, "resigned", table.id)

    async def close_if_abandoned(self, table_id: str) -> bool:
        """Close a running match its people left now, not on its timer (the terminal
        table settles it before asking its player about his open game); whether the
        table is closed."""
        table = self.tables.get(table_id)
        if table is not None:
            async with self.lock(table_id):
                if self.tables.get(table_id) is table:
                    await self._close_if_abandoned(table)
        return table_id not in self.tables

    async def _close_if_abandoned(self, table: Table) -> None:
        """Close a running match its people left (`Table.abandoned`), under its lock."""
        reason = table.abandoned()
        if reason == "vote" and table.walked_out():
            # the votes carry now that one walked away: his side loses
            await self._end_walked_out(table, [])
        elif reason is not None:
            await self._commit(table, [{"k": "abort", "reason": reason}])
            await self._closed_table(table, "aborted")


def _rated_clause(table: Table, seat: int, lang: str) -> str:
    """ ", and it counts on the leaderboard" where resigning costs rating: a person
    plays on another side (against computers alone no match is rated)."""
    side = table.side(seat)
    playing = set(table.present())  # one who walked away loses too: no rating then
    rated = any(
        s is not None and s.user in playing and table.side(i) != side
        for i, s in enumerate(table.seats)
    )
    return t(lang, "resign.rated") if rated else ""


def _not_resignable(table: Table, lang: str) -> Outcome | None:
    if table.status == Status.LOBBY:
        return refuse(lang, "resign_in_lobby")
    if table.status != Status.PLAYING:
        return refuse(lang, "not_playing")
    return None
