"""A CardVerse observation must tell a possible game (RULES.md §4.3-4.8), not only hold fields in
range: hand-edited observations of impossible states are refused with an error naming the
field, and every observation of real games is accepted."""
import copy
import itertools
import json
import random
import re
from pathlib import Path

import pytest

import meldmind
from meldmind import MeldmindError, new_game
from meldmind.games import cardverse as CV


def _edit(obs, **fields):
    out = copy.deepcopy(obs)
    out.update(fields)
    return out


def _refused(obs, *fields):
    """``obs`` is refused with a message naming every one of ``fields``."""
    with pytest.raises(MeldmindError) as error:
        CV.observation_array(obs)
    for field in fields:
        assert f"'{field}" in str(error.value), (field, str(error.value))


def _random_games(count, seed):
    """Games of 2-4 players under every option, played to the end by uniformly random moves
    (the discard taken with a per-game probability); yields each game after every move."""
    rng = random.Random(seed)
    combos = list(itertools.product([2, 3, 4], [False, True], [False, True], [False, True]))
    for i in range(count):
        players, to_win, ace, rediscard = combos[i % len(combos)]
        options = {"discard_to_win": to_win, "ace_high": ace, "no_immediate_rediscard": rediscard,
                   "target_score": rng.choice([1, 20, 60, 150]),
                   "max_turns": rng.choice([1, 2, 4, 10, 25])}
        game = new_game("cardverse", seed=seed * 1000 + i, players=players, options=options)
        take = rng.random()
        yield game
        while not game.is_over:
            moves = game.legal_moves()
            if moves[0].text == "draw stock" and len(moves) == 2:
                game.play(moves[rng.random() < take])
            else:
                game.play(rng.choice(moves))
            yield game


def _find(accept, over=False):
    """The first observation of random games, of the seat to move (of seat 0 once the game is
    over), that ``accept`` takes."""
    for game in _random_games(500, 5):
        if game.is_over == over:
            obs = game.observation(0 if over else game.to_move)
            if accept(obs):
                return obs
    raise AssertionError("no such observation")


def _no_takes(obs):
    return not any(obs["hand_history"]["taken"])


# a real turn-0 observation of seat 0 (7 cards, 37 stock cards), and seat 0's after its stock
# draw (8 cards, the upcard passed over)
START = new_game("cardverse", seed=3).observation(0)
_drew = new_game("cardverse", seed=3)
_drew.play("draw stock")
DREW = _drew.observation(0)


def test_the_starting_observations_are_real_and_accepted():
    assert (START["phase"], len(START["hand"]), START["stock_size"]) == ("draw", 7, 37)
    assert (DREW["phase"], len(DREW["hand"]), DREW["stock_size"]) == ("play", 8, 36)
    assert DREW["hand_history"]["declined"] == [START["discard_pile"], []]
    for obs in (START, DREW):
        CV.observation_array(obs)


# the reviewer's edits: every field in range, together an impossible state
REVIEWER_EDITS = {
    "play phase with 7 cards, no draw": (START, {"phase": "play"}, ["hand_sizes", "table"]),
    "draw phase with 8 cards": (DREW, {"phase": "draw"}, ["hand_sizes", "table"]),
    "turn 5, empty history": (START, {"turn": 5}, ["to_move", "turn"]),
    "a declined card seen nowhere": (
        START, {"hand_history": {"discarded": [[], []], "declined": [["AS"], []],
                                 "taken": [[], []]}}, ["hand_history"]),
    "a score past the target, game not over": (START, {"scores": [150, 0]}, ["scores[0]"]),
}


@pytest.mark.parametrize("name", REVIEWER_EDITS)
def test_the_reviewers_impossible_observations_are_refused(name):
    base, fields, named = REVIEWER_EDITS[name]
    _refused(_edit(base, **fields), *named)
    with pytest.raises(MeldmindError):
        meldmind.suggest(_edit(base, **fields), level="expert", iterations=4)


def test_the_turn_must_fit_the_seat_to_move_the_history_and_the_cap():
    _refused(_edit(START, to_move=1), "to_move", "hand_number", "turn")
    # turn 4 leaves seat 0 to move, but it would have discarded twice
    _refused(_edit(START, turn=4), "hand_history.discarded[0]")
    _refused(_edit(START, turn=4, options={**START["options"], "max_turns": 4}), "turn")


def test_each_hand_size_must_fit_the_deal():
    three = new_game("cardverse", seed=3, players=3).observation(0)
    assert three["hand_sizes"] == [10, 10, 10]
    _refused(_edit(three, hand_sizes=[10, 11, 9]), "hand_sizes[1]")


def test_the_draws_must_fit_the_history():
    # seat 0 drew from the stock, so it passed over the upcard
    empty = {"discarded": [[], []], "declined": [[], []], "taken": [[], []]}
    _refused(_edit(DREW, hand_history=empty), "hand_history.declined[0]", "hand_history.taken[0]")


def test_the_first_seat_passes_over_the_upcard_and_later_seats_the_previous_discard():
    # two seats, four turns of stock draws: seat 0 passed over the upcard, then a discard of
    # seat 1; naming seat 1's two discards instead loses the upcard
    obs = _find(lambda o: len(o["hand_sizes"]) == 2 and o["hand_number"] == 1 and o["turn"] == 4
                and o["phase"] == "draw" and _no_takes(o))
    history = copy.deepcopy(obs["hand_history"])
    assert obs["discard_pile"][0] in history["declined"][0]
    history["declined"][0] = history["discarded"][1]
    _refused(_edit(obs, hand_history=history), "hand_history.declined[0]", "discard_pile")
    # three seats, two turns: seat 1 passed over seat 0's discard, not its own
    obs = _find(lambda o: len(o["hand_sizes"]) == 3 and o["hand_number"] == 1 and o["turn"] == 2
                and o["phase"] == "draw" and _no_takes(o))
    history = copy.deepcopy(obs["hand_history"])
    history["discarded"][:2] = history["discarded"][1::-1]
    _refused(_edit(obs, hand_history=history), "hand_history.declined[1]",
             "hand_history.discarded[0]")


def test_the_discard_pile_must_fit_the_turns_and_the_takes():
    obs = _find(lambda o: len(o["hand_sizes"]) == 2 and o["hand_number"] == 1 and o["turn"] == 2
                and o["phase"] == "draw" and _no_takes(o))
    up, first, second = obs["discard_pile"]
    # a take that left the pile as high as ever
    history = copy.deepcopy(obs["hand_history"])
    history["declined"][1], history["taken"][1] = [], [first]
    _refused(_edit(obs, hand_history=history), "discard_pile")
    # the top must be the last discard, by the seat before the one to move
    _refused(_edit(obs, discard_pile=[up, second, first]), "discard_pile",
             "hand_history.discarded[1]")


def test_a_stock_draw_passes_over_the_top_of_the_pile():
    # seat to move drew from the stock this turn and took a card on an earlier turn: claiming it
    # passed over that card instead of the top contradicts 'taken_this_turn' null
    obs = _find(lambda o: o["phase"] == "play" and o["taken_this_turn"] is None
                and set(o["hand_history"]["taken"][o["to_move"]])
                - set(o["hand_history"]["declined"][o["to_move"]]))
    seat, history = obs["to_move"], copy.deepcopy(obs["hand_history"])
    declined = history["declined"][seat]
    declined.remove(obs["discard_pile"][-1])
    declined.append(sorted(set(history["taken"][seat]) - set(declined))[0])
    _refused(_edit(obs, hand_history=history), "taken_this_turn", f"hand_history.declined[{seat}]")


def _both_retook(obs):
    """Two seats, each of which took a card and discarded it again. The history's lists are sets
    of cards, so they then hold fewer cards than the turns had events, and their counts alone
    cannot tell a card passed over from one left out."""
    history = obs["hand_history"]
    return len(obs["hand_sizes"]) == 2 and all(
        set(taken) & set(thrown) for taken, thrown in zip(history["taken"], history["discarded"]))


def _passed_over_instead(obs, pick):
    """``obs`` with the first card seat ``p`` passed over replaced by ``card``, where ``pick``
    gives ``(p, card)`` for the observation's history."""
    history = copy.deepcopy(obs["hand_history"])
    seat, card = pick(obs)
    history["declined"][seat][0] = card
    return _edit(obs, hand_history=history)


def _other_seats_pass(obs):
    """A card that seat ``q`` passed over after taking it once from seat ``p``, and ``p``, which
    has passed over some card: ``p`` could have met it too, on the turn ``q`` discarded it."""
    history = obs["hand_history"]
    for q, p in ((0, 1), (1, 0)):
        both_threw = set(history["declined"][q]) & set(history["discarded"][q])
        if both_threw and history["declined"][p]:
            return p, min(both_threw)
    return None


def _gone_from_the_pile(obs):
    """A discard that seat ``p`` met and took, no longer in the pile, for a ``p`` that has passed
    over some card."""
    history = obs["hand_history"]
    for p in (0, 1):
        gone = (set(history["discarded"][1 - p]) - set(obs["discard_pile"])
                - set(history["declined"][p]))
        if gone and history["declined"][p]:
            return p, min(gone)
    return None


def test_a_card_passed_over_stays_covered_and_was_passed_over_once():
    """Only the top of the pile can be taken, and a card is passed over when it tops the pile at
    a stock draw; the drawer's discard then covers it for the rest of the hand. Each edit below
    keeps every count of the history: both seats took a card back, so the counts cannot tell."""
    # every card under the top was passed over: erasing that is refused
    obs = _find(lambda o: o["phase"] == "draw" and len(o["discard_pile"]) >= 3 and _both_retook(o)
                and any(o["discard_pile"][0] in thrown
                        for thrown in o["hand_history"]["discarded"]))
    history = copy.deepcopy(obs["hand_history"])
    history["declined"] = [[], []]
    _refused(_edit(obs, hand_history=history), "discard_pile[0]", "hand_history.declined")
    # no second seat can pass over a card that stays covered
    obs = _find(lambda o: _both_retook(o) and _other_seats_pass(o) is not None)
    seat = _other_seats_pass(obs)[0]
    _refused(_passed_over_instead(obs, _other_seats_pass), f"hand_history.declined[{seat}]")
    # nor can a card passed over have left the pile
    obs = _find(lambda o: _both_retook(o) and _gone_from_the_pile(o) is not None)
    _refused(_passed_over_instead(obs, _gone_from_the_pile), "hand_history.declined",
             "discard_pile")
    # and the top is passed over only once the seat to move has drawn
    obs = _find(lambda o: o["phase"] == "draw" and _both_retook(o)
                and o["hand_history"]["declined"][o["to_move"]])
    top = obs["discard_pile"][-1]
    _refused(_passed_over_instead(obs, lambda o: (o["to_move"], top)), "hand_history.declined",
             "discard_pile")


def test_a_card_taken_after_the_first_turn_is_the_last_discard():
    # seat 0 takes the upcard on turn 0, seat 1 draws and discards, seat 0 takes that discard:
    # claiming it took the upcard again is refused
    game = new_game("cardverse", seed=1)
    game.play("take discard")
    upcard = game.observation(0)["taken_this_turn"]
    game.play(f"discard {next(c for c in game.observation(0)['hand'] if c != upcard)}")
    game.play("draw stock")
    game.play(f"discard {game.observation(1)['hand'][0]}")
    game.play("take discard")
    obs = game.observation(0)
    CV.observation_array(obs)
    edited = _edit(obs, taken_this_turn=upcard)
    del edited["legal_moves"]
    _refused(edited, "taken_this_turn", "hand_history.discarded[1]")


def test_a_hand_that_ended_held_at_most_the_cards_dealt():
    # hand 1 ends after one turn (max_turns 1); a loser's 300 points would need more than the
    # 7 cards dealt (at most 70 points: seven cards of value 10)
    game = new_game("cardverse", seed=1, options={"target_score": 1000, "max_turns": 1})
    game.play("draw stock")
    game.play(f"discard {game.observation(0)['hand'][0]}")
    obs = game.observation(game.to_move)
    last = copy.deepcopy(obs["last_hand"])
    winner = last["winner"]
    last["hand_values"][1 - winner] = 300
    scores = list(obs["scores"])
    scores[winner] = 300
    _refused(_edit(obs, last_hand=last, scores=scores), "last_hand.hand_values")


def test_scores_and_the_last_hand_must_fit_the_game():
    _refused(_edit(START, scores=[5, 0]), "scores")
    later = _find(lambda o: o["hand_number"] == 2 and len(o["hand_sizes"]) == 2)
    CV.observation_array(later)
    _refused(_edit(later, last_hand=None), "last_hand")
    last = later["last_hand"]
    winner = last["winner"]
    _refused(_edit(later, last_hand={**last, "winner": 1 - winner}), "last_hand.hand_values")
    scores = list(later["scores"])
    scores[winner] = 0
    _refused(_edit(later, scores=scores), f"scores[{winner}]")
    # one hand has ended: its winner has exactly what it won, the other seat nothing
    for seat in (winner, 1 - winner):
        scores = list(later["scores"])
        scores[seat] += 5
        _refused(_edit(later, scores=scores), f"scores[{seat}]")


def _won_in_last_hand(obs):
    last = obs["last_hand"]
    return sum(v for p, v in enumerate(last["hand_values"]) if p != last["winner"])


def test_only_as_many_seats_score_as_hands_have_ended():
    third = _find(lambda o: o["hand_number"] == 3 and len(o["hand_sizes"]) == 3
                  and _won_in_last_hand(o) < o["options"]["target_score"])
    CV.observation_array(third)
    winner = third["last_hand"]["winner"]
    scores = [1] * 3
    scores[winner] = _won_in_last_hand(third)
    _refused(_edit(third, scores=scores), "scores")
    # the first hand's winner took at least a point from each of the other two seats
    scores[(winner + 1) % 3], scores[(winner + 2) % 3] = 0, 2
    CV.observation_array(_edit(third, scores=scores))


def _one_meld_of_three_by_another_seat(obs):
    """Three seats, one 3-card meld on the table laid by a seat other than the observer's, and
    the third seat has played and holds a card to spare."""
    sizes, seat = obs["hand_sizes"], obs["seat"]
    if len(sizes) != 3 or len(obs["table"]) != 1 or len(obs["table"][0]["cards"]) != 3:
        return False
    layer = sizes.index(min(sizes))
    other = 3 - seat - layer
    return (obs["phase"] == "draw" and layer != seat and sizes[layer] == sizes[other] - 3
            and sizes[other] == sizes[seat] and obs["hand_history"]["discarded"][other])


def test_the_cards_laid_must_hold_every_meld_on_the_table():
    obs = _find(_one_meld_of_three_by_another_seat)
    CV.observation_array(obs)
    # one seat laid the meld's 3 cards; a card of its hand moved to another seat's leaves
    # them 2 and 1 cards laid, but a meld is laid whole, by one seat
    sizes = list(obs["hand_sizes"])
    layer = sizes.index(min(sizes))
    other = 3 - obs["seat"] - layer
    sizes[layer] += 1
    sizes[other] -= 1
    _refused(_edit(obs, hand_sizes=sizes), "hand_sizes", "table")


def test_the_scores_must_fit_the_hands_played_before_the_last():
    third = _find(lambda o: o["hand_number"] == 3 and len(o["hand_sizes"]) == 2
                  and o["options"]["target_score"] == 150 and not o["options"]["ace_high"])
    CV.observation_array(third)
    # each hand before the last gave at least 1 point, so the scores bound how many there were;
    # the hand numbers tried stay odd, as 3 is, so that the same seat starts the hand
    before = sum(third["scores"]) - _won_in_last_hand(third)
    last_that_fits = before + 1 + before % 2
    CV.observation_array(_edit(third, hand_number=last_that_fits))
    _refused(_edit(third, hand_number=last_that_fits + 2), "scores", "last_hand")
    # the one hand before the last gave at most 70 points (seven ten-point cards)
    winner = third["last_hand"]["winner"]
    scores = [0, 0]
    scores[winner] = _won_in_last_hand(third)
    scores[1 - winner] = 71
    _refused(_edit(third, scores=scores), "scores")
    scores[1 - winner] = 70
    CV.observation_array(_edit(third, scores=scores))


def test_a_finished_game_ended_at_the_first_hand_to_reach_the_target():
    over = _find(lambda o: len(o["hand_sizes"]) == 2 and o["hand_number"] > 1
                 and 1 < _won_in_last_hand(o) < o["options"]["target_score"], over=True)
    CV.observation_array(over)
    winner, target = over["game_winner"], over["options"]["target_score"]
    scores = list(over["scores"])
    scores[winner] = target + _won_in_last_hand(over)
    _refused(_edit(over, scores=scores), f"scores[{winner}]", "last_hand")
    scores[winner] = target - 1 + _won_in_last_hand(over)
    CV.observation_array(_edit(over, scores=scores))


def test_a_finished_game_must_have_its_winner_at_the_target():
    over = _find(lambda o: len(o["hand_sizes"]) == 2 and o["options"]["target_score"] > 1,
                 over=True)
    CV.observation_array(over)
    winner, target = over["game_winner"], over["options"]["target_score"]
    scores = list(over["scores"])
    scores[winner] = target - 1
    _refused(_edit(over, scores=scores), f"scores[{winner}]")
    _refused(_edit(over, last_hand={**over["last_hand"], "winner": 1 - winner}),
             "last_hand.winner", "game_winner")


def test_every_observation_of_random_games_is_accepted():
    """No false refusals: every seat, after every move, of 160 games under all the options."""
    seen = 0
    for game in _random_games(160, 1):
        for seat in range(game.players):
            CV.observation_array(game.observation(seat))
            seen += 1
    assert seen > 10_000


def test_the_protocol_documents_example_is_accepted():
    text = (Path(__file__).parents[1] / "docs" / "json-protocol.md").read_text()
    (example,) = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)
                  if '"variant": "cardverse"' in block]
    CV.observation_array(example)
