"""CardVerse Rami (RULES.md §4): stories for rules that test_cardverse_rules.py checks only in
part, played through the public ``Game`` API.

Positions are dealt with test_cardverse_rules.build and placed in a ``Game`` (``story_game``);
every expected score is a hand value added up by hand in a comment (§4.1: A 1, or 11 with
ace_high; 2-10 face; J Q K 10; melds still in a hand count).
"""
import random
import re

import numpy as np
import pytest

from meldmind import IllegalMove, new_game
from meldmind.games import cardverse as CV
from meldmind.kernels import cardverse as K
from test_cardverse_rules import _value, build, legal, mask


def story_game(hands, stock="", discard="", *, rest="stock", hand_no=1, scores=None, **options):
    """A ``Game`` whose state is ``build(...)``'s deal (same arguments). Its ``to_json`` and
    event log still describe the seed's deal; the stories read the state only through
    ``legal_moves``, ``observation``, ``scores`` and ``is_over``."""
    game = new_game("cardverse", players=len(hands), seed=0, options=options)
    game._state[:] = build(hands, stock, discard, rest=rest, hand_no=hand_no, scores=scores,
                           **options)
    return game


def views(game):
    """Everything a client can see of the game, and the state array behind it."""
    return (game.to_json(), [game.observation(s) for s in range(game.players)],
            game.scores, game.is_over, game._state.tolist())


def refuse(game, move, reason):
    """``move`` raises IllegalMove naming ``reason`` (a kernel R_* code) and changes nothing."""
    before = views(game)
    with pytest.raises(IllegalMove, match=re.escape(CV.REASONS[reason])):
        game.play(move)
    assert views(game) == before


def texts(game, prefix=""):
    return [m.text for m in game.legal_moves() if m.text.startswith(prefix)]


def play(game, *moves):
    for move in moves:
        game.play(move)


# ---------------------------------------------------------------------------------------------
# 1. §4.4 DISCARD "unless it is the last card" with discard_to_win (Decisions 6 and 7)
# ---------------------------------------------------------------------------------------------

def test_discard_to_win_goes_out_by_rediscarding_the_taken_card_when_it_is_the_last():
    """§4.4 DISCARD: "if `no_immediate_rediscard`: card ≠ `takenFromDiscard` unless it is the
    last card"; LAY_MELD / LAY_OFF: "if `discard_to_win`: at least 1 card must remain in hand"
    (Decision 7)."""
    # seat 0: 5H 6H 7H 8H     takes 9H
    # seat 1: KC KD = 20
    game = story_game(["5H 6H 7H 8H", "KC KD"], discard="9H", discard_to_win=True,
                      no_immediate_rediscard=True)
    game.play("take discard")
    refuse(game, "discard 9H", K.R_REDISCARD)                       # 4 other cards remain
    refuse(game, "lay meld 5H 6H 7H 8H 9H", K.R_WOULD_EMPTY)
    game.play("lay meld 5H 6H 7H 8H")
    o = game.observation(0)
    assert (o["hand"], o["taken_this_turn"]) == (["9H"], "9H")
    refuse(game, "lay off 9H on meld 0 (high end)", K.R_WOULD_EMPTY)
    assert texts(game) == ["discard 9H"]
    game.play("discard 9H")
    o = game.observation(1)
    assert o["last_hand"] == {"winner": 0, "end": "out", "hand_values": [0, 20]}
    assert game.scores == [20, 0] and o["hand_number"] == 2 and not game.is_over


# ---------------------------------------------------------------------------------------------
# 2. §4.6.2 max_turns: lowest hand value, ties to the lowest seat index
# ---------------------------------------------------------------------------------------------

def test_max_turns_tie_goes_to_the_lowest_seat_not_the_next_in_turn_order():
    """§4.6.2: "the winner is the player with the lowest hand value; ties → the tied player
    with the lowest seat index. The same resolution applies at `max_turns`." §4.6.3: "the hand
    winner adds the sum of all other players' hand values"."""
    # hand 3 of a 3-player game: seat 2 plays first; each seat draws a 9 and throws it back.
    # seat 0: AC 2D 3H 4S 5C 6D 7H       = 1+2+3+4+5+6+7        = 28
    # seat 1: KC KD QH QS JC JD 10H      = 7 * 10               = 70   ends the 3rd turn
    # seat 2: AD AH 3C 3D 2H 10C 8S      = 1+1+3+3+2+10+8       = 28   next after seat 1
    game = story_game(["AC 2D 3H 4S 5C 6D 7H", "KC KD QH QS JC JD 10H", "AD AH 3C 3D 2H 10C 8S"],
                      stock="9S 9H 9D", discard="4D", hand_no=3, scores=[5, 0, 12],
                      max_turns=3, target_score=500)
    for seat, card in ((2, "9S"), (0, "9H"), (1, "9D")):
        assert game.to_move == seat and game.observation(seat)["hand_number"] == 3
        play(game, "draw stock", f"discard {card}")
    # seat 0 (lowest index among 28/28) collects 70 + 28 = 98
    assert game.observation(2)["last_hand"] == {"winner": 0, "end": "max_turns",
                                                "hand_values": [28, 70, 28]}
    assert game.scores == [5 + 98, 0, 12]
    assert (game.observation(0)["hand_number"], game.to_move, game.is_over) == (4, 0, False)


# ---------------------------------------------------------------------------------------------
# 3. §4.6.2 / Decision 10: an empty-stock tie made by ace_high
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ace_high, values, winner, scores", [
    (True, [40, 40], 0, [40, 0]),     # tie only when the aces count 11: lowest seat wins
    (False, [40, 20], 1, [0, 40]),    # aces 1: seat 1 is lower and wins
])
def test_empty_stock_tie_made_by_ace_high_goes_to_the_lowest_seat(ace_high, values, winner,
                                                                  scores):
    """§4.6.2: "ties → the tied player with the lowest seat index"; Decision 10: "`ace_high`
    changes only hand values"."""
    # hand 2: seat 1 asks the empty stock.
    # seat 0: KC 10D 2H 3S 4C 5D 6H    = 10+10+2+3+4+5+6               = 40
    # seat 1: AC AD 2S 3H 4S 5C 4D     = 11+11+2+3+4+5+4 = 40 (ace_high), 1+1+2+3+4+5+4 = 20
    game = story_game(["KC 10D 2H 3S 4C 5D 6H", "AC AD 2S 3H 4S 5C 4D"], discard="QS",
                      rest="discard", hand_no=2, ace_high=ace_high)
    assert game.to_move == 1 and game.observation(1)["stock_size"] == 0
    assert texts(game) == ["draw stock", "take discard"]
    game.play("draw stock")
    assert game.observation(0)["last_hand"] == {"winner": winner, "end": "empty_stock",
                                                "hand_values": values}
    assert game.scores == scores and game.observation(0)["hand_number"] == 3


# ---------------------------------------------------------------------------------------------
# 4. §4.7: a hand won on hand value reaches the target
# ---------------------------------------------------------------------------------------------

# seat 0: KC QD JH 10S 9C 8D 7H = 10+10+10+10+9+8+7 = 64;  seat 1: 2C 3D 4H 5S 6C = 20
# seat 1 (score 10) wins the hand on value and collects 64: 74
TARGET_HANDS = ["KC QD JH 10S 9C 8D 7H", "2C 3D 4H 5S 6C"]
BLOCKED_ENDS = {
    "empty_stock": (dict(stock=""), ["draw stock"]),
    "max_turns": (dict(stock="9S", max_turns=1), ["draw stock", "discard 9S"]),
}


@pytest.mark.parametrize("end", BLOCKED_ENDS)
def test_a_hand_won_on_value_ends_the_game_at_the_target(end):
    """§4.7: "After a hand, if the winner's score ≥ `target_score`, the game ends and that
    player wins." Here the hand ends on the empty stock or at `max_turns` (§4.6.2)."""
    deal, moves = BLOCKED_ENDS[end]
    game = story_game(TARGET_HANDS, discard="QS", rest="discard", scores=[0, 10],
                      target_score=74, **deal)
    play(game, *moves)
    assert game.is_over and game.scores == [0, 74] and game.returns == [-1.0, 1.0]
    assert game.to_move is None and game.legal_moves() == []
    for seat in (0, 1):
        o = game.observation(seat)
        assert (o["phase"], o["to_move"], o["game_winner"]) == ("game_over", None, 1)
        assert o["last_hand"] == {"winner": 1, "end": end, "hand_values": [64, 20]}
    refuse(game, "draw stock", K.R_GAME_OVER)
    # one point short of the target: a new hand is dealt, started by seat 1
    game = story_game(TARGET_HANDS, discard="QS", rest="discard", scores=[0, 10],
                      target_score=75, **deal)
    play(game, *moves)
    assert not game.is_over and game.scores == [0, 74]
    o = game.observation(1)
    assert (o["game_winner"], o["hand_number"], o["to_move"]) == (None, 2, 1)


# ---------------------------------------------------------------------------------------------
# 5. §4.5.1: a run laid off at both ends up to 2..A
# ---------------------------------------------------------------------------------------------

SPADES = ["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AS"]


def test_a_run_grows_at_both_ends_to_2_through_ace_and_then_takes_nothing():
    """§4.5.1: "consecutive in the order `2 3 4 5 6 7 8 9 10 J Q K A`. The Ace is only high
    ... no wrap after the Ace. Max length 13 (2..A)." §4.5.3: "the resulting meld must remain
    valid"."""
    # seat 0: 2S..QS 2C 3D     draws 7C, lays 6S 7S 8S and grows it to 2S..QS, discards 3D
    # seat 1: KS AS 4C 5H 9D JD QH   draws 8C, lays off KS then AS on seat 0's run
    game = story_game(["2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS 2C 3D", "KS AS 4C 5H 9D JD QH"],
                      stock="7C 8C", discard="10H")
    play(game, "draw stock", "lay meld 6S 7S 8S")
    for low, high in (("5S", "9S"), ("4S", "10S"), ("3S", "JS"), ("2S", "QS")):
        assert set(texts(game, "lay off")) == {f"lay off {low} on meld 0 (low end)",
                                               f"lay off {high} on meld 0 (high end)"}
        play(game, f"lay off {low} on meld 0 (low end)", f"lay off {high} on meld 0 (high end)")
    assert game.observation(1)["table"][0]["cards"] == SPADES[:11]
    play(game, "discard 3D", "draw stock")
    # run 2S..QS: the ace fits neither below 2 (no A-2) nor after Q (K missing)
    assert texts(game, "lay off") == ["lay off KS on meld 0 (high end)"]
    refuse(game, "lay off AS on meld 0 (low end)", K.R_DOES_NOT_FIT)
    refuse(game, "lay off AS on meld 0 (high end)", K.R_DOES_NOT_FIT)
    game.play("lay off KS on meld 0 (high end)")
    # run 2S..KS: the ace goes only after the K
    assert texts(game, "lay off") == ["lay off AS on meld 0 (high end)"]
    refuse(game, "lay off AS on meld 0 (low end)", K.R_DOES_NOT_FIT)
    game.play("lay off AS on meld 0 (high end)")
    assert game.observation(0)["table"] == [{"slot": 0, "kind": "run", "cards": SPADES}]
    # 13 cards, 2..A: nothing more can be laid off on it, at either end
    assert texts(game, "lay") == []
    assert texts(game) == [f"discard {c}" for c in ("4C", "8C", "9D", "JD", "5H", "QH")]
    refuse(game, "lay off 4C on meld 0 (high end)", K.R_DOES_NOT_FIT)
    refuse(game, "lay off 4C on meld 0 (low end)", K.R_DOES_NOT_FIT)


# ---------------------------------------------------------------------------------------------
# 6. §4.4 DRAW with an empty stock (Decision 3)
# ---------------------------------------------------------------------------------------------

def test_an_empty_stock_leaves_both_draws_legal_and_draw_stock_ends_the_hand():
    """§4.4: DRAW_STOCK "always legal ... Stock empty: the hand ends immediately"; TAKE_DISCARD
    "discard non-empty" (Decision 3: "`TAKE_DISCARD` stays legal").

    A draw facing an empty stock *and* an empty discard pile cannot happen: the pile starts
    with the upcard (§4.3.2), TAKE_DISCARD removes one card, and every turn that does not end
    the hand ends with a DISCARD putting one back (§4.4 PLAY), so the pile holds at least one
    card at every draw. This tests the closest reachable case, an empty stock over a non-empty
    pile, reached from a seeded deal by public moves; then checks the pile claim in random play.
    """
    game = new_game("cardverse", seed=31)
    # nobody lays: each turn draws and throws the lowest card, so hands stay at 7 cards
    for turn in range(37):
        assert texts(game) == ["draw stock", "take discard"]
        game.play("draw stock")
        game.play(game.legal_moves()[0])                      # a discard: they come first
    o = game.observation(game.to_move)
    assert (o["turn"], o["stock_size"], len(o["discard_pile"])) == (37, 0, 1 + 37)
    assert texts(game) == ["draw stock", "take discard"]
    # seat 1 takes the top discard and throws another card: the hand goes on
    top = o["discard_pile"][-1]
    game.play("take discard")
    game.play(next(m for m in game.legal_moves() if m.text != f"discard {top}"))
    o = game.observation(0)
    assert (o["hand_number"], o["stock_size"], len(o["discard_pile"])) == (1, 0, 38)
    assert game.to_move == 0
    assert texts(game) == ["draw stock", "take discard"]
    # seat 0 asks the empty stock: the hand ends, lowest hand value wins (Decision 4)
    values = [_value(mask(" ".join(game.observation(s)["hand"])), False) for s in (0, 1)]
    winner = 0 if values[0] <= values[1] else 1
    game.play("draw stock")
    last = game.observation(0)["last_hand"]
    assert last == {"winner": winner, "end": "empty_stock", "hand_values": values}
    assert game.scores[winner] == values[1 - winner] and game.scores[1 - winner] == 0
    assert game.observation(0)["hand_number"] == 2
    # the pile is never empty at a draw, in random play of every player count
    rng = random.Random(4)
    for g in range(24):
        state = K.new_state(CV.make_params({"num_players": 2 + g % 3, "target_score": 60,
                                            "no_immediate_rediscard": g % 2 == 0}), np.int64(g))
        while not K.is_terminal(state):
            if state[K.S_PHASE] == K.PHASE_DRAW:
                assert state[K.S_DISCARD_N] >= 1
            K.apply_action(state, rng.choice(legal(state)))


# ---------------------------------------------------------------------------------------------
# 7. §4.4: no first-turn restriction
# ---------------------------------------------------------------------------------------------

def test_the_first_player_may_take_the_upcard_and_meld_and_lay_off_on_the_first_turn():
    """§4.4: TAKE_DISCARD needs only "discard non-empty"; LAY_MELD and LAY_OFF need no opening
    ("no prior own meld needed"); §4.2: "no 51-point opening rules, no opening threshold"."""
    # seat 0: 5H 6H 8H 9C 9D 9S 2C    takes the upcard 7H: lays 5H 6H 7H, lays off 8H,
    #                                 lays 9C 9D 9S, discards 2C and goes out on turn 0
    # seat 1: KC QD 2S 3S 4S 10H AS = 10+10+2+3+4+10+1 = 40
    game = story_game(["5H 6H 8H 9C 9D 9S 2C", "KC QD 2S 3S 4S 10H AS"], discard="7H")
    o = game.observation(0)
    assert (o["hand_number"], o["turn"], game.to_move) == (1, 0, 0)
    assert texts(game) == ["draw stock", "take discard"]
    game.play("take discard")
    assert "lay meld 5H 6H 7H" in texts(game)
    game.play("lay meld 5H 6H 7H")
    assert texts(game, "lay off") == ["lay off 8H on meld 0 (high end)"]
    play(game, "lay off 8H on meld 0 (high end)", "lay meld 9C 9D 9S")
    assert game.observation(1)["table"] == [
        {"slot": 0, "kind": "run", "cards": ["5H", "6H", "7H", "8H"]},
        {"slot": 1, "kind": "group", "cards": ["9C", "9D", "9S"]}]
    assert game.observation(0)["turn"] == 0
    game.play("discard 2C")
    assert game.observation(1)["last_hand"] == {"winner": 0, "end": "out", "hand_values": [0, 40]}
    assert game.scores == [40, 0]


# ---------------------------------------------------------------------------------------------
# 8. an illegal move changes nothing anyone can see
# ---------------------------------------------------------------------------------------------

def test_illegal_moves_leave_the_game_json_and_every_seats_observation_unchanged():
    """§4.4's preconditions, refused through ``Game.play``: "An illegal move raises
    ``IllegalMove`` naming the reason, and the game is unchanged" (``Game.play``)."""
    game = story_game(["5H 6H 8H 9C 9D 9S 2C", "KC QD 2S 3S 4S 10H AS", "JC JD JH 4D"],
                      discard="7H")
    refuse(game, "discard 2C", K.R_DRAW_FIRST)
    refuse(game, "lay meld 9C 9D 9S", K.R_DRAW_FIRST)
    game.play("take discard")
    refuse(game, "take discard", K.R_ALREADY_DREW)
    refuse(game, "draw stock", K.R_ALREADY_DREW)
    refuse(game, "discard 7H", K.R_REDISCARD)
    refuse(game, "discard KC", K.R_NOT_IN_HAND)                     # seat 1's card
    refuse(game, "lay meld JC JD JH", K.R_MELD_NOT_IN_HAND)         # seat 2's group
    refuse(game, "lay off 8H on meld 0 (high end)", K.R_NO_SUCH_MELD)
    game.play("lay meld 5H 6H 7H")
    refuse(game, "lay off 8H on meld 0 (group)", K.R_WRONG_PLACE)
    refuse(game, "lay off 8H on meld 0 (low end)", K.R_DOES_NOT_FIT)
    refuse(game, "lay off 2C on meld 0 (high end)", K.R_DOES_NOT_FIT)
    before = views(game)
    with pytest.raises(IllegalMove, match="not a valid meld"):
        game.play("lay meld 9C 9D 8H")
    assert views(game) == before
    assert len(game.moves) == 2


# ---------------------------------------------------------------------------------------------
# 9. §4.4 LAY_MELD: a meld that empties the hand goes out, with no discard
# ---------------------------------------------------------------------------------------------

def test_laying_the_last_cards_as_a_meld_goes_out_without_a_discard():
    """§4.4 LAY_MELD: "meld → table; hand empty → HAND_END (actor wins)"; §4.6.1: "the hand
    ends when a player has no card left after a legal move: after `LAY_MELD`/`LAY_OFF` (only
    possible when `discard_to_win` = false)"; §4.6.3: the winner "adds the sum of all other
    players' hand values"."""
    # seat 0: 9C 9D 9H 2S 3S 4S      draws 5S, lays 9C 9D 9H, then 2S 3S 4S 5S: no card left
    # seat 1: KC QD 2C 7H AD = 10+10+2+7+1 = 30
    game = story_game(["9C 9D 9H 2S 3S 4S", "KC QD 2C 7H AD"], stock="5S", discard="8D")
    play(game, "draw stock", "lay meld 9C 9D 9H")
    assert game.observation(0)["hand"] == ["2S", "3S", "4S", "5S"]
    game.play("lay meld 2S 3S 4S 5S")
    o = game.observation(1)
    assert o["last_hand"] == {"winner": 0, "end": "out", "hand_values": [0, 30]}
    assert game.scores == [30, 0] and not game.is_over
    # the hand ended on the lay: no discard followed it, and hand 2 is dealt, seat 1 first
    moves = [e for e in o["events"] if e.startswith("seat 0: ")]
    assert moves[-1] == "seat 0: lay meld 2S 3S 4S 5S"
    assert (o["hand_number"], o["turn"], game.to_move) == (2, 0, 1)
    assert (o["table"], o["hand_sizes"], o["stock_size"]) == ([], [7, 7], 37)


# ---------------------------------------------------------------------------------------------
# 10. §4.8 a card taken from the discard stays known until laid or discarded
# ---------------------------------------------------------------------------------------------

def test_a_taken_card_is_known_until_laid_or_discarded_and_may_go_back_on_a_later_turn():
    """§4.8: "every card taken from the discard (known to remain in that hand until laid or
    discarded)" is seen by all; §4.4: `takenFromDiscard` is a per-turn flag, so DISCARD refuses
    only the card taken this turn (Decision 6), not one taken on an earlier turn."""
    # seat 0: 5H 6H 2C KC 4S JC QD    takes 9D, throws 2C; takes 7H, lays 5H 6H 7H, throws KC;
    #                                 draws 3S and throws 9D, taken two turns before
    # seat 1: AD 3C 8S 10C 2D 4D 6S   draws 7H and throws it; draws 8C and throws it
    game = story_game(["5H 6H 2C KC 4S JC QD", "AD 3C 8S 10C 2D 4D 6S"], stock="7H 8C 3S",
                      discard="9D")
    game.play("take discard")
    refuse(game, "discard 9D", K.R_REDISCARD)
    game.play("discard 2C")
    assert game.observation(1)["taken_from_discard"] == [["9D"], []]
    play(game, "draw stock", "discard 7H", "take discard", "lay meld 5H 6H 7H")
    # 7H went to the table with the run: only 9D is still known in seat 0's hand
    assert game.observation(1)["taken_from_discard"] == [["9D"], []]
    play(game, "discard KC", "draw stock", "discard 8C", "draw stock")
    assert "discard 9D" in texts(game, "discard")         # taken two turns ago: may go back
    game.play("discard 9D")
    o = game.observation(1)
    assert o["taken_from_discard"] == [[], []] and o["discard_pile"][-1] == "9D"
    # the hand's history still says who took which card
    assert o["hand_history"]["taken"] == [["9D", "7H"], []]
