"""The search for a history behind a CardVerse observation (``cardverse_history``): stories of
observations that only a whole history shows impossible, and no false refusal in real games.

Each story plays a real hand, checks that its observation is accepted, then edits one field.
The edited observation passes every count and order check that looks at the fields one seat at
a time; only the order of the turns rules it out."""
import copy
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
