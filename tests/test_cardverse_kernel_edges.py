"""CardVerse Rami kernel (kernels/cardverse.py) at its edges: what a mutation audit of the kernel
found unpinned by the rest of the suite. Each test is one rule, shown on a concrete deal.

Positions come from test_cardverse_rules.build (stock top first, discard bottom to top).
"""
import numpy as np
import pytest

from meldmind.games import cardverse as CV
from meldmind.kernels import cardverse as K
from test_cardverse_rules import build, ids, legal, legal_texts, mask, obs_of, play, why


# ---------------------------------------------------------------------------------------------
# §4.3 the deal
# ---------------------------------------------------------------------------------------------

def test_every_card_can_be_dealt_to_either_seat_turned_up_or_left_in_the_stock():
    """§4.3: "Shuffle; deal 7 cards each": a uniform shuffle of all 52 cards. Over 1,000 seeded
    two-player deals every card, the king of spades (the last card id) included, lands in
    seat 0's hand, in seat 1's hand, as the upcard and in the stock."""
    params = CV.make_params({})
    places = {c: set() for c in range(52)}
    for seed in range(1000):
        state = K.new_state(params, np.int64(seed))
        for c in range(52):
            if state[K.S_HAND] >> c & 1:
                places[c].add("seat 0")
            elif state[K.S_HAND + 1] >> c & 1:
                places[c].add("seat 1")
        places[int(state[K.S_DISCARD])].add("upcard")
        for c in state[K.S_STOCK:K.S_STOCK + state[K.S_STOCK_N]]:
            places[int(c)].add("stock")
    assert {c for c, seen in places.items()
            if seen != {"seat 0", "seat 1", "upcard", "stock"}} == set()


def test_a_deal_that_is_not_the_52_cards_once_each_or_lacks_a_score_per_seat_is_refused():
    """state_from_deal builds positions for stories: the hands, the pile and the stock together
    must hold the 52 cards exactly once, with one hand and one score per seat."""
    params = CV.make_params({})
    hands = np.array([mask("5H 6H 7H"), mask("KC KD")], dtype=np.int64)
    rest = [c for c in range(52) if not (mask("5H 6H 7H KC KD 2D") >> c) & 1]

    def deal(hands=hands, discard=ids("2D"), stock=rest, scores=(0, 0)):
        return K.state_from_deal(params, hands, np.array(discard, dtype=np.int64),
                                 np.array(stock, dtype=np.int64), np.int64(0), np.int64(1),
                                 np.array(scores, dtype=np.int64))

    assert deal()[K.S_STOCK_N] == 52 - 5 - 1                      # the complete deal is fine
    with pytest.raises(ValueError, match="hold the 52 cards"):
        deal(stock=rest[1:])                                        # one card nowhere
    with pytest.raises(ValueError, match="dealt twice"):
        deal(discard=ids("2D 5H"))                                  # 5H in seat 0's hand too
    with pytest.raises(ValueError, match="dealt twice"):
        deal(stock=rest + ids("KD"))                                # KD in seat 1's hand too
    with pytest.raises(ValueError, match="one score per seat"):
        deal(scores=(0, 0, 0))


# ---------------------------------------------------------------------------------------------
# §4.4 the turn: the history of a draw, and why a move is refused
# ---------------------------------------------------------------------------------------------

def test_a_stock_draw_with_no_discard_pile_declines_nothing():
    """§4.8 history: "declined" is the top of the pile a seat left when it drew from the stock.
    With no pile at all (a built position) seat 0 draws and has declined no card."""
    state = build(["5H 6H 7H", "KC KD"])
    assert state[K.S_DISCARD_N] == 0
    play(state, "draw stock")
    assert state[K.S_DECLINED:K.S_DECLINED + K.MAX_PLAYERS].tolist() == [0, 0, 0, 0]
    history = CV.observation_dict(obs_of(state, 1), None)["hand_history"]
    assert history["declined"] == [[], []]


def test_a_card_that_is_not_in_the_hand_is_refused_as_such_before_the_other_reasons():
    """The first reason that forbids a move names what is wrong with its card: a card that is
    not in the hand is refused for that, not for the re-discard rule or the place it was
    offered at."""
    # seat 0: JH KH 2C 3S 5S 7S 9C    takes QH and lays JH QH KH: QH has left the hand
    state = build(["JH KH 2C 3S 5S 7S 9C", "AD 2D 3D 4D 5D 6D 7D"], discard="QH")
    play(state, "take discard", "lay meld JH QH KH")
    assert state[K.S_TAKEN] == ids("QH")[0]
    assert why(state, "discard QH") == K.R_NOT_IN_HAND               # not R_REDISCARD
    # AH is not in the hand; offered to the run as if it were a group
    assert why(state, "lay off AH on meld 0 (group)") == K.R_NOT_IN_HAND   # not R_WRONG_PLACE


def test_with_discard_to_win_a_last_card_that_fits_nowhere_does_not_fit():
    """Decision 7 refuses a lay that would empty the hand; a lay-off of a last card that does
    not extend the meld at all is refused for not fitting, the reason that holds whatever
    the hand size."""
    # seat 0: 5H 6H 7H   draws 2C, lays 5H 6H 7H; 2C is left, and 2C is no 4H or 8H
    state = build(["5H 6H 7H", "KC KD"], stock="2C", discard="9S", discard_to_win=True)
    play(state, "draw stock", "lay meld 5H 6H 7H")
    assert legal_texts(state) == ["discard 2C"]
    assert why(state, "lay off 2C on meld 0 (high end)") == K.R_DOES_NOT_FIT
    assert why(state, "lay off 2C on meld 0 (low end)") == K.R_DOES_NOT_FIT


# ---------------------------------------------------------------------------------------------
# returns, determinize, legal_from_obs
# ---------------------------------------------------------------------------------------------

def test_returns_are_zero_for_every_seat_until_the_game_is_over():
    """returns: +1 / -1/(N-1) only once the game is over; before, nobody has won or lost."""
    state = build(["5H 6H 7H 2C", "KC KD QS", "AD AH 9S"], discard="3S")
    out = np.full(3, 7.0)
    K.returns(state, out)
    assert out.tolist() == [0.0, 0.0, 0.0]
    play(state, "draw stock", "lay meld 5H 6H 7H")                  # mid-turn, still on
    K.returns(state, out)
    assert out.tolist() == [0.0, 0.0, 0.0]


def test_determinize_refuses_an_observation_whose_card_counts_do_not_add_up():
    """determinize deals the unseen cards to the hidden hands and the stock; an observation
    whose stock size is one card short of what is unseen has no consistent state."""
    state = build(["5H 6H 7H 2C 9D JC QC", "KC KD KH 3S 4S 8D 10D"], discard="3D")
    obs = obs_of(state, 0)
    assert obs_of(K.determinize(obs, np.int64(1)), 0).tolist() == obs.tolist()
    obs[K.O_STOCK_N] -= 1
    with pytest.raises(ValueError, match="inconsistent"):
        K.determinize(obs, np.int64(1))


def test_legal_from_obs_gives_moves_only_to_the_seat_to_move():
    """E3: the seat to move gets from its own observation exactly the legal moves of the game;
    a seat waiting for its turn gets none."""
    state = build(["5H 6H 7H 2C 9D JC QC", "KC KD KH 3S 4S 8D 10D"], stock="8H", discard="3D")
    play(state, "draw stock")                                        # seat 0 draws 8H
    buf = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    n = K.legal_from_obs(obs_of(state, 0), buf)
    assert buf[:n].tolist() == legal(state)
    assert "lay meld 5H 6H 7H 8H" in legal_texts(state)
    assert K.legal_from_obs(obs_of(state, 1), buf) == 0
