"""Input that names two things at once, numbers of other integer types, and the messages that
JSON clients and command-line users read: each is refused or accepted on purpose, and an error
says what was given in the client's own terms (JSON spellings, the subcommand's usage)."""
import io
import json
import random
import re
import sys

import numpy as np
import pytest

import meldmind
from meldmind import CardError, Game, MeldmindError, OptionError, errors, new_game
from meldmind.cli import main


def _observation(variant="gin", seed=9):
    game = new_game(variant, seed=seed)
    return game.observation(game.to_move)


def _unchanged(game):
    return game.to_json(), game.observation(0), game.observation(1), len(game.history)


# -- 1. a move dict whose id and text disagree ---------------------------------------------------

def _at_discard(seed=7):
    game = new_game("gin", seed=seed)
    game.play("draw upcard")
    return game


@pytest.mark.parametrize("make, by_id, by_text", [
    (lambda: new_game("gin", seed=7), "draw upcard", "pass"),
    (_at_discard, 0, 1),         # two discards of the hand: the first by id, the second by text
])
def test_a_move_dict_whose_id_and_text_disagree_names_both_and_changes_nothing(make, by_id,
                                                                               by_text):
    game = make()
    legal = game.legal_moves()
    pick = {m.text: m for m in legal}.get if isinstance(by_id, str) else legal.__getitem__
    move, other = pick(by_id), pick(by_text)
    before = _unchanged(game)
    with pytest.raises(MeldmindError) as caught:
        game.play({"id": move.id, "text": other.text})
    message = str(caught.value)
    assert f"id {move.id}" in message and f'"{move.text}"' in message
    assert f'"{other.text}"' in message
    assert _unchanged(game) == before


def test_a_move_dict_whose_text_names_a_move_of_another_phase_disagrees_with_its_id():
    game = new_game("gin", seed=7)
    with pytest.raises(MeldmindError, match='id 52 is "draw upcard" but its text is "knock"'):
        game.play({"id": 52, "text": "knock"})


def test_a_move_dict_whose_id_and_text_agree_is_played():
    game = new_game("gin", seed=7)
    assert game.play({"id": 52, "text": "Draw  UPCARD"}).text == "draw upcard"
    discard = game.legal_moves()[-1]
    assert game.play({"id": discard.id, "text": discard.text.lower()}) == discard


def test_a_move_text_is_not_read_through_a_non_ascii_letter_that_folds_to_ascii():
    game = _at_discard()
    before = _unchanged(game)
    with pytest.raises(MeldmindError, match="unknown move"):
        game.play("\u212aNOCK")      # the Kelvin sign: lower-cased it would be k
    assert _unchanged(game) == before


@pytest.mark.parametrize("variant, text", [
    ("gin", "draw stock now"), ("gin", "pass please"), ("gin", "knock 9C"),
    ("cardverse", "draw stock now"), ("cardverse", "take discard 7C")])
def test_words_after_a_move_that_names_no_card_make_an_unknown_move(variant, text):
    """Not a malformed card: 'now' was never meant as one."""
    game = new_game(variant, seed=3)
    before = game.to_json()
    with pytest.raises(MeldmindError, match=f'unknown move "{text}"'):
        game.play(text)
    assert game.to_json() == before


@pytest.mark.parametrize("variant, text, forms", [
    ("gin", "take discard", "draw upcard, draw stock, pass, knock, discard <card>, "
                            "lay meld <cards>, lay off <card>"),
    ("cardverse", "draw upcard", "draw stock, take discard, discard <card>, lay meld <cards>, "
                                 "lay off <card> on meld <n> (low end | high end | group)")])
def test_an_unknown_move_text_lists_the_games_move_forms(variant, text, forms):
    """The two games name their draws differently: a player who types the other game's words
    learns this game's."""
    game = new_game(variant, seed=4)
    before = game.to_json()
    with pytest.raises(MeldmindError) as refused:
        game.play(text)
    assert str(refused.value) == f'unknown move "{text}" for {variant}; its moves: {forms}'
    assert game.to_json() == before


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_the_listed_move_forms_are_the_games_verbs_with_their_cards_and_places(variant):
    from meldmind.game import _move_forms, game_module
    verbs, most_cards, place_words = _move_forms(variant)
    listed = {}
    for form in game_module(variant).MOVE_FORMS.split(", "):
        verb, _, rest = form.partition(" <")
        listed[verb] = "<" + rest if rest else ""
    assert set(listed) == {" ".join(verb) for verb in verbs}
    for verb, rest in listed.items():
        names = 0 if not rest else 1 if rest.startswith("<card>") else 2
        assert names == min(most_cards[verb], 2), verb
        assert (" on " in rest) == (verb == "lay off" and bool(place_words)), verb

@pytest.mark.parametrize("variant", ["gin", "cardverse"])
def test_every_legal_move_in_its_full_json_form_is_played(variant):
    """Whole games of moves given as Game.observation lists them (id, text, type and the
    move's cards, meld, kind, slot or end): every field agrees with the id, in every phase."""
    for seed in range(4):
        game, twin = new_game(variant, seed=seed), new_game(variant, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            full = rng.choice(game.observation(game.to_move)["legal_moves"])
            assert game.play(full) == twin.play(full["id"])


def test_a_move_dict_whose_other_fields_describe_another_move_is_refused_and_changes_nothing():
    game = _at_discard()
    discard, other = game.legal_moves()[:2]
    card, other_card = discard.text.split()[1], other.text.split()[1]
    before = _unchanged(game)
    for move, message in [
            ({"id": discard.id, "card": other_card}, f"has 'card' \"{card}\", not \"{other_card}\""),
            ({"text": discard.text, "type": "knock"}, "has 'type' \"discard\", not \"knock\""),
            ({"id": discard.id, "cards": ["AS", "2S", "3S"]}, "has no 'cards'"),
            ({"id": discard.id, "Card": "AS"}, "unknown field 'Card' (did you mean 'card'?)")]:
        with pytest.raises(MeldmindError, match=re.escape(message)):
            game.play(move)
        assert _unchanged(game) == before


# -- 2. players and options["num_players"] -------------------------------------------------------

@pytest.mark.parametrize("players, num_players", [(3, 2), (2, 4)])
def test_players_and_num_players_that_differ_are_an_option_error(players, num_players):
    with pytest.raises(OptionError, match=f"players={players} but options "
                                          f"num_players={num_players}"):
        new_game("cardverse", seed=1, players=players, options={"num_players": num_players})


def test_players_and_num_players_alone_or_agreeing_set_the_seats():
    assert new_game("cardverse", seed=1, players=3, options={"num_players": 3}).players == 3
    assert new_game("cardverse", seed=1, options={"num_players": 4}).players == 4
    assert new_game("cardverse", seed=1, players=4).players == 4
    assert new_game("cardverse", seed=1).players == 2
    assert new_game("gin", seed=1, players=2).players == 2
    with pytest.raises(OptionError, match="gin is a two-player game"):
        new_game("gin", seed=1, players=3)


# -- 3. numpy integers ---------------------------------------------------------------------------

def test_numpy_integers_are_accepted_and_stored_as_python_ints():
    game = new_game("cardverse", seed=np.int64(3), players=np.int64(3),
                    options={"target_score": np.int32(50)})
    assert type(game.seed) is int and type(game.options["target_score"]) is int
    assert type(game.options["num_players"]) is int
    assert json.loads(game.to_json())["seed"] == 3
    assert game.observation(np.int64(1))["seat"] == 1
    assert meldmind.analyze_hand("rami", "AS", options={"num_players": np.uint8(3)}) \
        == meldmind.analyze_hand("rami", "AS", options={"num_players": 3})
    hint = meldmind.suggest(_observation(), level="expert", iterations=np.int64(8),
                            seed=np.int64(1))
    assert hint.iterations == 8 and json.loads(json.dumps(hint.to_json()))["iterations"] == 8
    numpy_fields = {**_observation(), "seat": np.int64(0), "stock_size":
                    np.int32(_observation()["stock_size"])}
    assert meldmind.suggest(numpy_fields, level="expert", iterations=8, seed=1) == hint
    move_id = np.int64(hint.move.id)
    assert meldmind.games.gin.action_text(move_id) == hint.move.text
    timed = meldmind.suggest(_observation(), level="expert", budget_ms=np.int64(5),
                             iterations=np.int64(20), seed=1)
    assert timed.iterations <= 20
    result = meldmind.arena("gin", "easy", "beginner", deals=np.int64(2), processes=np.int64(1),
                            seed=np.int64(1), iterations=np.int64(4), progress=False)
    assert result.games == 4 and type(result.seed) is int
    assert json.loads(json.dumps(result.to_json()))["deals"] == 2


def test_a_numpy_bool_is_a_bool_option_stored_as_python_bool():
    game = new_game("cardverse", seed=3, options={"ace_high": np.bool_(True),
                                                  "discard_to_win": np.False_})
    assert game.options["ace_high"] is True and game.options["discard_to_win"] is False
    assert json.loads(game.to_json())["options"]["ace_high"] is True
    assert game.to_json() == new_game("cardverse", seed=3, options={"ace_high": True}).to_json()


BOOLEANS_AS_INTEGERS = {
    "seed": lambda: new_game("gin", seed=True),
    "players": lambda: new_game("cardverse", seed=1, players=True),
    "an option": lambda: new_game("cardverse", seed=1, options={"target_score": np.True_}),
    "seat": lambda: new_game("gin", seed=1).observation(True),
    "iterations": lambda: meldmind.suggest(_observation(), level="expert", iterations=True),
    "deals": lambda: meldmind.arena("gin", "easy", "easy", deals=True, progress=False),
    "processes": lambda: meldmind.arena("gin", "easy", "easy", deals=1, processes=True,
                                        progress=False),
}


@pytest.mark.parametrize("entry", BOOLEANS_AS_INTEGERS)
def test_booleans_are_still_no_integers(entry):
    with pytest.raises(MeldmindError, match="not (true|np.True_)"):
        BOOLEANS_AS_INTEGERS[entry]()


def test_json_integers_written_with_a_fraction_of_zero_are_integers():
    """JSON, and JSON Schema's "integer" (move.json, game.json), take 52.0 for 52."""
    game, twin = new_game("gin", seed=7), new_game("gin", seed=7)
    assert game.play({"id": 52.0}) == twin.play(52)
    record = json.loads(game.to_json())
    record.update(seed=7.0, moves=[float(m) for m in record["moves"]])
    assert Game.from_json(json.dumps(record)).to_json() == game.to_json()
    before = _unchanged(game)
    with pytest.raises(MeldmindError, match=r"'id' is an action id, not 3\.5"):
        game.play({"id": 3.5})
    assert _unchanged(game) == before


# -- 4. format_card ------------------------------------------------------------------------------

@pytest.mark.parametrize("card", ["AS", True, 2.0, None, [1]])
def test_a_card_id_that_is_not_an_integer_is_a_card_error(card):
    message = f"a card id is an integer, not {errors.shown(card)}"
    with pytest.raises(CardError, match=re.escape(message)):
        meldmind.format_card("gin", card)


def test_format_card_takes_integer_ids_within_the_deck():
    assert meldmind.format_card("gin", np.int64(3)) == "4C"
    assert meldmind.format_card("rami", 52) == "JK1"
    with pytest.raises(CardError, match="card id 52 does not exist in gin"):
        meldmind.format_card("gin", 52)


# -- 5. values and types in JSON terms -----------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (None, "null"), (True, "true"), ([1, "8D"], '[1, "8D"]'), ({"0": ["8D"]}, '{"0": ["8D"]}'),
    ("gin", '"gin"'), (2.5, "2.5"),
    # not JSON data: Python's spelling
    ((1, 2), "(1, 2)"), ({1: 2}, "{1: 2}"), (float("nan"), "nan"), (np.int64(3), repr(np.int64(3))),
])
def test_shown_writes_json_data_as_json(value, text):
    assert errors.shown(value) == text


@pytest.mark.parametrize("value, name", [
    (None, "null"), ([], "array"), ((), "array"), ({}, "object"), ("x", "string"), (1, "number"),
    (1.5, "number"), (np.int64(1), "number"), (False, "boolean"), (b"x", "bytes"),
])
def test_json_type_names_json_types(value, name):
    assert errors.json_type(value) == name


@pytest.mark.parametrize("call, message", [
    (lambda: meldmind.suggest({**_observation(), "seat": True}, level="easy"), "not true"),
    (lambda: meldmind.suggest({**_observation(), "hand": {"0": ["8D"]}}, level="easy"),
     'not {"0": ["8D"]}'),
    (lambda: meldmind.suggest({**_observation(), "hand": [None]}, level="easy"),
     "a card must be a string, not null"),
    (lambda: Game.from_json({"format": "meldmind.game", "version": 1, "variant": "gin",
                             "options": {}, "seed": 1, "moves": [None]}),
     "must be an action id, not null"),
    (lambda: Game.from_json({"format": "meldmind.game", "version": 1, "variant": "gin",
                             "options": {}, "seed": None, "moves": []}),
     "game JSON field 'seed' must be an integer, not null"),
    (lambda: Game.from_json(json.dumps({"format": "meldmind.game", "version": True})),
     "unsupported game version true"),
    (lambda: new_game("gin", seed=1).play({"text": None}), "'text' is a string, not null"),
    (lambda: new_game("gin", seed=1).play({"type": "pass"}), 'an object with an \'id\' or a '
                                                              '\'text\', not {"type": "pass"}'),
    (lambda: new_game("gin", options=[1]), "must be a mapping (a JSON object), not array"),
    (lambda: new_game([None]), 'no game engine for [null]'),
])
def test_messages_show_json_values_as_json(call, message):
    with pytest.raises(MeldmindError, match=re.escape(message)):
        call()


def _run_hint(monkeypatch, capsys, data, *flags):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code = main(["hint", "--level", "easy", "--seed", "1", *flags])
    return code, capsys.readouterr()


def test_hint_lines_answers_errors_in_json_terms(monkeypatch, capsys):
    lines = [{**_observation(), "seat": True}, {**_observation(), "hand": {"0": ["8D"]}}]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    code, out = _run_hint(monkeypatch, capsys, data, "--lines")
    assert code == 0
    seat, hand = (json.loads(line)["error"] for line in out.out.splitlines())
    assert seat.endswith("not true") and hand.endswith('not {"0": ["8D"]}')
    code, out = _run_hint(monkeypatch, capsys, b"{}\n[]\nnull\n", "--lines")
    assert [json.loads(line)["error"] for line in out.out.splitlines()] == [
        "observation: missing field 'variant' (gin, cardverse)",
        "an observation is a JSON object, not array",
        "an observation is a JSON object, not null"]


# -- 6. hint without an observation, or not in UTF-8 ---------------------------------------------

@pytest.mark.parametrize("data", [b"", b" \n"])
def test_hint_on_empty_input_says_no_observation_was_given(monkeypatch, capsys, data):
    code, out = _run_hint(monkeypatch, capsys, data)
    assert code == 3 and "no observation JSON given" in out.err
    with pytest.raises(MeldmindError, match="no observation JSON given"):
        meldmind.suggest("", level="easy")


def test_hint_on_utf16_input_says_it_is_not_utf8(monkeypatch, capsys):
    utf16 = json.dumps(_observation()).encode("utf-16")     # opens with the BOM \xff\xfe
    assert utf16.startswith(b"\xff\xfe")
    code, out = _run_hint(monkeypatch, capsys, utf16)
    assert code == 3 and "not UTF-8 JSON" in out.err and "codec" not in out.err
    code, out = _run_hint(monkeypatch, capsys, utf16 + b"\n", "--lines")
    error = json.loads(out.out.splitlines()[0])["error"]
    assert code == 0 and "not UTF-8 JSON" in error and "codec" not in error


def test_json_with_a_utf8_bom_is_read_as_bytes_and_as_text():
    text = "\ufeff" + json.dumps(_observation())       # a file read as "utf-8", not "utf-8-sig"
    expected = meldmind.suggest(_observation(), level="easy", seed=1).move
    assert meldmind.suggest(text.encode(), level="easy", seed=1).move == expected
    assert meldmind.suggest(text, level="easy", seed=1).move == expected


@pytest.mark.parametrize("variant", ["GIN", None, 3, ["gin"]])
def test_an_observations_unknown_variant_is_an_option_error_naming_the_field(variant):
    message = (f"observation field 'variant': no game engine for {errors.shown(variant)}; "
               "playable: gin, cardverse")
    with pytest.raises(OptionError, match=re.escape(message)):
        meldmind.suggest({**_observation(), "variant": variant}, level="easy")


# -- 7. the OpenSpiel bot ------------------------------------------------------------------------

def test_openspiel_bot_on_another_game_names_it():
    pyspiel = pytest.importorskip("pyspiel")
    from meldmind.integrations.openspiel import MeldmindBot
    state = pyspiel.load_game("kuhn_poker").new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    with pytest.raises(OptionError, match="plays only OpenSpiel's gin_rummy, not kuhn_poker"):
        MeldmindBot(state.current_player(), level="easy").step(state)


def test_openspiel_bot_without_open_spiel_says_how_to_install_it(monkeypatch):
    from meldmind.integrations import openspiel
    monkeypatch.setitem(sys.modules, "pyspiel", None)     # import pyspiel fails
    openspiel._bot_class.cache_clear()
    try:
        with pytest.raises(ImportError, match="pip install open_spiel"):
            from meldmind.integrations.openspiel import MeldmindBot  # noqa: F401
    finally:
        openspiel._bot_class.cache_clear()    # later tests build the bot class with pyspiel


# -- 8. the analyze command ----------------------------------------------------------------------

def test_analyze_prints_canonical_cards_and_a_readable_empty_deadwood(capsys):
    assert main(["analyze", "gin", "as", "2s", "3s"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["gin", "AS", "2S", "3S"]
    assert "deadwood: none" in out and "deadwood -" not in out
    assert main(["analyze", "kirolo", "fi5 fi6 fi7"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["kirolo", "FI05a", "FI06a", "FI07a"]


def test_an_analyze_error_shows_the_analyze_usage(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["analyze", "gin", "--samples", "AS"])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.startswith("usage: meldmind analyze") and "unrecognized arguments: AS" in err


# -- a lone surrogate in the input (JSON may spell one) ----------------------------------------

@pytest.mark.parametrize("make_error", [
    lambda: meldmind.suggest('{"variant": "\\ud800"}'),
    lambda: new_game("gin", options={"\ud800": 1}),
    lambda: meldmind.analyze_hand("gin", "AS \ud800"),
    lambda: new_game("gin", seed=1).play("discard \udcff"),
])
def test_an_error_that_quotes_a_lone_surrogate_can_be_written_as_utf8(make_error):
    with pytest.raises(MeldmindError) as caught:
        make_error()
    message = str(caught.value)
    # a log or an HTTP body takes it; the surrogate reads as JSON escapes it
    assert re.search(r"\\ud800|\\udcff", message.encode("utf-8").decode("utf-8")), message


# -- a numpy array inside a caller's mapping (found by a fuzzer) -------------------------------

def _observation_with(variant, field, value):
    observation = _observation(variant)
    observation[field] = value
    return observation


@pytest.mark.parametrize("make_error, message", [
    (lambda: new_game("cardverse", players=3, options={"num_players": np.array([3, 3])}),
     "options['num_players']: a numpy array"),
    (lambda: Game.from_json({"format": "meldmind.game", "version": np.array([1, 2])}),
     "game record['version']: a numpy array"),
    (lambda: meldmind.suggest(_observation_with("gin", "phase", np.array(["draw", "discard"]))),
     "observation['phase']: a numpy array"),
    (lambda: meldmind.suggest(_observation_with(
        "cardverse", "table", [{"slot": 0, "kind": np.array([1, 2]), "cards": ["AS", "2S", "3S"]}])),
     "observation['table'][0]['kind']: a numpy array"),
])
def test_a_numpy_array_in_a_mapping_is_named_not_compared(make_error, message):
    """numpy's "truth value of an array ... is ambiguous" came out of the field checks, which
    compare values, naming no field."""
    with pytest.raises(MeldmindError, match=re.escape(message)):
        make_error()


def test_numpy_players_beside_a_list_of_num_players_is_an_option_error():
    with pytest.raises(OptionError, match=re.escape("players=3 but options num_players=[3, 3]")):
        new_game("cardverse", players=np.int64(3), options={"num_players": [3, 3]})
    assert new_game("cardverse", players=np.int64(3)).players == 3
