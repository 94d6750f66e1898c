"""The search for a history behind a CardVerse observation (``cardverse_history``): stories of
observations that only a whole history shows impossible, and no false refusal in real games.

Each story plays a real hand, checks that its observation is accepted, then edits one field.
The edited observation passes every count and order check that looks at the fields one seat at
a time; only the order of the turns rules it out."""
import copy
import dataclasses
import itertools

import pytest

from meldmind import MeldmindError, new_game, suggest
from meldmind.games import cardverse as CV
from meldmind.games import cardverse_history as history
from test_cardverse_observation_checks import _random_games


def _refused(obs, *phrases):
    with pytest.raises(MeldmindError) as error:
        CV.observation_array(obs)
    for phrase in phrases:
        assert phrase in str(error.value), (phrase, str(error.value))


def _hand(game, seat):
    return game.observation(seat)["hand"]


def _other(game, seat, card):
    return next(c for c in _hand(game, seat) if c != card)


def test_a_card_discarded_at_once_after_its_take_needs_the_rule_off():
    # with no_immediate_rediscard off, seat 1 takes seat 0's discard and throws it straight
    # back; seat 0 then passes over it. Switching the option on leaves no history.
    game = new_game("cardverse", seed=2, options={"no_immediate_rediscard": False})
    card = _hand(game, 0)[0]
    game.play("draw stock")
    game.play(f"discard {card}")
    game.play("take discard")
    game.play(f"discard {card}")
    game.play("draw stock")
    obs = game.observation(0)
    CV.observation_array(obs)
    assert obs["hand_history"]["taken"][1] == obs["hand_history"]["discarded"][1] == [card]
    edited = copy.deepcopy(obs)
    edited["options"]["no_immediate_rediscard"] = True
    _refused(edited, "'options.no_immediate_rediscard' forbids", "'discard_pile'")


def _card_gone_round():
    """Three seats: one card goes round, each seat taking it and discarding it on a later turn,
    and seat 0 holds it at the end: seat 2's observation after turn 10, and the card."""
    game = new_game("cardverse", seed=4, players=3)
    card = _hand(game, 0)[0]
    for turn in range(10):          # seat turn % 3 plays turn 'turn'
        seat = turn % 3
        game.play("take discard" if turn in (1, 5, 9) else "draw stock")
        game.play(f"discard {card if turn in (0, 4, 8) else _other(game, seat, card)}")
    obs = game.observation(2)
    assert obs["turn"] == 10 and obs["taken_from_discard"] == [[card], [], []]
    assert all(card in cards for cards in obs["hand_history"]["taken"])
    CV.observation_array(obs)
    return obs, card


def test_a_held_card_cannot_move_to_a_seat_that_passed_it_on():
    # seat 1 took the card too, but cannot be the one holding it now
    obs, card = _card_gone_round()
    _refused(dict(obs, taken_from_discard=[[], [card], []]), "no order of the hand's turns fits")


def test_the_search_accepts_what_it_cannot_settle_within_its_limit(monkeypatch):
    # a real two-seat hand after turn 6, with 'turn' raised by a round: every card alone could
    # still travel its path, and only the search over all of them together refutes it
    game = next(itertools.islice(_random_games(300, 2), 670, None))
    obs = game.observation(0)
    assert (obs["turn"], len(obs["hand_sizes"])) == (6, 2)
    CV.observation_array(obs)
    later = dict(obs, turn=8)
    _refused(later, "no order of the hand's turns fits")
    monkeypatch.setattr(history, "NODE_LIMIT", 3)
    CV.observation_array(later)


def test_hands_between_the_levels_are_all_decided(monkeypatch):
    """Every observation of games between the levels is explained within the search's limit
    (that random play is never refused is shown by test_cardverse_observation_checks)."""
    verdicts = {True: 0, None: 0, False: 0}
    original = CV.explained

    def counted(hand, **rules):
        verdict = original(hand, **rules)
        verdicts[verdict] += 1
        return verdict

    monkeypatch.setattr(CV, "explained", counted)
    for players in (2, 3, 4):
        game = new_game("cardverse", seed=players, players=players)
        while not game.is_over:
            for seat in range(players):
                CV.observation_array(game.observation(seat))
            level = "normal" if game.to_move % 2 else "easy"
            game.play(suggest(game.observation(game.to_move), level=level, seed=1).move)
    assert verdicts[None] == verdicts[False] == 0 and verdicts[True] > 300, verdicts


def _cards(*cards):
    return sum(1 << card for card in cards)


# two seats, four turns: seat 0 passes over the upcard and discards X; seat 1 takes X and
# discards Y; seat 0 takes Y and discards W; seat 1 passes over W and discards V. Neither holds
# the card it took, so seat 1 laid X and seat 0 laid Y (card ids: suit * 13 + rank, the Ace 0)
UPCARD, W, V = 10, 23, 49


def _took_and_laid(x, y, melds, lays):
    return history.HandSoFar(
        players=2, first=0, turns=4, drawn=False, taken_now=-1, pile=(UPCARD, W, V),
        discarded=(_cards(x, W), _cards(y, V)), declined=(_cards(UPCARD), _cards(W)),
        taken=(_cards(y), _cards(x)), held=(0, 0), lays=lays, melds=melds, dealt=7,
        no_immediate_rediscard=True)


@pytest.mark.parametrize("x, y, melds, lays, fits", [
    # the 7s of suits 0 and 1, each in a meld of its own
    (6, 19, (_cards(6, 32, 45), _cards(17, 18, 19)), (3, 3), True),
    # both in one group of three: no seat laid it whole
    (6, 19, (_cards(6, 19, 32), _cards(40, 41, 42)), (3, 3), False),
    # a group of four: seat 1 laid 7s of suits 0, 2 and 3, seat 0 laid off the fourth
    (6, 19, (_cards(6, 19, 32, 45), _cards(40, 41, 42)), (4, 3), True),
    # the 6 and the 8 of suit 0 in the run 6-7-8: laid by two seats
    (5, 7, (_cards(5, 6, 7), _cards(40, 41, 42)), (3, 3), False),
    # in the run 5-6-7-8 seat 1 laid 5-6-7, and seat 0 laid off the 8
    (5, 7, (_cards(4, 5, 6, 7), _cards(40, 41, 42)), (4, 3), True),
    # but in the run 5-6-7-8 both three in a row hold the 6 and the 7
    (5, 6, (_cards(4, 5, 6, 7), _cards(40, 41, 42)), (4, 3), False),
])
def test_each_meld_was_laid_whole_by_one_seat(x, y, melds, lays, fits):
    hand = _took_and_laid(x, y, melds, lays)
    assert history.explained(hand) is fits
    assert history.explained(hand, base_rule=False)


def test_a_seat_laid_three_cards_for_each_meld_it_laid():
    # seat 0 passes over the upcard and discards X; seat 1 takes X and discards Y; seat 0
    # passes over Y and discards Z; seat 1 takes Z and discards V. Seat 1 laid X and Z, each in
    # a group of three: it laid both groups, 6 cards
    x, y, z = 6, 23, 7
    groups = (_cards(x, 32, 45), _cards(z, 33, 46))

    def hand(lays):
        return history.HandSoFar(
            players=2, first=0, turns=4, drawn=False, taken_now=-1, pile=(UPCARD, y, V),
            discarded=(_cards(x, z), _cards(y, V)), declined=(_cards(UPCARD, y), 0),
            taken=(0, _cards(x, z)), held=(0, 0), lays=lays, melds=groups, dealt=7,
            no_immediate_rediscard=True)

    assert history.explained(hand((0, 6)))
    assert history.explained(hand((3, 3))) is False
    assert history.explained(hand((3, 3)), lay_rule=False)
    # with one group of four, seat 0 may have laid 3 of it, and seat 1 laid off X
    hand_of_four = dataclasses.replace(hand((3, 4)), melds=(_cards(x, 19, 32, 45), groups[1]))
    assert history.explained(hand_of_four)


def test_the_bases_of_a_meld_are_three_in_a_row_or_three_of_a_rank():
    ace, two, jack, queen, king = 0, 1, 10, 11, 12
    # the Ace is high: Q-K-A, never A-2-3
    assert history.meld_bases(_cards(jack, queen, king, ace)) == (
        _cards(jack, queen, king), _cards(queen, king, ace))
    assert history.meld_bases(_cards(two, 2, 3, 4)) == (_cards(two, 2, 3), _cards(2, 3, 4))
    sevens = (6, 19, 32, 45)
    assert sorted(history.meld_bases(_cards(*sevens))) == sorted(
        _cards(*sevens) & ~(1 << card) for card in sevens)
    assert history.meld_bases(_cards(6, 19, 32)) == (_cards(6, 19, 32),)


def test_a_refused_base_is_named():
    game = new_game("cardverse", seed=2)
    o = CV.observation_array(game.observation(0))
    K = CV.KERNEL
    hand = _took_and_laid(6, 19, (_cards(6, 19, 32), _cards(40, 41, 42)), (3, 3))
    o[K.O_TURN], o[K.O_PHASE], o[K.O_TAKEN] = hand.turns, K.PHASE_DRAW, -1
    for field, values in ((K.O_DISCARDED, hand.discarded), (K.O_DECLINED, hand.declined),
                          (K.O_PICKED, hand.taken), (K.O_KNOWN, hand.held),
                          (K.O_HAND_N, (7 - 3, 7 - 3)), (K.O_TABLE_MASK, hand.melds)):
        o[field:field + len(values)] = values
    o[K.O_TABLE_N] = len(hand.melds)
    with pytest.raises(MeldmindError, match="two seats laid the base of one meld of 'table'"):
        CV._check_history_exists(o.tolist(), 2, list(hand.pile))
