"""The one game protocol every game speaks (DESIGN.md), over one fast rules core.

Each game has a rules core, a subclass of `DealCore`: a small mutable object whose
`legal` lists int action codes and whose `step` applies one in place.  The AI and
self-play drive that core directly (copy, step, step...).  Everyone else uses the
functions below, which treat states as values: `apply` steps a *copy*, so a refused
action never changes anything and an old state stays valid.

    state = zweier.GAME.start_deal(options, dealer=0, seed=...)
    to_act(state)                 -> seat or None
    legal_actions(state)          -> (PlayCard(AH), CloseTalon(), ...)
    apply(state, seat, action)    -> (new_state, events)   or raises IllegalAction
    view(state, seat)             -> SeatView (seat=None: the public view)
    result(state)                 -> DealResult or None while the deal runs
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Self, TypeVar

from .actions import INVALID, Action, decode, encode
from .errors import IllegalAction
from .events import DealEnded, Event
from .results import DealResult
from .views import SeatView

if TYPE_CHECKING:
    from .match import Match


class DealCore(ABC):
    """The mutable, fast state of one deal.  Subclasses hold their own slots.

    `log` is None on the fast path; `apply` sets it to a list on its private copy and
    the core appends the `Event`s it causes.
    """

    __slots__ = ("log", "turn")

    game: ClassVar[str]
    contracts: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, own_lists: tuple[str, ...] | None = None, **kw: Any) -> None:
        """A complete core names the slots holding lists it changes in place
        (`own_lists`): its `copy` is then written from its slots (`_copier`)."""
        super().__init_subclass__(**kw)
        if own_lists is not None:
            cls.copy = _copier(cls, own_lists)  # type: ignore[method-assign]

    log: list[Event] | None
    #: Seat to act, or -1 once the deal is over.
    turn: int
    players: int
    #: The cards as dealt: each seat's hand in dealing order, then the talon/stock
    #: (empty where there is none).  Records are written from it.
    dealt: tuple[tuple[int, ...], ...]

    @abstractmethod
    def legal(self) -> list[int]:
        """Int codes of the legal actions of the seat to act ([] when over)."""

    @abstractmethod
    def step(self, code: int) -> None:
        """Apply a legal action code in place (no checks: the fast path)."""

    def copy(self) -> Self:
        """A copy to step without touching this one (`log` None: the fast path)."""
        raise TypeError(f"{type(self).__name__} names no own_lists, so it has no copy")

    @abstractmethod
    def explain(self, seat: int, action: Action, code: int) -> tuple[str, str]:
        """Error code and message for an action that is not legal now."""

    @abstractmethod
    def view(self, seat: int | None) -> SeatView: ...

    @abstractmethod
    def result(self) -> DealResult | None: ...

    @abstractmethod
    def locations(self) -> dict[str, int]:
        """Where every card is now, as named masks (hands, talon, tricks...).

        For the conservation tests: the masks are disjoint and cover the deck.
        """

    def _over(self, res: DealResult) -> None:
        """The deal has ended as `res` says: nobody acts any more, and the log, if
        kept, ends with it.  Every game's end comes through here (the game keeps
        `res` and its own phase)."""
        self.turn = -1
        if self.log is not None:
            self.log.append(DealEnded(res))

    def legal_actions(self) -> tuple[Action, ...]:
        contracts = self.contracts
        return tuple(decode(c, contracts) for c in self.legal())


#: A game's own core (`apply` hands back the same kind it was given).
S = TypeVar("S", bound=DealCore)


def _copier(cls: type[DealCore], own_lists: tuple[str, ...]) -> Any:
    """`copy` for `cls`, generated from its slots: the AI copies a deal for every
    playout, and one plain assignment per slot is as fast as a hand-written copy (a loop
    over the slots is about five times slower); a slot added later cannot be forgotten.
    The lists in `own_lists` are copied, so stepping the copy leaves the original as it was.
    """
    slots: list[str] = []
    for klass in reversed(cls.__mro__):
        declared = klass.__dict__.get("__slots__", ())
        if isinstance(declared, str):
            declared = (declared,)
        slots += [name for name in declared if name not in slots]
    unknown = sorted(set(own_lists) - set(slots))
    if unknown:
        raise TypeError(f"{cls.__name__}: own_lists names no slot: {', '.join(unknown)}")
    lines = ["def copy(self):", "    d = new(cls)", "    d.log = None"]
    for name in slots:
        if name != "log":
            lines.append(f"    d.{name} = self.{name}{'[:]' if name in own_lists else ''}")
    lines.append("    return d")
    namespace: dict[str, Any] = {"new": cls.__new__, "cls": cls}
    exec("\n".join(lines), namespace)  # the source is built from slot names only
    copy: Callable[[Any], Any] = namespace["copy"]
    copy.__qualname__ = f"{cls.__qualname__}.copy"
    copy.__doc__ = DealCore.copy.__doc__
    return copy


def to_act(state: DealCore) -> int | None:
    return None if state.turn < 0 else state.turn


def legal_actions(state: DealCore) -> tuple[Action, ...]:
    return state.legal_actions()


def result(state: DealCore) -> DealResult | None:
    return state.result()


def view(state: DealCore, seat: int | None) -> SeatView:
    return state.view(seat)


def apply(state: S, seat: int, action: Action) -> tuple[S, tuple[Event, ...]]:
    """Apply `seat`'s `action`: a new state of the same game and the events, or
    `IllegalAction`."""
    if state.turn < 0:
        raise IllegalAction("deal_over", "the deal is over")
    if seat != state.turn:
        raise IllegalAction("not_your_turn", f"it is seat {state.turn}'s turn, not seat {seat}'s")
    code = encode(action, state.contracts)
    if code == INVALID or code not in state.legal():
        raise IllegalAction(*state.explain(seat, action, code))
    new = state.copy()
    events: list[Event] = []
    new.log = events
    new.step(code)
    new.log = None
    return new, tuple(events)


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game as the rest of the program knows it: its id, options, deals and match."""

    id: str
    name: str
    players: int
    options_type: type[Any]
    parse_options: Callable[[Mapping[str, object] | None], Any]
    start_deal: Callable[..., DealCore]
    new_match: Callable[..., Match]
    presets: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
