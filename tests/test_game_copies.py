"""A position a researcher copies (for a search, or to send to a worker process), a Move object
played back, and the package's names as help() and dir() list them."""
import copy
import pickle
import pydoc
import random
import re

import pytest

import meldmind
from meldmind import MeldmindError, Move, new_game


def _midgame(variant, seed, moves=12):
    game, rng = new_game(variant, seed=seed), random.Random(seed)
    for _ in range(moves):
        game.play(rng.choice(game.legal_moves()))
    return game


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda g: pickle.loads(pickle.dumps(g))],
                         ids=["deepcopy", "pickle"])
def test_a_copied_game_plays_on_like_the_original_and_apart_from_it(variant, duplicate):
    game = _midgame(variant, seed=5)
    twin = duplicate(game)
    assert twin.to_json() == game.to_json() and twin.history == game.history
    assert [twin.observation(s) for s in range(twin.players)] == \
        [game.observation(s) for s in range(game.players)]
    before = game.to_json()
    rng = random.Random(1)
    while not twin.is_over:
        twin.play(rng.choice(twin.legal_moves()))
    assert game.to_json() == before and not game.is_over     # the original did not move
    rng = random.Random(1)
    while not game.is_over:                                  # and plays the same game
        game.play(rng.choice(game.legal_moves()))
    assert game.to_json() == twin.to_json() and game.returns == twin.returns


def test_a_move_object_whose_text_names_another_move_is_refused():
    game = new_game("gin", seed=4)
    listed = {m.text: m for m in game.legal_moves()}
    before = game.to_json()
    with pytest.raises(MeldmindError, match=r'id 54 is "pass" but its text is "draw upcard"'):
        game.play(Move(listed["pass"].id, "draw upcard"))
    assert game.to_json() == before
    assert game.play(listed["pass"]) == listed["pass"]


def test_a_move_object_kept_from_another_phase_is_refused():
    """A card's id is a discard in one phase and a lay-off in another: a stale Move names the
    phase it came from."""
    game = new_game("gin", seed=7)
    game.play("draw upcard")
    discard = game.legal_moves()[0]
    assert discard.text.startswith("discard ")
    stale = Move(discard.id, "lay off " + discard.text.split()[1])
    with pytest.raises(MeldmindError, match="they name different moves"):
        game.play(stale)


def test_dir_and_help_list_the_lazily_loaded_api():
    names = dir(meldmind)
    assert {"suggest", "arena", "Suggestion", "Alternative", "ArenaResult"} <= set(names)
    assert set(meldmind.__all__) <= set(names)
    text = pydoc.render_doc(meldmind, renderer=pydoc.plaintext)
    # Python 3.13's pydoc writes a long signature one parameter a line
    assert re.search(r"suggest\(\s*observation", text) and re.search(r"arena\(\s*variant", text)


@pytest.mark.parametrize("name", ["players", "to_move", "is_over", "returns", "scores", "moves",
                                  "legal_moves", "observation", "play"])
def test_the_games_public_members_say_what_they_are(name):
    assert (getattr(meldmind.Game, name).__doc__ or "").strip()
