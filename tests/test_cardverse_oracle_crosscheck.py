"""The CardVerse engine against an independent oracle (``cardverse_oracle``, written from RULES.md
§4 alone): random games under random options, played side by side through the public API. At
every step the legal moves, the seat to move, the phase, the hands, the pile, the table and the
scores agree, and every hand ends with the same winner, ending and hand values."""
import random

import pytest

from meldmind import new_game

from cardverse_oracle import CVOracle


def _random_options(rng):
    """Every option, often at values that end hands and games early (max_turns, target)."""
    return {"num_players": rng.choice([2, 2, 3, 4]),
            "discard_to_win": rng.random() < 0.3,
            "ace_high": rng.random() < 0.3,
            "target_score": rng.choice([1, 10, 30, 60]),
            "no_immediate_rediscard": rng.random() < 0.7,
            "max_turns": rng.choice([2, 7, 40, 300])}


def _oracle(options):
    return CVOracle(options["num_players"], options["discard_to_win"], options["ace_high"],
                    options["target_score"], options["no_immediate_rediscard"],
                    options["max_turns"])


def _deal(game, oracle):
    views = [game.observation(seat) for seat in range(oracle.N)]
    assert len(views[0]["discard_pile"]) == 1          # the upcard
    oracle.deal([view["hand"] for view in views], views[0]["discard_pile"][0])


def _choose(legal, rng, lay_bias):
    """A random legal move, laying melds and lay-offs with probability ``lay_bias`` when it can,
    so that tables fill and hands go out."""
    lays = [text for text in legal if text.startswith("lay")]
    if lays and rng.random() < lay_bias:
        return rng.choice(lays)
    return rng.choice(legal)


def _agree(game, oracle):
    view = game.observation(0)
    assert game.is_over == (oracle.phase == "over")
    assert view["scores"] == oracle.scores
    if oracle.phase == "over":
        # the last hand stays in view, its going-out turn counted among the completed ones
        assert (view["game_winner"], view["turn"]) == (oracle.game_winner, oracle.turns)
        assert view["taken_this_turn"] is None
        return
    assert game.to_move == oracle.cur and view["phase"] == oracle.phase
    assert sorted(m.text for m in game.legal_moves()) == sorted(oracle.legal())
    assert (view["hand_number"], view["turn"]) == (oracle.hand_no, oracle.turns)
    assert view["discard_pile"] == oracle.discard and view["stock_size"] == len(oracle.stock)
    assert [(m["kind"], sorted(m["cards"])) for m in view["table"]] == \
        [(kind, sorted(cards)) for kind, cards in oracle.table]
    for seat in range(oracle.N):
        assert set(game.observation(seat)["hand"]) == oracle.hands[seat]


@pytest.mark.parametrize("block", range(4))
def test_random_games_agree_with_the_oracle_move_by_move(block):
    rng = random.Random(1000 + block)
    ends = set()
    for _ in range(60):
        options = _random_options(rng)
        game = new_game("cardverse", seed=rng.randrange(1 << 30), options=options)
        oracle = _oracle(options)
        _deal(game, oracle)
        lay_bias = rng.choice([0.0, 0.9, 1.0])
        while True:
            _agree(game, oracle)
            if oracle.phase == "over":
                break
            text = _choose(sorted(oracle.legal()), rng, lay_bias)
            seat, before = oracle.cur, set(game.observation(oracle.cur)["hand"])
            game.play(text)
            drawn = None
            if text == "draw stock" and oracle.stock:
                (drawn,) = set(game.observation(seat)["hand"]) - before
            oracle.play(text, drawn)
            if oracle.phase in ("deal", "over"):
                winner, end, values, _gain = oracle.last_hand
                last = game.observation(0)["last_hand"]
                assert (last["winner"], last["end"], last["hand_values"]) == (winner, end, values)
                ends.add(end)
                if oracle.phase == "deal":
                    _deal(game, oracle)
    assert ends == {"out", "empty_stock", "max_turns"}, ends
