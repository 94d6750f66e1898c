"""meldmind's levels, through the OpenSpiel adapter, against OpenSpiel's own gin bots on
mirrored deals (every deal played twice, seats swapped): master against both bots (the issue's
targets), and the lower levels against the simple bot, which places it on meldmind's ladder.
``test_peeking_vs_openspiel_simple_gin_bot`` shows expert or master a part of the simple bot's
hidden hand at every decision: what the master target of 70 % asks of the opponent's cards.

The number of deal pairs comes from MELDMIND_STRENGTH_PAIRS (default 1, a smoke run); the
README's figures come from `MELDMIND_STRENGTH_PAIRS=1000 NUMBA_NUM_THREADS=1 pytest
bench/test_bench_openspiel_strength.py -k level_vs -s` (7 minutes), 1,000 pairs of `-k peeking`
(about 25 minutes) and 200 pairs of `-k ismcts` (65 minutes).
"""
import os
import time

import numpy as np
import pytest

from meldmind.games import gin
from meldmind.tournament import elo_difference, progress_bar, wilson_interval

pyspiel = pytest.importorskip("pyspiel", reason="install the bench extra for OpenSpiel's bots")
from meldmind.integrations.openspiel import (MeldmindBot, meldmind_state,  # noqa: E402
                                              observation_for)

PAIRS = int(os.environ.get("MELDMIND_STRENGTH_PAIRS", "1"))
ISMCTS_SIMULATIONS = int(os.environ.get("MELDMIND_ISMCTS_SIMULATIONS", "1000"))


class TimedBot(pyspiel.Bot):
    """Wraps a bot and accumulates its thinking time per move."""

    def __init__(self, bot):
        pyspiel.Bot.__init__(self)
        self.bot, self.seconds, self.moves = bot, 0.0, 0

    def restart_at(self, state):
        self.bot.restart_at(state)

    def inform_action(self, state, player, action):
        self.bot.inform_action(state, player, action)

    def step(self, state):
        started = time.perf_counter()
        action = self.bot.step(state)
        self.seconds += time.perf_counter() - started
        self.moves += 1
        return action


class PeekingBot(MeldmindBot):
    """A search level shown each of the opponent's hidden cards with probability ``revealed``
    at every decision (drawn afresh each time, seeded by the deal, the seat and the move), as
    ``test_peeking_search`` does against normal. A measurement, never a level: it reads the
    true state."""

    def __init__(self, player_id, level, revealed, seed):
        MeldmindBot.__init__(self, player_id, level=level, seed=seed)
        self.revealed = revealed

    def observation(self, state):
        K = gin.KERNEL
        opponent = 1 - self.player_id
        obs = observation_for(state, self.player_id)
        hidden = int(meldmind_state(state)[K.S_HAND + opponent] & ~obs[K.O_KNOWN + opponent])
        moment = len(state.history())
        draws = np.random.default_rng([self.seed, self.player_id, moment]).random(K.NUM_CARDS)
        for card in range(K.NUM_CARDS):
            if hidden >> card & 1 and draws[card] < self.revealed:
                obs[K.O_KNOWN + opponent] |= 1 << card
        return obs


def _match(make_ours, our_label, make_opponent, label):
    game = pyspiel.load_game("gin_rummy")
    wins = losses = draws = 0
    points_per_hand = []
    ours_time = ours_moves = theirs_time = theirs_moves = 0
    bar = progress_bar(PAIRS, f"{our_label} vs {label}", unit="pair")
    try:
        for deal in range(PAIRS):
            for our_seat in (0, 1):
                ours = TimedBot(make_ours(our_seat, deal))
                theirs = TimedBot(make_opponent(1 - our_seat, game, deal))
                bots = [ours, theirs] if our_seat == 0 else [theirs, ours]
                returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 10_000 + deal)
                points = returns[our_seat]     # the hand's points, won (+) or lost (-)
                points_per_hand.append(points)
                wins += points > 0
                losses += points < 0
                draws += points == 0
                ours_time += ours.seconds
                ours_moves += ours.moves
                theirs_time += theirs.seconds
                theirs_moves += theirs.moves
            bar.update()
    finally:
        bar.close()
    decided = wins + losses
    rate = wins / decided if decided else None
    low, high = wilson_interval(wins, decided)
    elo = elo_difference(rate) if rate is not None else None
    print(f"\n{our_label} vs {label}: {PAIRS} deal pairs, {2 * PAIRS} games, {wins}-{losses}-{draws} "
          f"(W-L-D), win rate {'—' if rate is None else f'{rate:.1%}'} [{low:.1%}, {high:.1%}], "
          f"mean points per hand {np.mean(points_per_hand):+.2f}, "
          f"Elo {elo if elo is None else round(elo)}; "
          f"ms/move: {our_label} {1000 * ours_time / max(ours_moves, 1):.1f}, "
          f"{label} {1000 * theirs_time / max(theirs_moves, 1):.1f}")
    return wins, losses, draws


def _meldmind(level):
    """Our bot for a seat and a deal: ``level`` seeded by the deal's number."""
    return lambda seat, deal: MeldmindBot(seat, level=level, seed=deal)


def _simple_bot(player, game, deal):
    return pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), player)


@pytest.mark.parametrize("level", ["master", "expert", "normal", "easy"])
def test_level_vs_openspiel_simple_gin_bot(level):
    """master's row is the README's target; the others place OpenSpiel's bot on the ladder."""
    _match(_meldmind(level), level, _simple_bot, "simple_gin_rummy_bot")


@pytest.mark.parametrize("level, revealed", [("expert", 0.5), ("expert", 1.0), ("master", 0.5),
                                             ("master", 0.75), ("master", 1.0)])
def test_peeking_vs_openspiel_simple_gin_bot(level, revealed):
    """A search level shown a part of the simple bot's hidden cards (docs/gin-strength.md)."""
    _match(lambda seat, deal: PeekingBot(seat, level, revealed, deal),
           f"{level} seeing {revealed:.0%}", _simple_bot, "simple_gin_rummy_bot")


def test_master_vs_openspiel_ismcts():
    def ismcts(player, game, deal):
        evaluator = pyspiel.RandomRolloutEvaluator(1, deal)
        return pyspiel.ISMCTSBot(deal, evaluator, 2.0, ISMCTS_SIMULATIONS, max_world_samples=-1,
                                 final_policy_type=pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    _match(_meldmind("master"), "master", ismcts,
           f"ISMCTSBot({ISMCTS_SIMULATIONS} simulations, random rollouts)")
