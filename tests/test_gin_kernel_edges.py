"""The gin kernel at its edges, from a mutation audit of ``kernels/gin.py``: what a fresh deal
shows, the two bonuses as two parameters, a defender's view of a knock as OpenSpiel shows it (the
knocker's cards kept out of its melds hidden) and the positions ``determinize`` builds from it.

Hands are drawn as one row per suit; ``.`` marks a rank not held.
"""
import numpy as np
import pytest

from test_gin_rules import K, PARAMS, Table, mask, names


def _defender_view_as_openspiel_shows_it(t):
    """The defender's observation once the knocker (seat 0) has passed, made by the OpenSpiel
    adapter from OpenSpiel's own game on the same deal and moves: the knocker's melds are
    shown, the cards it kept out of them are not (but those it took face up)."""
    pytest.importorskip("pyspiel")
    from test_gin_conformance import openspiel_twin
    from meldmind.integrations import openspiel as adapter

    os_state = openspiel_twin(t.dealt)
    for action in t.moves:
        os_state.apply_action(adapter.to_openspiel_action(action))
    view = adapter.observation_for(os_state, 1)
    assert K.hides_knockers_cards(view)
    return view


class Knock(Table):
    """A ``Table`` that keeps its deal and its moves, to play them again in OpenSpiel."""

    def __init__(self, p0, p1, upcard, draws=()):
        super().__init__(p0, p1, upcard, draws)
        self.state[K.S_FIRST_UPCARD] = self.state[K.S_UPCARD]
        self.dealt = self.state.copy()
        self.moves = []

    def play(self, *moves):
        for move in moves:
            self.moves.append(self.action(move))
            super().play(move)


# ---- the deal ---------------------------------------------------------------------------------
def test_before_anyone_draws_no_upcard_has_been_drawn():
    """A fresh deal: nobody has drawn yet, so there is no previous upcard (the repeated-move
    rule compares a discard with it) in either seat's view, nor once seat 0 has passed; the
    first draw sets it to the card it faced."""
    t = Table("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D", "KS")
    for seat in (0, 1):
        assert t.obs(seat)["prev_upcard"] is None
    t.play("pass")
    assert t.obs(1)["prev_upcard"] is None and t.obs(1)["upcard"] == "KS"
    t.play("draw upcard")
    assert t.obs(0)["prev_upcard"] == "KS"
    for seed in range(20):
        assert K.new_state(PARAMS, np.int64(seed))[K.S_PREV_UPCARD] == -1


# ---- scoring ----------------------------------------------------------------------------------
def test_gin_and_undercut_bonuses_are_two_parameters():
    """OpenSpiel's ``gin_bonus`` and ``undercut_bonus`` are separate parameters that merely share
    the default 25. Under a table where gin pays 30 and an undercut 20, gin against 12 points
    scores 12 + 30 = 42, and a knock with 9 against 1 costs the knocker 8 + 20 = 28; a whole
    game played under those parameters scores its gin with the gin bonus."""
    assert K.showdown_score(0, 12, 30, 20) == 42
    assert K.showdown_score(9, 1, 30, 20) == -28
    assert K.showdown_score(0, 0, 30, 20) == 30       # gin against gin is no undercut

    # the gin story of test_gin_rules, under other bonuses: seat 0 goes gin, seat 1 keeps 44
    t = Table("2C 3C 4C 7D 7H 7S 9H 10H JH KS", "5C 7C 8H KC KD KH 2S 3D 9S QS", "QH")
    t.state[K.S_GIN_BONUS], t.state[K.S_UNDERCUT_BONUS] = 30, 20
    t.play("draw upcard", "knock", "KS", "lay meld 2C 3C 4C", "lay meld 7D 7H 7S",
           "lay meld 9H 10H JH QH", "pass", "lay meld KC KD KH", "pass")
    assert t.returns() == [74.0, -74.0]


# ---- the defender's view of a knock, as OpenSpiel shows it --------------------------------------
def _knock_keeping_the_ace():
    """Seat 0 takes KS, knocks, throws it back and lays three melds, keeping AC (1), a card it
    was dealt, which the defender does not see::

        seat 0   C: A . . . . . 7       seat 1   C: . . . . . . . . 9 10 J Q
                 D: . . . . . . 7                D: . 2 . . . . . . . . . Q
                 H: . . . . 5 6 7                H: . . 3 . . . . 8 . . . Q
                 S: . 2 3 4 . . 7 . . . . . K    S: . . . . 5
    """
    t = Knock("5H 6H 7H 7C 7D 7S 2S 3S 4S AC", "8H 5S QC QD QH 9C 10C JC 2D 3H", "KS")
    t.play("draw upcard", "knock", "KS", "lay meld 7C 7D 7S", "lay meld 5H 6H 7H",
           "lay meld 2S 3S 4S", "pass")
    return t


def test_a_determinized_knock_is_scored_with_the_knockers_sampled_cards():
    """The defender sees three melds and one hidden card. Each position ``determinize`` builds
    deals the knocker one unseen card and counts it as the knocker's deadwood, so the game
    played on from there (seat 1 lays off 8H and 5S, melds and keeps 2D 3H = 5) scores that
    card: 5 less its value, or an undercut when it is worth more than 5."""
    t = _knock_keeping_the_ace()
    obs = _defender_view_as_openspiel_shows_it(t)
    assert obs[K.O_DEADWOOD] == -1 and obs[K.O_HAND_SIZES] == 1 and obs[K.O_KNOWN] == 0
    values = set()
    for seed in range(30):
        det = K.determinize(obs, np.int64(seed))
        card = int(det[K.S_HAND])
        assert bin(card).count("1") == 1 and card & int(K.unseen_cards(obs)) == card
        value = int(K.hand_value(card))
        assert det[K.S_DEADWOOD] == value
        for move in ("8H", "5S", "pass", "lay meld QC QD QH", "lay meld 9C 10C JC", "pass"):
            K.apply_action(det, t.action(move))
        out = np.zeros(2)
        K.returns(det, out)
        assert out[0] == (5 - value if value <= 5 else 5 - value - 25), names(card)
        values.add(value)
    assert len(values) > 3


def test_the_knockers_hidden_cards_may_add_up_to_the_knock_card_exactly():
    """The knocker's one hidden card may be any card the defender has not seen: its deadwood
    may be 10 (a ten or a face card) as well as less, for a knock allows deadwood <= 10."""
    obs = _defender_view_as_openspiel_shows_it(_knock_keeping_the_ace())
    values = [int(K.hand_value(K.determinize(obs, np.int64(seed))[K.S_HAND]))
              for seed in range(40)]
    assert max(values) == 10 and min(values) < 10


def test_a_knocker_hiding_the_only_small_cards_left_gets_them_when_sampling_misses():
    """Seat 0 takes 4H and knocks, throwing it back, and keeps four small cards out of its
    melds, ten points in all::

        seat 0   C: A . . . . . . 8 9 10        seat 1   C: A 2 3 4
                 D: . 2 . . . . . . . . J Q K             D: A . 3
                 H: . . 3                                 H: A 2
                 S: . . . 4                               S: A 2 3

    The defender holds ten of the other small cards and 4D is in the stock: of the 35 cards it
    has not seen, only AC 2D 3H with 4S or 4D add up to 10 or less, so sampling four at random
    almost never finds them in its 1,000 tries, and ``determinize`` then deals the lowest
    cards, which fit, rather than a hand no knock could have left."""
    t = Knock("AC 2D 3H 4S 8C 9C 10C JD QD KD", "AD AH AS 2C 2H 2S 3C 3D 3S 4C", "4H")
    t.play("draw upcard", "knock", "4H", "lay meld 8C 9C 10C", "lay meld JD QD KD", "pass")
    obs = _defender_view_as_openspiel_shows_it(t)
    assert obs[K.O_HAND_SIZES] == 4 and bin(int(K.unseen_cards(obs))).count("1") == 35
    small = mask("AC 2D 3H".split())
    for seed in range(6):
        det = K.determinize(obs, np.int64(seed))
        hand = int(det[K.S_HAND])
        assert hand & small == small and hand & ~small in (mask(["4S"]), mask(["4D"]))
        assert det[K.S_DEADWOOD] == 10

