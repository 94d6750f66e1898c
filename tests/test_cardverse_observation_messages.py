"""A hand-written CardVerse observation is read as a server means it or refused with a message
that names the problem: the discard pile out of turn order (naming the position), a card in two
places (naming the card and both places), cards that do not add up to the deck (with the
counts), a table meld in the wrong slot (with the rule), unknown fields at any level. Real
games, random and played by the AI levels, are never refused."""
import itertools
import random

import pytest

import meldmind
from meldmind import MeldmindError, new_game
from meldmind.games import cardverse as CV

from test_cardverse_observation_checks import START, _edit, _find, _refused


def _message(obs):
    with pytest.raises(MeldmindError) as error:
        CV.observation_array(obs)
    return str(error.value)


def _swapped(obs, i, j):
    pile = list(obs["discard_pile"])
    pile[i], pile[j] = pile[j], pile[i]
    return _edit(obs, discard_pile=pile)


def _every_discard_in_order(players, phase):
    """An observation of a first hand with 4+ turns played where no card was taken from the
    discard pile but, in the play phase, the last discard this turn: the pile holds the upcard
    and then every other discard in turn order, seat 0's first, then seat 1's."""
    def fits(o):
        now = o["taken_this_turn"] is not None
        return (len(o["hand_sizes"]) == players and o["hand_number"] == 1 and o["turn"] >= 4
                and o["phase"] == phase and now == (phase == "play")
                and sum(map(len, o["hand_history"]["taken"])) == now)
    return _find(fits)


@pytest.mark.parametrize("players, phase", [(2, "draw"), (3, "draw"), (4, "draw"), (2, "play")])
def test_a_discard_pile_out_of_turn_order_is_refused_naming_the_position(players, phase):
    """Seat 0 starts the hand, so its first discard lies below seat 1's: swapped, seat 1's card
    under seat 0's needs more turns than were played (the integrator's cv3_play.json)."""
    obs = _every_discard_in_order(players, phase)
    discarded = obs["hand_history"]["discarded"]
    assert obs["discard_pile"][1] in discarded[0] and obs["discard_pile"][2] in discarded[1]
    CV.observation_array(obs)
    swapped = _swapped(obs, 1, 2)
    _refused(swapped, "discard_pile[1]", "hand_history.discarded[1]", "turn")
    message = _message(swapped)
    assert f"({obs['discard_pile'][2]}) is out of order" in message
    assert "in the order they were discarded" in message
    assert ("taken_this_turn" in message) == (phase == "play")


@pytest.mark.parametrize("zone", ["discard_pile", "table"])
def test_a_card_in_two_places_is_named_with_both_places(zone):
    obs = _find(lambda o: o["table"] and len(o["discard_pile"]) == 1 and not any(
        o["taken_from_discard"]))
    card = obs["discard_pile"][0] if zone == "discard_pile" else obs["table"][0]["cards"][0]
    hand = [card] + obs["hand"][1:]
    message = _message(_edit(obs, hand=hand))
    assert f"{card} is in both 'hand' and '{zone}'" in message, message


def test_cards_that_do_not_add_up_give_the_counts():
    message = _message(_edit(START, stock_size=36))
    assert ("the cards do not add up: 14 in the hands ('hand_sizes') + 36 in the stock + 1 on "
            "the discard pile + 0 on the table = 51, not 52") in message, message


def test_a_table_meld_in_the_wrong_slot_is_refused_with_the_rule():
    obs = _find(lambda o: len(o["table"]) >= 2)
    table = [dict(meld) for meld in obs["table"]]
    table[1]["slot"] = 5
    message = _message(_edit(obs, table=table))
    assert "'table[1].slot' is 5, but a table meld's slot is its index in 'table'" in message
    assert "in the order they were laid from slot 0" in message and message.endswith("1 here")
    table[1]["slot"] = 1.0      # the number 1, as JSON Schema's integer takes it
    CV.observation_array(_edit(obs, table=table))


@pytest.mark.parametrize("edit", ["slot missing", "extra key"])
def test_a_table_meld_holds_just_slot_kind_and_cards(edit):
    obs = _find(lambda o: len(o["table"]) >= 1)
    table = [dict(meld) for meld in obs["table"]]
    if edit == "slot missing":
        del table[0]["slot"]
    else:
        table[0]["owner"] = 1
    _refused(_edit(obs, table=table), "table[0]")


def test_the_last_hand_holds_just_winner_end_and_hand_values():
    obs = _find(lambda o: o["hand_number"] == 2 and o["last_hand"] is not None)
    _refused(_edit(obs, last_hand={**obs["last_hand"], "scores": [0, 0]}), "last_hand")


@pytest.mark.parametrize("variant", ["cardverse", "gin"])
def test_an_unknown_top_level_field_is_refused_with_the_likely_one(variant):
    """A misspelt 'legal_moves' used to be ignored, and with it the check of the legal moves."""
    game = new_game(variant, seed=3)
    obs = game.observation(game.to_move)
    obs["legalMoves"] = obs.pop("legal_moves")
    with pytest.raises(MeldmindError, match=r"unknown field 'legalMoves' \(did you mean "
                                            r"'legal_moves'\?\)"):
        meldmind.suggest(obs, level="easy", seed=1)


@pytest.mark.parametrize("variant, field, misspelt, meant", [
    ("cardverse", "options", "targetScore", "target_score"),
    ("gin", "parameters", "knockCard", "knock_card")])
def test_a_misspelt_option_of_the_observation_is_refused_with_the_likely_one(variant, field,
                                                                             misspelt, meant):
    """In the observation's objects too (docs/json-protocol.md): the misspelling is named
    before the option it leaves missing, with the name it likely meant."""
    game = new_game(variant, seed=3)
    obs = game.observation(game.to_move)
    obs[field][misspelt] = obs[field].pop(meant)
    with pytest.raises(MeldmindError) as refused:
        meldmind.suggest(obs, level="easy", seed=1)
    assert str(refused.value) == (f"{variant} observation: '{field}': unknown field "
                                  f"'{misspelt}' (did you mean '{meant}'?)")

def test_the_hand_history_names_a_misspelt_or_missing_key():
    """Like the observation's other objects: the misspelling with the likely key, then a missing
    key by name, before the shape of the whole."""
    history = START["hand_history"]
    misspelt = {"discard": history["discarded"], "declined": history["declined"],
                "taken": history["taken"]}
    assert _message(_edit(START, hand_history=misspelt)) == (
        "cardverse observation: 'hand_history': unknown field 'discard' (did you mean "
        "'discarded'?)")
    without_taken = {key: history[key] for key in ("discarded", "declined")}
    assert _message(_edit(START, hand_history=without_taken)).startswith(
        "cardverse observation: 'hand_history.taken' is missing: 'hand_history' must be an "
        "object with 'discarded', 'declined' and 'taken'")
    _refused(_edit(START, hand_history=[]), "hand_history' must be an object")


def test_events_must_be_the_list_of_texts_the_doc_describes():
    assert isinstance(START["events"], list)
    _refused(_edit(START, events="dealt"), "events")
    _refused(_edit(START, events=[1]), "events[0]")
    CV.observation_array({key: value for key, value in START.items() if key != "events"})


def test_integers_may_be_written_as_numbers_without_a_fraction():
    """JSON (and JSON Schema's integer) do not tell 1.0 from 1; neither does "version"."""
    floats = _edit(START, seat=0.0, turn=0.0, hand_sizes=[7.0, 7],
                   options={**START["options"], "num_players": 2.0, "target_score": 100.0})
    assert (CV.observation_array(floats) == CV.observation_array(START)).all()
    _refused(_edit(START, seat=0.5), "seat")
    _refused(_edit(START, options={**START["options"], "target_score": 99.5}), "target_score")
    _refused(_edit(START, seat=False), "seat")


def _ai_games(count, seed):
    """Games of 2-4 players, with and without options, whose moves the beginner, easy and
    normal levels choose; yields each game after every move."""
    rng = random.Random(seed)
    for i, (players, options) in enumerate(itertools.islice(itertools.cycle(itertools.product(
            [2, 3, 4], [None, {"discard_to_win": True, "ace_high": True, "target_score": 40,
                               "no_immediate_rediscard": False, "max_turns": 30}])), count)):
        game = new_game("cardverse", seed=seed + i, players=players, options=options)
        yield game
        while not game.is_over:
            level = rng.choice(["beginner", "easy", "normal"])
            game.play(meldmind.suggest(game.observation(game.to_move), level=level,
                                       seed=rng.randrange(1 << 30)).move)
            yield game


def test_every_observation_of_ai_games_is_accepted():
    """No false refusals where the AI plays: it takes from the discard pile, and each card
    taken leaves a gap in the turns of the cards still on the pile."""
    seen = gaps = 0
    for game in _ai_games(12, 40):
        for seat in range(game.players):
            obs = game.observation(seat)
            CV.observation_array(obs)
            seen += 1
            gaps += any(obs["hand_history"]["taken"]) and len(obs["discard_pile"]) > 2
    assert seen > 2_000 and gaps > 200


def _hand_history_edit(obs, edit):
    history = {key: [list(cards) for cards in lists] for key, lists in obs["hand_history"].items()}
    edit(history)
    return _edit(obs, hand_history=history)


def _laid_take(o):
    """A seat and a card it took from the pile this hand and has laid on the table since."""
    h = o["hand_history"]
    return next(((p, c) for p in range(len(o["hand_sizes"])) for c in h["taken"][p]
                 if c not in o["taken_from_discard"][p] + h["discarded"][p]), None)


def test_a_discard_gone_from_the_pile_but_not_taken_is_refused():
    """A discard leaves the pile only when the next seat takes it at once. Written as passed
    over instead of taken, the card counts still add up, but the history no longer says where
    it went (and the history feeds master's model of that seat's hand)."""
    obs = _find(lambda o: _laid_take(o) is not None and o["taken_this_turn"] is None)
    CV.observation_array(obs)
    p, card = _laid_take(obs)

    def passed_over(history):
        history["taken"][p].remove(card)
        history["declined"][p].append(card)
    assert f"names {card}, which is no longer in 'discard_pile': only seat {p}" \
        in _message(_hand_history_edit(obs, passed_over))


def test_a_taken_card_still_on_the_pile_is_refused():
    """The auditor's case: a card taken and laid is written in 'taken' as the pile's top card,
    which the seat before threw: a card taken leaves the pile."""
    def fits(o):
        laid, h, top = _laid_take(o), o["hand_history"], (o["discard_pile"] or [None])[-1]
        return laid is not None and o["taken_this_turn"] is None \
            and top in h["discarded"][(laid[0] - 1) % len(o["hand_sizes"])] \
            and top not in h["taken"][laid[0]] + h["declined"][laid[0]]

    obs = _find(fits)
    (p, card), top = _laid_take(obs), obs["discard_pile"][-1]

    def rewritten(history):
        history["taken"][p][history["taken"][p].index(card)] = top
    message = _message(_hand_history_edit(obs, rewritten))
    assert f"names {card}, which is no longer in 'discard_pile'" in message \
        or f"'hand_history.taken[{p}]' names {top}, which is in 'discard_pile'" in message
