"""A gin observation whose history holds a move that cannot be played is refused naming that
move: its index, its text and the rules kernel's reason (docs/json-protocol.md). The observing
seat's own moves are always judged, on the hand the rest of the observation shows; the opponent's
are judged where its hidden cards do not matter. Real observations are all still accepted.
"""
import copy
import functools
import random
import re

import numpy as np
import pytest

import meldmind
from meldmind import Game, MeldmindError
from meldmind.games import gin
from meldmind.kernels import gin as K


def _game(seed, knock=True):
    """A random game played to its end (knocking whenever it may, or else only at the Wall, which
    it then reaches), and the kernel state before each of its moves."""
    game = meldmind.new_game("gin", seed=seed)
    rng = random.Random(seed)
    states = [game._state.copy()]
    while not game.is_over:
        moves = game.legal_moves()
        knocks = [m for m in moves if m.text == "knock"]
        if knock or game._state[K.S_PHASE] == K.PH_WALL:
            game.play(knocks[0] if knocks else rng.choice(moves))
        else:
            game.play(rng.choice([m for m in moves if m not in knocks]))
        states.append(game._state.copy())
    return game, states


def _observation(game, moves, seat):
    """Seat's observation after the first ``moves`` moves of ``game``."""
    record = {"format": "meldmind.game", "version": 1, "variant": "gin", "options": {},
              "seed": game.seed, "moves": game.moves[:moves]}
    d = Game.from_json(record).observation(seat)
    d.pop("legal_moves", None)
    return d


def _refusal(d):
    with pytest.raises(MeldmindError) as refused:
        meldmind.suggest(d, level="master", iterations=10, seed=1)
    return str(refused.value)


def _named(index, text, seat, reason):
    return f"gin observation: 'history[{index}]' ({text}) is illegal there for seat {seat}: {reason}"


@functools.cache
def _ids(phase):
    return {gin.action_text(a, phase): a for a in range(K.NUM_ACTIONS)}


def _reason(state, text):
    """Why ``text`` cannot be played from ``state``, as Game.play says it (None if it can)."""
    phase = int(state[K.S_PHASE])
    ids = _ids(phase)
    if text not in ids:
        return f"not a move of the {gin.PHASES[phase]} phase"
    reason = int(K.illegal_reason(state, ids[text]))
    return gin.REASONS[reason] if reason else None


# ---- stories ------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", [0, 1])
def test_a_stock_draw_at_the_first_upcard_is_named(seat):
    """Seat 0's draw from the stock while the first upcard is offered: its own move for seat 0,
    the opponent's for seat 1, whose legality no hidden card changes."""
    game, _ = _game(5)
    d = _observation(game, 12, seat)
    d["history"][0] = {"seat": 0, "move": "draw stock"}
    assert _refusal(d) == _named(0, "draw stock", 0, gin.REASONS[K.R_FIRST_UPCARD])


def _discard_of_seat_0(fits):
    """The first discard of seat 0 in random games for which ``fits(game, states, k)`` (states: the
    kernel's before each move; k: its history index), as (game, states, k)."""
    return next((game, states, k) for game, states in map(_game, range(20))
                for k, action in enumerate(game.moves)
                if states[k][K.S_PHASE] == K.PH_DISCARD and states[k][K.S_CURRENT] == 0
                and action < K.NUM_CARDS and fits(game, states, k))


def test_an_own_discard_of_a_card_the_opponent_holds_is_named():
    """Seat 0 'discards' a card seat 1 took face up and still holds (seat 0 saw it taken)."""
    game, states, k = _discard_of_seat_0(lambda game, states, k: states[k][K.S_KNOWN + 1])
    card = gin.mask_cards("gin", int(states[k][K.S_KNOWN + 1]))[0]
    d = _observation(game, k + 2, 0)
    d["history"][k] = {"seat": 0, "move": f"discard {card}"}
    assert _refusal(d) == _named(k, f"discard {card}", 0, gin.REASONS[K.R_NOT_IN_HAND])


def test_an_own_discard_of_a_card_never_held_is_named():
    """Seat 0 'discards' a card still in the stock, which it never held: only the discard pile
    shows which card it really put down (the one seat 1's stock draw then buried)."""
    game, states, k = _discard_of_seat_0(lambda game, _, k: game.moves[k + 1:k + 2] == [K.DRAW_STOCK])
    stock = states[k][K.S_STOCK:K.S_STOCK + states[k][K.S_STOCK_SIZE]]
    card = gin.action_text(int(stock[0])).split()[1]       # the bottom card: drawn by no one here
    d = _observation(game, k + 3, 0)
    d["history"][k] = {"seat": 0, "move": f"discard {card}"}
    assert _refusal(d) == _named(k, f"discard {card}", 0, gin.REASONS[K.R_NOT_IN_HAND])


def test_the_opponents_discard_of_a_face_up_card_is_named():
    """Seat 0, as seat 1 sees it, 'discards' a card the history had already discarded (the
    oldest in the pile, or the upcard its own stock draw just buried): its hidden cards cannot
    hold a card lying face up."""
    game, states, k = _discard_of_seat_0(lambda game, states, k: states[k][K.S_DISCARD_COUNT] > 1
                                         and game.moves[k - 1] == K.DRAW_STOCK)
    pile = states[k][K.S_DISCARDS:K.S_DISCARDS + states[k][K.S_DISCARD_COUNT]]
    for card in gin.mask_cards("gin", (1 << int(pile[0])) | (1 << int(pile[-1]))):
        d = _observation(game, k + 2, 1)
        d["history"][k] = {"seat": 0, "move": f"discard {card}"}
        assert _refusal(d) == _named(k, f"discard {card}", 0, f"{card} is already in the discard pile")


def test_a_knock_where_none_was_legal_is_named():
    """A knock instead of seat 0's discard with too much deadwood, and instead of the draw before
    it (seen by seat 1: a move whose legality no hidden card changes)."""
    game, states, k = _discard_of_seat_0(lambda game, states, k: states[k - 1][K.S_PHASE] == K.PH_DRAW
                                         and not K.can_knock_with(states[k][K.S_HAND], 10))
    d = _observation(game, k + 2, 0)
    d["history"][k] = {"seat": 0, "move": "knock"}
    assert _refusal(d) == _named(k, "knock", 0, gin.REASONS[K.R_KNOCK_DEADWOOD])
    d = _observation(game, k + 2, 1)
    d["history"][k - 1] = {"seat": 0, "move": "knock"}
    assert _refusal(d) == _named(k - 1, "knock", 0, gin.REASONS[K.R_MUST_DRAW])


def test_the_opponents_knock_on_hidden_cards_is_not_called_illegal():
    """Seat 1 cannot see whether seat 0 could knock: a knock instead of seat 0's discard is
    refused (the moves after it are out of turn), never called illegal."""
    game, states, k = _discard_of_seat_0(lambda _, s, k: not K.can_knock_with(s[k][K.S_HAND], 10))
    d = _observation(game, k + 2, 1)
    d["history"][k] = {"seat": 0, "move": "knock"}
    assert f"'history[{k}]' (knock)" not in _refusal(d)


# ---- every own move, made illegal --------------------------------------------------------------

def _illegal_texts(state):
    """Move texts that cannot be played from ``state``, by kind (discard, lay off, lay meld, ...)."""
    phase = int(state[K.S_PHASE])
    texts = set(_ids(phase)) | set(_ids(K.PH_DISCARD)) | set(_ids(K.PH_LAYOFF))
    kinds = {}
    for text in sorted(texts):
        if _reason(state, text):
            kind = " ".join(text.split()[:2 if text.startswith("lay") else 1])
            kinds.setdefault(kind, []).append(text)
    return kinds


def _also_explained(bad, message, seat, k):
    """Asserts that ``bad``, refused with ``message`` naming no move or another than its bad move
    ``k``, is as well explained otherwise: by another single bad move of the seat before ``k``
    (replacing it makes the observation valid), or by a field, its history being playable."""
    found = re.match(r"gin observation: 'history\[(\d+)\]'", message)
    if found is None:
        assert message.startswith("gin observation: the observation does not match its 'history'")
        return
    j = int(found.group(1))
    assert j < k and bad["history"][j]["seat"] == seat
    assert bad["history"][j]["move"].startswith("discard")
    other = copy.deepcopy(bad)
    for card in range(K.NUM_CARDS):
        other["history"][j] = {"seat": seat, "move": gin.action_text(card)}
        try:
            gin.observation_array(other)
            return
        except MeldmindError:
            pass
    raise AssertionError(f"{message}: no other move there explains the observation")


def test_an_illegal_own_move_is_named_exactly():
    """Over 200 random games (half of them reaching the Wall) and positions, one of the seat's own
    moves becomes a random illegal one. The refusal names exactly that move, with the reason the
    kernel gives in the real game. The seat cannot always tell that move from others: rarely
    the history is consistent all the same (it 'discards' a card that the opponent then took and
    played: the two may have swapped those cards in the deal) and is accepted, or another single
    move of its, or a field, explains the contradiction as well (``_also_explained``)."""
    rng = random.Random(2024)
    named, accepted, ambiguous = 0, 0, 0
    for seed in range(200):
        game, states = _game(seed, knock=seed % 2 == 0)
        for _ in range(3):
            moves = rng.randrange(1, len(game.moves) + 1)
            seat = rng.randrange(2)
            d = _observation(game, moves, seat)
            own = [i for i, entry in enumerate(d["history"]) if entry["seat"] == seat]
            if not own:
                continue
            k = rng.choice(own)
            kinds = _illegal_texts(states[k])
            text = rng.choice(kinds[rng.choice(sorted(kinds))])
            bad = copy.deepcopy(d)
            bad["history"][k] = {"seat": seat, "move": text}
            try:
                gin.observation_array(bad)
            except MeldmindError as refused:
                if str(refused) == _named(k, text, seat, _reason(states[k], text)):
                    named += 1
                else:
                    _also_explained(bad, str(refused), seat, k)
                    ambiguous += 1
                continue
            card, later = text.split()[-1], d["history"][k + 2:]
            assert text.startswith("discard")
            assert d["history"][k + 1] == {"seat": 1 - seat, "move": "draw upcard"}
            assert any(card in entry["move"].split() for entry in later if entry["seat"] != seat) \
                or card in d["known_cards"][1 - seat]
            accepted += 1
    assert named > 500 and accepted + ambiguous <= named // 50


# ---- every real observation -----------------------------------------------------------------------

def test_every_real_observation_is_still_accepted():
    """Every position of 200 random games, from both seats, through knocks, lay-offs, the Wall
    and every end."""
    phases, ends = set(), set()
    for seed in range(200):
        game, _ = _game(seed, knock=seed % 2 == 0)
        replay = meldmind.new_game("gin", seed=seed)
        for move in [None] + game.moves:
            if move is not None:
                replay.play(move)
            for seat in range(2):
                d = replay.observation(seat)
                expected = np.zeros(K.OBS_SIZE, np.int64)
                K.observe(replay._state, seat, expected)
                np.testing.assert_array_equal(gin.observation_array(d), expected)
                phases.add(d["phase"])
                ends.add(d["end"])
    assert phases == set(gin.PHASES[1:]) and ends == set(gin.ENDS)
