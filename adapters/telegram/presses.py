"""Button presses: each a call on the core, answered at once.

Callback queries are answered at once, refusals as an alert for the presser only;
a press the core is slow with (the computer thinking) is answered first and its
refusal, if any, follows privately (`_late`).

The private chat (deep links)
Telegram lets a bot write privately only to users who started it.  On Join (and for
the host on /new) the adapter says hello privately; if Telegram refuses (a 403, or
the 400 "chat not found" it often gives for a user it has no chat with), the press is
answered with a ``t.me/<bot>?start=<table>`` link that opens the private
chat, and the lobby shows who is missing.  The host's Start is refused while a seated
human is known to be unreachable, so the table waits in the lobby.  A user found
unreachable later (a restart forgot who had started, or the user blocked the bot) is
named in the group with the link, and gets the hand the moment they press Start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from telegram import CallbackQuery, MaybeInaccessibleMessage, Update
from telegram import Message as TgMessage
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.i18n import t
from bot.payload import SELF, Payload, parsed
from bot.service import ChatRef, Outcome, UserRef
from bot.table import Status
from bot.told import log_failure

from .commands.gates import AdminUnknowable
from .content import Content, Handle
from .errors import refuses
from .layout import sentences_within
from .refs import PLATFORM, topic_of
from .shape import AdapterShape
from .texts import tt

#: The adapter's one logger, whichever of its modules speaks.
log = logging.getLogger("adapters.telegram.adapter")

#: What a question's button (`Outcome.confirm`) answers when it has done its work.
_CONFIRMED = frozenset({"resigned", "forgotten"})
MAX_ALERT = 200  # answerCallbackQuery text limit
REMATCH = "re"  # the verb of "Rematch" under a match's summary


class Presses(AdapterShape):
    """`TelegramAdapter`'s button presses, and the private hello a seat brings."""

    async def _on_press(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        user = self._user(query.from_user)
        data = query.data or ""
        # no message only for inline-mode ones, which we never send: then no chat is
        # the table's (a Join from there is refused)
        chat = ChatRef(PLATFORM, "?") if query.message is None else self._chat(query.message)
        user = await self.service.reader(user, chat, data)
        pressed = query.message if isinstance(query.message, TgMessage) else None
        task = asyncio.ensure_future(self._act(user, data, chat, pressed))
        try:
            outcome = await asyncio.wait_for(asyncio.shield(task), self.answer_budget)
        except TimeoutError:
            # The table is busy (the computer is thinking): answer now, report later.
            self.updates.busy[update.update_id] = task
            await self._answer(query)
            task.add_done_callback(lambda tk: self._late(user, tk, query.message, data))
            return
        await self._respond(query, user, data, outcome)

    def _start_gate(self, user: UserRef, p: Payload) -> str | None:
        """Refuse Start while a seated human cannot get their hand privately."""
        table = self.service.tables.get(p.table)
        if table is None or table.status != Status.LOBBY or table.host != user.key:
            return None
        missing = [
            s.name
            for s in table.seats
            if s is not None and s.user is not None and self._unreachable(s.user)
        ]
        if not missing:
            return None
        return tt(
            user.speaks, "start_blocked", names=", ".join(missing), link=self.deep_link(p.table)
        )

    async def _act(
        self,
        user: UserRef,
        data: str,
        chat: ChatRef | None = None,
        pressed: TgMessage | None = None,
    ) -> Outcome:
        p = parsed(data)
        if p is not None and p.table == SELF and chat is not None and chat.id.startswith("-"):
            # /forgetme's button deletes the presser's data: it is only ever shown in
            # his private chat, so one in a group (forwarded there) is refused
            text = tt(user.speaks, "forget_private", link=self.private_link)
            return Outcome(False, text, "forget_private")
        if p is not None and p.verb == REMATCH and chat is not None and pressed is not None:
            return await self._rematch(user, data, chat, pressed)
        if p is None or p.verb not in ("j", "st", "s"):
            return await self._act_now(user, data, chat)
        # A lobby's joins and its Start go one at a time, each join with its greeting:
        # Start pressed as someone takes the last seat must learn whether he can get
        # his hand privately (`_start_gate`), not start before anyone asked him.
        async with self._lobby_lock(p.table):
            if p.verb == "st":
                blocked = self._start_gate(user, p)
                if blocked is not None:
                    return Outcome(False, blocked, "start_blocked", p.table)
            outcome = await self._act_now(user, data, chat)
            if (seated := _seated_at(p, outcome)) is not None:
                await self._hello(user, seated)
            return outcome

    async def _rematch(
        self, user: UserRef, data: str, chat: ChatRef, pressed: TgMessage
    ) -> Outcome:
        """ "Rematch" under a match's summary opens its lobby where the summary is (its
        forum topic too), as /new there would, or seats him in the one another player
        opened: either way he is greeted privately, as after /new or Join.  Where
        only admins may open tables, Telegram is asked whether he is one."""
        is_admin = False
        p = parsed(data)
        opens = p is not None and not any(
            tb.rematch_of == p.table and tb.status == Status.LOBBY
            for tb in self.service.tables_in(chat.key)
        )  # joining the lobby another opened needs no admin
        if opens and (await self.service.settings(chat)).starters == "admins":
            # as /new: an admin whom Telegram did not confirm is asked to try again
            try:
                known = await self._is_admin(pressed, user)
            except AdminUnknowable:
                return Outcome(False, tt(user.speaks, "admin_refused"), "admin_refused")
            if known is None:
                return Outcome(False, tt(user.speaks, "admin_unknown"), "admin_unknown")
            is_admin = known
        async with self._opening_in(chat, user, pressed):
            outcome = await self.service.act(user, data, chat, is_admin=is_admin)
        if outcome.ok and outcome.table_id is not None:
            await self._greet_host(user, outcome.table_id)
        return outcome

    @contextlib.asynccontextmanager
    async def _opening_in(
        self, chat: ChatRef, user: UserRef, message: TgMessage
    ) -> AsyncIterator[None]:
        """While `user` opens a table from `message`: typed (or pressed) in a forum
        topic, the table lives there (the core shows its lobby before it answers,
        `_state` looks here).  One opening per host and chat at a time: a second one
        (refused, or from another topic) must not take or drop the first one's topic
        while it is being opened."""
        opening = (chat.key, user.key)
        topic = topic_of(message)
        async with self._opening_locks.hold([opening]):
            if topic is not None:
                self._opening[opening] = topic
            try:
                yield
            finally:
                self._opening.pop(opening, None)

    async def _greet_host(self, user: UserRef, table_id: str) -> None:
        """The opener of a lobby is greeted privately; if he cannot be, the lobby says
        how to start the bot."""
        async with self._lobby_lock(table_id):  # Start waits for the greeting (`_act`)
            reached = await self._hello(user, table_id)
        if not reached and (st := self.states.get(table_id)) is not None:
            self._show_lobby(table_id, st)

    def _lobby_lock(self, table_id: str) -> asyncio.Lock:
        lock = self._lobby_locks.get(table_id)
        if lock is None:
            lock = self._lobby_locks[table_id] = asyncio.Lock()
        return lock

    async def _act_now(self, user: UserRef, data: str, chat: ChatRef | None = None) -> Outcome:
        outcome = await self.service.act(user, data, chat)
        # No await between the core's answer and queuing its hand view: a later table
        # update can only be queued after it, so the newest state always wins.
        if outcome.hand is not None and outcome.table_id is not None:
            st = self.states.get(outcome.table_id)
            if st is not None:
                asked = outcome.code == "hand"
                self._show_hand(outcome.table_id, st, user.key, outcome.hand, asked=asked)
        return outcome

    def _late(
        self,
        user: UserRef,
        task: asyncio.Task[Outcome],
        pressed: MaybeInaccessibleMessage | None = None,
        data: str = "",
    ) -> None:
        """A press answered before the core finished: a refusal, or a failure, is
        told privately, since the button's answer is spent."""
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            log_failure(log, error, "a button press failed")
            text: str | None = tt(user.speaks, "failed")
        else:
            outcome = task.result()
            text = None if outcome.ok else outcome.text
            self._confirmed(pressed, user, data, outcome)
        if text:
            self._tell(int(user.id), text)

    def _tell(self, uid: int, text: str) -> None:
        """What a press's answer could not say, privately (unless he never let us)."""
        if uid not in self.unreachable:
            self.outbox.send(uid, Content(text))

    async def _respond(
        self, query: CallbackQuery, user: UserRef, data: str, outcome: Outcome
    ) -> None:
        lang = user.speaks
        # Join (or Rematch), or pressed again by someone seated who never opened the
        # private chat (he dismissed the first answer's link): the link again, not a
        # dead end.
        p = parsed(data)
        seated = _seated_at(p, outcome) if p is not None else None
        if seated is not None and int(user.id) in self.unreachable:
            await self._answer(query, tt(lang, "need_start"), url=self.deep_link(seated))
            return
        self._confirmed(query.message, user, data, outcome)
        if not outcome.ok:
            whole = outcome.text or ""
            if len(whole) > MAX_ALERT and int(user.id) in self.reachable:
                # a long refusal (house rules named in full) would lose its end in
                # the alert: the whole of it follows privately, and the alert says so
                more = tt(lang, "refusal_cut")
                cut = whole[: MAX_ALERT - len(more)] + more
                await self._answer(query, cut, alert=True, late=False)
                self._tell(int(user.id), whole)
                return
            await self._answer(query, outcome.text, alert=True)
            return
        in_group = query.message is not None and query.message.chat.id < 0
        if outcome.code in _CONFIRMED:
            await self._answer(query, None if outcome.code == "forgotten" else outcome.text)
            return
        if outcome.code == "rules" and outcome.text:
            if len(outcome.text) <= MAX_ALERT:
                await self._answer(query, outcome.text, alert=True)
            elif int(user.id) in self.reachable:
                await self._answer(query, tt(lang, "rules_sent"))
                self.outbox.send(int(user.id), Content(outcome.text))
            else:
                # not known to have started the bot (or not since the last restart):
                # the alert holds only the start, so it says where the rest is
                more = tt(lang, "rules_cut")
                start = sentences_within(outcome.text, MAX_ALERT - len(more))
                await self._answer(query, start + more, alert=True)
            return
        if outcome.hand is not None and in_group:
            if int(user.id) in self.unreachable and outcome.table_id is not None:
                await self._answer(
                    query, tt(lang, "need_start"), url=self.deep_link(outcome.table_id)
                )
                return
            await self._answer(query, tt(lang, "hand_sent"))
            return
        await self._answer(query, outcome.text)

    def _confirmed(
        self,
        pressed: MaybeInaccessibleMessage | None,
        user: UserRef,
        data: str,
        outcome: Outcome,
    ) -> None:
        """After any press: when it was a question's button and it is done, the button
        goes.  The private question of /forgetme becomes its answer; the group's
        question of /resign keeps its words (the result under it says who resigned;
        the press's answer tells the presser what it cost).  A /forgetme that failed
        changed nothing (`bot.forgetting`): nothing to show."""
        forgotten = outcome.code == "forgotten"
        if outcome.code not in _CONFIRMED:
            return
        if forgotten:
            self._forgotten(user)
        if isinstance(pressed, TgMessage) and pressed.text:
            handle = Handle(pressed.chat.id, "", None, pressed.message_id)
            words = outcome.text if forgotten and outcome.text else pressed.text
            self.outbox.edit(handle, Content(words))

    async def _answer(
        self,
        query: CallbackQuery,
        text: str | None = None,
        *,
        alert: bool = False,
        url: str | None = None,
        late: bool = True,
    ) -> None:
        """`late` False: a refusal too late for its alert is not followed privately
        by the alert's text (the caller sends the whole of it anyway)."""
        short = text[: MAX_ALERT - 1] + "…" if text is not None and len(text) > MAX_ALERT else text
        try:
            await query.answer(short, show_alert=alert and bool(text), url=url)
        except TelegramError as e:  # too late, or answered already
            log.info("could not answer a callback query: %s", e)
            if alert and text and late:
                # Telegram kept the press too long (the bot was busy or away): the
                # refusal would be lost, and the player left wondering, so it follows
                # privately, as a refusal that comes after the answer does (`_late`)
                self._tell(query.from_user.id, text)

    async def _hello(self, user: UserRef, table_id: str) -> bool:
        """Greet a new player privately; False when Telegram says we may not."""
        uid = int(user.id)
        if self.reachable.get(uid):
            return True
        try:
            await self.outbox.paced(uid)
            await self.app.bot.send_message(uid, tt(user.speaks, "joined", table=table_id))
        except TelegramError as e:
            if refuses(e):  # a 403, or "chat not found" for a user never met
                self._on_refused(uid)
                return False
            log.info("could not greet %s privately: %s", uid, e)  # flood control, network
            return True
        self.reachable[uid] = True
        self.unreachable.discard(uid)
        return True

    def _forgotten(self, user: UserRef) -> None:
        """After his data was deleted: nothing of him stays here either."""
        lang = self.langs.pop(user.key, None) or user.speaks
        for table_id, st in self.states.items():
            table = self.service.tables.get(table_id)
            if table is not None and table.seat_of(user.key) is not None:
                continue  # a seat he took while the deletion ran stays his
            self._unping(st, user.key)  # a ping of his turn goes with him
            # his hand stops following the game: it says why, without buttons
            handle = st.hands.pop(user.key, None)
            if handle is not None and handle.latest is not None:
                title = handle.latest.text.split("\n", 1)[0]
                self.outbox.edit(handle, Content(f"{title}\n{t(lang, 'hand.forgotten')}"))


def _seated_at(p: Payload, outcome: Outcome) -> str | None:
    """The table a press seated him at: Join, a free seat pressed before Join, or
    Rematch (the lobby it opened or joined); or Join or Rematch pressed again by
    someone seated there (who may have dismissed the link to the private chat the
    first answer gave him).  None for any other press."""
    if outcome.code == "joined":  # a free seat pressed before Join: joined there
        return p.table
    if not (outcome.ok or outcome.code == "already_seated"):
        return None
    if p.verb == "j":
        return p.table
    return outcome.table_id if p.verb == REMATCH else None
