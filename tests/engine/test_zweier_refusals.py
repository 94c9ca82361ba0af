"""Zweierschnapsen refusals name the rule broken (RULES.md §6 error codes), pinned
where a mutation audit found the explanation untested."""

from __future__ import annotations

import pytest

from engine import actions as A
from engine import protocol as P
from engine import zweier
from engine.cards import CARDS, index_of
from engine.errors import IllegalAction
from engine.record import replay_record

from .test_rules_pinned_zweier import MARRIAGES, _script, _state_after


@pytest.mark.parametrize("claim", [False, True], ids=["declare", "declare-and-claim"])
def test_a_marriage_with_a_card_not_held_is_card_not_in_hand(claim: bool) -> None:
    """RULES.md §6 `card_not_in_hand`: forehand (seat 1, AH KS QS KH QH) leads the KD
    declaring a marriage -- he has no KD at all, which is the refusal's reason, not a
    marriage he lacks the partner of."""
    hands, talon = MARRIAGES
    state = _state_after([], hands, talon)
    kd = CARDS[index_of("KD")]
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, 1, A.PlayCard(kd, marriage=True, claim=claim))
    assert refused.value.code == "card_not_in_hand"


#: Seat 1 (forehand) holds the trump Jack JS; the AS lies face up (trumps Spades).
JACK_HELD = (
    [["JH", "JD", "AD", "KD", "TD"], ["QD", "TH", "KH", "QH", "JS"]],
    ["AH", "TC", "KC", "QC", "JC", "TS", "KS", "QS", "AC", "AS"],
)


def _refusal(state: P.DealCore, seat: int, action: A.Action) -> tuple[str, str]:
    with pytest.raises(IllegalAction) as refused:
        P.apply(state, seat, action)
    return refused.value.code, str(refused.value)


@pytest.mark.parametrize(
    ("deal", "before", "seat", "action", "code", "why"),
    [
        (MARRIAGES, "1:AH", 0, A.ExchangeTrump(), "exchange_not_allowed", "only before leading"),
        (JACK_HELD, "1:close", 1, A.ExchangeTrump(), "exchange_not_allowed", "closed"),
        (MARRIAGES, "1:AH", 0, A.CloseTalon(), "close_not_allowed", "only before leading"),
        (JACK_HELD, "1:close", 1, A.CloseTalon(), "close_not_allowed", "already closed"),
    ],
    ids=["exchange-following", "exchange-closed", "close-following", "close-twice"],
)
def test_an_exchange_or_close_refusal_says_why(
    deal: tuple[list[list[str]], list[str]],
    before: str,
    seat: int,
    action: A.Action,
    code: str,
    why: str,
) -> None:
    """RULES.md §2: exchange and close belong to the player on lead, before he leads,
    while the talon is open.  The table is told which of these the player missed (the
    led card being the AH, card 0, too)."""
    hands, talon = deal
    state = _state_after(_script(before), hands, talon)
    got_code, message = _refusal(state, seat, action)
    assert got_code == code and why in message, message


def test_an_exchange_without_the_trump_jack_says_so() -> None:
    """RULES.md §2: only the trump Jack is exchanged.  Forehand (AH KS QS KH QH, the AS
    face up) has none."""
    hands, talon = MARRIAGES
    code, message = _refusal(_state_after([], hands, talon), 1, A.ExchangeTrump())
    assert code == "exchange_not_allowed" and "trump Jack" in message, message


@pytest.mark.parametrize(
    ("options", "before", "seat", "why"),
    [({}, "", 1, "automatic"), ({"auto_claim": False}, "1:QD", 0, "only when you are on lead")],
    ids=["auto-claim", "following"],
)
def test_a_claim_refusal_says_why(
    options: dict[str, object], before: str, seat: int, why: str
) -> None:
    """RULES.md §1 claims: with `auto_claim` the engine claims, so nobody says `claim`;
    without it, the player on lead claims (docs/rules/zweier.md), not his follower."""
    hands, talon = JACK_HELD
    state = _state_after(_script(before), hands, talon, zweier.options(options))
    code, message = _refusal(state, seat, A.Claim())
    assert code == "claim_not_allowed" and why in message, message


def test_an_action_of_another_game_is_refused_by_name() -> None:
    """RULES.md §6: a stable code for an action zweier does not have (a bid)."""
    hands, talon = JACK_HELD
    code, message = _refusal(_state_after([], hands, talon), 1, A.Pass())
    assert code == "action_not_allowed" and "Pass" in message, message


def _bad_deal(hands: list[list[str]], talon: list[str]) -> str:
    record = {"game": "zweier", "deals": [{"dealer": 0, "hands": hands, "talon": talon}]}
    code, answer = replay_record(record)
    assert code == 2 and isinstance(answer, str), answer
    return answer


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("short hand", "two hands of 5 cards"),
        ("three hands", "two hands of 5 cards"),
        ("short talon", "10 cards"),
        ("card twice", "exactly once"),
    ],
)
def test_a_record_whose_cards_are_no_zweier_deal_is_refused(change: str, why: str) -> None:
    """RULES.md §2 / §6: a zweier deal is two hands of 5 and a talon of 10 (the face-up
    trump last), each of the 20 cards once; other cards are no record (exit 2)."""
    hands, talon = [list(h) for h in JACK_HELD[0]], list(JACK_HELD[1])
    if change == "short hand":
        talon.append(hands[0].pop())
    elif change == "three hands":
        hands.append([])
    elif change == "short talon":
        talon.pop(0)
    else:
        hands[0][0] = hands[1][0]
    assert why in _bad_deal(hands, talon)


@pytest.mark.parametrize("given", ["nothing", "hands only"])
def test_a_deal_needs_a_seed_or_all_its_cards(given: str) -> None:
    """A deal is dealt from a seed or from explicit hands *and* talon (docs/records.md);
    half of the cards is a caller's mistake, not a deal from some other source."""
    hands = [[index_of(c) for c in h] for h in JACK_HELD[0]] if given == "hands only" else None
    with pytest.raises(ValueError, match="seed or explicit hands and talon"):
        zweier.start_deal(zweier.options(), 0, hands=hands)
