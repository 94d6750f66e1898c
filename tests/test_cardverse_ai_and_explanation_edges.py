"""CardVerse AI levels and hint explanations at their edges (RULES.md §4.9, §6; the docstrings of
kernels/ai_cardverse.py and meldmind/explain.py): stories from a mutation audit of both files,
each pinning a behaviour the suite did not check.

Positions are dealt with test_cardverse_rules.build; hands are drawn in comments. Hand values
(§4.1): A 1, 2-10 face, J Q K 10.
"""
import numpy as np
import pytest

from meldmind.ai import Alternative
from meldmind.explain import explain
from meldmind.game import Move
from meldmind.games import cardverse as CV
from meldmind.kernels import ai_cardverse as AI
from meldmind.kernels import cardverse as K
from meldmind.kernels.levels import EXPERT, MASTER, NORMAL
from test_ai_cardverse import legal_of
from test_cardverse_levels import advice
from test_cardverse_rules import build, mask, obs_of, play
from test_explanations import _hand_may_end_game


# ---------------------------------------------------------------------------------------------
# Normal's DRAW and PLAY
# ---------------------------------------------------------------------------------------------

SEAT0 = "2C 5D 9C KS 4H 7S JD"          # singles only; 9C pairs with any other nine
SEAT1 = "3C 3D 4S 8D 8S QH AS"


def test_normal_weighs_the_card_on_top_of_the_pile_not_the_one_under_it():
    """§4.9 Normal: "DRAW: takes the discard if it ... turns a single into a partial meld with
    >= 2 live completing cards" -- the discard offered is the top of the pile. Hand 2: seat 1
    plays first, draws 9D and throws it on the upcard 3S; 9C 9D would have 9H and 9S live."""
    state = build([SEAT0, SEAT1], stock="9D", discard="3S", hand_no=2)
    play(state, "draw stock", "discard 9D")
    assert advice(state, NORMAL) == "take discard"
    # the same pile the other way up: 3S on top pairs with nothing in the hand
    state = build([SEAT0, SEAT1], stock="3S", discard="9D", hand_no=2)
    play(state, "draw stock", "discard 3S")
    assert advice(state, NORMAL) == "draw stock"


def test_normal_takes_a_discard_to_pair_it_with_a_single_only():
    """§4.9 Normal takes the discard when it "turns a single into a partial meld". A single is
    "a card in no complete and no partial meld": 10C goes with 9C (8C and JC live), but 9C is
    already in the partial meld 9C 9D, so the pickup makes no new partial meld."""
    state = build(["9C 9D 2H 5S KD 4D 7S", SEAT1], discard="10C")
    assert advice(state, NORMAL) == "draw stock"
    # control: with 9C a single (no 9D), 10C makes 9C 10C with two live outs
    state = build(["9C 6D 2H 5S KD 4D 7S", SEAT1], discard="10C")
    assert advice(state, NORMAL) == "take discard"


def test_normal_lays_the_meld_that_keeps_more_partial_melds_before_a_longer_one():
    """§4.9 Normal: "PLAY: lays complete melds ..., choosing the partition that preserves the
    most partial melds". Seat 0 (of three) after drawing KS: JC KC 5D QD JH 8S 9S 10S JS QS KS.
    Two best partitions leave 45 points each:
      run 8S 9S 10S JS QS KS   -> JC KC 5D QD JH: partial melds JC KC, JC JH (2)
      group JC JH JS + run 8S 9S 10S -> KC 5D QD QS KS: KC KS, QD QS, QS KS (3)
    so it lays the group (the run 8S 9S 10S follows), not the longer run."""
    state = build(["JC KC 5D QD JH 8S 9S 10S JS QS", "2D 3D 4D 6C 7C 2H 3H 4H 6S 7S",
                   "8C 9C 10C 6D 7D 8D 5H 6H 7H 2S"], stock="KS", discard="2C")
    play(state, "draw stock")
    assert advice(state, NORMAL) == "lay meld JC JH JS"


# ---------------------------------------------------------------------------------------------
# Master's self-model
# ---------------------------------------------------------------------------------------------

def test_masters_self_model_discards_from_outside_the_melds_it_keeps():
    """ai_cardverse._holder keeps its complete melds in hand and otherwise plays normal: its
    discard is normal's DISCARD "over the legal leftover cards", so it never breaks the meld it
    holds. Seat 0 after drawing 2S: KC KH KS | 9C 4C 5D 2S; the kings are worth more than any
    leftover card, but the highest leftover card, 9C, goes."""
    state = build(["KC KH KS 9C 4C 5D", SEAT1], stock="2S", discard="10C")
    play(state, "draw stock")
    moves = legal_of(state)
    assert CV.action_text(int(AI._holder(obs_of(state, 0), moves, len(moves)))) == "discard 9C"


# ---------------------------------------------------------------------------------------------
# The search's returns and samples
# ---------------------------------------------------------------------------------------------

def test_a_hand_return_shares_the_winners_gain_among_the_losers():
    """ai_cardverse docstring: the return of a hand is "gain / target for the hand winner and
    -gain / (target (N - 1)) for the others". Three
    seats: seat 0 draws 4S and goes out with 4D 4H 4S; seat 1 holds 2C 9D KS (21) and seat 2
    5H 7C (12), so the gain is 33 of the target 100 and each loser bears half of it."""
    state = build(["4D 4H", "2C 9D KS", "5H 7C"], stock="4S")
    play(state, "draw stock", "lay meld 4D 4H 4S")
    assert state[K.S_LAST_WINNER] == 0 and CV.scores(state) == [33, 0, 0]
    assert [AI._hand_return(state, seat) for seat in range(3)] == pytest.approx(
        [0.33, -0.165, -0.165])


def test_play_hand_with_three_seats_splits_the_winners_gain():
    """play_hand writes "the winner's gain for the winner, -gain / (N - 1) for the others":
    with three seats each loser is charged half the winner's points, and the three sum to 0."""
    out = np.zeros(4)
    AI.play_hand(CV.make_params({"num_players": 3}), 5, np.array([NORMAL] * 3),
                 np.zeros(3, np.int64), 1, out)
    winner = int(np.argmax(out[:3]))
    assert out[winner] > 0
    assert [out[p] for p in range(3) if p != winner] == [-out[winner] / 2] * 2


def _playout_return(ob, level, seed, k, move):
    """The return of ``move`` on determinization ``k`` as the module docstring defines it,
    replayed here move by move: every seat plays as the normal level from its own observation,
    except master's own later turns, played by ``_holder``, until the hand ends; the hand winner
    gets gain / target, the others -gain / (target (N - 1)) (+1 / -1/(N-1) at game over)."""
    seat = int(ob[K.O_SEAT])
    state = AI._determinization(ob, level, seed, k).copy()
    hand_no, before = state[K.S_HAND_NO], CV.scores(state)
    K.apply_action(state, move)
    while not K.is_terminal(state) and state[K.S_HAND_NO] == hand_no:
        p = K.current_player(state)
        moves = legal_of(state)
        view = obs_of(state, p)
        if level == MASTER and p == seat and len(moves) > 1:
            a = AI._holder(view, moves, len(moves))
        else:
            a = AI.policy(view, moves, len(moves), NORMAL, np.zeros(1, np.int64))
        K.apply_action(state, a)
    n = int(state[K.S_NUM_PLAYERS])
    winner = int(state[K.S_LAST_WINNER])
    if K.is_terminal(state):
        return 1.0 if winner == seat else -1.0 / (n - 1)
    share = (CV.scores(state)[winner] - before[winner]) / state[K.S_TARGET_SCORE]
    return share if winner == seat else -share / (n - 1)


@pytest.mark.parametrize("target", [100, 1])
@pytest.mark.parametrize("level", [EXPERT, MASTER])
def test_the_search_plays_the_opponents_by_normal_and_master_by_its_self_model(level, target):
    """ai_cardverse docstring: in the playouts "every seat ... playing as the normal level does
    from its own observation", and for master "the opponents' replies are played by the
    modelled normal policy, and the master's own later turns by _holder". Seat 0 after drawing
    2S holds the run 5H 6H 7H beside 9C KD 4C 2S, where _holder and normal part ways (at a target
    of 1 the hand decides the game, and normal holds its melds too); every move's value on each
    of 8 determinizations is the return of the playout replayed by those rules."""
    state = build(["5H 6H 7H 9C KD 4C", "3C 3D 4S 8D 8S QD AS"], stock="2S", discard="10C",
                  target_score=target)
    play(state, "draw stock")
    ob = obs_of(state, 0)
    moves = legal_of(state)
    for k in range(8):
        values = np.zeros(K.NUM_ACTIONS)
        visits = np.zeros(K.NUM_ACTIONS, np.int64)
        AI.search_serial(ob, level, 3, k, 1, values, visits)
        for a in moves:
            assert values[a] == pytest.approx(_playout_return(ob, level, 3, k, a)), (k, a)


def test_masters_samples_give_an_opponent_a_partner_of_the_card_it_took():
    """§6 master: an opponent model; the docstring: "a card it took openly and still holds
    suggests it holds a partner of it", so master resamples the determinizations toward such
    hands, while expert's are "uniform over the unseen cards". Seat 1 took the upcard 9H and
    threw 2C; in seat 0's samples seat 1 holds none of 9C 7H 8H 10H JH (the partners of 9H seat
    0 cannot see; it holds 9D 9S) far less often for master than for expert."""
    state = build(["2D 3D 8C 9D 9S KD JS", "2C 4H QD QH JD 2S 3S"], discard="9H", hand_no=2)
    play(state, "take discard", "discard 2C")
    ob = obs_of(state, 0)
    assert ob[K.O_KNOWN + 1] == mask("9H")

    def without_partner(level):
        hands = [int(AI._determinization(ob, level, 11, k)[K.S_HAND + 1]) for k in range(200)]
        return sum(not hand & mask("9C 7H 8H 10H JH") for hand in hands)

    # uniform: seat 1's 6 hidden cards miss the 5 partners among 43 unseen cards in
    # C(38, 6) / C(43, 6) = 45 % of the samples; weighed 0.2 against 1, about 14 % of master's
    expert, master = without_partner(EXPERT), without_partner(MASTER)
    assert expert > 60 and master < expert / 2, (expert, master)


# ---------------------------------------------------------------------------------------------
# Explanations: what the opponent threw, and the search's values
# ---------------------------------------------------------------------------------------------

def _gin_discarding(hand, history):
    """Seat 0 of a gin hand about to discard after the opponent's (seat 1's) moves ``history``
    (oldest first), each answered by seat 0 drawing from the stock and throwing 2H, 3H, ...,
    but the last, after which seat 0 has only drawn."""
    moves = []
    for number, move in enumerate(history):
        moves += [{"seat": 1, "move": "draw stock"}, {"seat": 1, "move": move},
                  {"seat": 0, "move": "draw stock"}, {"seat": 0, "move": f"discard {number + 2}H"}]
    return {"variant": "gin", "seat": 0, "phase": "discard", "hand": hand.split(),
            "known_cards": [[], []], "upcard": None, "history": moves[:-1]}


def test_a_gin_discard_names_the_opponents_latest_related_discard():
    """meldmind.explain: the opponents' discards are read "newest first" in gin, so the reason
    quotes the freshest evidence. Seat 1 threw JC, then 8C, then JH; seat 0 (7C 7D 7H | 2S 3S 4S
    | 9S JD KC QH 5C, JD in no meld and no partial meld) weighs throwing JD."""
    obs = _gin_discarding("7C 7D 7H 2S 3S 4S 9S JD KC QH 5C", ["discard JC", "discard 8C",
                                                                 "discard JH"])
    assert explain("gin", obs, Move(49, "discard JD"), None, ()) == (
        "Discard JD: it fits none of your melds, and your opponent threw away JH, so it is "
        "unlikely to want it.")


def test_the_card_discarded_is_not_its_own_evidence():
    """meldmind.explain: the discards quoted are those of *other* cards that go with the one
    thrown ("your opponent threw away X, so it is unlikely to want it"): seat 0 took QS from
    seat 1 and now throws it back; the reason quotes seat 1's QH, thrown before, not QS."""
    obs = _gin_discarding("7C 7D 7H 2S 3S 4S QS 9D KC 5C 6H", ["discard QH", "discard QS"])
    obs["history"][-1] = {"seat": 0, "move": "draw upcard"}
    obs["history"] += [{"seat": 0, "move": "discard 3D"}, {"seat": 1, "move": "draw stock"},
                       {"seat": 1, "move": "discard 8D"}, {"seat": 0, "move": "draw stock"}]
    assert explain("gin", obs, Move(51, "discard QS"), None, ()) == (
        "Discard QS: it fits none of your melds, and your opponent threw away QH, so it is "
        "unlikely to want it.")


QD, C9 = Move(13, "discard QD"), Move(7, "discard 9C")


def _cardverse_values(scores, hand_sizes):
    """Seat 0 of a CardVerse hand to 100 (hand 5H 6H 7H 9C QD, as the module's doctests)."""
    return {"variant": "cardverse", "seat": 0, "hand": "5H 6H 7H 9C QD".split(),
            "hand_sizes": hand_sizes, "scores": scores, "options": {"target_score": 100}}


@pytest.mark.parametrize("score, in_game_results", [(60, True), (59, False)])
def test_a_hand_that_can_reach_the_target_exactly_is_valued_in_game_results(score,
                                                                          in_game_results):
    """§4.7: "if the winner's score >= target_score, the game ends". Seat 1 has ``score`` and
    seat 0 holds 4 cards, at most 40 points: going out takes seat 1 to 100 exactly at 60, so
    the search's values are game results there (+1 won), and points at 59."""
    obs = _cardverse_values([0, score], [4, 7])
    assert _hand_may_end_game(obs) == in_game_results
    text = explain("cardverse", obs, QD, 0.45, (Alternative(QD, 0.45, 99),
                                                Alternative(C9, 0.4, 99)))
    assert text.endswith(" The search scores it +0.45 (a game won counts +1, a game lost -1), "
                         "0.05 more than discard 9C." if in_game_results else
                         " The search expects +45.0 points for you, 5.0 more than discard 9C.")


def test_two_sure_wins_of_the_game_are_as_sure():
    """meldmind.explain: where every playout of both moves won the game (values 1.0), the move
    is no surer than the other: "as with", never "more surely than"."""
    obs = _cardverse_values([0, 95], [5, 6])
    text = explain("cardverse", obs, QD, 1.0, (Alternative(QD, 1.0, 99), Alternative(C9, 1.0, 99)))
    assert text.endswith(" The search expects you to win the game with it, as with discard 9C.")


def test_a_gap_that_shows_as_a_tenth_of_a_point_is_not_called_a_tie():
    """Values are shown in points to one decimal: +12.5 for the move and 12.43 for discard 9C
    (shown 12.4). The gap, 0.07, rounds to 0.1, so the move is 0.1 better, not "as much as";
    a gap of 0.04 rounds to 0.0 and is a tie as shown."""
    obs = _cardverse_values([0, 0], [5, 6])
    assert not _hand_may_end_game(obs)
    text = explain("cardverse", obs, QD, 0.125, (Alternative(QD, 0.125, 99),
                                                 Alternative(C9, 0.1243, 99)))
    assert text.endswith(" The search expects +12.5 points for you, 0.1 more than discard 9C.")
    text = explain("cardverse", obs, QD, 0.125, (Alternative(QD, 0.125, 99),
                                                 Alternative(C9, 0.1246, 99)))
    assert text.endswith(" The search expects +12.5 points for you, as much as discard 9C.")


def test_a_value_that_rounds_to_zero_reads_plus_zero_never_minus_zero():
    """-0.04 points is shown +0.0, not -0.0 (4 of 13,055 explanations read -0.0)."""
    obs = _cardverse_values([0, 0], [5, 6])
    text = explain("cardverse", obs, QD, -0.0004, (Alternative(QD, -0.0004, 99),
                                                   Alternative(C9, -0.05, 99)))
    assert text.endswith(" The search expects +0.0 points for you, 5.0 more than discard 9C.")
