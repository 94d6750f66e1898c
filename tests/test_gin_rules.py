"""Gin Rummy rules (RULES.md §5 = OpenSpiel ``gin_rummy`` defaults): the id layout, stories for
every rule ending in exact returns, random-play invariants, determinism and information hygiene.

Hands are drawn as one row per suit in the stories; ``.`` marks a rank not held.
"""
import doctest
import random

import numpy as np
import pytest
from numba import njit

from meldmind import MeldmindError, analyze_hand, format_card, parse_cards
from meldmind.game import new_game
from meldmind.games import gin

K = gin.KERNEL
PARAMS = gin.make_params({})


# ---- helpers ------------------------------------------------------------------------------------
def ids(cards):
    return parse_cards("gin", cards)


def mask(cards):
    return sum(1 << c for c in ids(cards))


def names(m):
    return [format_card("gin", c) for c in range(52) if int(m) >> c & 1]


class Table:
    """A deal set by hand; ``draws`` are the first stock cards in draw order."""

    def __init__(self, p0, p1, upcard, draws=()):
        hands = [ids(p0), ids(p1)]
        up, = ids([upcard])
        first = ids(list(draws))
        used = set(hands[0]) | set(hands[1]) | {up} | set(first)
        assert len(used) == 21 + len(first)
        self.state = K.new_state(PARAMS, np.int64(0))
        self.state[K.S_HAND] = sum(1 << c for c in hands[0])
        self.state[K.S_HAND + 1] = sum(1 << c for c in hands[1])
        self.state[K.S_UPCARD] = up
        self.state[K.S_STOCK:K.S_STOCK + 31] = [c for c in range(52) if c not in used] + first[::-1]

    @property
    def phase(self):
        return int(self.state[K.S_PHASE])

    def legal(self):
        buf = np.empty(K.NUM_ACTIONS, np.int64)
        n = K.legal_actions(self.state, buf)
        return [gin.action_text(a, self.phase) for a in buf[:n]]

    def action(self, move):
        """An action id from an id, a bare card ("9S": discard or lay off) or a move text."""
        if isinstance(move, int):
            return move
        if move not in ("pass", "knock") and " " not in move:
            return ids([move])[0]
        texts = {gin.action_text(a, self.phase): a for a in range(K.NUM_ACTIONS)}
        return texts[move]

    def reason(self, move):
        return int(K.illegal_reason(self.state, self.action(move)))

    def play(self, *moves):
        drawn = -1
        for move in moves:
            a = self.action(move)
            assert K.illegal_reason(self.state, a) == 0, (move, gin.REASONS[K.illegal_reason(self.state, a)])
            assert gin.action_text(a, self.phase) in self.legal()
            drawn = int(K.apply_action(self.state, a))
        return drawn

    def hand(self, seat):
        return names(self.state[K.S_HAND + seat])

    def returns(self):
        out = np.zeros(2)
        K.returns(self.state, out)
        return out.tolist()

    def obs(self, seat):
        out = np.zeros(K.OBS_SIZE, np.int64)
        K.observe(self.state, seat, out)
        return gin.observation_dict(out, None)


# ---- layout -------------------------------------------------------------------------------------
def test_card_and_action_ids_are_pinned():
    assert ids(["AC", "KC", "AD", "AH", "AS", "KS"]) == [0, 12, 13, 26, 39, 51]
    assert (K.NUM_ACTIONS, K.DRAW_UPCARD, K.DRAW_STOCK, K.PASS, K.KNOCK, K.MELD_BASE) == (241, 52, 53, 54, 55, 56)
    assert [gin.action_text(a) for a in (0, 51, 52, 53, 54, 55)] == \
        ["discard AC", "discard KS", "draw upcard", "draw stock", "pass", "knock"]
    assert gin.action_text(51, K.PH_LAYOFF) == "lay off KS"
    melds = {  # meld id -> cards: sets (rank r = id // 5, without suit id % 5, or all four), runs
        0: "AD AH AS",          # first set: the aces without clubs
        1: "AC AH AS",
        4: "AC AD AH AS",
        30: "7D 7H 7S",
        64: "KC KD KH KS",
        65: "AC 2C 3C",         # first 3-card run
        75: "JC QC KC",
        76: "AD 2D 3D",
        108: "JS QS KS",        # last 3-card run
        109: "AC 2C 3C 4C",     # first 4-card run
        148: "10S JS QS KS",
        149: "AC 2C 3C 4C 5C",  # first 5-card run
        184: "9S 10S JS QS KS",  # last 5-card run
    }
    for meld, cards in melds.items():
        assert gin.meld_cards(meld) == ids(cards.split())
        assert gin.action_text(K.MELD_BASE + meld) == "lay meld " + cards
        assert gin.meld_action(cards) == K.MELD_BASE + meld
    assert len({int(m) for m in K.MELD_MASK}) == 185
    assert gin.action_json(K.MELD_BASE + 65) == {"id": 121, "type": "lay_meld", "text": "lay meld AC 2C 3C",
                                                 "meld": 65, "kind": "run", "cards": ["AC", "2C", "3C"]}
    assert gin.action_json(8, K.PH_LAYOFF) == {"id": 8, "type": "lay_off", "text": "lay off 9C", "card": "9C"}
    with pytest.raises(MeldmindError):
        gin.action_text(241)
    with pytest.raises(MeldmindError):
        gin.meld_action("AC 2C 3C 4C 5C 6C")   # laid as two melds


def test_phases_params_and_observation_layout_are_pinned():
    assert (K.PH_FIRST_UPCARD, K.PH_DRAW, K.PH_DISCARD, K.PH_KNOCK, K.PH_LAYOFF, K.PH_WALL,
            K.PH_GAME_OVER) == (1, 2, 3, 4, 5, 6, 7)
    assert PARAMS.tolist() == [10, 25, 25] and gin.OPTIONS == {}
    with pytest.raises(MeldmindError):
        gin.make_params({"knock_card": 5})
    assert K.OBS_SIZE == 271 and K.MAX_HISTORY == 192
    offsets = {name: getattr(K, name) for name in dir(K) if name.startswith("O_")}
    assert offsets == {
        "O_SEAT": 0, "O_CURRENT": 1, "O_HAND": 2, "O_HAND_SIZES": 3, "O_PUBLIC": 5,
        "O_PHASE": 5, "O_KNOCK_CARD": 6, "O_GIN_BONUS": 7, "O_UNDERCUT_BONUS": 8, "O_KNOWN": 9,
        "O_UPCARD": 11, "O_PREV_UPCARD": 12, "O_UPCARD_DRAWS": 13, "O_REPEATED": 14,
        "O_PASSED": 15, "O_KNOCKER": 17, "O_FINISHED_LAYOFFS": 18, "O_DEADWOOD": 19, "O_END": 21,
        "O_STOCK_SIZE": 22, "O_DISCARD_COUNT": 23, "O_MELD_COUNT": 24, "O_LAYOFF_COUNT": 26,
        "O_MELDS": 27, "O_LAYOFFS": 35, "O_DISCARDS": 45, "O_FIRST_UPCARD": 77,
        "O_HISTORY_COUNT": 78, "O_HISTORY": 79,
    }
    assert (K.MAX_MELDS_LAID, K.MAX_LAYOFFS, K.MAX_DISCARDS) == (4, 10, 32)
    assert len(gin.REASONS) == K.NUM_REASONS == 20
    obs = np.zeros(K.OBS_SIZE, np.int64)
    K.observe(K.new_state(PARAMS, np.int64(1)), 1, obs)
    assert list(gin.observation_dict(obs, [52, 54])) == [
        "format", "version", "variant", "seat", "parameters", "phase", "to_move", "hand",
        "hand_sizes", "known_cards", "upcard", "prev_upcard", "discard_pile", "stock_size",
        "upcard_draws", "repeated_move", "passed_first_upcard", "knocker", "finished_layoffs",
        "melds", "layoffs", "deadwood", "end", "first_upcard", "history", "legal_moves"]


def test_module_doctests():
    result = doctest.testmod(gin, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_new_state_deal():
    state = K.new_state(PARAMS, np.int64(42))
    hands = [int(state[K.S_HAND]), int(state[K.S_HAND + 1])]
    stock = state[K.S_STOCK:K.S_STOCK + 31].tolist()
    assert [bin(h).count("1") for h in hands] == [10, 10] and hands[0] & hands[1] == 0
    assert sorted(names(hands[0] | hands[1]) + [format_card("gin", int(state[K.S_UPCARD]))]
                  + [format_card("gin", c) for c in stock]) == sorted(format_card("gin", c) for c in range(52))
    assert (K.current_player(state), int(state[K.S_PHASE]), int(state[K.S_STOCK_SIZE])) == (0, K.PH_FIRST_UPCARD, 31)
    # draws pop from the end of the stock
    assert K.apply_action(state, K.PASS) == -1 and K.apply_action(state, K.PASS) == -1
    assert K.apply_action(state, K.DRAW_STOCK) == stock[-1]


# ---- stories ------------------------------------------------------------------------------------
def test_first_upcard_pass_pass_then_stock():
    t = Table("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D", "KS", draws=["QS"])
    assert t.legal() == ["draw upcard", "pass"]
    assert t.reason("draw stock") == K.R_FIRST_UPCARD
    t.play("pass")
    assert K.current_player(t.state) == 1 and t.legal() == ["draw upcard", "pass"]
    t.play("pass")
    assert K.current_player(t.state) == 0 and t.legal() == ["draw stock"]
    assert t.reason("draw upcard") == t.reason("pass") == K.R_MUST_DRAW_STOCK
    assert t.play("draw stock") == ids(["QS"])[0]
    o = t.obs(0)
    assert (o["phase"], o["upcard"], o["discard_pile"], o["stock_size"]) == ("discard", None, ["KS"], 30)
    assert o["prev_upcard"] == "KS" and len(o["hand"]) == 11 and o["known_cards"] == [[], []]
    assert t.reason("draw stock") == K.R_MUST_DISCARD and t.reason("AD") == K.R_NOT_IN_HAND


def test_knock_with_layoffs():
    """Seat 0 takes AD and knocks, keeping AD as its only deadwood (1)::

        seat 0   C: . 2 3 4            seat 1   C: . . . . 5 . 7          K
                 D: A . . . . . 7               D: . . 3                  K
                 H: . . . . . . 7 . 9 10 J      H: . . . . . . . 8 . . . Q K
                 S: . . . . . . 7 . . . . . K   S: . 2 . . . . . . 9

    Seat 1 lays off 5C (on 2C-4C), 7C (the fourth 7), 8H and QH (on 9H-JH), melds KC KD KH and
    keeps 2S 3D 9S = 14. Seat 0 scores 14 - 1 = 13.
    """
    t = Table("2C 3C 4C 7D 7H 7S 9H 10H JH KS", "5C 7C 8H QH KC KD KH 2S 3D 9S", "AD")
    assert t.reason("knock") == K.R_FIRST_UPCARD
    t.play("draw upcard")
    assert t.legal()[-1] == "knock"
    t.play("knock")
    assert t.legal() == ["discard AD", "discard KS"]
    assert t.reason("2C") == K.R_KNOCK_DISCARD and t.reason("lay meld 2C 3C 4C") == K.R_KNOCKER_DISCARD_FIRST
    t.play("KS")
    assert t.legal() == ["lay meld 7D 7H 7S", "lay meld 2C 3C 4C", "lay meld 9H 10H JH"]
    assert t.reason("pass") == K.R_KNOCKER_PASS
    t.play("lay meld 2C 3C 4C", "lay meld 7D 7H 7S")
    assert t.reason("pass") == K.R_KNOCKER_PASS          # AD 9H 10H JH = 30
    assert t.reason("AD") == K.R_KNOCKER_DISCARDED
    t.play("lay meld 9H 10H JH")
    assert t.legal() == ["pass"]
    t.play("pass")
    assert K.current_player(t.state) == 1
    assert t.legal() == ["lay off 5C", "lay off 7C", "lay off 8H", "lay off QH", "pass"]
    assert t.reason("lay meld KC KD KH") == K.R_LAYOFF_BEFORE_MELDS
    assert t.reason("lay meld AC 2C 3C") == K.R_MELD_NOT_IN_HAND      # not later either
    assert t.reason("2S") == K.R_LAYOFF_NO_FIT and t.reason("6C") == K.R_NOT_IN_HAND
    t.play("lay off 5C", "lay off 7C", "lay off 8H", "lay off QH", "pass")
    assert t.legal() == ["pass", "lay meld KC KD KH"]
    assert t.reason("9S") == K.R_LAYOFFS_OVER
    t.play("lay meld KC KD KH", "pass")
    assert K.is_terminal(t.state) and K.current_player(t.state) == -1
    assert t.returns() == [13.0, -13.0]
    o = t.obs(1)
    assert o["end"] == "knock" and o["deadwood"] == [1, 14] and o["knocker"] == 0
    assert o["melds"] == [[["2C", "3C", "4C"], ["7D", "7H", "7S"], ["9H", "10H", "JH"]], [["KC", "KD", "KH"]]]
    assert o["layoffs"] == ["5C", "7C", "8H", "QH"] and o["discard_pile"] == ["KS"]
    assert o["known_cards"] == [["AD"], ["3D", "2S", "9S"]]     # both hands shown at the end
    assert t.reason("pass") == K.R_GAME_OVER


def test_gin_bonus_and_no_layoffs_after_gin():
    """Seat 0 takes QH and goes gin::

        seat 0   C: . 2 3 4            seat 1   C: . . . . 5 . 7          K
                 D: . . . . . . 7               D: . . 3                  K
                 H: . . . . . . 7 . 9 10 J Q    H: . . . . . . . 8 . . . . K
                 S: . . . . . . 7 . . . . . K   S: . 2 . . . . . . 9 . . Q

    8H and 5C would fit seat 0's runs, but there are no lay-offs against gin. Seat 1 melds
    KC KD KH and keeps 44; seat 0 scores 44 + 25 = 69.
    """
    t = Table("2C 3C 4C 7D 7H 7S 9H 10H JH KS", "5C 7C 8H KC KD KH 2S 3D 9S QS", "QH")
    t.play("draw upcard", "knock")
    assert t.legal() == ["discard 9H", "discard QH", "discard KS"]    # each leaves <= 10
    t.play("KS", "lay meld 2C 3C 4C", "lay meld 7D 7H 7S")
    assert t.legal() == ["lay meld 9H 10H JH", "lay meld 10H JH QH", "lay meld 9H 10H JH QH"]
    t.play("lay meld 9H 10H JH QH", "pass")
    assert t.obs(1)["finished_layoffs"] is True
    assert t.legal() == ["pass", "lay meld KC KD KH"]
    assert t.reason("8H") == t.reason("5C") == K.R_LAYOFFS_OVER
    t.play("lay meld KC KD KH", "pass")
    assert t.returns() == [69.0, -69.0]
    assert t.obs(0)["deadwood"] == [0, 44]


def test_knocker_may_not_discard_to_deadwood_eleven():
    """Seat 0 takes QH and knocks::

        seat 0   C: . 2 3 4
                 D: . . . . 5 6 7
                 H: . . . . . . . . 9 10 J Q
                 S: . . . . . 6

    6S goes gin; 9H or QH leave a run of three and 6S (6). 4C leaves 2C 3C 6S = 11, 3C leaves
    2C 4C 6S = 12: one point over the knock card is as illegal as any other, by
    ``illegal_reason`` as well as by ``legal_actions``."""
    t = Table("2C 3C 4C 5D 6D 7D 9H 10H JH 6S", "AC AD AH AS KC KD KH KS 8C 8D", "QH")
    t.play("draw upcard")
    assert t.reason("knock") == 0
    t.play("knock")
    assert t.legal() == ["discard 9H", "discard QH", "discard 6S"]
    assert K.exact_deadwood(int(t.state[K.S_HAND]) ^ (1 << ids(["4C"])[0])) == 11
    for c in ("4C", "3C", "2C", "5D", "10H"):
        assert t.reason(c) == K.R_KNOCK_DISCARD, c
    for c in ("9H", "QH", "6S"):
        assert t.reason(c) == 0, c


def test_undercut_and_tie():
    """Seat 0 knocks with 9S (9) after taking KS::

        seat 0   C: . 2 3 4            seat 1   C: . . . . . . . . . . . Q
                 D: . . . . . . 7               D: . . . 4 5 6 . . . . . Q
                 H: . . . . . . 7 . 9 10 J      H: A
                 S: . . . . . . 7 . 9 . . . K   S: A 2 3 . . . . . . . . Q

    Seat 1 has nothing to lay off, melds three times and keeps AH (1): an undercut,
    1 - 9 = -8, minus 25 = -33 for the knocker. With 9D instead of AH it is a tie (9 - 9 = 0,
    no bonus).
    """
    for last, expected in (("AH", [-33.0, 33.0]), ("9D", [0.0, 0.0])):
        t = Table("2C 3C 4C 7D 7H 7S 9H 10H JH 9S", f"AS 2S 3S 4D 5D 6D QC QD QS {last}", "KS")
        t.play("draw upcard", "knock", "KS", "lay meld 2C 3C 4C", "lay meld 7D 7H 7S", "lay meld 9H 10H JH")
        t.play("pass")
        assert t.legal() == ["pass"]
        t.play("pass")
        assert t.legal() == ["pass", "lay meld QC QD QS", "lay meld 4D 5D 6D", "lay meld AS 2S 3S"]
        t.play("lay meld QC QD QS", "lay meld 4D 5D 6D", "lay meld AS 2S 3S", "pass")
        assert t.returns() == expected


def test_layoffs_extend_a_run_one_step_per_end():
    """OpenSpiel's AllLayoffs: a run takes the card beyond each end *as laid*, and once that is
    laid off, one more. Seat 0 knocks with AC (1) after taking KD::

        seat 0   C: A 2 3 4            seat 1   C: . . . . . . . . . . J . K
                 D: . 2 3 4 . . . . . . . . K   D: . . . . . . . . . . . Q
                 S: . . . . 5 6 7               H: . . . . . 6 . . . . . . K
                                                S: . . . 4 . . . 8 9 10 . . K

    After 8S and 9S are laid off on 5S-7S, 10S is not offered. Seat 1 keeps 10S QD JC 6H = 36.
    """
    t = Table("5S 6S 7S 2C 3C 4C 2D 3D 4D AC", "4S 8S 9S 10S KC KH KS QD JC 6H", "KD")
    t.play("draw upcard", "knock")
    assert t.legal() == ["discard AC", "discard 4C", "discard KD"]
    t.play("KD")
    assert t.legal() == ["lay meld AC 2C 3C", "lay meld 2C 3C 4C", "lay meld 2D 3D 4D",
                         "lay meld 5S 6S 7S", "lay meld AC 2C 3C 4C"]
    t.play("lay meld 5S 6S 7S", "lay meld 2C 3C 4C", "lay meld 2D 3D 4D", "pass")
    assert t.legal() == ["lay off 4S", "lay off 8S", "pass"]
    t.play("lay off 8S")
    assert t.legal() == ["lay off 4S", "lay off 9S", "pass"]
    t.play("lay off 9S")
    assert t.legal() == ["lay off 4S", "pass"]
    assert t.reason("10S") == K.R_LAYOFF_NO_FIT
    t.play("lay off 4S", "pass")
    assert t.legal() == ["pass", "lay meld KC KH KS"]
    t.play("lay meld KC KH KS", "pass")
    assert t.returns() == [35.0, -35.0]


def test_knocker_melds_must_keep_deadwood_reachable():
    """The knocker may lay only melds that belong to an arrangement with deadwood <= 10::

        seat 0   C: A . . . . . 7       seat 1   C: . . . . . . . . 9 10 J Q
                 D: . . . . . . 7                D: . 2 . . . . . . . . . Q
                 H: . . . . 5 6 7                H: . . 3 . . . . 8 . . . Q
                 S: . 2 3 4 . . 7 . . . . . K    S: . . . . 5

    Laying the four 7s (or any three of them but 7C 7D 7S) strands 5H 6H. Seat 1 lays off 8H
    and 5S, melds and keeps 2D 3H (5): 5 - 1 = 4.
    """
    t = Table("5H 6H 7H 7C 7D 7S 2S 3S 4S AC", "8H 5S QC QD QH 9C 10C JC 2D 3H", "KS")
    t.play("draw upcard", "knock", "KS")
    assert t.legal() == ["lay meld 7C 7D 7S", "lay meld 5H 6H 7H", "lay meld 2S 3S 4S"]
    for meld in ("7C 7D 7H 7S", "7C 7D 7H", "7D 7H 7S"):
        assert t.reason("lay meld " + meld) == K.R_MELD_DEADWOOD
    assert t.reason("lay meld 5H 6H 7H 8H") == K.R_MELD_NOT_IN_HAND
    t.play("lay meld 7C 7D 7S", "lay meld 5H 6H 7H", "lay meld 2S 3S 4S", "pass")
    assert t.legal() == ["lay off 8H", "lay off 5S", "pass"]
    t.play("lay off 8H", "lay off 5S", "pass", "lay meld QC QD QH", "lay meld 9C 10C JC", "pass")
    assert t.returns() == [4.0, -4.0]


WALL_P0 = "KC QD JH 10S 9C 8D 6S 5C 4H 3S"      # no meld: 75 points


def _to_the_wall(p1, last_draw):
    """Both seats pass the upcard, then draw from the stock and throw the drawn card back 29
    times (31 -> 2 stock cards); seat 0's last throw is ``last_draw``."""
    used = set(ids(WALL_P0.split() + p1.split() + ["QC"]))
    others = [c for c in range(52) if c not in used and c != ids([last_draw])[0]]
    draws = [format_card("gin", c) for c in others[:28]] + [last_draw]
    t = Table(WALL_P0, p1, "QC", draws=draws)
    t.play("pass", "pass")
    for i in range(29):
        assert t.obs(0)["stock_size"] == 31 - i
        card = t.play("draw stock")
        assert format_card("gin", card) == draws[i]
        t.play(card)
    assert (t.phase, K.current_player(t.state), t.obs(1)["stock_size"]) == (K.PH_WALL, 1, 2)
    return t


def test_wall_pass_is_a_draw():
    """Nobody draws from the last two stock cards: at the wall seat 1 (no knock) passes and the
    game is a draw."""
    t = _to_the_wall("KD QH JS 10C 9D 8H 7S 6C 5D 4C", "2S")
    assert t.legal() == ["pass"]
    assert t.reason("draw stock") == t.reason("draw upcard") == K.R_WALL
    assert t.reason("knock") == K.R_KNOCK_DEADWOOD
    t.play("pass")
    assert K.is_terminal(t.state) and t.returns() == [0.0, 0.0] and t.obs(0)["end"] == "wall"


def test_wall_knock_takes_the_upcard():
    """At the wall seat 1 may knock with the upcard 2S counted in its hand::

        seat 1   C: A 2 3         D: . . . 4 5 6     H: . . . . . . 7 8 9    S: . 2* . . . K

    It takes 2S, discards KS, melds and keeps 2S (2). Seat 0 (75, nothing to lay off) loses 73.
    """
    t = _to_the_wall("AC 2C 3C 4D 5D 6D 7H 8H 9H KS", "2S")
    assert t.legal() == ["pass", "knock"]
    t.play("knock")
    o = t.obs(0)
    assert o["phase"] == "knock" and o["upcard"] is None and o["known_cards"][1] == ["2S"]
    assert t.legal() == ["discard 2S", "discard KS"]     # AC would leave 2C 3C 2S KS = 17
    t.play("KS", "lay meld AC 2C 3C", "lay meld 4D 5D 6D", "lay meld 7H 8H 9H", "pass")
    assert t.legal() == ["pass"]
    t.play("pass", "pass")
    assert t.returns() == [-73.0, 73.0]


def test_fiftieth_upcard_draw_is_a_draw():
    """Taking the upcard in the Draw phase for the 50th time (both seats together; the
    first-upcard take does not count) ends the game as a draw, and the card is not taken."""
    t = Table("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D", "KS")
    t.play("draw upcard", "AC")                 # not counted
    for n in range(1, 50):
        t.play("draw upcard")
        seat = K.current_player(t.state)
        taken = int(t.state[K.S_PREV_UPCARD])
        t.play(next(c for c in ids(t.hand(seat)) if c != taken))
        assert t.obs(0)["upcard_draws"] == n
    up = t.obs(0)["upcard"]
    seat = K.current_player(t.state)
    t.play("draw upcard")
    o = t.obs(seat)
    assert K.is_terminal(t.state) and o["end"] == "upcard_limit" and o["upcard_draws"] == 50
    assert o["upcard"] == up and len(o["hand"]) == 10 and t.returns() == [0.0, 0.0]


def test_repeated_move_draw():
    """Two discards in a row, one by each seat, that each give back the upcard just taken end
    the game as a draw; a different discard or a stock draw in between resets the count."""
    p0, p1 = "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C", "AD 2D 3D 4D 5D 6D 7D 8D 9D 10D"
    t = Table(p0, p1, "KS")
    t.play("draw upcard", "KS")
    assert t.obs(1)["repeated_move"] is True
    t.play("draw upcard", "KS")
    assert K.is_terminal(t.state) and t.obs(0)["end"] == "repeated_move" and t.returns() == [0.0, 0.0]

    t = Table(p0, p1, "KS")
    t.play("draw upcard", "KS", "draw upcard", "AD")     # KS back, then AD: reset
    assert t.obs(0)["repeated_move"] is False
    t.play("draw upcard", "AD")                          # AD back: armed
    assert not K.is_terminal(t.state) and t.obs(0)["repeated_move"] is True
    t.play("draw upcard", "AD")                          # and back again: over
    assert t.obs(0)["end"] == "repeated_move"

    t = Table(p0, p1, "KS", draws=["QS"])
    t.play("draw upcard", "KS", "draw stock", "QS")      # a stock draw resets it
    assert t.obs(0)["repeated_move"] is False and t.obs(0)["prev_upcard"] == "KS"
    t.play("draw upcard", "QS")
    assert not K.is_terminal(t.state)


def test_knock_is_counted_as_openspiel_counts_it():
    """RULES.md §5: the knock follows OpenSpiel, which counts the first best arrangement of all 11
    cards less the highest card left over. ``AS 4S 5S 6S 3C 5D 6D 3H 4H 5H 6H`` melds 33 points
    either as the sets of fives and sixes or as the runs 4S-6S, 3H-6H; OpenSpiel lists the sets
    first, leaving AS 4S 3C 3H 4H less 4 = 11, so the knock is refused (the runs and a discard of
    6D would leave 9). Another hand, ``AS 2S 3S 4C 5C 6C 7S 8S 9S 5D`` taking 4D, melds A-3S, 4-6C,
    7-9S in its only best arrangement and leaves 5D 4D less 5 = 4: the knock is legal."""
    hand = "AS 4S 5S 6S 3C 5D 3H 4H 5H 6H"
    t = Table(hand, "KC QC JD 9D 7C 2H 8H KH QS 10S", "6D")
    assert t.reason("knock") == K.R_FIRST_UPCARD
    t.play("draw upcard")
    assert "knock" not in t.legal()
    before = t.state.copy()
    assert t.reason("knock") == K.R_KNOCK_DEADWOOD
    assert "OpenSpiel" in gin.REASONS[K.R_KNOCK_DEADWOOD]
    assert (t.state == before).all()
    assert min(analyze_hand("gin", [c for c in (hand + " 6D").split() if c != d]).deadwood_points
               for d in (hand + " 6D").split()) == 9
    t1 = Table("AS 2S 3S 4C 5C 6C 7S 8S 9S 5D", "KC QC JD 9D 7C 2H 8H KH QS 10S", "4D")
    t1.play("draw upcard")
    assert t1.legal()[-1] == "knock"
    t1.play("knock")
    assert t1.legal() == ["discard 4D", "discard 5D"]
    t2 = Table("AS 4S 5S 6S 3C 5D 3H 4H 5H 9C", "KC QC JD 9D 7C 2H 8H KH QS 10S", "6D")
    t2.play("draw upcard")
    assert "knock" not in t2.legal() and t2.reason("knock") == K.R_KNOCK_DEADWOOD
    assert t2.reason("draw stock") == K.R_MUST_DISCARD
    t2.play("9C")
    assert t2.reason("9C") == K.R_MUST_DRAW and t2.reason("lay meld 7D 7H 7S") == K.R_MUST_DRAW
    assert t2.reason(241) == t2.reason(-1) == K.R_NO_SUCH_ACTION


# ---- random play ------------------------------------------------------------------------------
ERR_NONE, ERR_CONSERVATION, ERR_ORDER, ERR_LEGAL_MISMATCH, ERR_LENGTH, ERR_RETURNS = range(6)


@njit
def _card_mask(state):
    """(union, total count) of every card zone of a state."""
    union = 0
    count = 0
    for m in (state[K.S_HAND], state[K.S_HAND + 1]):
        union |= m
        count += K.popcount(m)
    for i in range(state[K.S_STOCK_SIZE]):
        union |= K.bit(state[K.S_STOCK + i])
        count += 1
    for i in range(state[K.S_DISCARD_COUNT]):
        union |= K.bit(state[K.S_DISCARDS + i])
        count += 1
    if state[K.S_UPCARD] >= 0:
        union |= K.bit(state[K.S_UPCARD])
        count += 1
    for p in range(2):
        for i in range(state[K.S_MELD_COUNT + p]):
            m = K.MELD_MASK[state[K.S_MELDS + p * K.MAX_MELDS_LAID + i]]
            union |= m
            count += K.popcount(m)
    for i in range(state[K.S_LAYOFF_COUNT]):
        union |= K.bit(state[K.S_LAYOFFS + i])
        count += 1
    return union, count


@njit
def _check_random_games(params, seed, n, stats):
    """Plays n uniformly random games; checks every step. stats: [0..4] endings by S_END,
    5 actions, 6 error code, 7 game, 8 step."""
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    is_legal = np.zeros(K.NUM_ACTIONS, np.bool_)
    out = np.zeros(2)
    for g in range(n):
        state = K.new_state(params, seed + g)
        step = 0
        while not K.is_terminal(state):
            union, count = _card_mask(state)
            if union != K.ALL_CARDS or count != 52:
                stats[6], stats[7], stats[8] = ERR_CONSERVATION, g, step
                return
            k = K.legal_actions(state, buf)
            is_legal[:] = False
            for i in range(k):
                if (i > 0 and buf[i] <= buf[i - 1]) or buf[i] < 0 or buf[i] >= K.NUM_ACTIONS:
                    stats[6], stats[7], stats[8] = ERR_ORDER, g, step
                    return
                is_legal[buf[i]] = True
            for a in range(K.NUM_ACTIONS):
                if (K.illegal_reason(state, a) == 0) != is_legal[a]:
                    stats[6], stats[7], stats[8] = ERR_LEGAL_MISMATCH, g, step
                    return
            a = buf[K.below(state, K.S_RNG, k)]
            K.apply_action(state, a)
            step += 1
            if step > 1000:
                stats[6], stats[7], stats[8] = ERR_LENGTH, g, step
                return
        union, count = _card_mask(state)
        K.returns(state, out)
        bad = union != K.ALL_CARDS or count != 52 or out[0] + out[1] != 0
        if state[K.S_END] == K.END_KNOCK:
            kn = state[K.S_KNOCKER]
            dk = K.hand_value(state[K.S_HAND + kn])
            do = K.hand_value(state[K.S_HAND + 1 - kn])
            r = do - dk + (25 if dk == 0 else 0)
            if r < 0:
                r -= 25
            bad = bad or dk > 10 or dk != state[K.S_DEADWOOD + kn] or do != state[K.S_DEADWOOD + 1 - kn]
            bad = bad or out[kn] != r
        else:
            bad = bad or out[0] != 0
        if bad:
            stats[6], stats[7], stats[8] = ERR_RETURNS, g, step
            return
        stats[state[K.S_END]] += 1
        stats[5] += step


def test_random_play_invariants():
    """2,000 uniformly random games: cards conserved at every step, legal_actions ascending and
    equal to {a : illegal_reason(a) == 0} over all 241 ids, every game ends, and the returns
    sum to zero and follow the scoring formula."""
    stats = np.zeros(9, np.int64)
    _check_random_games(PARAMS, np.int64(1), 2000, stats)
    assert stats[6] == ERR_NONE, stats
    ends = stats[:5]
    assert ends.sum() == 2000 and ends[K.END_NONE] == 0
    assert ends[K.END_KNOCK] > 0 and ends[K.END_WALL] > 0 and ends[K.END_REPEATED] > 0


def _random_walk(seed, stop):
    """A state after ``stop`` random actions (or at the end), and the actions played."""
    state = K.new_state(PARAMS, np.int64(seed))
    rng = random.Random(seed)
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    played = []
    while not K.is_terminal(state) and len(played) < stop:
        n = K.legal_actions(state, buf)
        a = int(buf[rng.randrange(n)])
        K.apply_action(state, a)
        played.append(a)
    return state, played


def test_determinism():
    for seed in range(50):
        a = K.new_state(PARAMS, np.int64(seed))
        b = K.new_state(PARAMS, np.int64(seed))
        assert np.array_equal(a, b)
        _, played = _random_walk(seed, 10_000)
        for action in played:
            assert K.apply_action(a, action) == K.apply_action(b, action)
            assert np.array_equal(a, b)
        c, d = K.new_state(PARAMS, np.int64(seed)), K.new_state(PARAMS, np.int64(seed))
        assert K.random_playout(c, np.int64(7)) == K.random_playout(d, np.int64(7))
        assert np.array_equal(c, d)
    assert not np.array_equal(K.new_state(PARAMS, np.int64(1)), K.new_state(PARAMS, np.int64(2)))
    assert K.random_games(PARAMS, np.int64(3), 20) == K.random_games(PARAMS, np.int64(3), 20)


def _observe(state, seat):
    out = np.zeros(K.OBS_SIZE, np.int64)
    K.observe(state, seat, out)
    return out


def _legal(state):
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    return buf[:K.legal_actions(state, buf)].tolist()


def test_determinize_is_consistent_with_the_observation():
    """Resampling the opponent's hidden cards and the stock keeps the seat's observation, its
    own hand, the opponent's known cards, and (on its turn) its legal moves."""
    rng = random.Random(5)
    differed = 0
    for seed in range(300):
        state, _ = _random_walk(seed, rng.randrange(0, 120))
        for seat in (0, 1):
            obs = _observe(state, seat)
            assert np.array_equal(gin.observation_array(gin.observation_dict(obs, None)), obs)
            opp = 1 - seat
            hidden_before = int(state[K.S_HAND + opp]) & ~int(state[K.S_KNOWN + opp])
            for s in range(4):
                det = K.determinize(obs, np.int64(1000 * seed + s))
                assert np.array_equal(_observe(det, seat), obs)
                assert det[K.S_HAND + seat] == state[K.S_HAND + seat]
                assert det[K.S_HAND + opp] & state[K.S_KNOWN + opp] == state[K.S_KNOWN + opp]
                union, count = _card_mask(det)
                assert union == K.ALL_CARDS and count == 52
                if K.current_player(state) == seat:
                    assert _legal(det) == _legal(state)
                differed += (int(det[K.S_HAND + opp]) & ~int(state[K.S_KNOWN + opp])) != hidden_before
                if s == 0:   # play on from the sample
                    K.random_playout(det, np.int64(seed))
                    assert K.is_terminal(det)
    assert differed > 1000


def test_observation_ignores_hidden_cards():
    """Swapping hidden cards between the opponent's hand and the stock, or reordering the stock,
    never changes the seat's observation."""
    rng = random.Random(11)
    for seed in range(300):
        state, _ = _random_walk(seed, rng.randrange(0, 120))
        for seat in (0, 1):
            opp = 1 - seat
            before = _observe(state, seat)
            other = state.copy()
            n = int(other[K.S_STOCK_SIZE])
            stock = other[K.S_STOCK:K.S_STOCK + n].tolist()
            rng.shuffle(stock)
            hidden = [c for c in range(52) if int(other[K.S_HAND + opp]) >> c & 1
                      and not int(other[K.S_KNOWN + opp]) >> c & 1]
            if hidden and stock:
                i, j = rng.randrange(len(hidden)), rng.randrange(n)
                other[K.S_HAND + opp] ^= (1 << hidden[i]) | (1 << stock[j])
                hidden[i], stock[j] = stock[j], hidden[i]
            other[K.S_STOCK:K.S_STOCK + n] = stock
            assert np.array_equal(_observe(other, seat), before)


def test_observation_json_validation():
    state, _ = _random_walk(3, 30)
    good = gin.observation_dict(_observe(state, 0), _legal(state) if K.current_player(state) == 0 else None)
    assert np.array_equal(gin.observation_array(good), _observe(state, 0))
    bad_cases = {
        "format": "other",
        "version": 2,
        "variant": "rami",
        "seat": 2,
        "phase": "Draw",
        "hand": ["ZZ"],
        "hand_sizes": [10],
        "stock_size": 40,
        "upcard": 7,
        "repeated_move": 1,
        "melds": [[["AC", "2C"]], []],
        "end": "knock",
        "parameters": {"knock_card": 5, "gin_bonus": 25, "undercut_bonus": 25},
    }
    for key, value in bad_cases.items():
        d = dict(good, **{key: value})
        with pytest.raises(MeldmindError):
            gin.observation_array(d)
    d = dict(good)
    del d["stock_size"]
    with pytest.raises(MeldmindError, match="stock_size"):
        gin.observation_array(d)
    d = dict(good, discard_pile=good["discard_pile"] + [good["hand"][0]])
    with pytest.raises(MeldmindError, match="zone"):
        gin.observation_array(d)
    with pytest.raises(MeldmindError):
        gin.observation_array([1, 2])
    # the history must lead to the piles, name known moves, and show only the seat's own cards
    assert any(e["move"] == "draw stock" and e["seat"] == 1 for e in good["history"])
    bad_histories = (
        (good["history"][:-2], "does not lead"),
        (good["history"] + [{"seat": 0, "move": "draw stock"}], "does not lead"),
        ([dict(e, card="AC") if e["seat"] == 1 else e for e in good["history"]], "own stock draws"),
        (good["history"][:1] + [{"seat": 0, "move": "shuffle"}], "unknown move"),
        (good["history"][:1] + [{"seat": 3, "move": "pass"}], "seat"),
        (good["history"][:1] + ["pass"], "must be an object"),
        ("pass", "list"),
    )
    for history, message in bad_histories:
        with pytest.raises(MeldmindError, match=message):
            gin.observation_array(dict(good, history=history))


def test_game_facade_plays_gin():
    game = new_game("gin", seed=9)
    assert sorted(m.text for m in game.legal_moves()) == ["draw upcard", "pass"]
    game.play("pass")
    game.play("draw upcard")
    obs = game.observation(1)
    assert obs["variant"] == "gin" and obs["phase"] == "discard" and len(obs["hand"]) == 11
    assert [m["type"] for m in obs["legal_moves"]][:11] == ["discard"] * 11
    assert type(game).from_json(game.to_json()).observation(0) == game.observation(0)


def _long_game(seed, take):
    """A random game; with ``take`` > 0 it is biased to long histories: it takes the upcard with
    probability ``take`` (never re-discarding it, so the repeated-move rule does not end the
    game) and never knocks."""
    state = K.new_state(PARAMS, np.int64(seed))
    rng = random.Random(seed)
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    played = []
    while not K.is_terminal(state):
        legal = buf[:K.legal_actions(state, buf)].tolist()
        calm = [a for a in legal if a != K.KNOCK and a != int(state[K.S_PREV_UPCARD])] if take else []
        if K.DRAW_UPCARD in calm and rng.random() < take:
            a = K.DRAW_UPCARD
        else:
            a = rng.choice(calm or legal)
        played.append((int(state[K.S_CURRENT]), int(state[K.S_PHASE]), a))
        K.apply_action(state, a)
    return state, played


def test_history_logs_every_move_and_hides_the_opponents_stock_cards():
    """The observation's history is every move played, in order, by seat; a stock draw shows
    its card to the drawer only; the JSON round-trips; no game outgrows MAX_HISTORY."""
    longest = 0
    for seed in range(150):
        state, played = _long_game(seed, take=(0.0, 0.3, 0.6, 0.9)[seed % 4])
        count = int(state[K.S_HISTORY_COUNT])
        longest = max(longest, count)
        assert count == len(played) <= K.MAX_HISTORY
        for seat in (0, 1):
            obs = _observe(state, seat)
            entries = gin.observation_dict(obs, None)["history"]
            assert len(entries) == len(played)
            for entry, (who, phase, action) in zip(entries, played):
                assert entry["seat"] == who
                assert entry["move"] == gin.action_text(action, phase)
                assert ("card" in entry) == (action == K.DRAW_STOCK and who == seat)
            assert np.array_equal(gin.observation_array(gin.observation_dict(obs, None)), obs)
    assert longest > 100
    assert {int(_long_game(seed, 0.0)[0][K.S_END]) for seed in range(40)} >= {K.END_KNOCK, K.END_WALL}


def test_after_a_knock_a_draw_or_a_knock_is_refused_with_what_the_phase_allows():
    """RULES.md §5: in the Knock and Layoff phases the players lay melds, lay off, discard (the
    knocker, first) or pass; a draw or another knock names what is allowed instead."""
    from meldmind import IllegalMove, new_game, suggest
    seen = set()
    for seed in range(40):
        game = new_game("gin", seed=seed)
        while not game.is_over and len(seen) < 2:
            observation = game.observation(game.to_move)
            phase = observation["phase"]
            knocker_discarded = phase == "knock" and len(observation["hand"]) == 10
            if phase == "layoff" or knocker_discarded:
                before = game.to_json()
                for text in ("draw stock", "draw upcard", "knock"):
                    with pytest.raises(IllegalMove, match="after a knock no one draws or knocks: "
                                                          "lay melds, lay off, or pass"):
                        game.play(text)
                assert game.to_json() == before
                seen.add(phase)
            game.play(suggest(observation, level="easy", seed=seed).move)
        if len(seen) == 2:
            break
    assert seen == {"knock", "layoff"}
