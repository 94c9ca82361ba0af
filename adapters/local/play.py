"""A match at the terminal: what a typed line does while the cards are played.

`Play` is the part of `LocalTable` that acts: a number presses a choice shown (or
bids that value), a card typed by name plays it, a choice's words press it, and the
commands (help, show, rules, resign) answer; anything else is refused with the reason.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from bot.payload import decode, loggable, table_verb
from bot.ports import Outcome
from bot.table import Status
from bot.views import Button
from engine.actions import PlayCard
from engine.actions import encode as encode_action
from engine.cards import Card

from .choices import card_of, named, parse_card, step_of, value_of
from .guard import CoreFailed, Guard
from .texts import say
from .words import _COMMANDS, _HELP, _QUIT, _RESIGN, _RULES, _SHOW, _YES, _number, _verb


class Play(Guard):
    """The commands and presses of `LocalTable` during a match."""

    async def _choices_come(self, line: str) -> bool:
        """A choice read from a pipe or a file while the computers move waits for the
        player's choices (False: the match ended first), where one typed at the
        keyboard is refused ("wait for ..."): a script has no way to know when its
        line will be read, a person sees whose turn it is."""
        if self.buttons or line.strip().lower() in _COMMANDS:
            return True
        while not self.buttons and not self._over.is_set() and not self.stop.is_set():
            await asyncio.sleep(0.02)
        return bool(self.buttons)

    async def command(self, line: str) -> bool:
        """Handle one typed line during play; False when the user quits."""
        text = line.strip().lower()
        if text in _QUIT:
            self.say("bye_saved")
            return False
        if text in _HELP:
            self.say("help")
            self._reprompt()
        elif text in _SHOW:
            # with nothing to choose there is no prompt: the computers' moves follow
            # as they come (a command may still be typed)
            self.show(full=True)
        elif text in _RULES:
            await self._rules()
        elif (n := _number(text)) is not None:
            await self.press(n)
        elif (card := self._typed_card(text)) is not None:
            await self.press_card(card)
        elif text in _RESIGN:
            return await self._resign()
        elif fits := named(text, [b.label for b in self.buttons]):
            if len(fits) == 1:
                await self._press(self.buttons[fits[0]])
            else:
                listed = " · ".join(f"{i + 1}) {self.buttons[i].label}" for i in fits)
                self.say("which_choice", text=line.strip(), choices=listed)
                self.prompt()
        else:
            self.say("unknown_command", text=line.strip())
            self._reprompt()
        return True

    async def press(self, n: int) -> None:
        """Press choice `n` of those shown, or else bid the value `n`.

        A number that is a choice on the page shown is always that choice; only a
        number beyond them is read as a value, which Thousand's pages of bids may
        hold on another page (its values start at 100, beyond any page's choices).
        """
        if not self.buttons:
            self._nothing_to_press()
            return
        if 1 <= n <= len(self.buttons):
            await self._press(self.buttons[n - 1])
            return
        try:
            values = await self._values()
        except CoreFailed:
            self.show(full=True)
            return
        if n in values:
            await self._press(values[n])
            return
        if values:
            low, high = min(values), max(values)
            self.say(
                "no_such_bid",
                n=n,
                numbers=say(self.lang, "numbers", max=len(self.buttons)),
                low=low,
                high=high,
                step=step_of(list(values)),
                bids=len(values),
            )
        else:
            self.say("no_such_action", n=n, max=len(self.buttons))
        self.prompt()

    async def press_card(self, card: Card) -> None:
        """Press the one choice that plays (gives, discards) `card`, or say why not.

        The refusal names only the player's own cards: those shown as choices, or
        the hand the player sees.
        """
        if not self.buttons:
            self._nothing_to_press()
            return
        mine = [(n, b) for n, b in enumerate(self.buttons, 1) if card_of(b, self._picked) == card]
        if len(mine) == 1:
            await self._press(mine[0][1])
            return
        regift = next((b for b in self.buttons if _verb(b.payload) == "gv"), None)
        if not mine and regift is not None and card in self._hand_cards():
            # asked who gets the card he picked, he names another card of his: he
            # changed his mind, as "Pick again" and that card would say
            p = decode(regift.payload)
            await self._press(Button("", table_verb(p.table, p.version, "gv", card.index + 1)))
            return
        label = self._card_label(card)
        if mine:
            listed = " · ".join(f"{n}) {b.label}" for n, b in mine)
            self.say("which_card", card=label, choices=listed)
        elif (held := self._hand_cards()) and card not in held:
            self.say("card_not_held", card=label)
        elif self._picked >> card.index & 1:  # a discard's card picked already
            more = any(_verb(b.payload) == "dp" and decode(b.payload).arg for b in self.buttons)
            self.say("card_picked" if more else "card_picked_all", card=label)
        else:
            try:
                why = self._why_not(card)
            except CoreFailed:  # told: his table and choices again
                self.show(full=True)
                return
            self.say("card_not_now_why" if why else "card_not_now", card=label, why=why)
        self.prompt()

    def _why_not(self, card: Card) -> str | None:
        """The rule that keeps `card` from being played now (follow suit, take the
        trick), as the core words a refused play; None when playing a card is not the
        question (a bid is asked for).  `CoreFailed` when asking raised a bug (he
        was told)."""
        if not any(card_of(b, 0) is not None for b in self.buttons):
            return None
        code = encode_action(PlayCard(card))
        tid = self.table_id or ""
        return self._ask(
            lambda: self.service.why_not(tid, self.user.key, code, self.lang),
            "why a card is not a choice at table %s",
            tid,
        )

    async def _resign(self) -> bool:
        """Give up the match, after asking: it counts as lost.  False when the input
        ended at the question (Ctrl-D quits there as everywhere, the match kept)."""
        table = self.service.tables.get(self.table_id or "")
        if table is None or table.status != Status.PLAYING:
            self.say("resign_not_now")
            self._reprompt()
            return True
        self.say("resign_ask")
        self.prompt()
        line = await self._line()
        if line is None:
            self.say("bye_saved")
            return False
        if line.strip().lower() not in _YES:
            self.say("resign_kept")
            self.show(full=True)
            return True
        resigned = self.service.resign(self.chat, self.user)
        await self._change(resigned, "resigning table %s failed", self.table_id)
        return True

    async def _change(self, call: Awaitable[Outcome], what: str, *args: object) -> Outcome | None:
        """The core's answer to a press or a resignation of his, when it went
        through.  None when it did not (refused, or a bug: `Guard._core`), after he
        was told why and then shown the table as stored with his prompt, as a chat
        answers a press beside its redrawn table: the program not ended."""
        try:
            outcome = await self._core(call, what, *args)
        except CoreFailed:
            self.show(full=True)
            return None
        if not outcome.ok:
            self.say("refused", reason=outcome.text or outcome.code)
            self.show(full=True)
            return None
        return outcome

    def _nothing_to_press(self) -> None:
        if self._waiting_for:
            self.say("nothing_to_press", name=self._waiting_for)
        else:
            self.say("nothing_yet")

    async def _press(self, button: Button) -> None:
        self.buttons = []  # pressed: the next view brings the next choices
        pressed = self.service.act(self.user, button.payload)
        outcome = await self._change(pressed, "a press (%s) failed", loggable(button.payload))
        if outcome is None:
            return
        if outcome.hand is not None:  # a hand menu: the next page, a discard's 2nd card
            menu = decode(button.payload)
            self._picked = (menu.arg or 0) if menu.verb == "dp" else 0
            msg = outcome.hand.message
            self.show_hand(msg.text, [list(r) for r in msg.buttons])
        elif outcome.text:
            self.write(outcome.text)

    async def _values(self) -> dict[int, Button]:
        """The values (bids) among this turn's choices, on every page of them.

        The other pages are asked of the core like a "More…" press, which changes
        nothing but what a hand would show; none of them is printed.  `CoreFailed`
        when asking raised a bug (he was told).
        """
        values: dict[int, Button] = {}
        asked: set[str] = set()
        pages = [self.buttons]
        while pages:
            page = pages.pop()
            for b in page:
                if (v := value_of(b)) is not None:
                    values.setdefault(v, b)
            for payload in [b.payload for b in page if _verb(b.payload) == "pg"]:
                if payload in asked:  # "Back" leads to a page already read
                    continue
                asked.add(payload)
                page_asked = self.service.act(self.user, payload)
                outcome = await self._core(page_asked, "a page (%s) failed", loggable(payload))
                if outcome.ok and outcome.hand is not None:
                    pages.append(outcome.hand.message.all_buttons())
        return values

    def _typed_card(self, text: str) -> Card | None:
        style = self._style()
        return None if style is None else parse_card(text, style.lang, style.suits)

    async def _rules(self) -> None:
        table = self.service.tables.get(self.table_id or "")
        if table is None:
            return
        asked = self.service.act(self.user, table_verb(table.id, table.version, "ru"))
        try:
            outcome = await self._core(asked, "the rules of table %s failed", table.id)
        except CoreFailed:
            self.show(full=True)
            return
        self.write(outcome.text or "")
        self._reprompt()
