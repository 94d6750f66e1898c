"""Structure-aware fuzzing of the input boundary, driven by hypothesis.

Real positions of gin and of CardVerse (2–4 seats, varied options) are mutated the way a buggy
or hostile server would send them: a key dropped, renamed or added; a value of another type; an
integer nudged; a card respelt, duplicated or foreign; a list shuffled, cut or repeated; a field
taken from another position of the same game. The mutated input goes to ``suggest`` (as a
mapping or as JSON text), ``Game.from_json`` and ``Game.play``. Each call must end one of two
ways:
* refused with a ``MeldmindError`` whose message is not empty, and nothing changed: neither the
  argument nor the game;
* accepted, and then consistent: the suggested move is legal in the observation as it was read,
  an accepted game record replays to its own JSON, a played move was legal and is recorded once.

Any other exception is a defect. The audit this comes from ran 644,744 such inputs; this keeps a
thousand of each kind as a regression guard.
"""
from __future__ import annotations

import copy
import json
import pickle
import random

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import meldmind
from meldmind import Game, MeldmindError, Move, new_game
from meldmind.game import game_module

SETTINGS = settings(max_examples=1000, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

CARDS = [r + s for s in "CDHS" for r in ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10",
                                          "J", "Q", "K"]]
ODD_CARDS = ["1S", "TS", "11H", "ZZ", "JK1", "FI01a", "as", "A♠", "", " ", "AS AS", "10"]
FIELDS = ["variant", "seat", "phase", "current", "hand", "discard_pile", "stock_size", "upcard",
          "history", "legal_moves", "options", "scores", "table", "moves", "seed", "players",
          "known_cards", "melds", "layoffs", "hand_history", "taken_from_discard", "id", "text"]
SCALARS = [0, 1, -1, 2, 3, 4, 10, 51, 52, 53, 300, 2**31, 2**53 + 1, 2**63, -2**63 - 1, 10**30,
           0.0, 1.5, -0.0, 1e308, float("nan"), float("inf"), True, False, None,
           "", "x" * 300, "\x00", "é", "gin", "cardverse", "draw stock", "pass", "\ud800"]
# What a Python caller, but no JSON text, can hold.
PYTHON_ONLY = [np.array([1, 2]), np.array(["draw", "discard"]), np.int64(3), np.float64(1.0),
               np.bool_(True), (1, 2), b"AS", {1, 2}]


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


def random_value(rng: random.Random) -> object:
    """A scalar, a card, a short list or mapping, or a deep nest: what a field may wrongly hold."""
    r = rng.random()
    if r < 0.45:
        return rng.choice(SCALARS)
    if r < 0.7:
        return rng.choice(CARDS + ODD_CARDS)
    if r < 0.82:
        return rng.sample(CARDS, rng.randrange(12))
    if r < 0.9:
        return {rng.choice(FIELDS): rng.choice(SCALARS) for _ in range(rng.randrange(3))}
    if r < 0.96:
        return rng.choice(PYTHON_ONLY)
    return _nested(rng.choice([50, 400]))


# ---- JSON trees --------------------------------------------------------------------------------

def paths_of(tree: object, prefix: tuple = ()) -> list[tuple]:
    """Every path into a JSON-like tree, the root's () first."""
    found = [prefix]
    if isinstance(tree, dict):
        for key, value in tree.items():
            found += paths_of(value, prefix + (key,))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            found += paths_of(value, prefix + (i,))
    return found


def node_at(tree: object, path: tuple) -> object:
    for step in path:
        tree = tree[step]
    return tree


def is_card(value: object) -> bool:
    return isinstance(value, str) and value in CARDS


def mutate(rng: random.Random, tree: object, donor: object) -> object:
    """One mutation of a JSON-like tree, in place where it can be; returns the tree."""
    paths = [p for p in paths_of(tree) if p]
    if not paths:
        return random_value(rng)
    path = rng.choice(paths)
    parent, key = node_at(tree, path[:-1]), path[-1]
    node = parent[key]
    op = rng.choice(["delete", "add", "rename", "replace", "nudge", "card", "list", "donor",
                     "wrap"])
    if op == "delete":
        del parent[key]
    elif op == "add" and isinstance(node, dict):
        node[rng.choice(FIELDS)] = random_value(rng)
    elif op == "rename" and isinstance(parent, dict):
        renamed = rng.choice([str(key).upper(), str(key) + " ", str(key)[:-1], rng.choice(FIELDS)])
        parent[renamed] = parent.pop(key)
    elif op == "nudge" and isinstance(node, int) and not isinstance(node, bool):
        parent[key] = rng.choice([node + 1, node - 1, -node, node + 52, float(node), str(node)])
    elif op == "card" and is_card(node):
        others = [node_at(tree, p) for p in paths if is_card(node_at(tree, p))]
        parent[key] = rng.choice([rng.choice(CARDS), rng.choice(others), rng.choice(ODD_CARDS),
                                  node.lower(), " " + node])
    elif op == "list" and isinstance(node, list):
        how = rng.choice(["shuffle", "reverse", "cut", "repeat", "clear", "append"])
        if how == "shuffle":
            rng.shuffle(node)
        elif how == "reverse":
            node.reverse()
        elif how == "cut":
            del node[rng.randrange(len(node) + 1):]
        elif how == "repeat":
            node.extend(copy.deepcopy(node) * rng.choice([1, 10]))
        elif how == "clear":
            node.clear()
        else:
            node.append(random_value(rng))
    elif op == "donor":
        try:
            parent[key] = copy.deepcopy(node_at(donor, path))
        except (KeyError, IndexError, TypeError):
            parent[key] = random_value(rng)
    elif op == "wrap":
        parent[key] = rng.choice([[node], {"value": node}, json.dumps(node, default=repr)])
    else:
        parent[key] = random_value(rng)
    return tree


def mutated(rng: random.Random, tree: object, donor: object) -> object:
    tree = copy.deepcopy(tree)
    for _ in range(rng.choice([1, 1, 2, 3])):
        tree = mutate(rng, tree, donor)
    return tree


def as_sent(rng: random.Random, tree: object) -> object:
    """The tree itself, or the JSON text a server would send (NaN written as JSON's extension)
    when the tree holds only what JSON can."""
    if rng.random() < 0.6:
        return tree
    try:
        return json.dumps(tree)
    except TypeError:
        return tree


def fingerprint(value: object) -> bytes:
    return pickle.dumps(value)


# ---- positions ---------------------------------------------------------------------------------

GAMES = [("gin", None, {}), ("gin", None, {}),
         ("cardverse", 2, {}), ("cardverse", 3, {"target_score": 5, "discard_to_win": True}),
         ("cardverse", 4, {"ace_high": True, "max_turns": 40, "no_immediate_rediscard": False})]


@pytest.fixture(scope="module")
def positions() -> list[list[Game]]:
    """For each game, copies of it at its start, every 7th move and its end, played by random
    moves."""
    rng = random.Random(2026)
    games = []
    for seed, (variant, players, options) in enumerate(GAMES):
        game = new_game(variant, players=players, seed=seed, options=options)
        found, played = [], 0
        while not game.is_over:
            if played % 7 == 0:
                found.append(copy.deepcopy(game))
            game.play(rng.choice(game.legal_moves()))
            played += 1
        games.append(found + [game])
    return games


def position_and_donor(rng: random.Random, positions: list[list[Game]]) -> tuple[Game, Game]:
    """A position, and one to take fields from: mostly of the same game, where a field taken
    over is often still consistent, so that mutated inputs are accepted too, not only refused."""
    game = rng.choice(positions)
    donor_game = game if rng.random() < 0.6 else rng.choice(positions)
    return rng.choice(game), rng.choice(donor_game)


def legal_ids_read_from(data: dict) -> list[int]:
    """The legal moves of an accepted observation, from the array the engine read it into."""
    module = game_module(data["variant"])
    array = module.observation_array(data)
    buffer = np.empty(module.KERNEL.NUM_ACTIONS, np.int64)
    return buffer[:int(module.KERNEL.legal_from_obs(array, buffer))].tolist()


def assert_refusal_is_clear(error: MeldmindError) -> None:
    assert str(error).strip(), f"{type(error).__name__} without a message"


# ---- the properties ----------------------------------------------------------------------------

@SETTINGS
@given(rng=st.randoms(use_true_random=False), level=st.sampled_from(
    ["beginner", "beginner", "easy", "normal", "kolay", "expert", "master"]))
def test_suggest_refuses_clearly_or_suggests_a_legal_move(positions, rng, level):
    game, other = position_and_donor(rng, positions)
    seat = game.to_move if game.to_move is not None else rng.randrange(game.players)
    donor = other.observation(seat % other.players)
    sent = as_sent(rng, mutated(rng, game.observation(seat), donor))
    before = fingerprint(sent)
    iterations = 4 if level in ("expert", "master") else None
    try:
        suggestion = meldmind.suggest(sent, level=level, seed=rng.randrange(100),
                                      iterations=iterations)
    except MeldmindError as error:
        assert_refusal_is_clear(error)
    else:
        data = sent if isinstance(sent, dict) else json.loads(sent)
        assert suggestion.move.id in legal_ids_read_from(data)
        assert suggestion.explanation.strip()
    assert fingerprint(sent) == before, "suggest changed its argument"


@SETTINGS
@given(rng=st.randoms(use_true_random=False))
def test_a_game_record_is_refused_clearly_or_replays_to_itself(positions, rng):
    game, other = position_and_donor(rng, positions)
    sent = as_sent(rng, mutated(rng, json.loads(game.to_json()), json.loads(other.to_json())))
    before = fingerprint(sent)
    try:
        game = Game.from_json(sent)
    except MeldmindError as error:
        assert_refusal_is_clear(error)
    else:
        given_record = sent if isinstance(sent, dict) else json.loads(sent)
        assert game.moves == [int(move) for move in given_record["moves"]]
        assert Game.from_json(game.to_json()).to_json() == game.to_json()
        assert game.is_over == (game.to_move is None)
        for seat in range(game.players):   # the engine reads back every seat's view of it
            game_module(game.variant).observation_array(game.observation(seat))
    assert fingerprint(sent) == before, "from_json changed its argument"


def move_forms(rng: random.Random, game: Game) -> object:
    """A move as a caller may pass it: right, respelt, of another position, or junk."""
    legal = game.legal_moves() or [Move(0, "draw stock")]
    move = rng.choice(legal)
    full = {"id": move.id, "text": move.text}
    return rng.choice([
        move, move.id, move.text, full, {"id": move.id}, {"text": move.text},
        move.text.upper(), "  " + move.text.replace(" ", "\t") + " ", move.text + " now",
        mutated(rng, full, {"id": rng.choice(legal).id, "text": rng.choice(legal).text}),
        Move(move.id, rng.choice(legal).text), np.int64(move.id), float(move.id),
        rng.randrange(-5, 3100), random_value(rng), "discard " + rng.choice(CARDS + ODD_CARDS),
    ])


@SETTINGS
@given(rng=st.randoms(use_true_random=False))
def test_a_move_is_refused_with_the_game_unchanged_or_played_once(positions, rng):
    game = copy.deepcopy(rng.choice(rng.choice(positions)))
    move = move_forms(rng, game)
    record_before, legal_before = game.to_json(), [m.id for m in game.legal_moves()]
    seat = game.to_move if game.to_move is not None else 0
    view_before = game.observation(seat)
    argument_before = fingerprint(move)
    try:
        played = game.play(move)
    except MeldmindError as error:
        assert_refusal_is_clear(error)
        assert game.to_json() == record_before
        assert game.observation(seat) == view_before
    else:
        assert played.id in legal_before
        assert game.moves == json.loads(record_before)["moves"] + [played.id]
    assert fingerprint(move) == argument_before, "play changed its argument"
