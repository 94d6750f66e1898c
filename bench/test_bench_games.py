"""Random-play throughput of the game kernels, one core. The references, in the same run, are
OpenSpiel's C++ gin_rummy played by uniform random bots through ``pyspiel.evaluate_bots``, and
RLCard's Python ``gin-rummy`` environment played by its random agents.

Games per second = GAMES / the benchmark's time."""
import numpy as np
import pytest

from meldmind.games import cardverse, gin

GAMES = 2_000
REFERENCE_GAMES = 50


@pytest.mark.benchmark(group="random-games")
def test_random_gin_games(benchmark):
    params = gin.make_params({})
    gin.KERNEL.random_games(params, np.int64(1), 10)  # compile or load from cache
    benchmark(gin.KERNEL.random_games, params, np.int64(2), GAMES)


@pytest.mark.benchmark(group="random-games")
def test_random_cardverse_hands(benchmark):
    params = cardverse.make_params({opt: default for opt, (_, default, _) in cardverse.OPTIONS.items()})
    cardverse.KERNEL.random_hands(params, np.int64(1), 10)
    benchmark(cardverse.KERNEL.random_hands, params, np.int64(2), GAMES)


@pytest.mark.benchmark(group="random-games")
def test_reference_openspiel_random_gin_games(benchmark):
    """OpenSpiel C++ random games: REFERENCE_GAMES per round; scale by GAMES/REFERENCE_GAMES."""
    pyspiel = pytest.importorskip("pyspiel", reason="install the bench extra for the reference")
    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_uniform_random_bot(p, 1234 + p) for p in range(2)]
    start = game.new_initial_state()

    def run():
        for seed in range(REFERENCE_GAMES):
            pyspiel.evaluate_bots(start.clone(), bots, seed)
    benchmark(run)


@pytest.mark.benchmark(group="random-games")
def test_reference_rlcard_random_gin_games(benchmark):
    """RLCard random games: REFERENCE_GAMES per round; scale by GAMES/REFERENCE_GAMES."""
    rlcard = pytest.importorskip("rlcard", reason="install the bench extra for the reference")
    from rlcard.agents import RandomAgent
    env = rlcard.make("gin-rummy", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])

    def run():
        for _ in range(REFERENCE_GAMES):
            _, payoffs = env.run(is_training=False)
            assert len(payoffs) == 2
    benchmark(run)


def _determinize_case(module, options):
    kernel = module.KERNEL
    state = kernel.new_state(module.make_params(options), np.int64(5))
    buffer = np.empty(kernel.NUM_ACTIONS, np.int64)
    for _ in range(6):  # a few moves in, so the observation has history
        n = kernel.legal_actions(state, buffer)
        kernel.apply_action(state, buffer[0] if n == 1 else buffer[n - 1])
    obs = np.zeros(kernel.OBS_SIZE, np.int64)
    kernel.observe(state, kernel.current_player(state), obs)
    kernel.determinize(obs, np.int64(1))
    return kernel, obs


@pytest.mark.benchmark(group="determinize")
def test_determinize_gin(benchmark):
    kernel, obs = _determinize_case(gin, {})
    benchmark(kernel.determinize, obs, np.int64(3))


@pytest.mark.benchmark(group="determinize")
def test_determinize_cardverse(benchmark):
    kernel, obs = _determinize_case(cardverse, {opt: d for opt, (_, d, _) in cardverse.OPTIONS.items()})
    benchmark(kernel.determinize, obs, np.int64(3))
