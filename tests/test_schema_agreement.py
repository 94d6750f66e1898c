"""The shipped observation schemas say what meldmind reads: each document of the table below,
observations of real games and hand edits of them such as an integrator writes, is valid JSON
of its schema exactly when the game's ``observation_array`` reads it.

Decisions the table pins: an integer may be written 1.0 (JSON Schema's integer, and what
"version" always took); cards may be spelt any way RULES.md §7 reads them (4c, TH, ♣4);
`events` is optional but, when sent, the list of texts the protocol describes; no field the
schema does not name, at the top or in a nested object. What a schema cannot say (a possible
game, one card spelt two ways) only the reader checks, so it is not in the table."""
import copy
import json
import random
from functools import cache
from importlib import resources

import jsonschema
import pytest
from referencing import Registry, Resource

import meldmind
from meldmind import MeldmindError, new_game
from meldmind.games import cardverse as CV
from meldmind.games import gin as GIN

from test_cardverse_observation_checks import _find


def _schema(name):
    return json.loads(resources.files("meldmind").joinpath(f"schemas/{name}.json").read_text())


_REGISTRY = Registry().with_resources(
    (s["$id"], Resource.from_contents(s))
    for s in map(_schema, ("move", "observation-gin", "observation-cardverse")))
VALIDATORS = {variant: jsonschema.Draft202012Validator(_schema(f"observation-{variant}"),
                                                       registry=_REGISTRY)
              for variant in ("gin", "cardverse")}
READERS = {"gin": GIN.observation_array, "cardverse": CV.observation_array}


@cache
def _gin(stage):
    """A gin observation, as JSON text (each case edits its own copy): the seat to move at the
    first upcard, the other seat in the middle of a hand, the knocker's opponent laying off,
    or seat 1 once the game is over. Half the moves are the easy level's, so hands get knocked."""
    for seed in range(40):
        game, rng = new_game("gin", seed=seed), random.Random(seed)
        while not game.is_over:
            obs = game.observation(game.to_move)
            if (stage == "start" or stage == "middle" and len(obs["history"]) >= 20
                    or stage == "layoff" and obs["phase"] == "layoff"):
                seat = 1 - game.to_move if stage == "middle" else game.to_move
                return json.dumps(game.observation(seat))
            if rng.random() < 0.5:
                game.play(meldmind.suggest(obs, level="easy", seed=seed).move)
            else:
                game.play(rng.choice(game.legal_moves()))
        if stage == "over":
            return json.dumps(game.observation(1))
    raise AssertionError(f"no gin observation at {stage}")


@cache
def _cardverse(stage):
    """A CardVerse observation, as JSON text: the starting one, a 3-player one with 2+ melds on
    the table, a 4-player one under non-default options, one of the second hand, one of a
    finished game."""
    if stage == "start":
        return json.dumps(new_game("cardverse", seed=3).observation(0))
    default = {"discard_to_win": False, "ace_high": False, "no_immediate_rediscard": True}
    accept = {
        "table": lambda o: len(o["hand_sizes"]) == 3 and len(o["table"]) >= 2
        and any(c.startswith("10") for c in o["hand"] + o["discard_pile"]),
        "options": lambda o: len(o["hand_sizes"]) == 4
        and any(o["options"][name] != value for name, value in default.items()),
        "second hand": lambda o: o["hand_number"] == 2,
    }
    if stage == "over":
        return json.dumps(_find(lambda o: True, over=True))
    return json.dumps(_find(accept[stage]))


def _doc(variant, stage):
    return json.loads((_gin if variant == "gin" else _cardverse)(stage))


SUITS = dict(zip("CDHS", "♣♦♥♠"))
SPELLINGS = {
    "lower case (4c)": str.lower,
    "T for 10 (TH)": lambda card: card.replace("10", "T"),
    "with the suit symbol first (♣4)": lambda card: SUITS[card[-1]] + card[:-1],
    "with the suit symbol last (4♣)": lambda card: card[:-1] + SUITS[card[-1]],
}


def _respelt(spell):
    def edit(doc):
        for key in ("hand", "discard_pile"):
            doc[key] = [spell(card) for card in doc[key]]
    return edit


def _set(path, value):
    """An edit setting the field at ``path`` (keys and indexes) to ``value``."""
    def edit(doc):
        target = doc
        for step in path[:-1]:
            target = target[step]
        target[path[-1]] = value(target[path[-1]]) if callable(value) else value
    return edit


def _delete(path):
    def edit(doc):
        target = doc
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]
    return edit


def _same(doc):
    pass


# name -> (variant, stage of the real observation, edit, read by both?)
CASES = {
    # observations of real games
    **{f"{variant}: real, {stage}": (variant, stage, _same, True)
       for variant, stages in (("gin", ("start", "middle", "layoff", "over")),
                               ("cardverse", ("start", "table", "options", "second hand", "over")))
       for stage in stages},
    # integers written as numbers without a fraction: JSON does not tell them apart
    "gin: seat 1.0": ("gin", "over", _set(["seat"], 1.0), True),
    "gin: hand_sizes [10.0, 11]": ("gin", "middle", _set(["hand_sizes", 0], float), True),
    "gin: version 1.0": ("gin", "start", _set(["version"], 1.0), True),
    "cardverse: seat 0.0": ("cardverse", "start", _set(["seat"], 0.0), True),
    "cardverse: hand_sizes [7.0, 7]": ("cardverse", "start", _set(["hand_sizes", 0], float), True),
    "cardverse: options.num_players 3.0": ("cardverse", "table",
                                           _set(["options", "num_players"], 3.0), True),
    "cardverse: table[1].slot 1.0": ("cardverse", "table", _set(["table", 1, "slot"], 1.0), True),
    "cardverse: version 1.0": ("cardverse", "start", _set(["version"], 1.0), True),
    "cardverse: seat 0.5": ("cardverse", "start", _set(["seat"], 0.5), False),
    "cardverse: seat true": ("cardverse", "start", _set(["seat"], False), False),
    # the reader's limits
    "gin: upcard_draws 51": ("gin", "middle", _set(["upcard_draws"], 51), False),
    "gin: phase deal": ("gin", "start", _set(["phase"], "deal"), False),
    "cardverse: target_score 10**6 + 1": ("cardverse", "start",
                                          _set(["options", "target_score"], 10**6 + 1), False),
    "cardverse: max_turns 10**6 + 1": ("cardverse", "start",
                                       _set(["options", "max_turns"], 10**6 + 1), False),
    "cardverse: scores above 10**12": ("cardverse", "start", _set(["scores", 0], 10**12 + 1),
                                       False),
    "cardverse: hand_number 10**9 + 1": ("cardverse", "start",
                                         _set(["hand_number"], 10**9 + 1), False),
    "cardverse: table[1].slot 5": ("cardverse", "table", _set(["table", 1, "slot"], 5), False),
    "cardverse: table[0].slot missing": ("cardverse", "table", _delete(["table", 0, "slot"]),
                                         False),
    "cardverse: last_hand.end unknown": ("cardverse", "second hand",
                                         _set(["last_hand", "end"], "knock"), False),
    # unknown fields, at the top and nested
    "gin: an extra parameter": ("gin", "start", _set(["parameters", "big_gin_bonus"], 31), False),
    "gin: legalMoves": ("gin", "start", _set(["legalMoves"], []), False),
    "cardverse: an extra option": ("cardverse", "start", _set(["options", "jokers"], False),
                                   False),
    "cardverse: legalMoves": ("cardverse", "start", _set(["legalMoves"], []), False),
    "cardverse: a comment": ("cardverse", "start", _set(["comment"], "hand-written"), False),
    "cardverse: an extra key in a table meld": ("cardverse", "table",
                                                _set(["table", 0, "owner"], 1), False),
    "cardverse: an extra key in last_hand": ("cardverse", "second hand",
                                             _set(["last_hand", "scores"], [0, 0]), False),
    # events: optional, and when sent the list of texts the protocol describes
    "gin: no events": ("gin", "middle", _delete(["events"]), True),
    "cardverse: no events": ("cardverse", "table", _delete(["events"]), True),
    "gin: events a text": ("gin", "middle", _set(["events"], "seat 0 passed"), False),
    "cardverse: events a number": ("cardverse", "start", _set(["events"], 5), False),
    "cardverse: an event that is no text": ("cardverse", "start", _set(["events", 0], 1), False),
    # card spellings RULES.md §7 reads
    **{f"{variant}: cards spelt {name}": (variant, stage, _respelt(spell), True)
       for name, spell in SPELLINGS.items()
       for variant, stage in (("gin", "middle"), ("cardverse", "table"))},
    "cardverse: a card spelt 1H": ("cardverse", "start", _set(["hand", 0], "1H"), False),
}


@pytest.mark.parametrize("name", CASES)
def test_the_schema_and_the_reader_agree(name):
    variant, stage, edit, accepted = CASES[name]
    base = _doc(variant, stage)
    doc = copy.deepcopy(base)
    edit(doc)
    assert edit is _same or json.dumps(doc) != json.dumps(base), "the edit changed nothing"
    schema_errors = [error.message for error in VALIDATORS[variant].iter_errors(doc)]
    try:
        READERS[variant](doc)
        reader_error = None
    except MeldmindError as error:
        reader_error = str(error)
    verdicts = {"schema": not schema_errors, "reader": reader_error is None}
    assert verdicts == {"schema": accepted, "reader": accepted}, (schema_errors, reader_error)


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_the_reader_knows_the_fields_the_schema_names(variant):
    """The top-level fields the reader takes are the schema's properties: those
    ``Game.observation`` writes, with ``legal_moves`` and ``events``."""
    from meldmind.games.fields import schema_fields
    game = new_game(variant, seed=5)
    written = set(game.observation(game.to_move))
    schema = f"observation-{variant}"
    assert schema_fields(schema) == written == set(_schema(schema)["properties"])
