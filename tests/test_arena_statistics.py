"""The arena's statistics on results worked out by hand.

The stories replace the games themselves (``tournament._play``) by a scripted outcome
per deal, so every count, rate, interval and score difference can be added up by hand.
"""
import math

import pytest

import meldmind
from meldmind import tournament
from meldmind.tournament import deal_seed_of

# one scripted outcome per deal of the match (seed 3, 4 deals):
#   "normal"  the normal level wins whatever its seat, 100 points to 40 (deal 0), 110 to 0 (1)
#   "seat 0"  the deal favours seat 0, who wins 100 to 70 whichever level sits there
#   "draw"    nobody wins, nobody scores
SCRIPT = [("normal", 100, 40), ("normal", 110, 0), ("seat 0", 100, 70), ("draw", 0, 0)]


def scripted_play(seen):
    """A stand-in for ``tournament._play`` that plays out ``SCRIPT`` and records the seatings
    it was asked for."""
    kinds = {deal_seed_of(3, d): entry for d, entry in enumerate(SCRIPT)}

    def play(variant, options, deal_seed, seat_levels, iterations, budget_ms, ai_seed):
        kind, high, low = kinds[deal_seed]
        seen.append((deal_seed, tuple(seat_levels)))
        if kind == "draw":
            return [0.0, 0.0], [0.0, 0.0]
        winner = seat_levels.index("normal") if kind == "normal" else 0
        returns, scores = [-1.0, -1.0], [float(low), float(low)]
        returns[winner], scores[winner] = 1.0, float(high)
        return returns, scores
    return play


def test_arena_statistics_of_a_scripted_match(monkeypatch):
    """tournament.py: "every deal twice, seats swapped"; ``win_rate`` is "A's share of the
    decided games", ``ci95`` "its Wilson 95% interval", ``elo_diff`` "A's Elo advantage that
    win_rate implies", ``mean_score_diff`` "A's final score minus B's, per game"."""
    seen = []
    monkeypatch.setattr(tournament, "_play", scripted_play(seen))
    r = meldmind.arena("cardverse", "normal", "easy", deals=4, seed=3, processes=1,
                       progress=False, backend="processes")
    # each deal is played twice, normal (A) in seat 0 then in seat 1
    assert seen == [(deal_seed_of(3, d), seats) for d in range(4)
                    for seats in (("normal", "easy"), ("easy", "normal"))]
    # A wins both games of deals 0 and 1 and the seat-0 game of deal 2; B wins the other game
    # of deal 2; deal 3 is drawn twice
    assert (r.games, r.wins_a, r.wins_b, r.draws) == (8, 5, 1, 2)
    assert r.win_rate == pytest.approx(5 / 6)              # draws count in neither side
    # Wilson interval of 5 wins in 6 trials at z = 1.96: the roots of
    # (5/6 - p)^2 = z^2 p (1 - p) / 6, found by bisection
    assert r.ci95 == pytest.approx((0.436497, 0.969947), abs=1e-6)
    # Elo: the expected score 1 / (1 + 10^(-d/400)) = 5/6 gives d = 400 log10(5)
    assert r.elo_diff == pytest.approx(279.588, abs=1e-3)
    assert 1 / (1 + 10 ** (-r.elo_diff / 400)) == pytest.approx(5 / 6)
    # score differences, A minus B: +60 +60 (deal 0), +110 +110 (1), +30 -30 (2), 0 0 (3)
    assert r.mean_score_diff == pytest.approx(340 / 8)


def test_a_losing_level_gets_a_negative_elo_and_an_interval_below_one_half(monkeypatch):
    """The same script with the levels named the other way round: A is now the weaker level."""
    monkeypatch.setattr(tournament, "_play", scripted_play([]))
    r = meldmind.arena("cardverse", "easy", "normal", deals=4, seed=3, processes=1,
                       progress=False, backend="processes")
    assert (r.wins_a, r.wins_b, r.draws) == (1, 5, 2)
    assert r.win_rate == pytest.approx(1 / 6)
    assert r.ci95 == pytest.approx((1 - 0.969947, 1 - 0.436497), abs=1e-6)   # mirror image
    assert r.elo_diff == pytest.approx(-400 * math.log10(5))
    assert r.mean_score_diff == pytest.approx(-340 / 8)


def test_a_gin_arenas_score_difference_is_the_hand_points_a_won_or_lost(monkeypatch):
    """Gin's returns are zero-sum (+25 for the winner, -25 for the loser), but the winner alone
    scores: A's score minus B's is the hand's points won or lost by A, not twice them."""
    played = []
    real_play = tournament._play

    def play(variant, options, deal_seed, seat_levels, *rest):
        returns, scores = real_play(variant, options, deal_seed, seat_levels, *rest)
        played.append((seat_levels.index("easy"), returns))
        return returns, scores

    monkeypatch.setattr(tournament, "_play", play)
    r = meldmind.arena("gin", "easy", "beginner", deals=6, seed=2, processes=1, progress=False)
    assert len(played) == 12 and all(returns[0] == -returns[1] for _, returns in played)
    points_of_a = [returns[a] for a, returns in played]
    assert any(points_of_a) and r.mean_score_diff == pytest.approx(sum(points_of_a) / 12)
    # so does a Game: seat 1 wins this hand by 42 points, seat 0 scores nothing
    game = meldmind.new_game("gin", seed=2)
    while not game.is_over:
        game.play(game.legal_moves()[-1])
    assert game.returns == [-42.0, 42.0] and game.scores == [0, 42]



def test_the_interval_holds_the_win_rate_when_one_level_wins_or_loses_every_game():
    """Rounding left the Wilson interval a hair inside 1 (0.9999999999999999) when A won every
    decided game, and above 0 when it won none, so ``low <= win_rate <= high`` failed."""
    for n in range(1, 1000):
        assert tournament.wilson_interval(n, n)[1] == 1.0
        assert tournament.wilson_interval(0, n)[0] == 0.0
    result = meldmind.arena("gin", "easy", "beginner", deals=5, seed=1, processes=1,
                            progress=False)
    assert result.win_rate == 1.0 and result.ci95[1] == 1.0


def test_the_arena_runs_without_a_stderr(monkeypatch):
    """No stderr at all (pythonw, or a process started with it closed): the progress bar has
    nowhere to go, and the arena plays without it."""
    monkeypatch.setattr("sys.stderr", None)
    result = meldmind.arena("gin", "easy", "beginner", deals=2, seed=1, processes=1)
    assert result.games == 4
