"""CardVerse Rami (RULES.md §4): one story per rule, option and Decision, then random-play
invariants, determinism and information hygiene.

Stories build a deal directly (``build``), play moves by their text, and end in exact scores.
Hand values (§4.1): A 1 (11 with ace_high), 2-10 face, J Q K 10 -- melds still in a hand count.
Decision 11 of §4.10 is an AI rule (the Easy level), not an engine rule, so it is not here.
"""
import random

import numpy as np
import pytest
from numba import njit

from meldmind import IllegalMove, MeldmindError, new_game, suggest
from meldmind.cards import parse_cards
from meldmind.games import cardverse as CV
from meldmind.kernels import cardverse as K
from meldmind.kernels import handalg
from meldmind.kernels.rng import below, seed_slot
from test_bits import printed_without_jit

TEXT_TO_ID = {CV.action_text(a): a for a in range(K.NUM_ACTIONS)}


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------

def ids(text):
    return parse_cards("cardverse", text)


def mask(text):
    return sum(1 << c for c in ids(text))


def build(hands, stock="", discard="", *, rest="stock", hand_no=1, scores=None, seed=0, **options):
    """A state at the start of hand ``hand_no``. ``stock`` is listed top first; ``discard``
    bottom to top. The cards named nowhere go under the stock (``rest="stock"``) or under the
    discard pile (``rest="discard"``)."""
    options["num_players"] = len(hands)
    params = CV.make_params(options)
    stock_ids, discard_ids = ids(stock), ids(discard)
    named = set(stock_ids) | set(discard_ids) | {c for h in hands for c in ids(h)}
    others = [c for c in range(52) if c not in named]
    if rest == "stock":
        stock_ids += others
    else:
        discard_ids = others + discard_ids
    return K.state_from_deal(params, np.array([mask(h) for h in hands], dtype=np.int64),
                             np.array(discard_ids, dtype=np.int64),
                             np.array(stock_ids, dtype=np.int64), np.int64(seed),
                             np.int64(hand_no), np.array(scores or [0] * len(hands), dtype=np.int64))


def legal(state):
    buf = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    return buf[:K.legal_actions(state, buf)].tolist()


def legal_texts(state):
    return [CV.action_text(a) for a in legal(state)]


def why(state, text):
    return K.illegal_reason(state, TEXT_TO_ID[text])


def play(state, *moves):
    """Play legal moves by text; return what the last one revealed to its actor."""
    revealed = -1
    for move in moves:
        action = TEXT_TO_ID[move]
        code = K.illegal_reason(state, action)
        assert code == 0, f"{move}: {CV.REASONS[code]}"
        assert action in legal(state), move
        revealed = K.apply_action(state, action)
    return revealed


def scores(state):
    return CV.scores(state)


def obs_of(state, seat):
    out = np.zeros(K.OBS_SIZE, dtype=np.int64)
    K.observe(state, seat, out)
    return out


# ---------------------------------------------------------------------------------------------
# Layout pinned
# ---------------------------------------------------------------------------------------------

def test_action_id_layout_is_pinned():
    assert (K.NUM_ACTIONS, K.NUM_MELDS, K.MAX_TABLE) == (3035, 329, 17)
    assert (K.DRAW_STOCK, K.TAKE_DISCARD, K.A_DISCARD, K.A_MELD, K.A_LAYOFF) == (0, 1, 2, 54, 383)
    first_last = {
        0: "draw stock", 1: "take discard",
        2: "discard AC", 53: "discard KS",                          # DISCARD c: 2 + c
        54: "lay meld AD AH AS",                                    # groups: rank * 5 + missing suit
        58: "lay meld AC AD AH AS",                                 #         rank * 5 + 4: all four
        118: "lay meld KC KD KH KS",                                # last group (meld 64)
        119: "lay meld 2C 3C 4C",                                   # first run (meld 65)
        129: "lay meld 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",    # the whole suit, 2..A
        184: "lay meld QC KC AC",                                   # last club run
        185: "lay meld 2D 3D 4D",
        382: "lay meld QS KS AS",                                   # last meld (328)
        383: "lay off AC on meld 0 (low end)",                      # (t * 52 + c) * 3 + end
        384: "lay off AC on meld 0 (high end)",
        385: "lay off AC on meld 0 (group)",
        383 + 52 * 3: "lay off AC on meld 1 (low end)",
        3034: "lay off KS on meld 16 (group)",                      # last id
    }
    assert {a: CV.action_text(a) for a in first_last} == first_last
    assert len(TEXT_TO_ID) == K.NUM_ACTIONS                         # every text names one id
    assert list(K.RUN_START) == [0, 11, 21, 30, 38, 45, 51, 56, 60, 63, 65]
    assert CV.action_json(384) == {"id": 384, "type": "lay_off", "text": "lay off AC on meld 0 (high end)",
                                   "card": "AC", "slot": 0, "end": "high"}
    assert CV.action_json(382) == {"id": 382, "type": "lay_meld", "text": "lay meld QS KS AS",
                                   "meld": 328, "kind": "run", "cards": ["QS", "KS", "AS"]}
    assert CV.action_json(10)["card"] == "9C" and CV.action_json(0)["type"] == "draw_stock"
    with pytest.raises(MeldmindError):
        CV.action_text(K.NUM_ACTIONS)


def test_state_and_observation_layout_is_pinned():
    assert K.STATE_SIZE == 188 and K.OBS_SIZE == 133 and K.PARAMS_SIZE == 6
    state_offsets = dict(S_NUM_PLAYERS=0, S_PHASE=6, S_CURRENT=7, S_TURN=8, S_HAND_NO=9, S_TAKEN=10,
                         S_GAME_WINNER=11, S_LAST_WINNER=12, S_LAST_END=13, S_LAST_VALUES=14,
                         S_STOCK_N=18, S_DISCARD_N=19, S_TABLE_N=20, S_HAND_N=21, S_KNOWN=25,
                         S_SCORES=29, S_DISCARD=33, S_TABLE_MASK=85, S_TABLE_KIND=102,
                         S_DISCARDED=119, S_DECLINED=123, S_PICKED=127, S_HAND=131, S_STOCK=135,
                         S_RNG=187)
    assert {k: getattr(K, k) for k in state_offsets} == state_offsets
    obs_offsets = dict(O_SEAT=0, O_HAND=1, O_PARAMS=2, O_PHASE=8, O_CURRENT=9, O_TURN=10,
                       O_HAND_NO=11, O_TAKEN=12, O_GAME_WINNER=13, O_LAST_WINNER=14, O_LAST_END=15,
                       O_LAST_VALUES=16, O_STOCK_N=20, O_DISCARD_N=21, O_TABLE_N=22, O_HAND_N=23,
                       O_KNOWN=27, O_SCORES=31, O_DISCARD=35, O_TABLE_MASK=87, O_TABLE_KIND=104,
                       O_DISCARDED=121, O_DECLINED=125, O_PICKED=129)
    assert {k: getattr(K, k) for k in obs_offsets} == obs_offsets
    assert K.O_PICKED + K.MAX_PLAYERS == K.OBS_SIZE and K.S_RNG + 1 == K.STATE_SIZE
    assert len(CV.REASONS) == K.NUM_REASONS == 13
    assert list(CV.make_params({})) == list(K.DEFAULT_PARAMS) == [2, 0, 0, 100, 1, 300]


def test_meld_catalog_is_every_cardverse_meld_of_the_hand_algebra():
    # Decisions 1-2: groups of 3-4 distinct suits, runs 2..A (ace high only), nothing else.
    rows = handalg.melds_in_hand(K.VARIANT_ID, (1 << 52) - 1, 0, 0)
    algebra = sorted((int(r["mask"]), int(r["kind"])) for r in rows)
    assert algebra == sorted(zip(K.MELD_MASK.tolist(), K.MELD_KIND.tolist()))
    assert K.MELD_KIND.tolist() == [K.KIND_GROUP] * 65 + [K.KIND_RUN] * 264


def test_options_and_checks():
    assert {name: spec[1] for name, spec in CV.OPTIONS.items()} == {
        "num_players": 2, "discard_to_win": False, "ace_high": False, "target_score": 100,
        "no_immediate_rediscard": True, "max_turns": 300}
    assert CV.OPTIONS["num_players"][2].__doc__ == "an integer from 2 to 4"
    assert CV.OPTIONS["ace_high"][2].__doc__ == "true or false"
    assert all(spec[2].__doc__ for spec in CV.OPTIONS.values())
    assert list(CV.make_params({"num_players": 4, "discard_to_win": True, "ace_high": True,
                                "target_score": 250, "no_immediate_rediscard": False,
                                "max_turns": 40})) == [4, 1, 1, 250, 0, 40]
    for bad in ({"num_players": 5}, {"num_players": 1}, {"ace_high": 1}, {"target_score": 0},
                {"max_turns": 0}, {"jokers": 2}):
        with pytest.raises(MeldmindError):
            CV.make_params(bad)


# ---------------------------------------------------------------------------------------------
# §4.3 set-up: deal sizes by player count, first player, E1
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("players, size, stock", [(2, 7, 37), (3, 10, 21), (4, 10, 11)])
def test_deal_sizes_by_player_count(players, size, stock):
    state = K.new_state(CV.make_params({"num_players": players}), np.int64(11))
    assert state[K.S_HAND_N:K.S_HAND_N + players].tolist() == [size] * players
    assert [bin(int(m)).count("1") for m in state[K.S_HAND:K.S_HAND + players]] == [size] * players
    assert (state[K.S_STOCK_N], state[K.S_DISCARD_N], state[K.S_TABLE_N]) == (stock, 1, 0)
    assert K.current_player(state) == 0 and state[K.S_PHASE] == K.PHASE_DRAW
    assert K.hand_number(state) == 1 and scores(state) == [0] * players
    assert legal_texts(state) == ["draw stock", "take discard"]


def test_same_seed_same_deal_and_different_seeds_differ():
    params = CV.make_params({"num_players": 3})
    a, b = K.new_state(params, np.int64(5)), K.new_state(params, np.int64(5))
    assert np.array_equal(a, b)
    deals = {tuple(K.new_state(params, np.int64(s))[K.S_HAND:K.S_HAND + 3]) for s in range(50)}
    assert len(deals) == 50


# ---------------------------------------------------------------------------------------------
# §4.4 / §4.6 going out
# ---------------------------------------------------------------------------------------------

# seat 0: 5H 6H 7H 9C 9D 9S 9H             draws 8H
# seat 1: KC QD 2S 3S 4S 10H AS = 10+10+2+3+4+10+1 = 40 (2S 3S 4S is a meld, it still counts)
# upcard 2D
STORY_A = dict(hands=["5H 6H 7H 9C 9D 9S 9H", "KC QD 2S 3S 4S 10H AS"], stock="8H", discard="2D")


def test_going_out_by_a_lay_off_scores_the_other_hands():
    state = build(**STORY_A)
    assert play(state, "draw stock") == ids("8H")[0]          # the draw is the actor's secret
    assert legal_texts(state) == [
        "discard 9C", "discard 9D", "discard 5H", "discard 6H", "discard 7H", "discard 8H",
        "discard 9H", "discard 9S",
        "lay meld 9D 9H 9S", "lay meld 9C 9H 9S", "lay meld 9C 9D 9S", "lay meld 9C 9D 9H",
        "lay meld 9C 9D 9H 9S",
        "lay meld 5H 6H 7H", "lay meld 5H 6H 7H 8H", "lay meld 5H 6H 7H 8H 9H",
        "lay meld 6H 7H 8H", "lay meld 6H 7H 8H 9H", "lay meld 7H 8H 9H"]
    play(state, "lay meld 5H 6H 7H", "lay meld 9C 9D 9S", "lay off 8H on meld 0 (high end)")
    # table: [0] 5H 6H 7H 8H   [1] 9C 9D 9S        seat 0 holds 9H, which fits both
    assert legal_texts(state) == ["discard 9H", "lay off 9H on meld 0 (high end)",
                                  "lay off 9H on meld 1 (group)"]
    play(state, "lay off 9H on meld 1 (group)")               # empty hand: seat 0 wins the hand
    assert state[K.S_LAST_WINNER] == 0 and state[K.S_LAST_END] == K.END_OUT
    assert state[K.S_LAST_VALUES:K.S_LAST_VALUES + 2].tolist() == [0, 40]
    assert scores(state) == [40, 0]
    # the next hand is dealt at once; seat 1 starts it (Decision 9)
    assert (K.hand_number(state), K.current_player(state), K.is_terminal(state)) == (2, 1, False)
    assert state[K.S_HAND_N:K.S_HAND_N + 2].tolist() == [7, 7] and state[K.S_TABLE_N] == 0


def test_ace_high_counts_aces_11_in_hand_values():
    # Story A with ace_high: seat 1 = 40 - 1 + 11 = 50
    state = build(**STORY_A, ace_high=True)
    play(state, "draw stock", "lay meld 5H 6H 7H", "lay meld 9C 9D 9S",
         "lay off 8H on meld 0 (high end)", "lay off 9H on meld 0 (high end)")
    assert scores(state) == [50, 0]
    assert state[K.S_LAST_VALUES:K.S_LAST_VALUES + 2].tolist() == [0, 50]


def test_discard_to_win_makes_emptying_lays_illegal_and_the_last_discard_wins():
    # Decision 7. Story A with discard_to_win.
    state = build(**STORY_A, discard_to_win=True)
    play(state, "draw stock", "lay meld 5H 6H 7H 8H")
    # seat 0: 9C 9D 9H 9S -- the four-card group would empty the hand
    assert why(state, "lay meld 9C 9D 9H 9S") == K.R_WOULD_EMPTY
    assert "lay meld 9C 9D 9S" in legal_texts(state)
    assert "lay off 9H on meld 0 (high end)" in legal_texts(state)     # 3 cards stay
    play(state, "lay meld 9C 9D 9S")
    # seat 0: 9H
    assert why(state, "lay off 9H on meld 0 (high end)") == K.R_WOULD_EMPTY
    assert why(state, "lay off 9H on meld 1 (group)") == K.R_WOULD_EMPTY
    assert legal_texts(state) == ["discard 9H"]
    play(state, "discard 9H")
    assert state[K.S_LAST_END] == K.END_OUT and scores(state) == [40, 0]
    assert K.current_player(state) == 1 and K.hand_number(state) == 2


def test_going_out_by_the_discard_without_discard_to_win():
    # seat 0: 5H 6H 7H 9C 9D 9S 2C   draws 8H; lays both melds, discards 2C
    # seat 1: KC QD 2S 3S 4S 10H AS = 40
    state = build(["5H 6H 7H 9C 9D 9S 2C", "KC QD 2S 3S 4S 10H AS"], stock="8H", discard="2D")
    play(state, "draw stock", "lay meld 5H 6H 7H 8H", "lay meld 9C 9D 9S", "discard 2C")
    assert state[K.S_LAST_END] == K.END_OUT and scores(state) == [40, 0]


# ---------------------------------------------------------------------------------------------
# Decision 6: no immediate re-discard
# ---------------------------------------------------------------------------------------------

# seat 0: 2C 3C 4C 8D 9H JS KS    takes the upcard QH
# seat 1: AD 2D 3D 4D 5D 6D 7D
STORY_D = dict(hands=["2C 3C 4C 8D 9H JS KS", "AD 2D 3D 4D 5D 6D 7D"], discard="QH")


def test_the_card_taken_from_the_discard_cannot_be_discarded_the_same_turn():
    state = build(**STORY_D)
    play(state, "take discard")
    assert state[K.S_TAKEN] == ids("QH")[0]
    assert why(state, "discard QH") == K.R_REDISCARD
    assert [t for t in legal_texts(state) if t.startswith("discard")] == [
        "discard 2C", "discard 3C", "discard 4C", "discard 8D", "discard 9H", "discard JS",
        "discard KS"]
    o = CV.observation_dict(obs_of(state, 1), None)
    assert o["taken_from_discard"] == [["QH"], []] and o["taken_this_turn"] == "QH"
    play(state, "discard KS")
    assert state[K.S_TAKEN] == -1 and K.current_player(state) == 1


def test_the_hand_history_records_who_discarded_declined_and_took_each_card():
    # seat 0 takes QH, throws KS; seat 1 declines KS (draws the stock), throws 7D; seat 0 takes
    # 7D, throws 9H. Every seat sees the same per-seat history; it restarts with the next hand.
    state = build(**STORY_D)
    play(state, "take discard", "discard KS", "draw stock", "discard 7D", "take discard",
         "discard 9H")
    for seat in (0, 1):
        history = CV.observation_dict(obs_of(state, seat), None)["hand_history"]
        assert history == {"discarded": [["9H", "KS"], ["7D"]], "declined": [[], ["KS"]],
                           "taken": [["7D", "QH"], []]}
    assert state[K.S_DECLINED] == 0 and state[K.S_PICKED] == mask("QH 7D")
    # seat 0 declines 2C, draws 8H and goes out: hand 2 starts with an empty history
    state = build(["5H 6H 7H", "KC KD"], stock="8H", discard="2C")
    play(state, "draw stock")
    assert state[K.S_DECLINED] == mask("2C")
    play(state, "lay meld 5H 6H 7H 8H")
    assert K.hand_number(state) == 2
    assert all(state[K.S_DISCARDED + p] == state[K.S_DECLINED + p] == state[K.S_PICKED + p] == 0
               for p in range(K.MAX_PLAYERS))


def test_without_no_immediate_rediscard_the_taken_card_may_go_back():
    state = build(**STORY_D, no_immediate_rediscard=False)
    play(state, "take discard", "discard QH")
    # pile: QH again; seat 0 no longer holds a card taken from the discard
    assert state[K.S_DISCARD_N] == 1 and state[K.S_DISCARD] == ids("QH")[0]
    assert state[K.S_KNOWN] == 0 and state[K.S_HAND] == mask("2C 3C 4C 8D 9H JS KS")


def test_the_taken_card_may_be_discarded_when_it_is_the_last_card():
    # seat 0: 5H 6H 7H        takes 2C, lays 5H 6H 7H, discards 2C: out
    # seat 1: KC KD = 20
    state = build(["5H 6H 7H", "KC KD"], discard="2C")
    play(state, "take discard")
    assert why(state, "discard 2C") == K.R_REDISCARD
    play(state, "lay meld 5H 6H 7H")
    assert legal_texts(state) == ["discard 2C"]
    play(state, "discard 2C")
    assert state[K.S_LAST_END] == K.END_OUT and scores(state) == [20, 0]


# ---------------------------------------------------------------------------------------------
# Decisions 3-4: the empty stock ends the hand, lowest hand value wins, lowest seat on ties
# ---------------------------------------------------------------------------------------------

# seat 0: 2C 3D 4H 5S 6C 7D 8H (35)    draws AC, the last stock card, discards 8H -> 28
# seat 1: AD AH AS 2D 2H 2S 3C (12)    asks the empty stock: the hand ends
EMPTY_STOCK = dict(hands=["2C 3D 4H 5S 6C 7D 8H", "AD AH AS 2D 2H 2S 3C"], stock="AC",
                   discard="KD", rest="discard")


def test_drawing_from_the_empty_stock_ends_the_hand_lowest_value_wins():
    state = build(**EMPTY_STOCK)
    play(state, "draw stock", "discard 8H")
    assert state[K.S_STOCK_N] == 0
    assert legal_texts(state) == ["draw stock", "take discard"]       # Decision 3
    assert play(state, "draw stock") == -1
    # values: seat 0 = 2+3+4+5+6+7+1 = 28, seat 1 = 12 -> seat 1 wins and collects 28
    assert state[K.S_LAST_END] == K.END_EMPTY_STOCK and state[K.S_LAST_WINNER] == 1
    assert state[K.S_LAST_VALUES:K.S_LAST_VALUES + 2].tolist() == [28, 12]
    assert scores(state) == [0, 28]
    assert K.hand_number(state) == 2 and K.current_player(state) == 1


def test_ace_high_changes_the_empty_stock_winner():
    # Decision 10: same play with ace_high: seat 0 = 2+3+4+5+6+7+11 = 38,
    # seat 1 = 11+11+11+2+2+2+3 = 42 -> seat 0 wins 42
    state = build(**EMPTY_STOCK, ace_high=True)
    play(state, "draw stock", "discard 8H", "draw stock")
    assert state[K.S_LAST_WINNER] == 0 and scores(state) == [42, 0]


def test_take_discard_stays_legal_on_an_empty_stock():
    state = build(**EMPTY_STOCK)
    play(state, "draw stock", "discard 8H", "take discard", "discard 3C")
    # seat 1 took 8H and threw 3C; seat 0 may still take or end the hand
    assert legal_texts(state) == ["draw stock", "take discard"]
    assert K.current_player(state) == 0 and K.hand_number(state) == 1


def test_empty_stock_tie_goes_to_the_lowest_seat_index():
    # Hand 3 of a 3-player game, so seat 2 asks first; the stock is already empty.
    # seat 0: AC 2C 3D 4D 5H 6H 7S 8S 9C = 45
    # seat 1: 10C 10D 10H              = 30   (a group in hand still counts)
    # seat 2: KS QS 5C 3C 2D           = 30   the asker, tied with seat 1
    state = build(["AC 2C 3D 4D 5H 6H 7S 8S 9C", "10C 10D 10H", "KS QS 5C 3C 2D"],
                  discard="JD", rest="discard", hand_no=3, scores=[10, 5, 0])
    assert K.current_player(state) == 2
    play(state, "draw stock")
    # seat 1 (lowest index among 30/30) collects 45 + 30 = 75
    assert state[K.S_LAST_WINNER] == 1 and scores(state) == [10, 80, 0]
    assert K.hand_number(state) == 4 and K.current_player(state) == 0


# ---------------------------------------------------------------------------------------------
# E5 safety cap: max_turns
# ---------------------------------------------------------------------------------------------

def test_max_turns_ends_the_hand_like_an_empty_stock():
    # seat 0: 2C 3C 4D 5D 6H 7H 8S = 35
    # seat 1: KC KD QH QS JC JD 10H = 70
    # each seat draws a 9 and throws it back; the 4th completed turn ends the hand
    state = build(["2C 3C 4D 5D 6H 7H 8S", "KC KD QH QS JC JD 10H"], stock="9S 9H 9D 9C",
                  discard="AC", max_turns=4)
    for turn, (seat, card) in enumerate(zip([0, 1, 0, 1], ["9S", "9H", "9D", "9C"])):
        assert (K.current_player(state), obs_of(state, 0)[K.O_TURN]) == (seat, turn)
        play(state, "draw stock", f"discard {card}")
    assert state[K.S_LAST_END] == K.END_MAX_TURNS and state[K.S_LAST_WINNER] == 0
    assert scores(state) == [70, 0] and K.hand_number(state) == 2


# ---------------------------------------------------------------------------------------------
# §4.7 game end (Decision 5) and multi-hand games (Decision 9)
# ---------------------------------------------------------------------------------------------

def test_reaching_the_target_exactly_ends_the_game():
    state = build(**STORY_A, target_score=40)
    play(state, "draw stock", "lay meld 5H 6H 7H 8H", "lay meld 9C 9D 9S",
         "lay off 9H on meld 1 (group)")
    assert K.is_terminal(state) and K.current_player(state) == -1
    assert scores(state) == [40, 0] and state[K.S_GAME_WINNER] == 0
    out = np.zeros(2)
    K.returns(state, out)
    assert out.tolist() == [1.0, -1.0]
    assert legal(state) == [] and K.illegal_reason(state, 0) == K.R_GAME_OVER
    o = CV.observation_dict(obs_of(state, 1), None)
    assert (o["phase"], o["to_move"], o["game_winner"]) == ("game_over", None, 0)
    # one point short of the target: the game goes on
    state = build(**STORY_A, target_score=41)
    play(state, "draw stock", "lay meld 5H 6H 7H 8H", "lay meld 9C 9D 9S",
         "lay off 9H on meld 1 (group)")
    assert not K.is_terminal(state) and K.hand_number(state) == 2


# Every hand of this 3-player game: the first player holds W and goes out on the first turn;
# the next seat holds L1, the one after L2, so the winner collects 20 + 50 = 70.
W = "2C 3C 4C 5C 7D 7H 7S JH QH KH"           # draws 9S, lays three melds, discards 9S
L1 = "AD 2D 3D AH 2H 3H AS 2S AC 4D"          # 1+2+3+1+2+3+1+2+1+4 = 20
L2 = "3S 4S 4H 5D 5H 5S 6C 6D 6H 6S"          # 3+4+4+5+5+5+6+6+6+6 = 50


def test_a_game_runs_over_hands_to_the_target_with_the_first_player_rotating():
    expected = {1: [70, 0, 0], 2: [70, 70, 0], 3: [70, 70, 70], 4: [140, 70, 70]}
    totals = [0, 0, 0]
    for hand_no in range(1, 5):
        first = (hand_no - 1) % 3
        hands = [None] * 3
        hands[first], hands[(first + 1) % 3], hands[(first + 2) % 3] = W, L1, L2
        state = build(hands, stock="9S", discard="10D", hand_no=hand_no, scores=totals)
        assert K.current_player(state) == first
        play(state, "draw stock", "lay meld 2C 3C 4C 5C", "lay meld 7D 7H 7S",
             "lay meld JH QH KH", "discard 9S")
        totals = scores(state)
        assert totals == expected[hand_no]
        if hand_no < 4:   # the kernel dealt the next hand itself, started by the next seat
            assert (K.hand_number(state), K.current_player(state)) == (hand_no + 1, hand_no % 3)
            assert state[K.S_HAND_N:K.S_HAND_N + 3].tolist() == [10, 10, 10]
            assert (state[K.S_STOCK_N], state[K.S_DISCARD_N], state[K.S_TABLE_N]) == (21, 1, 0)
    assert K.is_terminal(state) and state[K.S_GAME_WINNER] == 0
    out = np.zeros(3)
    K.returns(state, out)
    assert out.tolist() == [1.0, -0.5, -0.5]


def test_first_player_rotates_in_random_games():
    rng = random.Random(3)
    for players in (2, 3, 4):
        state = K.new_state(CV.make_params({"num_players": players, "target_score": 400}),
                            np.int64(players))
        starts = [(1, 0)]
        while not K.is_terminal(state):
            hand = K.hand_number(state)
            K.apply_action(state, rng.choice(legal(state)))
            if K.hand_number(state) != hand:
                starts.append((K.hand_number(state), K.current_player(state)))
        assert len(starts) >= 3
        assert all(first == (hand - 1) % players for hand, first in starts)


# ---------------------------------------------------------------------------------------------
# §4.5 melds and lay-offs (Decisions 1, 2, 8, 10)
# ---------------------------------------------------------------------------------------------

def test_lay_offs_on_an_opponents_melds_without_an_opening():
    # seat 0: 5H 6H 7H KC KD KS 2C     draws AS, lays 5H 6H 7H and KC KD KS, discards AS
    # seat 1: 4H 8H 9H KH 3D 10S JD    has laid nothing, takes AS and lays off on seat 0's melds
    state = build(["5H 6H 7H KC KD KS 2C", "4H 8H 9H KH 3D 10S JD"], stock="AS 4C", discard="QC")
    play(state, "draw stock", "lay meld 5H 6H 7H", "lay meld KC KD KS", "discard AS")
    play(state, "take discard")
    assert [t for t in legal_texts(state) if t.startswith("lay")] == [
        "lay off 4H on meld 0 (low end)", "lay off 8H on meld 0 (high end)",
        "lay off KH on meld 1 (group)"]
    play(state, "lay off 4H on meld 0 (low end)", "lay off 8H on meld 0 (high end)",
         "lay off 9H on meld 0 (high end)", "lay off KH on meld 1 (group)")
    assert why(state, "discard AS") == K.R_REDISCARD
    play(state, "discard 10S")
    o = CV.observation_dict(obs_of(state, 0), None)
    assert o["table"] == [{"slot": 0, "kind": "run", "cards": ["4H", "5H", "6H", "7H", "8H", "9H"]},
                          {"slot": 1, "kind": "group", "cards": ["KC", "KD", "KH", "KS"]}]
    assert o["hand"] == ["2C"] and o["hand_sizes"] == [1, 3]
    assert o["taken_from_discard"] == [[], ["AS"]] and o["discard_pile"] == ["QC", "10S"]
    play(state, "draw stock")                                        # seat 0 draws 4C
    assert why(state, "lay off 4C on meld 1 (group)") == K.R_DOES_NOT_FIT  # groups stop at 4
    assert why(state, "lay off 4C on meld 0 (low end)") == K.R_DOES_NOT_FIT  # wrong suit
    assert scores(state) == [0, 0]


def test_runs_are_ace_high_only_and_never_wrap():
    # seat 0: QS KS AS AH 2H 3H 2S   draws 4H
    for ace_high in (False, True):                                  # Decision 10: same melds
        state = build(["QS KS AS AH 2H 3H 2S", "5C 6C 7C 8C 9C 10C JC"], stock="4H",
                      discard="KD", ace_high=ace_high)
        play(state, "draw stock")
        assert [t for t in legal_texts(state) if t.startswith("lay")] == [
            "lay meld 2H 3H 4H", "lay meld QS KS AS"]               # no A-2-3, no K-A-2
        play(state, "lay meld QS KS AS", "lay meld 2H 3H 4H")
        # table: [0] QS KS AS   [1] 2H 3H 4H
        assert why(state, "lay off 2S on meld 0 (high end)") == K.R_DOES_NOT_FIT   # no wrap
        assert why(state, "lay off 2S on meld 0 (low end)") == K.R_DOES_NOT_FIT
        assert why(state, "lay off AH on meld 1 (low end)") == K.R_DOES_NOT_FIT    # A not low
        assert why(state, "lay off AH on meld 1 (high end)") == K.R_DOES_NOT_FIT
        assert why(state, "lay off 2S on meld 0 (group)") == K.R_WRONG_PLACE
    for cards in ("AH 2H 3H", "KD AD 2D", "5C 5C 5D", "7H 7H", "4S 5S 7S"):
        with pytest.raises(MeldmindError):
            CV.meld_action(cards)
    assert CV.action_text(CV.meld_action("as qs ks")) == "lay meld QS KS AS"
    assert CV.action_text(CV.meld_action("7s 7c 7h")) == "lay meld 7C 7H 7S"


def test_groups_need_distinct_suits_and_take_the_missing_suit():
    # Decision 1: seat 0 lays 8C 8D 8H; seat 1 lays off 8S; then nothing else fits
    state = build(["8C 8D 8H 2C 3D 4H 5S", "8S JC QD KH 2S 3S 9S"], discard="10C")
    play(state, "draw stock", "lay meld 8C 8D 8H")
    assert why(state, "lay off 2C on meld 0 (group)") == K.R_DOES_NOT_FIT
    assert why(state, "lay off 2C on meld 0 (low end)") == K.R_WRONG_PLACE
    play(state, "discard 2C", "draw stock", "lay off 8S on meld 0 (group)")
    assert state[K.S_TABLE_MASK] == mask("8C 8D 8H 8S")


def test_illegal_moves_name_their_reason():
    state = build(**STORY_A)
    assert why(state, "discard 9C") == K.R_DRAW_FIRST
    assert why(state, "lay meld 9C 9D 9S") == K.R_DRAW_FIRST
    assert K.illegal_reason(state, -1) == K.illegal_reason(state, K.NUM_ACTIONS) == K.R_BAD_ID
    play(state, "draw stock")
    assert why(state, "draw stock") == why(state, "take discard") == K.R_ALREADY_DREW
    assert why(state, "discard KC") == K.R_NOT_IN_HAND
    assert why(state, "lay meld 9C 9D 9H 9S") == 0
    assert why(state, "lay meld 10C 10D 10H") == K.R_MELD_NOT_IN_HAND
    assert why(state, "lay off 9H on meld 0 (high end)") == K.R_NO_SUCH_MELD
    play(state, "lay meld 5H 6H 7H")
    assert why(state, "lay off KC on meld 0 (high end)") == K.R_NOT_IN_HAND
    assert why(state, "lay off 8H on meld 0 (group)") == K.R_WRONG_PLACE
    assert why(state, "lay off 8H on meld 0 (low end)") == K.R_DOES_NOT_FIT
    # an empty discard pile (built directly): only the stock is legal
    state = build(["5H 6H 7H", "KC KD"])
    assert legal_texts(state) == ["draw stock"] and why(state, "take discard") == K.R_DISCARD_EMPTY
    assert all(K.illegal_reason(state, a) == 0 for a in legal(state))


def test_the_facade_refuses_an_illegal_move_and_leaves_the_game_unchanged():
    game = new_game("cardverse", seed=4, players=3)
    before = game.observation(0)
    with pytest.raises(IllegalMove, match="draw first"):
        game.play("discard AC")
    assert game.observation(0) == before
    game.play("draw stock")
    assert game.observation(0)["phase"] == "play"


# ---------------------------------------------------------------------------------------------
# Random play invariants (numba, ≥ 2,000 seeded games)
# ---------------------------------------------------------------------------------------------

@njit
def _value(hand, ace_high):
    total = 0
    for c in range(52):
        if (hand >> c) & 1:
            rank = c % 13 + 1
            total += (11 if ace_high else 1) if rank == 1 else min(rank, 10)
    return total


@njit
def _check_state(state):
    """0 when the state is consistent, else a code naming the first broken invariant."""
    n = state[K.S_NUM_PLAYERS]
    seen = 0
    for p in range(4):
        h = state[K.S_HAND + p]
        if p >= n and h != 0:
            return 1
        if seen & h:
            return 2
        seen |= h
        if K.popcount(h) != state[K.S_HAND_N + p]:
            return 3
        if state[K.S_KNOWN + p] & ~h:
            return 4
    for i in range(52):
        c = state[K.S_STOCK + i]
        if i < state[K.S_STOCK_N]:
            if c < 0 or c >= 52 or (seen >> c) & 1:
                return 5
            seen |= 1 << c
        elif c != -1:
            return 6
        c = state[K.S_DISCARD + i]
        if i < state[K.S_DISCARD_N]:
            if c < 0 or c >= 52 or (seen >> c) & 1:
                return 7
            seen |= 1 << c
        elif c != -1:
            return 8
    for t in range(K.MAX_TABLE):
        m = state[K.S_TABLE_MASK + t]
        if t >= state[K.S_TABLE_N]:
            if m != 0 or state[K.S_TABLE_KIND + t] != -1:
                return 9
            continue
        if seen & m:
            return 10
        seen |= m
        found = False
        for k in range(K.NUM_MELDS):
            if K.MELD_MASK[k] == m and K.MELD_KIND[k] == state[K.S_TABLE_KIND + t]:
                found = True
        if not found:
            return 11
    if seen != (1 << 52) - 1:
        return 12
    if state[K.S_PHASE] == K.PHASE_GAME_OVER:
        w = state[K.S_GAME_WINNER]
        if state[K.S_CURRENT] != -1 or w < 0 or state[K.S_SCORES + w] < state[K.S_TARGET_SCORE]:
            return 13
        for p in range(n):
            if p != w and state[K.S_SCORES + p] >= state[K.S_TARGET_SCORE]:
                return 14
    else:
        if not 0 <= state[K.S_CURRENT] < n or state[K.S_TURN] >= state[K.S_MAX_TURNS]:
            return 15
        if state[K.S_PHASE] == K.PHASE_DRAW and state[K.S_TAKEN] != -1:
            return 16
        for p in range(n):
            if state[K.S_HAND_N + p] == 0:
                return 17
    return 0


@njit
def _random_games(params, seed, games, all_ids_every):
    """Play ``games`` uniformly random games and check every step. Returns (error, game, step,
    actions, hands, ends by going out, ends on the empty stock, ends at max_turns)."""
    rng = np.empty(1, dtype=np.int64)
    seed_slot(rng, 0, seed)
    buf = np.empty(K.NUM_ACTIONS, dtype=np.int64)
    flag = np.zeros(K.NUM_ACTIONS, dtype=np.int64)
    res = np.zeros(8, dtype=np.int64)
    n = params[K.P_NUM_PLAYERS]
    size = 7 if n == 2 else 10
    cap = 100_000
    for g in range(games):
        state = K.new_state(params, below(rng, 0, 1 << 40))
        steps = 0
        while not K.is_terminal(state):
            res[1], res[2] = g, steps
            if steps >= cap:
                res[0] = 100
                return res
            e = _check_state(state)
            if e:
                res[0] = e
                return res
            k = K.legal_actions(state, buf)
            if k == 0:
                res[0] = 101
                return res
            for i in range(1, k):
                if buf[i] <= buf[i - 1]:
                    res[0] = 102
                    return res
            if all_ids_every and steps % all_ids_every == 0:      # legal set == reason 0
                for i in range(k):
                    flag[buf[i]] = 1
                for a in range(K.NUM_ACTIONS):
                    if (K.illegal_reason(state, a) == 0) != (flag[a] == 1):
                        res[0] = 103
                        return res
                for i in range(k):
                    flag[buf[i]] = 0
            a = buf[below(rng, 0, k)]
            if K.illegal_reason(state, a) != 0:
                res[0] = 104
                return res
            pre = state.copy()
            p = pre[K.S_CURRENT]
            K.apply_action(state, a)
            steps += 1
            res[3] += 1
            ended = K.is_terminal(state) or state[K.S_HAND_NO] != pre[K.S_HAND_NO]
            if not ended:
                for q in range(n):
                    if state[K.S_SCORES + q] != pre[K.S_SCORES + q]:
                        res[0] = 105
                        return res
                continue
            res[4] += 1
            # the final hands: the actor's hand minus what this action put down
            final = np.empty(4, dtype=np.int64)
            for q in range(4):
                final[q] = pre[K.S_HAND + q]
            if K.A_DISCARD <= a < K.A_MELD:
                final[p] &= ~(1 << (a - K.A_DISCARD))
            elif K.A_MELD <= a < K.A_LAYOFF:
                final[p] &= ~K.MELD_MASK[a - K.A_MELD]
            elif a >= K.A_LAYOFF:
                final[p] &= ~(1 << (((a - K.A_LAYOFF) // 3) % 52))
            values = np.empty(4, dtype=np.int64)
            for q in range(n):
                values[q] = _value(final[q], params[K.P_ACE_HIGH])
            if final[p] == 0:
                winner, how = p, K.END_OUT
                res[5] += 1
            else:
                winner = 0
                for q in range(n):
                    if values[q] < values[winner]:
                        winner = q
                if a == K.DRAW_STOCK:
                    how = K.END_EMPTY_STOCK
                    res[6] += 1
                    if pre[K.S_STOCK_N] != 0:
                        res[0] = 106
                        return res
                else:
                    how = K.END_MAX_TURNS
                    res[7] += 1
                    if pre[K.S_TURN] + 1 != params[K.P_MAX_TURNS]:
                        res[0] = 107
                        return res
            if state[K.S_LAST_WINNER] != winner or state[K.S_LAST_END] != how:
                res[0] = 108
                return res
            gain = 0
            for q in range(n):
                if state[K.S_LAST_VALUES + q] != values[q]:
                    res[0] = 109
                    return res
                if q != winner:
                    gain += values[q]
                    if state[K.S_SCORES + q] != pre[K.S_SCORES + q]:
                        res[0] = 110
                        return res
            if gain < 1 or state[K.S_SCORES + winner] != pre[K.S_SCORES + winner] + gain:
                res[0] = 111
                return res
            over = state[K.S_SCORES + winner] >= params[K.P_TARGET_SCORE]
            if over != K.is_terminal(state):
                res[0] = 112
                return res
            if not over:   # a fresh deal, started by the next seat in rotation
                if state[K.S_HAND_NO] != pre[K.S_HAND_NO] + 1 \
                        or state[K.S_CURRENT] != (state[K.S_HAND_NO] - 1) % n \
                        or state[K.S_PHASE] != K.PHASE_DRAW or state[K.S_TURN] != 0 \
                        or state[K.S_STOCK_N] != 52 - n * size - 1 or state[K.S_DISCARD_N] != 1 \
                        or state[K.S_TABLE_N] != 0:
                    res[0] = 113
                    return res
                for q in range(n):
                    if state[K.S_HAND_N + q] != size or state[K.S_KNOWN + q] != 0:
                        res[0] = 114
                        return res
        e = _check_state(state)
        if e:
            res[0] = e
            return res
    return res


RANDOM_CONFIGS = [    # 2,000 games in all
    # (options, games, check every action id against the legal set every k steps)
    ({}, 600, 7),
    ({"num_players": 3, "target_score": 300}, 300, 11),
    ({"num_players": 4, "target_score": 400}, 300, 13),
    ({"discard_to_win": True}, 300, 7),
    ({"num_players": 3, "ace_high": True, "no_immediate_rediscard": False, "target_score": 250},
     300, 11),
    ({"num_players": 4, "discard_to_win": True, "ace_high": True, "target_score": 500,
      "max_turns": 30}, 200, 13),
]


@pytest.mark.parametrize("options, games, every", RANDOM_CONFIGS)
def test_random_play_invariants(options, games, every):
    params = CV.make_params(options)
    res = _random_games(params, np.int64(games + len(options)), games, every)
    error, game, step, actions, hands, out, empty, capped = res.tolist()
    assert error == 0, f"invariant {error} broken in game {game} at step {step}"
    assert hands > games and out + empty + capped == hands
    assert out > 0 or params[K.P_NUM_PLAYERS] == 4     # random 10-card hands rarely go out
    if "max_turns" in options:
        assert capped > 0
    else:
        assert empty > 0


def test_random_hands_and_random_playout_are_deterministic():
    params = CV.make_params({})
    assert K.random_hands(params, np.int64(9), 200) == K.random_hands(params, np.int64(9), 200) > 0
    a, b = K.new_state(params, np.int64(2)), K.new_state(params, np.int64(2))
    assert K.random_playout(a, np.int64(8)) == K.random_playout(b, np.int64(8))
    assert np.array_equal(a, b) and K.is_terminal(a)


# ---------------------------------------------------------------------------------------------
# E1 determinism, E3/E4 information hygiene
# ---------------------------------------------------------------------------------------------

def test_same_seed_and_same_actions_give_the_same_states():
    rng = random.Random(1)
    for players in (2, 3, 4):
        params = CV.make_params({"num_players": players, "target_score": 300})
        state = K.new_state(params, np.int64(77))
        actions, states = [], [state.copy()]
        while not K.is_terminal(state):
            actions.append(rng.choice(legal(state)))
            K.apply_action(state, actions[-1])
            states.append(state.copy())
        assert K.hand_number(state) >= 2                       # several deals from one seed
        replay = K.new_state(params, np.int64(77))
        for action, expected in zip(actions, states[1:]):
            K.apply_action(replay, action)
            assert np.array_equal(replay, expected)


def _midgame_states(count, seed):
    """Random states of every phase and player count, from uniformly random play."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        players = 2 + i % 3
        state = K.new_state(CV.make_params({"num_players": players}), np.int64(rng.getrandbits(40)))
        for _ in range(rng.randrange(0, 120)):
            if K.is_terminal(state):
                break
            K.apply_action(state, rng.choice(legal(state)))
        out.append(state)
    return out


def test_hand_history_masks_match_a_replay_of_the_moves():
    # an independent bookkeeping of §4.8's history from the moves alone, over random games
    rng = random.Random(21)
    for i in range(90):
        players = 2 + i % 3
        state = K.new_state(CV.make_params({"num_players": players}), np.int64(rng.getrandbits(40)))
        book = {"discarded": [0] * players, "declined": [0] * players, "taken": [0] * players}
        for _ in range(rng.randrange(1, 200)):
            if K.is_terminal(state):
                break
            p, hand_no = K.current_player(state), K.hand_number(state)
            pile = [int(c) for c in state[K.S_DISCARD:K.S_DISCARD + state[K.S_DISCARD_N]]]
            action = rng.choice(legal(state))
            if action == K.DRAW_STOCK:
                if state[K.S_STOCK_N] > 0 and pile:
                    book["declined"][p] |= 1 << pile[-1]
            elif action == K.TAKE_DISCARD:
                book["taken"][p] |= 1 << pile[-1]
            elif action < K.A_MELD:
                book["discarded"][p] |= 1 << (action - K.A_DISCARD)
            K.apply_action(state, action)
            if K.hand_number(state) != hand_no:
                book = {key: [0] * players for key in book}
        for key, offset in (("discarded", K.S_DISCARDED), ("declined", K.S_DECLINED),
                            ("taken", K.S_PICKED)):
            assert [int(v) for v in state[offset:offset + players]] == book[key]


def test_determinize_resamples_only_what_the_seat_cannot_see():
    for state in _midgame_states(150, 5):
        players = int(state[K.S_NUM_PLAYERS])
        for seat in range(players):
            obs = obs_of(state, seat)
            hands = set()
            for seed in range(6):
                d = K.determinize(obs, np.int64(seed))
                assert np.array_equal(obs_of(d, seat), obs)             # same information set
                assert _check_state(d) == 0                            # a full, valid state
                for p in range(players):                               # known cards kept
                    assert d[K.S_KNOWN + p] & ~d[K.S_HAND + p] == 0
                if K.current_player(state) == seat:                    # E3: same legal moves
                    assert legal(d) == legal(state)
                hands.add(tuple(d[K.S_HAND:K.S_HAND + 4]) + tuple(d[K.S_STOCK:K.S_STOCK + 52]))
            if state[K.S_STOCK_N] > 1 and not K.is_terminal(state):
                assert len(hands) > 1                                  # it really resamples


def test_swapping_hidden_cards_leaves_the_observation_unchanged():
    # what seat 0 cannot see: seat 1's cards not taken from the discard, and the stock order
    rng = random.Random(2)
    for state in _midgame_states(60, 8):
        obs = obs_of(state, 0)
        hidden_hand = [c for c in range(52) if (state[K.S_HAND + 1] & ~state[K.S_KNOWN + 1]) >> c & 1]
        m = int(state[K.S_STOCK_N])
        if not hidden_hand or m < 2:
            continue
        other = state.copy()
        i = rng.randrange(m)
        c, s = rng.choice(hidden_hand), int(other[K.S_STOCK + i])
        other[K.S_HAND + 1] = (other[K.S_HAND + 1] & ~(1 << c)) | (1 << s)
        other[K.S_STOCK + i] = c
        other[K.S_STOCK:K.S_STOCK + m] = other[K.S_STOCK:K.S_STOCK + m][::-1].copy()
        other[K.S_RNG] ^= 12345                                        # later deals differ too
        assert np.array_equal(obs_of(other, 0), obs)


def test_observation_json_round_trips_and_bad_json_is_refused():
    for state in _midgame_states(60, 11):
        for seat in range(int(state[K.S_NUM_PLAYERS])):
            obs = obs_of(state, seat)
            legal_ids = legal(state) if K.current_player(state) == seat else None
            d = CV.observation_dict(obs, legal_ids)
            assert (d["format"], d["version"], d["variant"], d["seat"]) == (
                "meldmind.observation", 1, "cardverse", seat)
            assert np.array_equal(CV.observation_array(d), obs)
            if legal_ids is not None:
                assert [m["id"] for m in d["legal_moves"]] == legal_ids
    d = CV.observation_dict(obs_of(build(**STORY_A), 0), None)
    assert d["hand"] == ["9C", "9D", "5H", "6H", "7H", "9H", "9S"]
    assert d["hand_sizes"] == [7, 7] and d["stock_size"] == 37 and d["discard_pile"] == ["2D"]
    bad = [
        ("format", "x"), ("version", 2), ("variant", "gin"), ("seat", 2), ("seat", "0"),
        ("phase", "deal"), ("hand", ["9C", "9C"]), ("hand", ["ZZ"]), ("hand", "9C"),
        ("hand_sizes", [7]), ("scores", [0, -1]), ("stock_size", 60), ("discard_pile", ["9C"]),
        ("table", [{"kind": "run", "cards": ["AH", "2H", "3H"]}]), ("taken_from_discard", [[]]),
        ("taken_this_turn", "2D"), ("to_move", None), ("game_winner", 0), ("turn", 1000),
        ("options", {"num_players": 2}), ("last_hand", {"winner": 0}),
        ("hand_history", {"discarded": [[], []], "declined": [[], []]}),
        ("hand_history", {"discarded": [[]], "declined": [[], []], "taken": [[], []]}),
        ("hand_history", {"discarded": [["9C"], []], "declined": [[], []], "taken": [[], []]}),
        ("hand_history", {"discarded": [[], []], "declined": [["4S", "4S"], []], "taken": [[], []]}),
    ]
    for key, value in bad:
        with pytest.raises(MeldmindError):
            CV.observation_array({**d, key: value})
    missing = dict(d)
    del missing["hand"]
    with pytest.raises(MeldmindError, match="hand"):
        CV.observation_array(missing)
    with pytest.raises(MeldmindError):
        CV.observation_array([1, 2])


def test_the_kernel_runs_as_python_with_numba_disabled():
    code = ("import numpy as np\n"
            "from meldmind.kernels import cardverse as K\n"
            "from meldmind.games.cardverse import make_params\n"
            "p = make_params({'num_players': 3})\n"
            "s = K.new_state(p, np.int64(1))\n"
            "o = np.zeros(K.OBS_SIZE, dtype=np.int64)\n"
            "K.observe(s, 1, o)\n"
            "d = K.determinize(o, np.int64(2))\n"
            "o2 = np.zeros(K.OBS_SIZE, dtype=np.int64)\n"
            "K.observe(d, 1, o2)\n"
            "print(K.random_hands(p, np.int64(1), 3) > 0, bool((o == o2).all()))\n")
    out = printed_without_jit(code)
    assert out == ["True", "True"]


def test_an_observation_that_leaves_the_seat_to_move_no_move_is_refused(monkeypatch):
    """Every field in range, yet contradictory: the play phase with an empty hand (the stock
    takes the missing cards so that the count still adds up). The cards dealt and laid no
    longer add up, which is what the error names; without that check, the last one (the seat
    to move must have a legal move, which the kernels rely on) refuses it."""
    game = new_game("cardverse", seed=3)
    game.play("draw stock")
    d = game.observation(0)
    d.pop("legal_moves")
    d["stock_size"] += len(d["hand"])
    d["hand"], d["hand_sizes"][0], d["taken_from_discard"][0] = [], 0, []
    with pytest.raises(MeldmindError, match="'hand_sizes' and 'table' hold 7 cards, but in "
                                            "phase 'play' they hold .* 15"):
        suggest(d, level="easy")
    monkeypatch.setattr(CV, "_check_turns", lambda *args: None)
    with pytest.raises(MeldmindError, match="no legal move .*'play' with 0 cards"):
        suggest(d, level="easy")
