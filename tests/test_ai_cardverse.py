"""CardVerse AI levels (RULES.md §4.9, §6; docs/ai-contract.md): heuristic stories, legality over
random positions, information hygiene (hidden cards resampled => same observation, same move),
reproducibility, thread- and split-independence of the search, and play_game smoke tests.

Hands in the stories are drawn in comments; cards are parsed with the project's notation.
"""
import numba
import numpy as np
import pytest

from meldmind.cards import format_card, parse_cards
from meldmind.games import cardverse as CV
from meldmind.kernels import ai_cardverse as AI
from meldmind.kernels import cardverse as K
from meldmind.kernels.levels import BEGINNER, EASY, EXPERT, MASTER, NORMAL

LEVELS = (BEGINNER, EASY, NORMAL, EXPERT, MASTER)
SMALL_BUDGET = 3          # determinizations per search decision in the broad tests


def ids(text):
    return parse_cards("cardverse", text)


def mask(text):
    return sum(1 << c for c in ids(text))


def params(**options):
    return CV.make_params(options)


def deal(hands, stock="", discard="", *, seed=0, scores=None, **options):
    """A hand-1 state: ``hands`` one string per seat, ``stock`` top first, ``discard`` bottom ..
    top; every card not named goes to the bottom of the stock; ``scores`` default to 0."""
    p = params(num_players=len(hands), **options)
    named = set()
    hand_masks = []
    for h in hands:
        cs = ids(h)
        named.update(cs)
        hand_masks.append(sum(1 << c for c in cs))
    top = ids(stock)
    pile = ids(discard)
    named.update(top)
    named.update(pile)
    others = [c for c in range(52) if c not in named]
    st = K.state_from_deal(p, np.array(hand_masks, np.int64), np.array(pile, np.int64),
                           np.array(top + others, np.int64), seed, 1,
                           np.array(scores or [0] * len(hands), np.int64))
    return st


def legal_of(state):
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    n = K.legal_actions(state, buf)
    return buf[:n].copy()


def obs_of(state, seat=None):
    out = np.empty(K.OBS_SIZE, np.int64)
    K.observe(state, K.current_player(state) if seat is None else seat, out)
    return out


def heuristic(state, level, seed=0):
    legal = legal_of(state)
    rng = np.zeros(1, np.int64)
    rng[0] = seed
    return AI.policy(obs_of(state), legal, len(legal), level, rng)


def play(state, text):
    action = {CV.action_text(a): a for a in legal_of(state)}[text]
    K.apply_action(state, action)


def text(action):
    return CV.action_text(int(action))


# ---------------------------------------------------------------------------------------------
# Helper definitions (§4.9)
# ---------------------------------------------------------------------------------------------

def test_partial_melds_need_a_live_completing_card():
    # 5H 7H: gutshot, completed only by 6H. 9C 9D: completed by 9H or 9S.
    live = (1 << 52) - 1
    inside, pairs = AI._partials(mask("5H 7H 9C 9D KS"), live)
    assert inside == mask("5H 7H 9C 9D") and pairs == 2
    # 6H on the table (dead): 5H 7H is no partial meld any more
    inside, pairs = AI._partials(mask("5H 7H 9C 9D KS"), live & ~mask("6H"))
    assert inside == mask("9C 9D") and pairs == 1
    # K A of a suit: only Q completes it (no wrap after the ace)
    assert AI.COMPLETERS[ids("KS")[0], ids("AS")[0]] == mask("QS")
    assert AI.COMPLETERS[ids("AS")[0], ids("2S")[0]] == 0


def test_layable_cards_match_the_legal_layoffs():
    rng = np.random.default_rng(3)
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    checked = 0
    for g in range(60):
        st = K.new_state(params(), int(rng.integers(1 << 30)))
        for step in range(200):
            if K.is_terminal(st) or st[K.S_HAND_NO] != 1:
                break
            if st[K.S_PHASE] == K.PHASE_PLAY and st[K.S_TABLE_N] > 0:
                n = K.legal_actions(st, buf)
                laid = {((a - K.A_LAYOFF) // 3) % 52 for a in buf[:n] if a >= K.A_LAYOFF}
                hand = int(st[K.S_HAND + st[K.S_CURRENT]])
                got = int(AI._layable(obs_of(st))) & hand
                want = sum(1 << c for c in laid)
                if st[K.S_HAND_N + st[K.S_CURRENT]] >= 2:
                    assert got == want
                    checked += 1
            K.apply_action(st, AI.decide(st, NORMAL, 0, step))
    assert checked > 50


def test_feed_risk():
    # seat 0's view: table 5C 6C 7C; the next seat (1) took 9H from the discard and holds it
    st = deal(["2D 3D 8C 9D 9S KD JS", "4H 9H QD QH JD 2S 3S"], discard="KH")
    ob = obs_of(st, 0)
    ob[K.O_TABLE_MASK] = mask("5C 6C 7C")
    ob[K.O_TABLE_KIND] = K.KIND_RUN
    ob[K.O_TABLE_N] = 1
    ob[K.O_KNOWN + 1] = mask("9H")
    lay = AI._layable(ob)
    assert lay == mask("4C 8C")
    assert AI._feed_risk2(ob, ids("8C")[0], lay) == 2      # lays off on 5C 6C 7C
    assert AI._feed_risk2(ob, ids("9D")[0], lay) == 1      # partner of the known 9H
    assert AI._feed_risk2(ob, ids("10H")[0], lay) == 1     # 9H 10H: same suit, distance 1
    assert AI._feed_risk2(ob, ids("JS")[0], lay) == 0
    ob[K.O_KNOWN + 1] = mask("9H 9C")
    assert AI._feed_risk2(ob, ids("9D")[0], lay) == 2      # 9C 9D 9H completes a group


# ---------------------------------------------------------------------------------------------
# Easy (Kolay) and normal stories
# ---------------------------------------------------------------------------------------------

def test_easy_takes_the_discard_only_to_meld_it():
    # seat 0: 5H 6H | KC KD | 2S 9C JD; discard top 7H completes 5H 6H 7H
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="7H")
    assert heuristic(st, EASY) == K.TAKE_DISCARD
    # top KH: KC KD KH is a group -> take; top 4C: nothing -> stock
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="KH")
    assert heuristic(st, EASY) == K.TAKE_DISCARD
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="4C")
    assert heuristic(st, EASY) == K.DRAW_STOCK


def test_easy_lays_everything_then_dumps_the_highest_single():
    # seat 0 after taking 7H: 5H 6H 7H | KC KD | JD | 2S 9C -> lay 5H 6H 7H, then discard 9C
    # (KC KD is a partial meld, KH and KS being live; JD KD too, QD being live; singles 2S 9C)
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="7H")
    play(st, "take discard")
    a = heuristic(st, EASY)
    assert text(a) == "lay meld 5H 6H 7H"
    K.apply_action(st, a)
    assert text(heuristic(st, EASY)) == "discard 9C"


def test_easy_lays_off_and_respects_discard_to_win():
    # table run 5H 6H 7H (laid by seat 1); seat 0 holds 8H 4C: lays off 8H, discards 4C
    st = deal(["8H 4C 9S", "5H 6H 7H 2D 3D 4D KS"], stock="QC 10D", discard="AC")
    play(st, "draw stock")          # seat 0 draws QC
    play(st, "discard QC")
    play(st, "draw stock")          # seat 1 draws 10D
    play(st, "lay meld 5H 6H 7H")
    play(st, "discard 10D")
    play(st, "take discard")        # seat 0 takes 10D
    assert text(heuristic(st, EASY)).startswith("lay off 8H")
    # seat 0 down to 8H takes 9H after seat 1 laid 5H 6H 7H: lays off 8H, then 9H goes out;
    # with discard_to_win the last lay-off is illegal, so it discards 9H (its last card) instead
    for dtw, last in ((False, "lay off 9H"), (True, "discard 9H")):
        st = deal(["8H", "5H 6H 7H 2D 3D 4D KS"], stock="QC 9H", discard="AC",
                  discard_to_win=dtw)
        play(st, "draw stock")
        play(st, "discard QC")
        play(st, "draw stock")
        play(st, "lay meld 5H 6H 7H")
        play(st, "discard 9H")
        play(st, "take discard")
        assert text(heuristic(st, EASY)).startswith("lay off 8H")
        play(st, text(heuristic(st, EASY)))
        a = heuristic(st, EASY)
        assert text(a).startswith(last) and K.illegal_reason(st, a) == 0
        K.apply_action(st, a)
        assert st[K.S_LAST_WINNER] == 0 and st[K.S_HAND_NO] == 2


def test_normal_takes_the_discard_for_a_partial_meld_with_two_live_outs():
    # seat 0 singles include 9C; top 9D makes 9C 9D with 9H 9S live -> take
    st = deal(["2C 5D 9C KS 4H 7S JD", "3C 3D 4S 8D 8S QH AS"], discard="9D")
    assert heuristic(st, NORMAL) == K.TAKE_DISCARD
    assert heuristic(st, EASY) == K.DRAW_STOCK
    # same, but 9H is dead (in the discard pile): one live out -> stock
    st = deal(["2C 5D 9C KS 4H 7S JD", "3C 3D 4S 8D 8S QH AS"], discard="9H 9D")
    assert heuristic(st, NORMAL) == K.DRAW_STOCK
    # a gutshot (4H with top 6H) has one completing card -> stock
    st = deal(["2C 5D 9C KS 4H 7S JD", "3C 3D 4S 8D 8S QH AS"], discard="6H")
    assert heuristic(st, NORMAL) == K.DRAW_STOCK


def test_normal_discard_formula():
    # seat 0 after drawing 2H: KC KD (partial: 10 - 8 = 2) | 7S 2H 3D 9C AS (singles)
    # value - 8 [partial] - 6 feed_risk: 9C = 9 is the argmax
    st = deal(["KC KD 7S 3D 9C AS 4D", "QC QD 5S 8D 8S QH JS"], stock="2H", discard="10H")
    play(st, "draw stock")
    assert text(heuristic(st, NORMAL)) == "discard 9C"
    # the same hand for easy: highest single 9C too
    assert text(heuristic(st, EASY)) == "discard 9C"


# seat 0 holds KC KD (a partial meld: KH and KS are live) and AS; it draws 7H and lays 5H 6H 7H
TABLE_OF_THREE = ["KC KD AS 5H 6H", "2C 2D 9S 10S 4C", "3C 3D JS QS 4D"]


def deal_with_stock(hands, stock, stock_size, upcard):
    """``deal`` with a stock of ``stock_size`` cards, ``stock`` on top and cards no one named
    below; every other card in the discard pile, ``upcard`` on top."""
    named = set(ids(" ".join(hands) + " " + stock + " " + upcard))
    spare = [format_card("cardverse", c) for c in range(52) if c not in named]
    filler = stock_size - len(ids(stock))
    return deal(hands, stock=" ".join([stock] + spare[:filler]),
                discard=" ".join(spare[filler:] + [upcard]))


def _table_of_three(stock_size, upcard="10C"):
    """``TABLE_OF_THREE`` with 7H on the stock and KH and KS in it (live)."""
    return deal_with_stock(TABLE_OF_THREE, "7H KH KS", stock_size, upcard)


def test_normal_at_three_seats_keeps_a_partial_meld_while_draws_are_left():
    """Two seats, RULES' formula: the kings' partial meld counts 10 - 8 = 2 and the single AS 1,
    so normal throws a king. At three seats, with draws left to complete it, the partial meld is
    worth 16 points and more, and normal throws the ace; on its last draw (at most one card per
    seat in the stock) the hand will be scored by its value, and it throws a king."""
    for stock_size, thrown in ((21, "discard AS"), (4, "discard KD")):
        st = _table_of_three(stock_size)
        play(st, "draw stock")
        play(st, "lay meld 5H 6H 7H")
        assert text(heuristic(st, NORMAL)) == thrown, stock_size
    two_seats = deal(TABLE_OF_THREE[:2], stock="7H", discard="10C")
    play(two_seats, "draw stock")
    play(two_seats, "lay meld 5H 6H 7H")
    assert text(heuristic(two_seats, NORMAL)) == "discard KD"


def test_normal_at_three_seats_takes_a_low_upcard_on_its_last_draw():
    """2S melds with nothing: normal draws from the stock while it has draws left, and takes it
    on its last draw, where a 2 held instead of a king lowers the hand's value."""
    assert heuristic(_table_of_three(21, upcard="2S"), NORMAL) == K.DRAW_STOCK
    assert heuristic(_table_of_three(3, upcard="2S"), NORMAL) == K.TAKE_DISCARD
    assert heuristic(_table_of_three(3, upcard="5S"), NORMAL) == K.DRAW_STOCK


def test_normal_prefers_the_partition_that_keeps_partial_melds():
    # seat 0 after drawing 2S: JH QH KH KC KD AC 2S. Two best partitions, deadwood 21 each:
    #   run JH QH KH  -> leftover KC KD AC 2S: partial melds KC KD, KC AC (2)
    #   group KC KD KH -> leftover JH QH AC 2S: partial meld JH QH (1)
    # normal lays the run; easy lays the first biggest meld of a best partition (the group)
    st = deal(["JH QH KH KC KD AC", "3C 3D 4S 8D 8S QD AS"], stock="2S", discard="10C")
    play(st, "draw stock")
    assert text(heuristic(st, NORMAL)) == "lay meld JH QH KH"
    assert text(heuristic(st, EASY)) == "lay meld KC KD KH"


def test_masters_self_model_holds_melds_until_it_can_go_out():
    # seat 0 after drawing 2S: 5H 6H 7H | 9C KD 2S 4C; the opponent holds 7 cards: _holder keeps
    # the run and discards (normal would lay it)
    st = deal(["5H 6H 7H 9C KD 4C", "3C 3D 4S 8D 8S QD AS"], stock="2S", discard="10C")
    play(st, "draw stock")
    legal = legal_of(st)
    assert text(heuristic(st, NORMAL)) == "lay meld 5H 6H 7H"
    assert text(AI._holder(obs_of(st), legal, len(legal))) == "discard KD"
    # with one card outside the melds it lays everything and goes out
    st = deal(["5H 6H 7H 9C 9D 9S", "3C 3D 4S 8D 8S QD AS"], stock="2S", discard="10C")
    play(st, "draw stock")
    legal = legal_of(st)
    assert AI._category(AI._holder(obs_of(st), legal, len(legal))) == AI.CATEGORY_MELD


def test_masters_self_model_at_more_seats_lays_its_melds():
    """With two seats it holds the run, as in the test above; at three or four seats it lays it
    as normal does, whatever the stock holds."""
    hands = ["5H 6H 7H 9C KD 4C", "3C 3D 4S 8D 8S QD AS", "2C 2D JS 10S 6C", "JC JD 9S 4D 7D"]
    for seats, stock_size, holds in ((2, 30, True), (3, 21, False), (4, 11, False)):
        st = deal_with_stock(hands[:seats], "2S", stock_size, "10C")
        play(st, "draw stock")
        legal = legal_of(st)
        held = text(AI._holder(obs_of(st), legal, len(legal))) == "discard KD"
        assert held == holds and text(heuristic(st, NORMAL)) == "lay meld 5H 6H 7H", (seats,
                                                                                   stock_size)


def test_normal_holds_its_melds_in_a_hand_that_decides_the_game():
    """The hand of the tests above. Where every seat is within 20 points of the target, winning
    the hand most likely wins the game and points no longer count: normal then holds the run as
    master's self-model does (with two seats only), and lays it as RULES.md §4.9 says elsewhere.
    ``_normal`` stays RULES' heuristic."""
    hands = ["5H 6H 7H 9C KD 4C", "3C 3D 4S 8D 8S QD AS", "2C 2D JS 10S 6C"]
    for seats, target, scores, move in ((2, 100, [0, 0], "lay meld 5H 6H 7H"),
                                        (2, 1, [0, 0], "discard KD"),
                                        (2, 20, [0, 0], "discard KD"),
                                        (2, 21, [0, 0], "lay meld 5H 6H 7H"),
                                        (2, 100, [80, 95], "discard KD"),
                                        (2, 100, [79, 95], "lay meld 5H 6H 7H"),
                                        (3, 1, [0, 0, 0], "lay meld 5H 6H 7H")):
        st = deal(hands[:seats], stock="2S", discard="10C", target_score=target, scores=scores)
        play(st, "draw stock")
        legal = legal_of(st)
        assert text(heuristic(st, NORMAL)) == move, (seats, target, scores)
        assert text(AI._normal(obs_of(st), legal, len(legal))) == "lay meld 5H 6H 7H"


def test_opponent_model_weights():
    # seat 0 takes 9H and throws 2D; seat 1 draws 5C and throws it. Seat 0's view of seat 1:
    # it passed over 2D and threw 5C, so a sample where it holds 5D 5H (a group with 5C) and 2S
    # (a partner of 2D) weighs less than one with neither
    st = deal(["2D 3D 8C 9D 9S KD JS", "4H 10H QD QH JD 2S 3S"], stock="5C", discard="9H")
    play(st, "take discard")
    play(st, "discard 2D")
    play(st, "draw stock")
    play(st, "discard 5C")
    ob = obs_of(st, 0)
    assert ob[K.O_KNOWN] == mask("9H") and ob[K.O_KNOWN + 1] == 0
    sample = K.determinize(ob, 1)
    sample[K.S_HAND + 1] = mask("5D 5H QD QH JD 2S 3S")
    other = sample.copy()
    other[K.S_HAND + 1] = mask("4H 10H QD QH JD 6S 3S")
    assert AI._model_weight(other, ob) == 1.0
    assert AI._model_weight(sample, ob) == pytest.approx(AI.W_UNWANTED_MELD * AI.W_UNWANTED_PARTNER)
    # seat 0's own open pickup, seen by seat 1: a sample without a partner of 9H weighs less
    ob1 = obs_of(st, 1)
    sample = K.determinize(ob1, 2)
    sample[K.S_HAND] = mask("9H 2C 4C 6D KC KS QS")        # no 9, no 7H 8H 10H JH
    assert AI._model_weight(sample, ob1) <= AI.W_PICKUP_NO_PARTNER


def test_opponent_model_reads_who_threw_and_who_declined_each_card_with_three_players():
    # seat 0 throws 2D; seat 1 declines it and throws 5C; seat 2 declines 5C and throws KH.
    # Seen from seat 0, KH is evidence against seat 2 only and 2D against seat 1 only.
    st = deal(["2D 3C 8C 9D 9S KD JS AC AD AH", "4H 10H QD QH JD 2S 3S 6C 7D 8H",
               "6H 7S 9C 10C JC QC 3H 4D 5S 6S"], stock="KC 5C KH", discard="7C")
    play(st, "draw stock")
    play(st, "discard 2D")
    play(st, "draw stock")
    play(st, "discard 5C")
    play(st, "draw stock")
    play(st, "discard KH")
    ob = obs_of(st, 0)
    assert ob[K.O_DISCARDED + 1] == mask("5C") and ob[K.O_DECLINED + 1] == mask("2D")
    assert ob[K.O_DISCARDED + 2] == mask("KH") and ob[K.O_DECLINED + 2] == mask("5C")
    assert ob[K.O_DECLINED] == mask("7C") and ob[K.O_DISCARDED] == mask("2D")
    sample = K.determinize(ob, 3)
    sample[K.S_HAND + 1] = mask("10H QD JD 7S 8S 9H 7D 8H 10S 6D")   # no partner of any evidence
    sample[K.S_HAND + 2] = mask("2H 3H 4S 6S 9C 10C JC QC 4D 2C")
    assert AI._model_weight(sample, ob) == 1.0

    def weight_with(seat, out, cards):
        other = sample.copy()
        other[K.S_HAND + seat] = (sample[K.S_HAND + seat] & ~mask(out)) | mask(cards)
        return AI._model_weight(other, ob)

    # JH QH make a run with KH: only seat 2 threw KH
    assert weight_with(1, "7S 8S", "JH QH") == 1.0
    assert weight_with(2, "2C 6S", "JH QH") == pytest.approx(AI.W_UNWANTED_MELD)
    # 3D pairs with 2D: only seat 1 passed it over
    assert weight_with(1, "7S", "3D") == pytest.approx(AI.W_UNWANTED_PARTNER)
    assert weight_with(2, "2C", "3D") == 1.0


def test_tie_breaks_prefer_the_higher_rank_then_the_higher_suit():
    # singles of value 10: JD QC KC -> KC; all spades vs clubs of same rank -> spade
    assert AI._best_card(mask("JD QC KC 4S"), 0) == ids("KC")[0]
    assert AI._best_card(mask("KC KS KD 2H"), 0) == ids("KS")[0]
    assert AI._best_card(mask("AC KS"), 1) == ids("AC")[0]          # ace_high: A = 11
    assert AI._best_card(mask("AC 2S"), 0) == ids("2S")[0]


# ---------------------------------------------------------------------------------------------
# Every level plays legal moves
# ---------------------------------------------------------------------------------------------

OPTION_SETS = [
    {},
    {"num_players": 3},
    {"num_players": 4},
    {"discard_to_win": True},
    {"ace_high": True, "no_immediate_rediscard": False},
    {"num_players": 3, "discard_to_win": True, "ace_high": True},
    {"num_players": 4, "no_immediate_rediscard": False, "target_score": 50},
]


def random_positions(count, seed):
    """Positions reached by mixed play (random and heuristic moves), over the option sets."""
    rng = np.random.default_rng(seed)
    out = []
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    while len(out) < count:
        options = OPTION_SETS[len(out) % len(OPTION_SETS)]
        st = K.new_state(params(**options), int(rng.integers(1 << 40)))
        steps = int(rng.integers(0, 120))
        for step in range(steps):
            if K.is_terminal(st):
                break
            n = K.legal_actions(st, buf)
            if rng.random() < 0.5:
                a = buf[rng.integers(n)]
            else:
                a = AI.decide(st, NORMAL, 0, step)
            K.apply_action(st, a)
        if not K.is_terminal(st):
            out.append(st.copy())
    return out


def test_every_level_plays_legal_moves():
    positions = random_positions(320, 11)
    seen_players = set()
    for i, st in enumerate(positions):
        seen_players.add(int(st[K.S_NUM_PLAYERS]))
        legal = set(legal_of(st).tolist())
        for level in LEVELS:
            a = AI.decide(st, level, SMALL_BUDGET, i)
            assert a in legal, (i, level, a)
            assert K.illegal_reason(st, a) == 0
    assert seen_players == {2, 3, 4}


def test_policy_returns_minus_one_without_moves():
    st = K.new_state(params(), 1)
    empty = np.empty(K.NUM_ACTIONS, np.int64)
    assert AI.policy(obs_of(st), empty, 0, EASY, np.zeros(1, np.int64)) == -1


def test_beginner_picks_a_category_uniformly():
    # PLAY with melds, lay-offs and discards: lay meld should come up ~1/3 of the time
    st = deal(["5H 6H 7H 2C 9D 8H", "3C 3D 4S 8D 8S QH AS"], stock="KS", discard="AC")
    play(st, "draw stock")
    legal = legal_of(st)
    cats = [AI._category(a) for a in legal]
    assert set(cats) == {AI.CATEGORY_MELD, AI.CATEGORY_DISCARD}
    rng = np.zeros(1, np.int64)
    picks = [AI._category(AI.policy(obs_of(st), legal, len(legal), BEGINNER, rng))
             for _ in range(2000)]
    share = picks.count(AI.CATEGORY_MELD) / len(picks)
    assert 0.45 < share < 0.55


# ---------------------------------------------------------------------------------------------
# Information hygiene: resampling what the seat cannot see changes nothing
# ---------------------------------------------------------------------------------------------

def resample_hidden(state, seat, rng):
    """Another full state with the same observation for ``seat``: the cards it cannot see
    (opponents' unknown cards and the stock) permuted among those places."""
    alt = state.copy()
    n = int(alt[K.S_NUM_PLAYERS])
    slots = []          # (kind, index) of every hidden card place
    cards = []
    for p in range(n):
        if p == seat:
            continue
        hidden = int(alt[K.S_HAND + p]) & ~int(alt[K.S_KNOWN + p])
        for c in range(52):
            if hidden >> c & 1:
                slots.append(("hand", p))
                cards.append(c)
    for i in range(int(alt[K.S_STOCK_N])):
        slots.append(("stock", i))
        cards.append(int(alt[K.S_STOCK + i]))
    perm = rng.permutation(len(cards))
    for p in range(n):
        if p != seat:
            alt[K.S_HAND + p] = alt[K.S_KNOWN + p]
    for (kind, where), j in zip(slots, perm):
        c = cards[j]
        if kind == "hand":
            alt[K.S_HAND + where] |= 1 << c
        else:
            alt[K.S_STOCK + where] = c
    alt[K.S_RNG] = rng.integers(1 << 62)        # later deals are hidden too
    return alt


@pytest.mark.parametrize("level", LEVELS)
def test_choice_unchanged_when_hidden_cards_are_resampled(level):
    rng = np.random.default_rng(100 + level)
    positions = random_positions(60, 200 + level)
    changed = 0
    for i, st in enumerate(positions):
        seat = K.current_player(st)
        base_obs = obs_of(st, seat)
        move = AI.decide(st, level, SMALL_BUDGET, 77 + i)
        for k in range(3):
            alt = resample_hidden(st, seat, rng) if k < 2 else K.determinize(base_obs, 1000 + i)
            if not np.array_equal(alt, st):
                changed += 1
            np.testing.assert_array_equal(obs_of(alt, seat), base_obs)
            assert AI.decide(alt, level, SMALL_BUDGET, 77 + i) == move, (i, k)
    assert changed > 100


# ---------------------------------------------------------------------------------------------
# Reproducibility and the search contract
# ---------------------------------------------------------------------------------------------

def search_positions():
    buf = np.empty(K.NUM_ACTIONS, np.int64)
    return [st for st in random_positions(40, 5) if K.legal_actions(st, buf) > 2][:12]


@pytest.mark.parametrize("level", (EXPERT, MASTER))
def test_same_seed_same_move_and_statistics(level):
    for i, st in enumerate(search_positions()):
        ob = obs_of(st)
        first = [AI.choose(ob, level, 8, 5 + i, True) for _ in range(2)]
        assert first[0] == first[1]
        v1, n1 = run_search(ob, level, 5 + i, [(0, 8)])
        v2, n2 = run_search(ob, level, 5 + i, [(0, 8)])
        np.testing.assert_array_equal(v1, v2)
        np.testing.assert_array_equal(n1, n2)


@pytest.mark.parametrize("level", (EXPERT, MASTER))
def test_a_move_that_goes_out_is_scored_by_the_hand_it_ends(level):
    # seat 0 draws 4S to 4D 4H: laying the group empties the hand and wins it, so on every
    # determinization that move returns the opponent's hand value, a gain (the playout must not
    # go on into the next hand and score that one instead)
    st = deal(["4D 4H", "2C 9D KS 5H 7C 8S JD"], stock="4S")
    play(st, "draw stock")
    ob = obs_of(st)
    go_out = {text(a): a for a in legal_of(st)}["lay meld 4D 4H 4S"]
    for k in range(20):
        values, visits = run_search(ob, level, 7, [(k, 1)])
        assert visits[go_out] == 1 and values[go_out] > 0
    assert AI.choose(ob, level, 20, 7, False) == go_out


def run_search(ob, level, seed, chunks, threads=None):
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    old = numba.get_num_threads()
    if threads:
        numba.set_num_threads(threads)
    try:
        for first, count in chunks:
            AI.search(ob, level, seed, first, count, values, visits)
    finally:
        numba.set_num_threads(old)
    return values, visits


@pytest.mark.parametrize("level", (EXPERT, MASTER))
def test_search_is_independent_of_threads_and_of_splitting(level):
    for i, st in enumerate(search_positions()[:6]):
        ob = obs_of(st)
        v1, n1 = run_search(ob, level, 9 + i, [(0, 10)], threads=1)
        v2, n2 = run_search(ob, level, 9 + i, [(0, 10)], threads=numba.config.NUMBA_NUM_THREADS)
        v3, n3 = run_search(ob, level, 9 + i, [(0, 3), (3, 1), (4, 6)],
                            threads=min(2, numba.config.NUMBA_NUM_THREADS))
        v4 = np.zeros(K.NUM_ACTIONS)
        n4 = np.zeros(K.NUM_ACTIONS, np.int64)
        AI.search_serial(ob, level, 9 + i, 0, 10, v4, n4)
        for v, nn in ((v2, n2), (v3, n3), (v4, n4)):
            np.testing.assert_array_equal(v1, v)
            np.testing.assert_array_equal(n1, nn)
        legal = legal_of(st)
        assert (n1[legal] == 10).all() and n1.sum() == 10 * len(legal)
        assert np.all(np.abs(v1[legal] / 10) <= 1.0)


def test_default_iterations():
    assert [AI.default_iterations(level) for level in (BEGINNER, EASY, NORMAL)] == [0, 0, 0]
    # the budgets README.md documents (and its strength and speed figures were measured at)
    assert AI.default_iterations(EXPERT) == 400
    assert AI.default_iterations(MASTER) == 1000


def test_pick_plays_the_best_mean_and_master_bluffs_within_the_margin():
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="KH")
    ob = obs_of(st)
    legal = legal_of(st)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    runs = AI.EXPERT_ITERATIONS      # the credit of the heuristic's move is PRIOR_POINTS
    visits[:2] = runs
    values[K.TAKE_DISCARD] = 0.2 * runs          # take: +0.2, stock: +0.1
    values[K.DRAW_STOCK] = 0.1 * runs
    assert AI.pick(ob, values, visits, legal, len(legal), EXPERT, 1) == K.TAKE_DISCARD
    assert AI.pick(ob, values, visits, legal, len(legal), MASTER, 1) == K.TAKE_DISCARD
    # within the bluff margin (the heuristic's own move, take, has PRIOR_POINTS of credit)
    # master hides its meld and draws from the stock, with probability BLUFF_RATE
    close = 0.2 + (AI.PRIOR_POINTS - 0.5 * AI.BLUFF_MARGIN_POINTS) / 100
    values[K.DRAW_STOCK] = close * runs
    picks = [AI.pick(ob, values, visits, legal, len(legal), MASTER, seed) for seed in range(200)]
    assert 0.6 < picks.count(K.DRAW_STOCK) / 200 < 0.9
    assert all(AI.pick(ob, values, visits, legal, len(legal), EXPERT, seed) == K.TAKE_DISCARD
               for seed in range(20))
    # outside the margin it never bluffs
    values[K.DRAW_STOCK] = (close - AI.BLUFF_MARGIN_POINTS / 100) * runs
    assert all(AI.pick(ob, values, visits, legal, len(legal), MASTER, seed) == K.TAKE_DISCARD
               for seed in range(200))



@pytest.mark.parametrize("target", [1, 5, 50, 100, 400])
def test_a_point_of_credit_stays_small_when_one_hand_decides_the_game(target):
    """A point is 1/target of a hand's return, but pick counts it as at a target of
    CREDIT_TARGET or more: at target 1 a point's share would be a whole game, and the
    heuristic's move would win over a move the search scores far better. Take is normal's move;
    stock leads it by just over the credit, then by just under it."""
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="KH", target_score=target)
    ob = obs_of(st)
    legal = legal_of(st)
    point = 1 / max(target, 100)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    runs = AI.EXPERT_ITERATIONS
    visits[:2] = runs
    for lead, chosen in ((1.01, K.DRAW_STOCK), (0.99, K.TAKE_DISCARD)):
        values[K.TAKE_DISCARD] = 0.1 * runs
        values[K.DRAW_STOCK] = (0.1 + lead * AI.PRIOR_POINTS * point) * runs
        assert AI.pick(ob, values, visits, legal, len(legal), EXPERT, 1) == chosen
    # master's bluff margin counts its points the same way: stock just inside it, then outside
    credited = 0.1 + AI.PRIOR_POINTS * point
    values[K.DRAW_STOCK] = (credited - 0.99 * AI.BLUFF_MARGIN_POINTS * point) * runs
    picks = [AI.pick(ob, values, visits, legal, len(legal), MASTER, seed) for seed in range(200)]
    assert 0.6 < picks.count(K.DRAW_STOCK) / 200 < 0.9
    values[K.DRAW_STOCK] = (credited - 1.01 * AI.BLUFF_MARGIN_POINTS * point) * runs
    assert all(AI.pick(ob, values, visits, legal, len(legal), MASTER, seed) == K.TAKE_DISCARD
               for seed in range(200))


@pytest.mark.parametrize("runs", [4 * AI.EXPERT_ITERATIONS, AI.EXPERT_ITERATIONS,
                                  AI.EXPERT_ITERATIONS // 4, 40, 16])
def test_the_credit_grows_below_the_experts_determinizations(runs):
    """Fewer determinizations give noisier means: below EXPERT_ITERATIONS the heuristic's move
    gets EXPERT_ITERATIONS / runs times PRIOR_POINTS. Take is normal's move; stock leads it by
    just over that credit, then by just under it."""
    st = deal(["5H 6H KC KD 2S 9C JD", "3C 3D 4S 8D 8S QH AS"], discard="KH")
    ob = obs_of(st)
    legal = legal_of(st)
    credit = AI.PRIOR_POINTS / 100 * max(1, AI.EXPERT_ITERATIONS / runs)    # target 100
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    visits[:2] = runs
    for lead, chosen in ((1.01, K.DRAW_STOCK), (0.99, K.TAKE_DISCARD)):
        values[K.TAKE_DISCARD] = 0.1 * runs
        values[K.DRAW_STOCK] = (0.1 + lead * credit) * runs
        assert AI.pick(ob, values, visits, legal, len(legal), EXPERT, 1) == chosen

# ---------------------------------------------------------------------------------------------
# play_game / play_hand
# ---------------------------------------------------------------------------------------------

def test_play_game_smoke():
    out = np.zeros(4)
    moves = AI.play_game(params(), 3, np.array([EASY, NORMAL]), np.zeros(2, np.int64), 1, out)
    assert moves > 0 and sorted(out[:2].tolist()) == [-1.0, 1.0]
    out2 = np.zeros(4)
    again = AI.play_game(params(), 3, np.array([EASY, NORMAL]), np.zeros(2, np.int64), 1, out2)
    assert again == moves
    np.testing.assert_array_equal(out, out2)


def test_play_game_with_search_levels_and_options():
    out = np.zeros(4)
    p = params(num_players=3, target_score=30, discard_to_win=True)
    moves = AI.play_game(p, 4, np.array([MASTER, EXPERT, BEGINNER]), np.array([4, 4, 0]), 2, out)
    assert moves > 0
    assert out[:3].max() == 1.0 and abs(out[:3].sum()) < 1e-9
    p = params(num_players=4, ace_high=True, target_score=40)
    AI.play_game(p, 5, np.array([NORMAL, EASY, EXPERT, BEGINNER]), np.array([0, 0, 3, 0]), 2, out)
    assert out.max() == 1.0 and abs(out.sum()) < 1e-9


def test_play_hand_returns_the_first_hand_differential():
    out = np.zeros(4)
    moves = AI.play_hand(params(), 8, np.array([EXPERT, NORMAL]), np.array([4, 0]), 3, out)
    assert moves > 0
    assert out[0] == -out[1] and out[0] != 0
    # the same hand replayed through decide()
    st = K.new_state(params(), 8)
    count = 0
    while st[K.S_HAND_NO] == 1:
        level = (EXPERT, NORMAL)[K.current_player(st)]
        K.apply_action(st, AI.decide(st, level, 4, AI._seed_of(3, count, 5)))
        count += 1
    assert count == moves
    w = st[K.S_LAST_WINNER]
    assert out[w] == sum(st[K.S_LAST_VALUES + p] for p in range(2) if p != w)


def test_play_games_matches_play_game():
    seeds = np.array([11, 12, 13], np.int64)
    levels = np.array([[EASY, NORMAL], [NORMAL, EASY], [BEGINNER, EASY]], np.int64)
    its = np.zeros((3, 2), np.int64)
    out = np.zeros((3, 4))
    AI.play_games(params(), seeds, levels, its, 4, True, out, 0)
    for i in range(3):
        one = np.zeros(4)
        AI.play_hand(params(), seeds[i], levels[i], its[i], AI._seed_of(4, i, 6), one)
        np.testing.assert_array_equal(one, out[i])


def test_play_games_split_in_parts_plays_the_same_games():
    seeds = np.arange(21, 27, dtype=np.int64)
    levels = np.tile(np.array([EXPERT, MASTER], np.int64), (6, 1))
    its = np.full((6, 2), 100, np.int64)   # enough that the search seeds change the games
    whole, first_part, second_part = np.zeros((6, 4)), np.zeros((2, 4)), np.zeros((4, 4))
    AI.play_games(params(), seeds, levels, its, 4, True, whole, 0)
    AI.play_games(params(), seeds[:2], levels[:2], its[:2], 4, True, first_part, 0)
    AI.play_games(params(), seeds[2:], levels[2:], its[2:], 4, True, second_part, 2)
    np.testing.assert_array_equal(np.concatenate([first_part, second_part]), whole)


def test_no_python_objects_in_the_kernels():
    """Every AI kernel compiles in nopython mode with no pyobject-typed variable."""
    import io
    st = K.new_state(params(), 3)
    ob = obs_of(st)
    legal = legal_of(st)
    values = np.zeros(K.NUM_ACTIONS)
    visits = np.zeros(K.NUM_ACTIONS, np.int64)
    AI.search(ob, MASTER, 1, 0, 2, values, visits)
    AI.search_serial(ob, EXPERT, 1, 0, 2, values, visits)
    AI.pick(ob, values, visits, legal, len(legal), MASTER, 1)
    AI.policy(ob, legal, len(legal), NORMAL, np.zeros(1, np.int64))
    AI.play_game(params(target_score=5), 1, np.array([EXPERT, MASTER]), np.array([2, 2]), 1,
                 np.zeros(4))
    for fn in (AI.search, AI.search_serial, AI.pick, AI.policy, AI.play_game, AI.choose,
               AI.decide):
        buf = io.StringIO()
        fn.inspect_types(file=buf)
        text_ = buf.getvalue()
        assert text_ and "pyobject" not in text_, fn.__name__
