"""Story tests: a hint's explanation says only true things about the position (RULES.md §4
CardVerse, §5 gin). Every claim is checked against the rules engine (by playing the move) or against a
deadwood computed here, independently of ``meldmind.analysis``.
"""
import copy
import random
import re
from functools import cache

import pytest

import meldmind
from meldmind import analyze_hand, new_game
from meldmind.ai import Alternative
from meldmind.explain import explain
from meldmind.game import Move
from test_ai_gin import best_layoff_deadwood, layoff_observation

# Deadwood values (§4.1, §5.2): A 1, 2-10 face, J Q K 10. Runs: gin's ace is low only, CardVerse's
# high only.
VALUES = {"A": 1, "J": 10, "Q": 10, "K": 10, **{str(n): n for n in range(2, 11)}}
RUN_ORDER = {"gin": "A 2 3 4 5 6 7 8 9 10 J Q K".split(),
             "cardverse": "2 3 4 5 6 7 8 9 10 J Q K A".split()}


def _is_meld(variant, cards):
    if len(cards) < 3:
        return False
    if len({c[:-1] for c in cards}) == 1:
        return len(cards) <= 4      # a hand holds each card once, so the suits differ
    if len({c[-1] for c in cards}) > 1:
        return False
    positions = sorted(RUN_ORDER[variant].index(c[:-1]) for c in cards)
    return positions == list(range(positions[0], positions[0] + len(cards)))


def _value(card, ace_high=False):
    """A card's points; CardVerse's ``ace_high`` option values aces 11 (§4.1)."""
    return 11 if ace_high and card[:-1] == "A" else VALUES[card[:-1]]


def _ace_high(obs):
    return bool(obs.get("options", {}).get("ace_high"))


@cache
def own_deadwood(variant, hand, ace_high=False):
    """The least deadwood of ``hand`` (a frozenset), by trying every meld of its first card."""
    if not hand:
        return 0
    first, rest = min(hand), hand - {min(hand)}
    best = _value(first, ace_high) + own_deadwood(variant, rest, ace_high)
    partners = sorted(rest)
    for size in range(2, 5):    # melds of 3-5 cards: a longer run splits into such runs
        for others in _subsets(partners, size):
            if _is_meld(variant, (first, *others)):
                best = min(best, own_deadwood(variant, rest - set(others), ace_high))
    return best


def _subsets(cards, size):
    if size == 0:
        yield ()
        return
    for i, card in enumerate(cards):
        for tail in _subsets(cards[i + 1:], size - 1):
            yield (card, *tail)


def _card_value_total(cards):
    return sum(VALUES[c[:-1]] for c in cards)


# ---------------------------------------------------------------------------------------------
# Gin: "pass" after the draw phases (RULES.md §5) is not a refusal of the upcard
# ---------------------------------------------------------------------------------------------

def _gin_passes(games):
    """(game, observation, explanation of pass) at every gin decision where pass is legal
    outside the first upcard, in seeded random games that knock whenever they may in odd games
    and only at the wall in even ones (so that they reach it). The caller plays pass."""
    for number in range(games):
        rng = random.Random(number)
        game = new_game("gin", seed=number)
        while not game.is_over:
            obs = game.observation(game.to_move)
            moves = game.legal_moves()
            passes = [m for m in moves if m.text == "pass"]
            if passes and obs["phase"] != "first_upcard":
                yield game, obs, explain("gin", obs, passes[0], None, ())
                continue
            knocks = [m for m in moves if m.text == "knock"]
            if knocks and (number % 2 or obs["phase"] == "wall"):
                game.play(knocks[0])
            else:
                game.play(rng.choice([m for m in moves if m.text != "knock"] or moves))


def test_gin_pass_says_what_it_does_in_each_phase():
    seen = set()
    for game, obs, text in _gin_passes(160):
        assert "discard pile is empty" not in text
        seat, phase = game.to_move, obs["phase"]
        if phase == "layoff" and not obs["finished_layoffs"]:
            claim = _check_lay_off_claim(game, text)
        game.play("pass")
        after = game.observation(seat)
        if phase == "knock":
            # the knocker ends its melds: the cards it keeps are its deadwood, shown
            points = _card_value_total(obs["hand"])
            assert text == (f"Pass: you stop laying melds; your deadwood of {points} "
                            f"({' '.join(obs['hand'])}) is shown.")
            assert after["deadwood"][seat] == points and after["phase"] == "layoff"
            seen.add("knock")
        elif phase == "layoff" and not obs["finished_layoffs"]:
            # a pass that no chain of lay-offs would beat says so (checked by the claim)
            assert claim == "no chain" or text == (
                "Pass: you stop laying off on your opponent's melds and go on to lay your own.")
            assert after["finished_layoffs"] and after["to_move"] == seat
            seen.add("layoff")
        elif phase == "layoff":
            # the defender ends the hand: the figures and the score are the engine's own
            mine, theirs, outcome = re.search(
                r"count (\d+) against the knocker's (\d+), so (.*)\.$", text).groups()
            assert game.is_over
            assert after["deadwood"][seat] == int(mine)
            assert after["deadwood"][obs["knocker"]] == int(theirs)
            knocker_gets = game.returns[obs["knocker"]]
            if knocker_gets > 0:
                assert outcome == f"the knocker scores {knocker_gets:.0f}"
            elif knocker_gets < 0:
                assert outcome == f"you undercut the knocker and score {-knocker_gets:.0f}"
            else:
                assert outcome == "no one scores"
            seen.add("showdown")
        else:
            assert phase == "wall"
            assert text == ("Pass: only two cards are left in the stock, so passing ends the "
                            "hand as a draw: no one scores.")
            assert game.is_over and after["end"] == "wall" and game.returns == [0, 0]
            seen.add("wall")
    assert seen == {"knock", "layoff", "showdown", "wall"}


def test_the_hint_after_laying_melds_explains_the_pass():
    """Through ``suggest``: the knocker's only move is pass while the discard pile holds cards."""
    for game, obs, text in _gin_passes(160):
        if obs["phase"] == "knock" and [m["text"] for m in obs["legal_moves"]] == ["pass"]:
            assert obs["discard_pile"]
            hint = meldmind.suggest(obs, level="normal", seed=0)
            assert hint.move.text == "pass" and hint.explanation == text
            assert "your deadwood of" in text
            return
        game.play("pass")
    raise AssertionError("no knocker left with pass alone")


def test_knocking_at_the_wall_counts_the_upcard():
    """At the wall a knock takes the upcard into the hand (§5), so the deadwood stated is the
    best one of the hand with the upcard, after a discard. Both seats draw from the stock and
    keep their best ten cards, never knocking before the wall."""
    checked = 0
    for number in range(12):
        game = new_game("gin", seed=number)
        while not game.is_over:
            obs = game.observation(game.to_move)
            moves = game.legal_moves()
            texts = [m.text for m in moves]
            if obs["phase"] == "wall" and "knock" in texts:
                text = explain("gin", obs, moves[texts.index("knock")], None, ())
                stated = int(re.fullmatch(r"Knock: your deadwood after the discard is (\d+)\.",
                                          text).group(1))
                cards = frozenset(obs["hand"]) | {obs["upcard"]}
                assert stated == min(own_deadwood("gin", cards - {c}) for c in cards) <= 10
                checked += 1
            if obs["phase"] == "discard":
                game.play(min((m for m in moves if m.text != "knock"), key=lambda m: analyze_hand(
                    "gin", [c for c in obs["hand"] if c != m.text.split()[1]]).deadwood_points))
            else:
                game.play("draw stock" if "draw stock" in texts else "pass")
    assert checked >= 5


# ---------------------------------------------------------------------------------------------
# Taking the upcard / the discard: a deadwood claim only when it is true
# ---------------------------------------------------------------------------------------------

def _check_take_claim(variant, obs, text):
    """The explanation of a take claims a lower deadwood only when some discard after the take
    really leaves less deadwood than now, a meld or a lay-off only when it is one; returns the
    kind of reason given."""
    hand = frozenset(obs["hand"])
    top = obs["upcard"] if variant == "gin" else obs["discard_pile"][-1]
    ace_high = _ace_high(obs)
    now = own_deadwood(variant, hand, ace_high)
    best_after = min(own_deadwood(variant, hand - {d} | {top}, ace_high) for d in hand)
    if "not lower" in text:
        assert best_after >= now, text
        assert f"deadwood of {now}, but " in text
        return "no lower"
    if "lower" in text or "drops" in text:
        assert best_after < now, (text, now, best_after)
        drop = re.search(r"with (\S+) discarded, your deadwood drops from (\d+) to (\d+)", text)
        if drop:    # and the figures, when it gives them
            discard, before, after = drop.group(1), int(drop.group(2)), int(drop.group(3))
            assert (before, after) == (now, best_after)
            assert own_deadwood(variant, hand - {discard} | {top}, ace_high) == best_after
        return "lower"
    cards = hand | {top}
    completes = re.search(r"it completes ([^.]+)\.", text)
    if completes:
        meld = completes.group(1).split()
        assert top in meld and set(meld) <= cards and _is_meld(variant, meld), text
        assert not _is_meld(variant, [c for c in meld if c != top]), text
        return "completes"
    extends = re.search(r"it extends ([^.]+)\.", text)
    if extends:     # a meld of the hand that the card makes longer
        meld = extends.group(1).split()
        assert top not in meld and set(meld) <= hand and _is_meld(variant, meld), text
        assert _is_meld(variant, meld + [top]), text
        return "extends"
    lays_off = re.search(r"you can lay it off on ([^.]+)\.", text)
    if lays_off:
        meld = lays_off.group(1).split()
        assert meld in [m["cards"] for m in obs["table"]] and _is_meld(variant, meld + [top]), text
        return "lay off"
    return "other"


def test_the_reviewers_takes_claim_no_lower_deadwood():
    # CardVerse: nothing melds and QS pairs with nothing: 49 before, at best 49 - 9 + 10 after
    cv = {"variant": "cardverse", "seat": 0, "hand": "AC 7C 8D 9D 7H 8S 9S".split(),
          "discard_pile": ["QS"]}
    text = explain("cardverse", cv, Move(1, "take discard"), None, ())
    assert text == ("Take the QS: it does not lower your deadwood of 49, but this level prefers "
                    "it to an unseen card.")
    assert _check_take_claim("cardverse", cv, text) == "no lower"
    # gin: 4C-7C and JD-KD meld, leaving 2C 9H 4S (15); JC melds with nothing, so any other
    # discard leaves more
    gin = {"variant": "gin", "seat": 0, "hand": "2C 4C 5C 6C 7C JD QD KD 9H 4S".split(),
           "upcard": "JC"}
    text = explain("gin", gin, Move(52, "draw upcard"), None, ())
    assert text == ("Take the JC: it does not lower your deadwood of 15, but this level prefers "
                    "it to an unseen card.")
    assert _check_take_claim("gin", gin, text) == "no lower"


def test_a_take_that_lowers_no_deadwood_says_who_prefers_it():
    """The search's preference, or neither by much; and with CardVerse's stock empty, what the
    other draw would do: end the hand."""
    gin = {"variant": "gin", "seat": 0, "hand": "2C 4C 5C 6C 7C JD QD KD 9H 4S".split(),
           "upcard": "JC"}
    take, stock = Move(52, "draw upcard"), Move(53, "draw stock")
    ahead = (Alternative(take, 1.5, 64), Alternative(stock, 0.5, 64))
    assert explain("gin", gin, take, 1.5, ahead).startswith(
        "Take the JC: it does not lower your deadwood of 15, but the search prefers it to an "
        "unseen card.")
    level = (Alternative(stock, 1.5, 64), Alternative(take, 1.5, 64))
    assert explain("gin", gin, take, 1.5, level).startswith(
        "Take the JC: it does not lower your deadwood of 15, but an unseen card would do about "
        "as well.")
    cv = {"variant": "cardverse", "seat": 0, "hand": "AC 7C 8D 9D 7H 8S 9S".split(),
          "discard_pile": ["QS"], "stock_size": 0}
    assert explain("cardverse", cv, Move(1, "take discard"), None, ()) == (
        "Take the QS: it does not lower your deadwood of 49, but the stock is empty, and "
        "drawing from it would end the hand.")


def test_a_card_that_lengthens_a_meld_already_made_extends_it():
    """5C 5D 5H already meld: 5S does not complete them, it makes the group longer."""
    gin = {"variant": "gin", "seat": 0, "phase": "draw", "upcard": "5S",
           "hand": "5C 5D 5H 9C 9D JH QS 2D 3H KC".split()}
    assert explain("gin", gin, Move(52, "draw upcard"), None, ()) == (
        "Take the 5S: it extends 5C 5D 5H.")
    assert explain("gin", gin, Move(53, "draw stock"), None, ()).startswith(
        "Draw from the stock: 5S would extend 5C 5D 5H, but ")
    gin["hand"] = "5C 5D 9C 9D JH QS 2D 3H KC 4S".split()
    assert explain("gin", gin, Move(52, "draw upcard"), None, ()) == (
        "Take the 5S: it completes 5C 5D 5S.")


def test_a_discard_an_opponent_threw_back_is_not_named_as_one_it_took():
    """Seat 1 took QD and threw it straight back; seat 0 then took it and laid QC QD QH. What
    seat 1 took shows no interest in queens (the reviewer's three-player game, made small)."""
    obs = {"variant": "cardverse", "seat": 0, "hand": ["QS", "4D", "7C"], "hand_sizes": [3, 5],
           "table": [{"cards": ["QC", "QD", "QH"]}], "taken_from_discard": [[], []],
           "hand_history": {"taken": [["QC", "QD", "QH"], ["QD"]],
                            "discarded": [[], ["QD"]], "declined": [[], []]}}
    thrown_back = explain("cardverse", obs, Move(52, "discard QS"), None, ())
    assert "took QD" not in thrown_back and "lay it off on QC QD QH" in thrown_back
    obs["hand_history"]["discarded"][1] = []        # seat 1 kept QD, and laid it
    kept = explain("cardverse", obs, Move(52, "discard QS"), None, ())
    assert "but your opponent took QD, which goes with it" in kept


@pytest.mark.parametrize("hand, card, meld", [
    # 4S 5S 6S is a meld, but the fours and sixes do better as groups: it is not "fits none"
    ("4S 4C 4D 6S 6C 6D 5S 9H KD 2C 3H", "5S", "4S 5S 6S"),
    # 2S goes with 2C 2H and 3S-5S is kept: AS also pairs with AD, but it is no partial meld
    ("2C AD 4D 5D 6D 2H AS 2S 3S 4S 5S", "AS", "AS 2S 3S"),
])
def test_a_card_whose_only_meld_no_best_partition_uses_is_named_with_it(hand, card, meld):
    hand = hand.split()
    gin = {"variant": "gin", "seat": 0, "phase": "discard", "hand": hand}
    text = explain("gin", gin, Move(0, f"discard {card}"), None, ())
    assert text.startswith(f"Discard {card}: it melds only in {meld}, which leaves more deadwood "
                           "than the melds you keep, and ")
    assert own_deadwood("gin", frozenset(hand) - set(meld.split()), False) > \
        own_deadwood("gin", frozenset(hand), False)


def test_a_cardverse_lay_off_whose_meld_the_rest_of_the_hand_replaces_lowers_the_deadwood():
    """7D leaves the run 6D 7D 8D, and the sixes then make a group: the deadwood drops, so the
    lay-off breaks no meld the hand keeps."""
    obs = {"variant": "cardverse", "seat": 0, "hand": "4D 6D 7D 8D 5H 6H 5S 6S".split(),
           "table": [{"cards": ["7C", "7H", "7S"]}], "hand_sizes": [8, 4]}
    assert explain("cardverse", obs, Move(0, "lay off 7D on meld 0"), None, ()) == (
        "Lay off 7D: it goes onto a table meld, and the rest of your hand melds better without "
        "it: your deadwood goes from 26 to 22.")


@pytest.mark.parametrize("variant, hand, top, move, text", [
    # a best partition also has 3C 4C 5C with 6C 7C 8C, and 7S 7C 7D 7H with 8H 9H 10H
    ("gin", "3C 4C 5C 6C 7C 10D JD QD 7S 9S", "8C", "draw upcard",
     "Take the 8C: it extends 3C 4C 5C 6C 7C."),
    ("gin", "2C 7C 7D 10D JD QD 7H 8H 9H 7S", "10H", "draw stock",
     "Draw from the stock: 10H would extend 7H 8H 9H, but this level prefers an unseen card."),
    ("cardverse", "8C 4D 4S 5S 6S 7S 8S", "3S", "take discard",
     "Take the 3S: it extends 4S 5S 6S 7S 8S."),
])
def test_a_card_that_extends_a_meld_of_the_hand_is_said_to_extend_it(variant, hand, top, move,
                                                                      text):
    obs = {"variant": variant, "seat": 0, "phase": "draw", "hand": hand.split(),
           "hand_sizes": [len(hand.split()), 10]}
    obs.update({"upcard": top} if variant == "gin" else {"discard_pile": [top]})
    action = {"draw upcard": 52, "draw stock": 53, "take discard": 1}[move]
    assert explain(variant, obs, Move(action, move), None, ()) == text


def test_a_cardverse_lay_off_that_breaks_a_meld_of_the_hand_is_not_called_free():
    obs = {"variant": "cardverse", "seat": 0, "hand": "5H 6H 7H KC 2D".split(),
           "table": [{"cards": ["8H", "9H", "10H"]}], "hand_sizes": [5, 5]}
    assert explain("cardverse", obs, Move(0, "lay off 7H on meld 0"), None, ()) == (
        "Lay off 7H: it goes onto a table meld but breaks one of yours: your deadwood goes from "
        "12 to 23.")
    obs["hand"] = "5C 6D 7H KC 2D".split()
    assert explain("cardverse", obs, Move(0, "lay off 7H on meld 0"), None, ()) == (
        "Lay off 7H: it leaves your hand for free on a table meld.")
    # the spare end of a longer run, and the fourth card of a group, leave a meld behind
    obs["hand"] = "4H 5H 6H 7H KC 2D".split()
    assert explain("cardverse", obs, Move(0, "lay off 7H on meld 0"), None, ()) == (
        "Lay off 7H: it goes onto a table meld and costs you no meld: your deadwood stays 12.")
    obs["hand"] = "9C 9D 9H 9S 2C 5D".split()
    obs["table"] = [{"cards": ["10S", "JS", "QS"]}]
    assert explain("cardverse", obs, Move(0, "lay off 9S on meld 0"), None, ()) == (
        "Lay off 9S: it goes onto a table meld and costs you no meld: your deadwood stays 7.")


def _random_decisions(variant, rng, count, wanted):
    """``count`` (observation, move) pairs from random positions of random games drawn from
    ``rng``, where ``wanted(observation, move)`` picks the move. CardVerse games count aces 11
    half the time."""
    found = 0
    while found < count:
        options = {"ace_high": rng.random() < 0.5} if variant == "cardverse" else None
        game = new_game(variant, seed=rng.randrange(1 << 30), options=options)
        for _ in range(rng.randrange(0, 50)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        if game.is_over:
            continue
        obs = game.observation(game.to_move)
        moves = [m for m in game.legal_moves() if wanted(obs, m)]
        if moves:
            yield obs, moves[0]
            found += 1


def test_take_explanations_over_random_positions():
    kinds = {"gin": set(), "cardverse": set()}
    rng = random.Random(7)
    for variant, take in (("gin", "draw upcard"), ("cardverse", "take discard")):
        for obs, move in _random_decisions(variant, rng, 150, lambda obs, m: m.text == take):
            text = explain(variant, obs, move, None, ())
            kinds[variant].add(_check_take_claim(variant, obs, text))
    assert kinds["gin"] >= {"lower", "no lower", "completes"}
    assert kinds["cardverse"] >= {"lower", "no lower", "completes", "lay off"}


def _check_decline_claim(variant, obs, text, searched):
    """Checks a "draw stock" or first-upcard "pass" explanation; returns the kind of claim."""
    hand = frozenset(obs["hand"])
    top = obs["upcard"] if variant == "gin" else obs["discard_pile"][-1]
    cards = hand | {top}
    forced = variant == "gin" and obs["phase"] == "first_upcard" and \
        obs["passed_first_upcard"] == [True, True]
    assert forced == ("both players passed the first upcard, so you draw from the stock" in text)
    if forced:
        return "forced"
    fits = re.search(r": (\S+) fits none of your melds\.", text)
    lays_off = re.search(r": (\S+) could be laid off on ([^,]+), but (the search|this level) "
                         r"prefers an unseen card\.", text)
    if fits or lays_off:
        assert (fits or lays_off).group(1) == top
        # it makes no meld with any two cards of the hand
        assert not any(_is_meld(variant, (top, *two)) for two in _subsets(sorted(hand), 2)), text
        if fits:
            assert not _table_melds_taking(variant, obs, top), text
            return "fits none"
        assert lays_off.group(2).split() in _table_melds_taking(variant, obs, top), text
        assert lays_off.group(3) == ("the search" if searched else "this level"), text
        return "lay off"
    verb, meld, reason = re.search(r": \S+ would (complete|make|extend) ([^,]+), but ([^.]*)\.",
                                   text).groups()
    meld = meld.split()
    if verb == "extend":    # a meld of the hand that the card makes longer
        assert top not in meld and set(meld) <= hand and _is_meld(variant, meld), text
        meld = meld + [top]
    assert top in meld and set(meld) <= cards and _is_meld(variant, meld), text
    assert (verb == "extend") == _is_meld(variant, [c for c in meld if c != top]) \
        or verb == "make", text
    ace_high = _ace_high(obs)
    now = own_deadwood(variant, hand, ace_high)
    best_after = min(own_deadwood(variant, hand - {d} | {top}, ace_high) for d in hand)
    kind = {"complete": "completes", "make": "makes", "extend": "extends"}[verb]
    if reason.startswith("taking it would not lower"):
        assert best_after >= now and reason.endswith(f"deadwood of {now}"), text
        return kind, "no lower"
    assert best_after < now, text
    # a pass of gin's first upcard draws no card (the dealer's gives the stock card away)
    preferred = "to pass" if text.startswith("Pass:") else "an unseen card"
    assert reason == f"{'the search' if searched else 'this level'} prefers {preferred}", text
    return kind, "prefers"


def _declines(obs, move):
    """Drawing from the stock while a discard is on offer, or passing the first upcard."""
    on_offer = obs.get("upcard") if obs["variant"] == "gin" else obs["discard_pile"]
    return bool(on_offer) and (move.text == "draw stock" or
                               (move.text == "pass" and obs.get("phase") == "first_upcard"))


def test_decline_explanations_over_random_positions():
    kinds = {"gin": set(), "cardverse": set()}
    rng = random.Random(11)
    for variant in kinds:
        for number, (obs, move) in enumerate(_random_decisions(variant, rng, 150, _declines)):
            searched = number % 2 == 1
            text = explain(variant, obs, move, 0.0 if searched else None, ())
            kinds[variant].add(_check_decline_claim(variant, obs, text, searched))
    assert kinds["gin"] >= {"fits none", ("completes", "no lower"), ("completes", "prefers"),
                            ("makes", "prefers"), "forced"}
    assert kinds["cardverse"] >= {"fits none", ("completes", "prefers"), "lay off"}


# ---------------------------------------------------------------------------------------------
# Discards: the meld broken, the partial meld kept, what the opponents have shown
# ---------------------------------------------------------------------------------------------

def _dead(variant, obs):
    """Cards no meld can get any more: the table and the discard history, that is the pile (gin:
    and its top) and the discards the opponents took."""
    dead = set(obs["discard_pile"]) | _opponents_took(variant, obs)
    if variant == "gin":
        dead |= {obs["upcard"]} - {None} | set(obs["layoffs"])
        dead |= {c for melds in obs["melds"] for meld in melds for c in meld}
    else:
        dead |= {c for meld in obs["table"] for c in meld["cards"]}
    return dead


def _goes_with(variant, a, b):
    """Same rank, or same suit within two ranks of the variant's runs."""
    order = RUN_ORDER[variant]
    return a[:-1] == b[:-1] or (a[-1] == b[-1] and
                                abs(order.index(a[:-1]) - order.index(b[:-1])) <= 2)


def _opponents_took(variant, obs):
    """The discards the opponents took and kept: held, or (CardVerse) laid on the table since,
    unless the seat that took it threw it back (whoever laid it then)."""
    seat, history = obs["seat"], obs.get("hand_history")
    if variant == "gin":
        return {c for s, cards in enumerate(obs["known_cards"]) if s != seat for c in cards}
    table = {c for meld in obs["table"] for c in meld["cards"]}
    return {c for s, cards in enumerate(history["taken"]) if s != seat for c in cards
            if c in obs["taken_from_discard"][s]
            or (c in table and c not in history["discarded"][s])}


def _table_melds_taking(variant, obs, card):
    """The CardVerse table melds ``card`` can be laid off on."""
    table = obs.get("table", []) if variant == "cardverse" else []
    return [m["cards"] for m in table if _is_meld(variant, m["cards"] + [card])]


def _check_knock_discard_claim(obs, card, text):
    """A gin knocker's discard: the deadwood it leaves, against the other discards."""
    hand = frozenset(obs["hand"])
    after = {d: own_deadwood("gin", hand - {d}) for d in hand}
    least = min(after.values())
    if after[card] == 0:
        assert text == f"Discard {card}: it leaves every other card in a meld, so you go gin.", text
        return {"knock, gin"}
    stated = re.fullmatch(rf"Discard {card}: it leaves (\d+) deadwood to show, (.*)\.", text)
    assert int(stated.group(1)) == after[card], text
    if after[card] == least:
        assert stated.group(2) == "and no other discard leaves less", text
        return {"knock, least"}
    other, points = re.fullmatch(r"where discarding (\S+) would leave (\d+)", stated.group(2)).groups()
    assert after[other] == least == int(points), text
    return {"knock, more"}


def _opponents_threw(variant, obs):
    seat = obs["seat"]
    if variant == "gin":
        return {e["move"].split()[1] for e in obs["history"]
                if e["seat"] != seat and e["move"].startswith("discard ")}
    return {c for s, cards in enumerate(obs["hand_history"]["discarded"]) if s != seat
            for c in cards}


def _can_still_meld(variant, obs, card, taken, without=frozenset()):
    """Whether ``card`` and ``taken``, a card an opponent took, can still end up in one meld:
    ``card`` laid off on the table meld ``taken`` lies in (table melds are never rearranged,
    §4.5), or, while ``taken`` is held, with some third card neither in the discard pile nor
    on the table, nor among the cards ``without``."""
    table = obs.get("table", []) if variant == "cardverse" else []
    for meld in table:
        if taken in meld["cards"]:
            return _is_meld(variant, meld["cards"] + [card])
    gone = set(obs["discard_pile"]) | {c for meld in table for c in meld["cards"]}
    if variant == "gin":
        gone |= {c for melds in obs["melds"] for meld in melds for c in meld} | set(obs["layoffs"])
    return any(_is_meld(variant, (card, taken, third)) for third in ALL_CARDS
               if third not in gone | without | {card, taken})


def _check_discard_claim(variant, obs, text):
    """Checks the first half of a discard's explanation; returns the kinds of claims made."""
    card = re.match(r"Discard (\S+): ", text).group(1)
    if variant == "gin" and obs.get("phase") == "knock":
        return _check_knock_discard_claim(obs, card, text)
    hand = frozenset(obs["hand"])
    ace_high = _ace_high(obs)
    legal = [m["text"].split()[1] for m in obs["legal_moves"] if m["text"].startswith("discard")]
    after = {d: own_deadwood(variant, hand - {d}, ace_high) for d in legal}
    least = min(after.values())
    now = own_deadwood(variant, hand, ace_high)
    # the melds of the card that some best partition of the hand uses (longer runs split)
    best_melds = [m for size in (2, 3, 4) for m in _subsets(sorted(hand - {card}), size)
                  if _is_meld(variant, (card, *m))
                  and own_deadwood(variant, hand - {card, *m}, ace_high) == now]
    kinds = set()
    loss = r"(breaks a meld|costs you no meld)"
    breaks = re.search(loss + r", (but|and) no other discard leaves less deadwood \((\d+)\)", text)
    worse = re.search(loss + r",? (and|but it) leaves (\d+) deadwood, where discarding (\S+) "
                      r"would leave (\d+)", text)
    as_low = re.search(r": it melds in ([^,]+), but your deadwood is as low without that meld[,.]",
                       text)
    partial = re.search(r": it only makes a partial meld, with ([^,.]+)[,.]", text)
    melds_only = re.search(r": it melds only in ([^,]+), which leaves more deadwood than the "
                           r"melds you keep[,.]", text)
    if breaks or worse:
        claim = breaks or worse
        # no meld is lost when the other cards leave the same deadwood without the card
        broken = after[card] != now
        assert claim.group(1) == ("breaks a meld" if broken else "costs you no meld"), text
        joins = {("breaks a meld", True): "but", ("breaks a meld", False): "and",
                 ("costs you no meld", True): "and", ("costs you no meld", False): "but it"}
        assert claim.group(2) == joins[claim.group(1), bool(breaks)], text
        assert best_melds and after[card] + _value(card, ace_high) > now, text
    if breaks:
        assert int(breaks.group(3)) == after[card] == least, text
        kinds.add("breaks, least" if after[card] != now else "no meld lost, least")
    elif worse:
        assert int(worse.group(3)) == after[card] > least == int(worse.group(5)), text
        assert after[worse.group(4)] == least, text
        kinds.add("breaks, more" if after[card] != now else "no meld lost, more")
    elif as_low:
        meld = as_low.group(1).split()
        assert card in meld and set(meld) <= hand and _is_meld(variant, meld), text
        assert own_deadwood(variant, hand - set(meld), ace_high) == now, text
        assert after[card] + _value(card, ace_high) == now, text
        kinds.add("melds, as low")
    elif partial:
        assert not any(_is_meld(variant, (card, *m)) for size in (2, 3, 4)
                       for m in _subsets(sorted(hand - {card}), size)), text
        dead = _dead(variant, obs)
        for partner in partial.group(1).split():
            assert partner in hand and _goes_with(variant, card, partner), text
            # some third card could still make the pair a meld
            assert any(_is_meld(variant, (card, partner, third)) for third in ALL_CARDS
                       if third not in dead | {card, partner}), text
        kinds.add("partial")
    elif melds_only:
        meld = melds_only.group(1).split()
        assert card in meld and set(meld) <= hand and _is_meld(variant, meld), text
        assert not best_melds and own_deadwood(variant, hand - set(meld), ace_high) > now, text
        kinds.add("melds only")
    else:
        assert ": it fits none of your melds" in text, text
        # no meld at all holds the card, in a best partition or not
        assert not any(_is_meld(variant, (card, *two))
                       for two in _subsets(sorted(hand - {card}), 2)), text
        kinds.add("fits none")
    lays_off = re.search(r"\. You could also lay it off on ([A-Z0-9 ]+)(, as (your|an) opponent "
                         r"could if it took it)?\.$", text)
    text = text[:lays_off.start() + 1] if lays_off else text
    if lays_off:
        assert lays_off.group(1).split() in _table_melds_taking(variant, obs, card), text
        kinds.add("could lay off")
    else:
        assert not _table_melds_taking(variant, obs, card), text
    related_taken = [c for c in _opponents_took(variant, obs) if _goes_with(variant, card, c)]
    if lays_off and lays_off.group(2):
        # what the opponent showed is left out, unless it took a card that goes with this one
        assert not any(_can_still_meld(variant, obs, card, c, without=hand)
                       for c in related_taken), text
        kinds.add("anyone could lay off")
        return kinds
    took = re.search(r"took (\S+), which goes with it\.$", text)
    no_longer = re.search(r"and the (\S+) (your|an) opponent took can no longer meld with it\.$",
                          text)
    needs = re.search(r"and the (\S+) (your|an) opponent took needs your ([^.]+) to meld with "
                      r"it\.$", text)
    if took:
        assert took.group(1) in related_taken and took.group(1) not in hand, text
        # a third card the seat does not hold would do
        assert _can_still_meld(variant, obs, card, took.group(1), without=hand), text
        kinds.add("took")
    elif needs:
        assert needs.group(1) in related_taken, text
        assert not any(_can_still_meld(variant, obs, card, c, without=hand)
                       for c in related_taken), text
        thirds = needs.group(3).split(" or ")
        assert all(t in hand and _is_meld(variant, (card, needs.group(1), t)) for t in thirds)
        kinds.add("took, needs yours")
    elif no_longer:
        assert no_longer.group(1) in related_taken, text
        assert not any(_can_still_meld(variant, obs, card, c) for c in related_taken), text
        kinds.add("took, no longer")
    elif re.search(r"(your opponent has not|no opponent has) shown interest in", text):
        assert not related_taken, text
        assert not [c for c in _opponents_threw(variant, obs) - {card}
                    if _goes_with(variant, card, c)], text
        kinds.add("no interest")
    else:
        named = re.search(r"threw away (the )?(\S+)( you took)?, so it is unlikely to want it\.$",
                          text)
        thrown = named.group(2)
        assert not related_taken and thrown in _opponents_threw(variant, obs), text
        assert _goes_with(variant, card, thrown), text
        # a card the seat holds is said to be the one it took, and named only when no other
        # related card thrown away is out of the seat's hand
        assert bool(named.group(1)) == bool(named.group(3)) == (thrown in hand), text
        if thrown in hand:
            assert all(c in hand for c in _opponents_threw(variant, obs) - {card}
                       if _goes_with(variant, card, c)), text
        kinds.add("threw, took back" if thrown in hand else "threw")
        kinds.add("threw")
    return kinds


ALL_CARDS = [r + s for s in "CDHS" for r in RUN_ORDER["gin"]]


def test_discard_explanations_over_random_positions():
    kinds = {"gin": set(), "cardverse": set()}
    rng = random.Random(13)
    for variant in kinds:
        for obs, move in _random_decisions(variant, rng, 400,
                                           lambda obs, m: m.text.startswith("discard")):
            # every discard of the position, not only the first: random levels break melds
            for entry in obs["legal_moves"]:
                if entry["text"].startswith("discard"):
                    text = explain(variant, obs, Move(entry["id"], entry["text"]), None, ())
                    if "go out" not in text and "as a draw" not in text:
                        kinds[variant] |= _check_discard_claim(variant, obs, text)
    # a meld card that leaves the least deadwood is rare in random hands: see the story below
    for variant in kinds:
        assert kinds[variant] >= {"breaks, more", "no meld lost, more", "partial", "fits none",
                                  "took", "threw", "threw, took back", "no interest"
                                  }, (variant, kinds[variant])
    assert {"could lay off", "anyone could lay off"} <= kinds["cardverse"], kinds["cardverse"]


def test_the_knockers_discard_is_explained_by_the_deadwood_it_shows():
    """After a knock (RULES.md §5) the opponent's interest no longer matters: every legal
    discard of the knocker is explained by the deadwood it leaves, or by gin."""
    kinds = set()
    knockers = 0
    for number in range(200):
        rng = random.Random(number)
        game = new_game("gin", seed=number)
        while not game.is_over:
            obs = game.observation(game.to_move)
            moves = game.legal_moves()
            if obs["phase"] == "knock" and len(obs["hand"]) == 11:
                for move in moves:
                    kinds |= _check_discard_claim("gin", obs, explain("gin", obs, move, None, ()))
                knockers += 1
                break
            knocks = [m for m in moves if m.text == "knock"]
            game.play(knocks[0] if knocks else rng.choice(moves))
    assert knockers >= 20 and kinds >= {"knock, least", "knock, more"}, (knockers, kinds)


def test_the_reviewers_discards():
    # QH and QS lie in the discard pile: QD and QC can never meld
    gin = {"variant": "gin", "seat": 0, "hand": "AC 4C 8C QC AD 4D 5D QD AH 7H 8H".split(),
           "discard_pile": ["QH", "2S", "QS"], "upcard": "9S", "known_cards": [[], []]}
    text = explain("gin", gin, Move(0, "discard QD"), None, ())
    assert "partial meld" not in text and text.startswith("Discard QD: it fits none"), text
    # the opponent took QH this hand and has melded it since: it has shown interest in queens,
    # but QH lies in a run now, which QC cannot join (table melds never move, §4.5)
    cv = {"variant": "cardverse", "seat": 0, "hand": "QC 4D 9H".split(), "hand_sizes": [3, 4],
          "taken_from_discard": [[], []], "discard_pile": ["2S"],
          "table": [{"cards": ["QH", "KH", "AH"]}],
          "hand_history": {"taken": [[], ["QH"]], "discarded": [[], []], "declined": [[], []]}}
    text = explain("cardverse", cv, Move(0, "discard QC"), None, ())
    assert text.endswith("and the QH your opponent took can no longer meld with it."), text
    cv["table"] = [{"cards": ["QD", "QH", "QS"]}]       # a group of queens takes QC
    text = explain("cardverse", cv, Move(0, "discard QC"), None, ())
    assert text.endswith("but your opponent took QH, which goes with it. You could also lay it "
                         "off on QD QH QS."), text
    # every card melds: dropping the end of the four-card run leaves no deadwood
    gin = {"variant": "gin", "seat": 0, "hand": "5C 5D 5H 9D 10D JD QD 2S 3S 4S 5S".split(),
           "discard_pile": [], "upcard": None, "known_cards": [[], []]}
    gin["legal_moves"] = [{"id": 0, "text": f"discard {c}"} for c in gin["hand"]]
    text = explain("gin", gin, Move(0, "discard QD"), None, ())
    assert text.startswith("Discard QD: it costs you no meld, and no other discard leaves less "
                           "deadwood (0)"), text
    assert _check_discard_claim("gin", dict(gin, history=[]), text) == {"no meld lost, least",
                                                                        "no interest"}
    text = explain("gin", gin, Move(0, "discard 5S"), None, ())
    assert _check_discard_claim("gin", dict(gin, history=[]), text) == {"no meld lost, least",
                                                                        "no interest"}


# ---------------------------------------------------------------------------------------------
# CardVerse: a hand that can decide the game is not valued in points
# ---------------------------------------------------------------------------------------------

def _hand_may_end_game(obs):
    """A winner collects the others' hands: at most their cards now, each worth at most 10."""
    sizes, target = obs["hand_sizes"], obs["options"]["target_score"]
    return any(score + 10 * (sum(sizes) - sizes[seat]) >= target
               for seat, score in enumerate(obs["scores"]))


def _wins_the_game(game, move):
    trial = copy.deepcopy(game)
    seat = trial.to_move
    trial.play(move)
    return trial.is_over and trial.observation(seat)["game_winner"] == seat


def test_a_game_winning_move_is_not_described_in_points():
    """Games to 15 points, hinted where a move wins the game: the search's value there is the
    game's return (+1 won, -1 lost), which is no number of points."""
    sure_wins = 0
    for seed in range(4):
        game = new_game("cardverse", seed=seed, options={"target_score": 15})
        moves_played = 0
        while not game.is_over:
            obs = game.observation(game.to_move)
            if any(_wins_the_game(game, m) for m in game.legal_moves()):
                hint = meldmind.suggest(obs, level="expert", iterations=48, seed=1)
                assert "points for you" not in hint.explanation, hint.explanation
                if hint.value == 1:     # every playout won the game
                    assert "The search expects you to win the game with it" in hint.explanation
                    sure_wins += 1
                else:
                    assert (f"The search scores it {hint.value:+.2f} (a game won counts +1, a game "
                            f"lost -1)") in hint.explanation
            game.play(meldmind.suggest(obs, level="normal", seed=moves_played).move)
            moves_played += 1
    assert sure_wins >= 1


def test_a_first_hand_to_100_is_valued_in_points():
    """No seat can reach 100 in the first hand of two players (at most 8 cards of 10 points), so
    the value is the expected points: the share of the target times the target."""
    game = new_game("cardverse", seed=3)
    obs = game.observation(0)
    assert not _hand_may_end_game(obs)
    hint = meldmind.suggest(obs, level="expert", iterations=48, seed=1)
    assert f"The search expects {hint.value * 100:+.1f} points for you" in hint.explanation
    assert "average opponent" not in hint.explanation


def test_three_players_value_points_against_the_average_opponent():
    """With three seats a hand another seat wins returns minus half its points (a loser's share),
    so the points are said to be against the average opponent."""
    game = new_game("cardverse", seed=3, options={"num_players": 3, "target_score": 1000})
    obs = game.observation(0)
    assert not _hand_may_end_game(obs)
    hint = meldmind.suggest(obs, level="expert", iterations=48, seed=1)
    assert (f"The search expects {hint.value * 1000:+.1f} points for you against the average "
            f"opponent") in hint.explanation, hint.explanation


# ---------------------------------------------------------------------------------------------
# A move that ends the hand says so, and only such a move
# ---------------------------------------------------------------------------------------------

def _ends_the_hand(variant, game, move):
    """(the hand is over after ``move``, how it ended) by playing it on a copy."""
    trial = copy.deepcopy(game)
    seat = trial.to_move
    before = trial.observation(seat).get("hand_number")
    trial.play(move)
    obs = trial.observation(seat)
    if variant == "gin":
        return trial.is_over, obs.get("end")
    ended = trial.is_over or obs["hand_number"] != before
    return ended, ended and obs["last_hand"]["end"]


def _stalling_move(game, obs, rng):
    """Gin: take every upcard and discard another card, toward the 50-take limit."""
    texts = [m.text for m in game.legal_moves()]
    if "draw upcard" in texts:
        return "draw upcard"
    others = [t for t in texts if t.startswith("discard") and t != f"discard {obs['prev_upcard']}"]
    return rng.choice(others or texts)


def _upcards_taken(obs):
    """The upcards gin's history shows taken, the deal's first upcard too; OpenSpiel's limit of
    50 counts only those taken in the draw phase, so the take that ends the hand is the 50th
    or, when the first upcard was taken, the 51st."""
    return sum(entry["move"] == "draw upcard" for entry in obs.get("history", []))


def _ordinal_take(obs):
    """The ordinal of the next upcard take: 50th or 51st."""
    taken = _upcards_taken(obs) + 1
    return f"{taken}{'st' if taken % 10 == 1 else 'th'}"


def test_explanations_say_when_a_move_ends_the_hand():
    claims = {"out": 0, "repeated_move": 0, "empty_stock": 0, "upcard_limit": 0, "max_turns": 0}
    rng = random.Random(5)
    for variant in ("gin", "cardverse"):
        for number in range(60):
            options = {"ace_high": number % 2 == 1, "max_turns": 300 if number % 3 else 9} \
                if variant == "cardverse" else None
            stalling = variant == "gin" and number % 3 == 0
            game = new_game(variant, seed=rng.randrange(1 << 30), options=options)
            while not game.is_over:
                obs = game.observation(game.to_move)
                # draws only where drawing may end the hand: near the end of the stock, or at
                # gin's last upcard take
                may_end = obs["stock_size"] <= 2 or obs.get("upcard_draws") == 49
                kinds = ("discard", "lay", "draw") if may_end else ("discard", "lay")
                for move in game.legal_moves():
                    if move.text.split()[0] not in kinds:
                        continue
                    ended, how = _ends_the_hand(variant, game, move)
                    text = explain(variant, obs, move, None, ())
                    said = {how: phrase in text for how, phrase in (
                        ("out", "so you go out and win the hand"),
                        ("repeated_move", "throwing back yours too ends the hand as a draw"),
                        ("upcard_limit", f"{_ordinal_take(obs)} upcard taken, which ends the "
                                         f"hand as a draw"))}
                    for how_said, claimed in said.items():
                        assert claimed == (ended and how == how_said), text
                        claims[how_said] += claimed
                    empty = re.search(r"the stock is empty, so this ends the hand, and the lowest "
                                      r"hand value wins it; yours is (\d+)\.$", text)
                    last = re.search(r"it completes the last turn the hand allows \(max_turns\), so "
                                     r"the hand ends, and the lowest hand value wins it; yours is "
                                     r"(\d+)\.$", text)
                    assert bool(empty) == (ended and how == "empty_stock"), text
                    assert bool(last) == (ended and how == "max_turns"), text
                    kept = [c for c in obs["hand"] if c not in move.text.split()[1:]]
                    for found, cards in ((empty, obs["hand"]), (last, kept)):
                        if found:
                            held = sum(_value(c, _ace_high(obs)) for c in cards)
                            assert int(found.group(1)) == held, text
                    claims["empty_stock"] += bool(empty)
                    claims["max_turns"] += bool(last)
                if stalling:
                    game.play(_stalling_move(game, obs, rng))
                    continue
                # random play, taking the upcard and throwing it straight back half the time
                moves = game.legal_moves()
                back = [m for m in moves if obs.get("prev_upcard") and
                        m.text == f"discard {obs['prev_upcard']}"]
                game.play(back[0] if back and rng.random() < 0.5 else rng.choice(moves))
                if variant == "cardverse" and game.observation(0)["hand_number"] > 1:
                    break
    assert min(claims.values()) >= 1, claims


def test_a_forced_stock_draw_claims_no_preference():
    """Both players passed the first upcard: the non-dealer must draw from the stock (§5)."""
    game = new_game("gin", seed=3)
    game.play("pass")
    game.play("pass")
    obs = game.observation(game.to_move)
    assert [m.text for m in game.legal_moves()] == ["draw stock"]
    for level, iterations in (("normal", None), ("master", 16)):
        hint = meldmind.suggest(obs, level=level, iterations=iterations, seed=1)
        assert hint.explanation.startswith(
            "Draw from the stock: both players passed the first upcard, so you draw from the "
            "stock."), hint.explanation
        assert "prefers" not in hint.explanation


def _respelt(obs):
    """``obs`` with its tens written T and its suits in lower case, as RULES.md §7 allows."""
    def card(c):
        return ("T" if c.startswith("10") else c[:-1]) + c[-1].lower()
    out = dict(obs, hand=[card(c) for c in obs["hand"]],
               discard_pile=[card(c) for c in obs["discard_pile"]])
    if obs["variant"] == "gin" and obs["upcard"]:
        out["upcard"] = card(obs["upcard"])
    return out


def test_a_hint_reads_cards_however_they_are_spelt():
    """An outside server may spell cards its own way: the explanation names them as the engine
    does and says the same."""
    rng = random.Random(17)
    for variant in ("gin", "cardverse"):
        for obs, _ in _random_decisions(variant, rng, 40,
                                        lambda obs, m: any("10" in c for c in obs["hand"])):
            spelt = _respelt(obs)
            assert spelt["hand"] != obs["hand"]
            for level in ("beginner", "normal"):
                assert (meldmind.suggest(spelt, level=level, seed=3).explanation ==
                        meldmind.suggest(obs, level=level, seed=3).explanation)


def test_a_search_that_ranks_the_upcard_higher_does_not_say_it_prefers_an_unseen_card():
    """Master may bluff, and expert credits its heuristic's move, so the move played can trail
    the search's best or tie with it: the two sentences of the explanation then agree, never
    'the search prefers an unseen card' beside 'N less than draw upcard' (as for this gin
    position) or 'as much as'."""
    said = set()
    rng = random.Random(5)
    positions = [new_game("gin", seed=4).observation(0)] + [
        obs for variant in ("gin", "cardverse")
        for obs, _ in _random_decisions(variant, rng, 100, _declines)]
    for obs in positions:
        for level in ("expert", "master"):
            hint = meldmind.suggest(obs, level=level, seed=1,
                                    iterations=512 if obs["variant"] == "gin" else 64)
            reason, _, values = hint.explanation.partition(". The search ")
            if not re.search(r"unseen card|prefers to pass|passing does about as well", reason):
                continue
            prefers = "the search prefers" in reason
            said.add(prefers)
            compared = ", " in values      # to the best other move
            assert prefers == (not compared or " more " in values or "more surely" in values), \
                hint.explanation
    assert said == {True, False}


def test_a_partial_meld_completed_only_by_the_lowest_card_of_the_run_order_is_partial():
    """§4.9: a partial meld is two cards of one suit at rank distance 1-2 "whose completing card
    is not yet known to be dead". 3S 4S is completed by 2S or 5S; with 5S in the discard pile,
    2S (the first card of CardVerse's run order 2..A) still completes it. In gin (A..K), 2C 3C
    is completed by AC or 4C; with 4C dead, the ace still does."""
    cv = {"variant": "cardverse", "seat": 0, "hand": "3S 4S 9C KD 7H".split(),
          "discard_pile": ["5S"]}
    assert explain("cardverse", cv, Move(44, "discard 4S"), None, ()) == \
        "Discard 4S: it only makes a partial meld, with 3S, and your opponent has not shown " \
        "interest in fours."
    gin = {"variant": "gin", "seat": 0, "hand": "2C 3C 7D 8H 9S JD KH 5S QC 6H 4D".split(),
           "discard_pile": ["4C"], "upcard": None}
    assert explain("gin", gin, Move(2, "discard 3C"), None, ()) == \
        "Discard 3C: it only makes a partial meld, with 2C, and your opponent has not shown " \
        "interest in threes."


@pytest.mark.parametrize("turn, ends", [(299, True), (298, False)])
def test_only_the_discard_of_the_last_allowed_turn_is_said_to_end_the_hand(turn, ends):
    """§4.2 ``max_turns`` (300) counts completed turns, and the hand ends when the count
    reaches it (§4.6.2): after 299 completed turns the next discard completes turn 300 and
    ends the hand; the lowest hand value wins."""
    obs = {"variant": "cardverse", "seat": 0, "hand": "9C 4D QH".split(), "turn": turn,
           "hand_sizes": [3, 4]}
    text = explain("cardverse", obs, Move(10, "discard 9C"), None, ())
    # left in the hand: 4D QH = 4 + 10 = 14
    said = "Discard 9C: it completes the last turn the hand allows (max_turns), so the hand " \
           "ends, and the lowest hand value wins it; yours is 14."
    assert (text == said) == ends


def test_with_ace_high_four_aces_can_take_a_seat_to_the_target():
    """§4.1: with ``ace_high`` an ace counts 11. Seat 0 has 59 points and seat 1 holds 4
    cards: if they are four aces, going out scores 4 * 11 = 44 and 59 + 44 = 103 >= 100, so
    this hand may end the game and the search's values are game results (+1 won), not
    points (with aces at 10 points the most would be 99)."""
    obs = {"variant": "cardverse", "seat": 0, "hand": "9C 4D QH 2S 7C".split(),
           "hand_sizes": [5, 4], "scores": [59, 0],
           "options": {"ace_high": True, "target_score": 100}}
    qh, c9 = Move(39, "discard QH"), Move(10, "discard 9C")
    text = explain("cardverse", obs, qh, 0.45, (Alternative(qh, 0.45, 99),
                                                Alternative(c9, 0.4, 99)))
    assert text.endswith(" The search scores it +0.45 (a game won counts +1, a game lost -1), "
                         "0.05 more than discard 9C.")
    obs["options"]["ace_high"] = False          # 59 + 4 * 10 = 99: points
    text = explain("cardverse", obs, qh, 0.45, (Alternative(qh, 0.45, 99),
                                                Alternative(c9, 0.4, 99)))
    assert text.endswith(" The search expects +45.0 points for you, 5.0 more than discard 9C.")
    # ace_high, 45 points, 5 cards against: at most 4 aces (44) and a ten-point card, 45 + 54 =
    # 99, so the values are points; an ace is worth 11, but there are only four of them
    obs = {"variant": "cardverse", "seat": 0, "hand": "9C 4D QH".split(),
           "hand_sizes": [3, 5], "scores": [45, 0],
           "options": {"ace_high": True, "target_score": 100}}
    text = explain("cardverse", obs, qh, 0.45, (Alternative(qh, 0.45, 99),))
    assert text.endswith(" The search expects +45.0 points for you.")


@pytest.mark.parametrize("rediscard_allowed, reason", [
    (False, "it costs you no meld, and no other discard leaves less deadwood (10)"),
    (True, "it costs you no meld, but it leaves 10 deadwood, where discarding KS would leave 0"),
])
def test_a_broken_meld_is_not_compared_with_throwing_back_the_card_just_taken(rediscard_allowed,
                                                                               reason):
    """§4.4 / Decision 6: with ``no_immediate_rediscard`` (the default) the card taken from the
    discard this turn cannot be discarded, so the explanation of a discard that breaks a meld
    compares it with the legal discards only. Seat 0 took KS: 5H 6H 7H 8H KS.
    Discard 8H or 5H: 10 deadwood (KS); 6H: 5+7+8+10 = 30; 7H: 5+6+8+10 = 29; KS (only when
    the option is off): 0."""
    obs = {"variant": "cardverse", "seat": 0, "hand": "5H 6H 7H 8H KS".split(),
           "taken_this_turn": "KS", "discard_pile": ["2C"], "hand_sizes": [5, 7],
           "options": {"no_immediate_rediscard": not rediscard_allowed}}
    assert explain("cardverse", obs, Move(35, "discard 8H"), None, ()) == \
        f"Discard 8H: {reason}, and your opponent has not shown interest in eights."


# ---------------------------------------------------------------------------------------------
# From a researcher's audit of the explanations (helper-75)
# ---------------------------------------------------------------------------------------------

def _upcard_taker_game(seed, take_first):
    """A gin game whose seats take every upcard in the draw phase and discard another card (the
    first such card of the hand that is not the one just taken), so the stock never shrinks:
    returns it at the 50th draw-phase take, which ends the hand (OpenSpiel's limit)."""
    game = new_game("gin", seed=seed)
    while True:
        obs = game.observation(game.to_move)
        texts = [m.text for m in game.legal_moves()]
        if obs["phase"] == "draw" and obs["upcard_draws"] == 49:
            return game, obs
        if obs["phase"] == "first_upcard":
            move = "draw upcard" if take_first and "draw upcard" in texts else \
                "pass" if "pass" in texts else "draw stock"
        elif "draw upcard" in texts:
            move = "draw upcard"
        else:
            move = next(t for t in texts if t.startswith("discard ")
                        and t.split()[1] != obs["prev_upcard"])
        game.play(move)


@pytest.mark.parametrize("take_first, ordinal", [(True, "51st"), (False, "50th")])
def test_the_take_that_reaches_the_upcard_limit_counts_the_first_upcard(take_first, ordinal):
    """OpenSpiel's limit counts the upcards taken in the draw phase (``upcard_draws``): the
    first upcard is not among them. When a seat took it, the take that ends the hand is the
    51st upcard taken, as the history shows, not the 50th."""
    game, obs = _upcard_taker_game(3, take_first)
    taken = sum(entry["move"] == "draw upcard" for entry in obs["history"])
    assert taken == (50 if take_first else 49)
    take = next(m for m in game.legal_moves() if m.text == "draw upcard")
    assert explain("gin", obs, take, None, ()) == (
        f"Take the {obs['upcard']}: it is the {ordinal} upcard taken, which ends the hand as a "
        f"draw: no one scores.")
    game.play(take)
    assert game.is_over and game.observation(0)["end"] == "upcard_limit"


def test_a_taken_card_that_can_no_longer_meld_with_the_discard_does_not_go_with_it():
    """The opponent took JH (gin seed 31, normal against normal, as the audit found it): 9H
    goes with it only through 10H, which lies in the discard pile, so no meld can hold both.
    The explanation names the taken card without saying it goes with the discard (nor that the
    opponent showed no interest in nines); with 10H unseen it does go with it."""
    obs = {"variant": "gin", "seat": 0, "phase": "discard", "upcard": None,
           "hand": "AD 2D 4D 5D 6D 9H 2S 4S 7S 8S JD".split(),
           "known_cards": [[], ["JH"]], "discard_pile": ["KC", "6S", "10H", "3H"],
           "history": [{"seat": 1, "move": "draw upcard"}]}
    text = explain("gin", obs, Move(34, "discard 9H"), None, ())
    assert text == ("Discard 9H: it fits none of your melds, and the JH your opponent took can "
                    "no longer meld with it.")
    obs["discard_pile"] = ["KC", "6S", "3H"]
    text = explain("gin", obs, Move(34, "discard 9H"), None, ())
    assert text.endswith("but your opponent took JH, which goes with it."), text
    # the same seen in play: every "goes with it" is a meld still possible
    game = new_game("gin", seed=31)
    for number in range(37):
        game.play(meldmind.suggest(game.observation(game.to_move), level="normal",
                                   seed=number).move)
    obs = game.observation(game.to_move)
    for entry in obs["legal_moves"]:
        if entry["text"].startswith("discard"):
            _check_discard_claim("gin", obs, explain("gin", obs, Move(entry["id"], entry["text"]),
                                                     None, ()))


def test_a_taken_card_is_said_to_complete_the_meld_of_a_best_partition_the_analysis_passed_over():
    """2C AD 4D 5D 8D AH 2H 4H 4S 5S and the upcard 3S: 4D 4H 4S and 3S 4S 5S each leave 27
    points (§5.2), so 3S completes a meld of a best partition, whichever the analysis keeps; it
    does not merely "build on 5S"."""
    hand = "2C AD 4D 5D 8D AH 2H 4H 4S 5S".split()
    cards = frozenset(hand) | {"3S"}
    assert own_deadwood("gin", cards) == 27
    assert _card_value_total(cards - {"4D", "4H", "4S"}) == 27      # the rest melds nothing
    assert _card_value_total(cards - {"3S", "4S", "5S"}) == 27
    obs = {"variant": "gin", "seat": 0, "phase": "draw", "upcard": "3S", "hand": hand,
           "known_cards": [[], []], "discard_pile": []}
    assert explain("gin", obs, Move(52, "draw upcard"), None, ()) == \
        "Take the 3S: it completes 3S 4S 5S."
    assert explain("gin", obs, Move(53, "draw stock"), None, ()) == \
        "Draw from the stock: 3S would complete 3S 4S 5S, but this level prefers an unseen card."


def test_the_dealers_pass_of_the_first_upcard_is_no_preference_for_an_unseen_card():
    """§5: when the dealer passes the first upcard after the non-dealer, the non-dealer draws
    from the stock; the dealer draws no card. A first-upcard pass is explained as a pass."""
    game = new_game("gin", seed=94)
    game.play("pass")
    obs = game.observation(1)
    hint = meldmind.suggest(obs, level="normal", seed=94)
    assert hint.move.text == "pass"
    assert hint.explanation == "Pass: 6D would make 4D 5D 6D, but this level prefers to pass."
    passed = copy.deepcopy(game)
    passed.play("pass")
    assert passed.to_move == 0 and [m.text for m in passed.legal_moves()] == ["draw stock"]
    searched = meldmind.suggest(obs, level="master", iterations=32, seed=94)
    assert searched.move.text == "pass" and "the search prefers to pass" in searched.explanation


def test_a_discard_says_whether_it_loses_a_meld():
    """A card of a meld is weighed by what the other cards meld without it: the end of a longer
    run or the fourth card of a group costs no meld (the test above), a card that a partition
    as good leaves out gains nothing by melding, and only the rest breaks a meld."""
    # 3H 4H 5H or 4D 4H 4S: either leaves 4D 4S or 3H 5H, 8 points, beside 2C 7C KD
    gin = {"variant": "gin", "seat": 0, "hand": "3H 4H 5H 4D 4S 9C 9D 9S 2C 7C KD".split(),
           "discard_pile": [], "upcard": None, "known_cards": [[], []], "history": []}
    gin["legal_moves"] = [{"id": 0, "text": f"discard {c}"} for c in gin["hand"]]
    expected = {
        "3H": "it melds in 3H 4H 5H, but your deadwood is as low without that meld",
        "4D": "it melds in 4D 4H 4S, but your deadwood is as low without that meld",
        "4H": "it breaks a meld and leaves 35 deadwood, where discarding KD would leave 17",
        "KD": "it fits none of your melds",
    }
    for card, reason in expected.items():
        text = explain("gin", gin, Move(0, f"discard {card}"), None, ())
        assert text.startswith(f"Discard {card}: {reason}, and your opponent"), text
        _check_discard_claim("gin", gin, text)
    # CardVerse: KS was taken this turn and may not go back, so a card of the run must go
    cv = {"variant": "cardverse", "seat": 0, "hand": "5H 6H 7H KS".split(), "taken_this_turn": "KS",
          "discard_pile": ["2C"], "hand_sizes": [4, 7], "table": [],
          "hand_history": {"taken": [["KS"], []], "discarded": [[], []], "declined": [[], []]}}
    cv["legal_moves"] = [{"id": 0, "text": f"discard {c}"} for c in "5H 6H 7H".split()]
    text = explain("cardverse", cv, Move(0, "discard 7H"), None, ())
    assert text.startswith("Discard 7H: it breaks a meld, but no other discard leaves less "
                           "deadwood (21)"), text
    assert "breaks, least" in _check_discard_claim("cardverse", cv, text)


def test_a_taken_card_that_needs_the_seats_own_card_is_told_apart():
    """The opponent took 7D, and 10D lies in the pile: with 9D it melds only through 8D. While
    the seat holds 8D, discarding 9D feeds no meld the opponent can complete by itself."""
    gin = {"variant": "gin", "seat": 0, "hand": "9D 8D KS QH JC 2C 4H 6S 3S AC 10C".split(),
           "discard_pile": ["10D"], "upcard": None, "known_cards": [[], ["7D"]], "history": [],
           "melds": [], "layoffs": []}
    gin["legal_moves"] = [{"id": 0, "text": f"discard {c}"} for c in gin["hand"]]
    text = explain("gin", gin, Move(0, "discard 9D"), None, ())
    assert text.endswith("and the 7D your opponent took needs your 8D to meld with it."), text
    assert "took, needs yours" in _check_discard_claim("gin", gin, text)
    # 8D goes with 7D through 6D, which anyone may still draw
    text = explain("gin", gin, Move(0, "discard 8D"), None, ())
    assert text.endswith("but your opponent took 7D, which goes with it."), text
    gin["hand"][1] = "5D"     # without 8D, 9D goes with 7D through the 8D still unseen
    text = explain("gin", gin, Move(0, "discard 9D"), None, ())
    assert text.endswith("but your opponent took 7D, which goes with it."), text


# ---------------------------------------------------------------------------------------------
# Gin lay-offs: the deadwood a lay-off, or a chain of them, leaves
# ---------------------------------------------------------------------------------------------

LAY_OFF = re.compile(r"Lay off (\S+): (?:then (.+) can go too, and )?your deadwood (?:(falls|rises) "
                     r"from (\d+) to (\d+)|stays (\d+))\.( .*)?")
FREE_LAY_OFF = re.compile(r"Lay off (\S+): it leaves your hand for free on a table meld; your "
                          r"deadwood stays (\d+)\.( .*)?")


def _check_lay_off_claim(game, text):
    """Plays the lay-offs an explanation names, checks the deadwood it states before and after,
    and that a pass claiming no chain lowers the deadwood is right; returns the kind of claim."""
    now = own_deadwood("gin", frozenset(game.observation(game.to_move)["hand"]))
    if text.startswith("Pass: no lay-off"):
        assert f"lowers your deadwood of {now}, " in text, text
        assert best_layoff_deadwood(game._state.copy(), {}) == now, text
        return "no chain"
    if text.startswith("Pass"):
        return "pass"
    free = FREE_LAY_OFF.fullmatch(text)
    claim = LAY_OFF.fullmatch(text)
    assert free or claim, text
    first = (free or claim).group(1)
    chain = [first] + (claim.group(2).split(" and ") if claim and claim.group(2) else [])
    after = copy.deepcopy(game)
    for card in chain:
        after.play(f"lay off {card}")        # raises unless the chain is legal in this order
    left = own_deadwood("gin", frozenset(after.observation(after.to_move)["hand"]))
    if free:
        assert int(free.group(2)) == now == left, text
        return "free"
    if claim.group(6):      # a chain that leaves the deadwood as it was
        assert len(chain) > 1 and int(claim.group(6)) == now == left, text
        return "chain"
    before, stated = int(claim.group(4)), int(claim.group(5))
    assert (before, stated) == (now, left) and (claim.group(3) == "falls") == (left < now), text
    return "chain" if len(chain) > 1 else "one"


def test_a_lay_off_chain_is_explained_card_by_card():
    """The defender 4C JC 4D 7H 9H 2S 3S 4S 5S 6S against 7S-8S-9S: 6S alone lowers nothing,
    but it lets 5S go, and then 4S melds with 4C 4D (RULES.md §5: a run takes one card beyond
    a laid-off card)."""
    game = new_game("gin", seed=5455)
    for move in [54, 54, 53, 2, 52, 12, 53, 25, 53, 37, 53, 11, 53, 49, 53, 45, 52, 9, 53, 47,
                 52, 17, 53, 19, 53, 55, 4, 183, 160, 54]:
        game.play(move)
    texts = []
    while game.observation(game.to_move)["phase"] == "layoff" and not game.observation(
            game.to_move)["finished_layoffs"]:
        hint = meldmind.suggest(game.observation(game.to_move), level="normal")
        assert _check_lay_off_claim(game, hint.explanation)
        texts.append(hint.explanation)
        game.play(hint.move.id)
    assert texts == [
        "Lay off 6S: then 5S can go too, and your deadwood falls from 34 to 31.",
        "Lay off 5S: your deadwood falls from 34 to 31.",
        "Pass: no lay-off, alone or in a chain, lowers your deadwood of 31, so you go on to lay "
        "your own melds."]


def test_lay_off_explanations_state_the_deadwood_the_lay_offs_leave():
    """Every lay-off decision of 150 games between normal and easy (and expert's, at a small
    budget), checked against the engine's lay-offs and the deadwood computed here. ``suggest``
    plans the lay-offs on the array it searched; ``explain`` given the dict alone says the same."""
    kinds = set()
    for number in range(150):
        game = new_game("gin", seed=number)
        while not game.is_over:
            obs = game.observation(game.to_move)
            level = "normal" if game.to_move == number % 2 else "easy"
            hint = meldmind.suggest(obs, level=level, seed=number)
            if obs["phase"] == "layoff" and not obs["finished_layoffs"]:
                kinds.add(_check_lay_off_claim(game, hint.explanation))
                assert explain("gin", obs, hint.move, hint.value, hint.alternatives) == \
                    hint.explanation
                searched = meldmind.suggest(obs, level="expert", iterations=16, seed=number)
                kinds.add(_check_lay_off_claim(game, searched.explanation))
            game.play(hint.move.id)
    assert kinds >= {"no chain", "one", "chain"}, kinds


def test_a_lay_off_that_needs_its_chain_to_cost_nothing_names_the_chain():
    """Lay off 8S (melded in 8S 9S 10S): alone it leaves 9S 10S loose, 31 -> 50, and only the
    chain it opens (10S below JS QS KS, 9S beyond it) takes the deadwood back to 31. The search
    scores such a lay-off level with the pass (here it plays 10S, which keeps 8S for 8C 8D 8S),
    but ``explain`` may be asked about any move; it may not call the lay-off free without naming
    the chain. The observation is one a server would send."""
    obs = layoff_observation(["2C", "3C", "8C", "8D", "3H", "7H", "8S", "9S", "10S"],
                             [["4S", "5S", "6S", "7S"], ["JS", "QS", "KS"]], layoffs=["3S"])
    assert own_deadwood("gin", frozenset(obs["hand"])) == 31
    assert own_deadwood("gin", frozenset(obs["hand"]) - {"8S"}) == 50
    assert own_deadwood("gin", frozenset(obs["hand"]) - {"8S", "9S", "10S"}) == 31
    text = explain("gin", obs, Move(46, "lay off 8S"), None, ())
    assert text == "Lay off 8S: then 10S and 9S can go too, and your deadwood stays 31.", text


# ---------------------------------------------------------------------------------------------
# CardVerse: a lay that leaves one card to discard
# ---------------------------------------------------------------------------------------------

GOES_OUT = re.compile(r"then discarding (\S+) takes you out and wins the hand")


def test_a_lay_that_leaves_one_card_says_the_discard_goes_out():
    """Every CardVerse lay explained as leading out, in 120 games of normal against easy with
    and without discard_to_win: the discard it names is legal after the lay, and it ends the
    hand with the seat as the winner (RULES.md §4.6)."""
    checked = {False: 0, True: 0}
    for number in range(120):
        to_win = bool(number % 2)
        game = new_game("cardverse", seed=number, options={"discard_to_win": to_win})
        hands = 0
        while not game.is_over and hands < 3:
            seat = game.to_move
            obs = game.observation(seat)
            hint = meldmind.suggest(obs, level="normal" if seat == number % 2 else "easy")
            claim = GOES_OUT.search(hint.explanation)
            before = obs["hand_number"]
            game.play(hint.move.id)
            if claim:
                game.play(f"discard {claim.group(1)}")
                last = game.observation(seat)["last_hand"]
                assert last["winner"] == seat and last["end"] == "out", hint.explanation
                checked[to_win] += 1
            hands += game.is_over or game.observation(seat)["hand_number"] != before
    assert checked[False] >= 5 and checked[True] >= 5, checked


def test_a_lay_that_leaves_only_the_card_just_taken_still_goes_out():
    """The card taken from the discard may be discarded when it is the seat's last card
    (RULES.md §4.4, no_immediate_rediscard): a lay that leaves only that card leads out too."""
    obs = {"variant": "cardverse", "seat": 0, "hand": ["10D", "JD", "10H", "10S"],
           "hand_sizes": [4, 5], "taken_this_turn": "JD",
           "options": {"discard_to_win": True, "no_immediate_rediscard": True}}
    text = explain("cardverse", obs, Move(0, "lay meld 10D 10H 10S"), None, ())
    assert text == "Lay 10D 10H 10S: then discarding JD takes you out and wins the hand.", text
    obs.update(hand=["5C", "6D"], hand_sizes=[2, 5], taken_this_turn="5C",
               table=[{"slot": 0, "kind": "group", "cards": ["6C", "6H", "6S"]}])
    text = explain("cardverse", obs, Move(0, "lay off 6D on meld 0 (group)"), None, ())
    assert text == "Lay off 6D: then discarding 5C takes you out and wins the hand.", text
