"""Plain-language reasons for a suggested move, from the seat's observation only.

>>> obs = {"variant": "gin", "seat": 0, "hand": "7C 7D 7H 2S 3S 4S 9S JD KC QH 5C".split(),
...        "known_cards": [[], ["9H"]], "upcard": None, "discard_pile": []}
>>> explain("gin", obs, Move(50, "discard KC"), None, ())
'Discard KC: it fits none of your melds, and your opponent has not shown interest in kings.'
>>> explain("gin", obs, Move(47, "discard 9S"), None, ())
'Discard 9S: it fits none of your melds, but your opponent took 9H, which goes with it.'
>>> obs["history"] = [{"seat": 1, "move": "draw stock"}, {"seat": 1, "move": "discard JC"}]
>>> explain("gin", obs, Move(49, "discard JD"), None, ())
'Discard JD: it fits none of your melds, and your opponent threw away JC, so it is unlikely to want it.'
>>> obs = {"variant": "cardverse", "seat": 0, "hand": "5H 6H 7H 9C QD".split(),
...        "hand_sizes": [5, 6, 6], "taken_from_discard": [[], [], []], "discard_pile": ["2S"],
...        "hand_history": {"discarded": [[], ["QS"], []], "declined": [[], [], []],
...                         "taken": [[], [], []]}}
>>> explain("cardverse", obs, Move(13, "discard QD"), None, ())
'Discard QD: it fits none of your melds, and an opponent threw away QS, so it is unlikely to want it.'

Partial melds are counted among the cards outside melds, in the variant's run order (CardVerse's
ace is high):

>>> obs = {"variant": "gin", "seat": 0, "hand": "5C 5D 5H 5S 4C 9D 9H 2S 3S 4S KD".split()}
>>> explain("gin", obs, Move(3, "discard 4C"), None, ())       # 5C is in a meld
'Discard 4C: it fits none of your melds, and your opponent has not shown interest in fours.'
>>> explain("gin", obs, Move(21, "discard 9D"), None, ())
'Discard 9D: it only makes a partial meld, with 9H, and your opponent has not shown interest in nines.'
>>> obs = {"variant": "cardverse", "seat": 0, "hand": "AS KS 2S 7D 8C".split()}
>>> explain("cardverse", obs, Move(39, "discard AS"), None, ())
'Discard AS: it only makes a partial meld, with KS, and your opponent has not shown interest in aces.'
>>> explain("cardverse", obs, Move(40, "discard 2S"), None, ())
'Discard 2S: it fits none of your melds, and your opponent has not shown interest in twos.'

A pair whose completing cards are all dead (in the discard pile, taken from it by an opponent,
or on the table) is no partial meld, and a card taken from a meld is weighed against the other
discards:

>>> obs = {"variant": "gin", "seat": 0, "hand": "9D 9H 2S 3S 4S 5S KD 7C 7D 7H 7S".split(),
...        "discard_pile": ["9C"], "upcard": "9S"}
>>> explain("gin", obs, Move(21, "discard 9D"), None, ())
'Discard 9D: it fits none of your melds, and your opponent has not shown interest in nines.'
>>> explain("gin", obs, Move(41, "discard 4S"), None, ())
'Discard 4S: it breaks a meld and leaves 38 deadwood, where discarding KD would leave 18, and your opponent has not shown interest in fours.'
>>> obs["hand"] = "9D 9H 9S 2S 3S 4S 5S 7C 7D 7H 7S".split()     # every card melds
>>> explain("gin", obs, Move(42, "discard 5S"), None, ())
'Discard 5S: it costs you no meld, and no other discard leaves less deadwood (0), and your opponent has not shown interest in fives.'

Drawing from CardVerse's empty stock ends the hand (RULES.md §4.6):

>>> cv = {"variant": "cardverse", "seat": 0, "hand": ["AS", "4D"], "stock_size": 0,
...       "options": {"ace_high": True}}
>>> explain("cardverse", cv, Move(0, "draw stock"), None, ())
'Draw from the stock: the stock is empty, so this ends the hand, and the lowest hand value wins it; yours is 15.'

A card an opponent took and threw back shows no interest; a card that could go on a table meld
says so; with more than one opponent, "no opponent" has shown interest:

>>> cv = {"variant": "cardverse", "seat": 0, "hand": "9C 4D QH".split(), "hand_sizes": [3, 4],
...       "table": [{"cards": ["QC", "QD", "QS"]}], "taken_from_discard": [[], []],
...       "hand_history": {"taken": [[], ["9D"]], "discarded": [[], ["9D"]], "declined": [[], []]}}
>>> explain("cardverse", cv, Move(7, "discard 9C"), None, ())
'Discard 9C: it fits none of your melds, and your opponent threw away 9D, so it is unlikely to want it.'
>>> explain("cardverse", cv, Move(36, "discard QH"), None, ())
'Discard QH: it fits none of your melds. You could also lay it off on QC QD QS, as your opponent could if it took it.'
>>> cv.update(hand_sizes=[3, 4, 4], taken_from_discard=[[], [], []], hand_history={})
>>> explain("cardverse", cv, Move(16, "discard 4D"), None, ())
'Discard 4D: it fits none of your melds, and no opponent has shown interest in fours.'

A gin knocker's discard only sets the deadwood it shows:

>>> knocker = {"variant": "gin", "seat": 0, "phase": "knock",
...            "hand": "7C 7D 7H 2S 3S 4S 5C 5D 5H 9S AC".split()}
>>> explain("gin", knocker, Move(47, "discard 9S"), None, ())
'Discard 9S: it leaves 1 deadwood to show, and no other discard leaves less.'
>>> explain("gin", knocker, Move(0, "discard AC"), None, ())
'Discard AC: it leaves 9 deadwood to show, where discarding 9S would leave 1.'

With the search's values (the move kept can trail the best one by a little: the search credits
the heuristic's move against its own noise, and master may bluff):

>>> from meldmind.ai import Alternative
>>> qd, qs, d9 = Move(13, "discard QD"), Move(10, "discard QS"), Move(7, "discard 9C")
>>> obs.update(options={"target_score": 100}, hand_sizes=[5, 6], scores=[0, 0])  # no one near 100
>>> explain("cardverse", obs, qd, 0.125, (Alternative(qd, 0.125, 99), Alternative(d9, 0.1, 99)))
'Discard QD: ... The search expects +12.5 points for you, 2.5 more than discard 9C.'
>>> explain("cardverse", obs, qd, 0.125, (Alternative(qs, 0.125, 99), Alternative(qd, 0.125, 99)))
'Discard QD: ... The search expects +12.5 points for you, as much as discard QS.'
>>> explain("cardverse", obs, qd, 0.125, (Alternative(d9, 0.13, 400), Alternative(qd, 0.125, 400)))
'Discard QD: ... The search expects +12.5 points for you, 0.5 less than discard 9C: too close to call.'

On fewer determinizations than expert's default the credit is larger (ai_*.pick), and so is the
gap the sentence may show; it says how few:

>>> explain("cardverse", obs, qd, 0.125, (Alternative(d9, 0.2, 40), Alternative(qd, 0.125, 40)))
'Discard QD: ... The search expects +12.5 points for you, 7.5 less than discard 9C: too close to call on 40 determinizations.'
>>> gin = {"variant": "gin", "seat": 0, "hand": "7C 7D 7H 2S 3S 4S 5C 5D 5H 9S AC".split()}
>>> knock, keep = Move(55, "knock"), Move(47, "discard 9S")
>>> explain("gin", gin, knock, 9.0, (Alternative(keep, 12.0, 64), Alternative(knock, 9.0, 64)))
'Knock: your deadwood after the discard is 1. The search expects +9.0 points for you, 3.0 less than discard 9S, but the first knock wins most hands.'

When a seat can reach the target score in this hand, the search scores a playout that ends the
game with the game's return (+1 won, -1/(N-1) lost), which is no number of points:

>>> obs["scores"] = [0, 95]
>>> explain("cardverse", obs, qd, 1.0, (Alternative(qd, 1.0, 99), Alternative(d9, 0.4, 99)))
'Discard QD: ... The search expects you to win the game with it, more surely than with discard 9C.'
>>> explain("cardverse", obs, qd, 0.45, (Alternative(qd, 0.45, 99), Alternative(d9, 0.4, 99)))
'Discard QD: ... The search scores it +0.45 (a game won counts +1, a game lost -1), 0.05 more than discard 9C.'

Taking a card claims a lower deadwood only when a discard after it leaves less:

>>> cv = {"variant": "cardverse", "seat": 0, "hand": "AC 7C 8D 9D 7H 8S 9S".split(),
...       "discard_pile": ["QS"]}
>>> explain("cardverse", cv, Move(1, "take discard"), None, ())
'Take the QS: it does not lower your deadwood of 49, but this level prefers it to an unseen card.'
>>> cv["discard_pile"] = ["2S"]
>>> explain("cardverse", cv, Move(1, "take discard"), None, ())
'Take the 2S: with 9D discarded, your deadwood drops from 49 to 42.'

In gin, pass also ends the knocker's melds, the defender's lay-offs and then the hand, and at
the wall (two stock cards left) it ends the hand as a draw:

>>> knocker = {"variant": "gin", "seat": 0, "phase": "knock", "hand": ["2C", "6S"]}
>>> explain("gin", knocker, Move(54, "pass"), None, ())
'Pass: you stop laying melds; your deadwood of 8 (2C 6S) is shown.'
>>> defender = {"variant": "gin", "seat": 1, "phase": "layoff", "finished_layoffs": True,
...             "hand": ["3C", "9H"], "knocker": 0, "deadwood": [8, None]}
>>> print(explain("gin", defender, Move(54, "pass"), None, ()))
Pass: you show your hand: the cards you did not lay count 12 against the knocker's 8, so the knocker scores 4.
>>> wall = {"variant": "gin", "seat": 0, "phase": "wall", "hand": ["2C"], "upcard": "9H"}
>>> explain("gin", wall, Move(54, "pass"), None, ())
'Pass: only two cards are left in the stock, so passing ends the hand as a draw: no one scores.'

A move that ends the hand says so: going out in CardVerse, and in gin a second upcard thrown
straight back, which ends the hand as a draw:

>>> out = {"variant": "cardverse", "seat": 0, "hand": ["5S"], "hand_sizes": [1, 4]}
>>> explain("cardverse", out, Move(42, "discard 5S"), None, ())
'Discard 5S: it empties your hand, so you go out and win the hand.'
>>> back = {"variant": "gin", "seat": 0, "phase": "discard", "repeated_move": True,
...         "prev_upcard": "KC", "hand": "KC 7C 7D 7H 2S 3S 4S 5C 5D 9S JD".split()}
>>> explain("gin", back, Move(12, "discard KC"), None, ())
'Discard KC: your opponent threw back the upcard it took, and throwing back yours too ends the hand as a draw: no one scores.'

An upcard left that would complete a meld is explained by the deadwood when taking it gains
nothing, else by the choice of the search (or of a level without search):

>>> up = {"variant": "gin", "seat": 0, "phase": "draw", "upcard": "7H",
...       "hand": "7C 7D 2S 3S 4S 5C 5D 5H 9S KC".split()}
>>> explain("gin", up, Move(53, "draw stock"), None, ())
'Draw from the stock: 7H would complete 7C 7D 7H, but this level prefers an unseen card.'
>>> stock = Alternative(Move(53, "draw stock"), 2.0, 64)
>>> explain("gin", up, stock.move, 2.0, (stock,))
'Draw from the stock: 7H would complete 7C 7D 7H, but the search prefers an unseen card. The search expects +2.0 points for you.'
>>> take = Alternative(Move(52, "draw upcard"), 2.4, 128)      # master's bluff: it trails
>>> explain("gin", up, stock.move, 2.0, (take, stock))
'Draw from the stock: 7H would complete 7C 7D 7H, but an unseen card does about as well. The search expects +2.0 points for you, 0.4 less than draw upcard: too close to call.'
>>> level = Alternative(Move(52, "draw upcard"), 2.0, 64)      # a tie, as the values are shown
>>> explain("gin", up, stock.move, 2.0, (level, stock))
'Draw from the stock: 7H would complete 7C 7D 7H, but an unseen card does about as well. The search expects +2.0 points for you, as much as draw upcard.'
>>> up.update(upcard="9C", hand="2S 3S 4S 5S 6C 7C 8C 9D 9H 9S".split(), phase="first_upcard")
>>> explain("gin", up, Move(54, "pass"), None, ())
'Pass: 9C would extend 9D 9H 9S, but taking it would not lower your deadwood of 0.'
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .analysis import HandAnalysis, analyze_batch, analyze_hand, layoff_targets, melds_in
from .cards import RANKS, SUITS, format_card, parse_cards
from .errors import signed
from .game import Move, ai_module
from .games.cardverse import KERNEL as CARDVERSE_KERNEL, OPTIONS as CARDVERSE_OPTIONS
from .games.gin import KERNEL as GIN_KERNEL, PARAMETERS as GIN_PARAMETERS, observation_array
from .kernels import ai_gin as GIN_AI

RANK_NAMES = {"A": "aces", "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes",
              "7": "sevens", "8": "eights", "9": "nines", "10": "tens", "J": "jacks",
              "Q": "queens", "K": "kings"}
# The ranks in run order: gin's ace is low, CardVerse's always high (RULES.md §4.1).
RUN_ORDER = {"gin": RANKS, "cardverse": RANKS[1:] + RANKS[:1]}


def _rank(card: str) -> str:
    return card[:-1]


def _related(variant: str, a: str, b: str) -> bool:
    """Same rank, or same suit within two ranks of the variant's runs: cards that can end up in
    one meld."""
    if _rank(a) == _rank(b):
        return True
    order = RUN_ORDER[variant]
    return a[-1] == b[-1] and abs(order.index(_rank(a)) - order.index(_rank(b))) <= 2


def _cardverse_option(obs: Mapping[str, Any], name: str) -> Any:
    """A CardVerse option of the observation, its default when the observation leaves it out."""
    return (obs.get("options") or {}).get(name, CARDVERSE_OPTIONS[name][1])


def _ace_high(variant: str, obs: Mapping[str, Any]) -> bool:
    return variant == "cardverse" and bool(_cardverse_option(obs, "ace_high"))


def _analysis_options(variant: str, obs: Mapping[str, Any]) -> dict[str, bool] | None:
    """The hand analysis's options: aces valued as the game's options say."""
    return {"ace_high": True} if _ace_high(variant, obs) else None


def _analyze(variant: str, obs: Mapping[str, Any], cards: Sequence[str]) -> HandAnalysis:
    """The best partition of ``cards``."""
    return analyze_hand(variant, cards, options=_analysis_options(variant, obs))


def _completers(variant: str, a: str, b: str) -> list[str]:
    """The cards that would make the related cards ``a`` and ``b`` a meld of three."""
    if _rank(a) == _rank(b):
        return [_rank(a) + s for s in SUITS if s not in (a[-1], b[-1])]
    order = RUN_ORDER[variant]
    low, high = sorted((order.index(_rank(a)), order.index(_rank(b))))
    ends = [low + 1] if high - low == 2 else [low - 1, high + 1]
    return [order[k] + a[-1] for k in ends if 0 <= k < len(order)]


def _out_of_play(variant: str, obs: Mapping[str, Any]) -> set[str]:
    """Cards no hand can get any more: the discard pile, whose buried cards never come back,
    and the melds laid (gin: with their lay-offs), which are never rearranged."""
    gone = set(obs.get("discard_pile") or [])
    if variant == "gin":
        gone.update(card for melds in obs.get("melds") or [] for meld in melds for card in meld)
        gone.update(obs.get("layoffs") or [])
    else:
        gone.update(card for meld in obs.get("table") or [] for card in meld["cards"])
    return gone


def _dead_cards(variant: str, obs: Mapping[str, Any]) -> set[str]:
    """Cards no meld of the seat's can get any more (RULES.md §4.9): the table and the discard
    history, that is the cards out of play, gin's upcard, and the discards the opponents
    took."""
    dead = _out_of_play(variant, obs) | set(_opponents_cards(variant, obs))
    if variant == "gin":
        dead.update(card for card in [obs.get("upcard")] if card)
    return dead


def _loose_partners(variant: str, obs: Mapping[str, Any], analysis: HandAnalysis,
                    card: str) -> list[str]:
    """The cards outside the hand's melds that ``card`` makes a partial meld with: related,
    with a completing card not yet dead."""
    dead = _dead_cards(variant, obs)
    return [c for c in analysis.deadwood if c != card and _related(variant, card, c)
            and any(x not in dead for x in _completers(variant, card, c))]


def _meld_of_three(variant: str, hand: Sequence[str], card: str) -> tuple[str, ...] | None:
    """A meld of three that ``card`` makes with cards of ``hand``, if any, whether or not the
    hand's best partition would use it."""
    same = [c for c in hand if _rank(c) == _rank(card)]
    if len(same) >= 2:
        return tuple(sorted(same[:2] + [card], key=lambda c: SUITS.index(c[-1])))
    order = RUN_ORDER[variant]
    at = order.index(_rank(card))
    for low in range(max(at - 2, 0), min(at, len(order) - 3) + 1):
        run = tuple(order[k] + card[-1] for k in range(low, low + 3))
        if all(c == card or c in hand for c in run):
            return run
    return None


def _opponents_cards(variant: str, obs: Mapping[str, Any]) -> list[str]:
    """Cards the opponents took openly and kept: in gin those known to be in its hand, in
    CardVerse the discards taken this hand that are held, then those laid on the table since. A
    card thrown back onto the pile shows no interest."""
    seat = obs.get("seat", 0)
    if variant == "gin":
        known = [obs.get("known_cards") or []]
    else:
        table = {card for meld in obs.get("table") or [] for card in meld["cards"]}
        history = obs.get("hand_history") or {}
        taken = history.get("taken") or []
        discarded = history.get("discarded") or [[] for _ in taken]
        known = [obs.get("taken_from_discard") or [],
                 [[c for c in cards if c in table and c not in discarded[s]]
                  for s, cards in enumerate(taken)]]
    cards = [c for seats in known for s, held in enumerate(seats) if s != seat for c in held]
    return list(dict.fromkeys(cards))


def _opponents_discards(variant: str, obs: Mapping[str, Any]) -> list[str]:
    """Cards the opponents discarded, from the permitted history (gin: newest first)."""
    seat = obs.get("seat", 0)
    if variant == "gin":
        return [entry["move"].split()[1] for entry in reversed(obs.get("history") or [])
                if entry.get("seat") != seat and entry.get("move", "").startswith("discard ")]
    discarded = (obs.get("hand_history") or {}).get("discarded") or []
    return [c for s, cards in enumerate(discarded) if s != seat for c in cards]


def _completers_left(variant: str, obs: Mapping[str, Any], card: str, taken: str
                     ) -> list[str] | None:
    """The cards that could still make ``card`` one meld with ``taken``, a related card an
    opponent took: those neither in the discard pile nor laid. When ``taken`` lies in a
    CardVerse table meld (never rearranged, RULES.md §4.5): None if ``card`` lays off there,
    needing no third card, else none."""
    if variant == "cardverse":
        for meld in obs.get("table") or []:
            if taken in meld["cards"]:
                return None if layoff_targets(variant, [card], [meld["cards"]]) else []
    gone = _out_of_play(variant, obs)
    return [c for c in _completers(variant, card, taken) if c not in gone]


def _opponent_word(obs: Mapping[str, Any]) -> str:
    return "your opponent" if len(obs.get("hand_sizes") or [0, 0]) == 2 else "an opponent"


def _melds_with(analysis: HandAnalysis, card: str) -> list[tuple[str, ...]]:
    return [m.cards for m in analysis.melds if card in m.cards]


def _melds_in_a_best_partition(variant: str, obs: Mapping[str, Any], cards: Sequence[str],
                               card: str, analysis: HandAnalysis) -> list[tuple[str, ...]]:
    """The melds with ``card`` of a best partition of ``cards``: those of ``analysis``, else
    those of a partition as good that the analysis's tie-break passed over (gin's 2C AD 4D 5D
    8D AH 2H 4H 4S 5S + 3S: 4D 4H 4S or 3S 4S 5S, either leaves 27 points)."""
    melds = _melds_with(analysis, card)
    if melds:
        return melds
    candidates = [m.cards for m in melds_in(variant, cards) if card in m.cards]
    if not candidates:
        return []
    left = _deadwood_without(variant, obs, cards, candidates)
    return [meld for meld, points in zip(candidates, left) if points == analysis.deadwood_points]


def _top_of_discard(variant: str, obs: Mapping[str, Any]) -> str | None:
    if variant == "gin":
        return obs.get("upcard")
    pile = obs.get("discard_pile") or []
    return pile[-1] if pile else None


def _hand_end(variant: str, obs: Mapping[str, Any], laid: Sequence[str],
              discards: bool = False) -> str | None:
    """Why playing the cards ``laid`` (a discard when ``discards``, a meld, a lay-off) ends the
    hand, if it does: going out in CardVerse (RULES.md §4.6), or the discard that completes its
    ``max_turns``-th turn; a second repeated move in gin (OpenSpiel ends the hand when both
    players in turn throw back the upcard they took)."""
    hand = list(obs.get("hand", []))
    if variant == "cardverse" and hand and set(hand) <= set(laid):
        return "it empties your hand, so you go out and win the hand"
    if discards and variant == "cardverse" and \
            obs.get("turn") == _cardverse_option(obs, "max_turns") - 1:
        rest = [card for card in hand if card not in laid]
        return (f"it completes the last turn the hand allows (max_turns), so the hand ends, and "
                f"the lowest hand value wins it; yours is {_cardverse_value(obs, rest)}")
    if discards and variant == "gin" and obs.get("phase") == "discard" and \
            obs.get("repeated_move") and list(laid) == [obs.get("prev_upcard")]:
        return ("your opponent threw back the upcard it took, and throwing back yours too ends "
                "the hand as a draw: no one scores")
    return None


def _goes_out_next(variant: str, obs: Mapping[str, Any], laid: Sequence[str]) -> str | None:
    """How laying ``laid`` leads out of a CardVerse hand: the one card left takes it out
    (RULES.md §4.6), even the card just taken from the discard pile, which a seat may discard
    when it is its last card (§4.4)."""
    rest = [card for card in obs.get("hand", []) if card not in laid]
    if variant != "cardverse" or len(rest) != 1:
        return None
    return f"then discarding {rest[0]} takes you out and wins the hand"


def _cardverse_value(obs: Mapping[str, Any], cards: Sequence[str]) -> int:
    """What ``cards`` count against a CardVerse seat when the hand ends without its going out."""
    ace_high = _ace_high("cardverse", obs)
    return sum(int(CARDVERSE_KERNEL.card_value(c, ace_high))
               for c in parse_cards("cardverse", cards))


def _table_meld_for(variant: str, obs: Mapping[str, Any], card: str) -> str | None:
    """A CardVerse table meld ``card`` can be laid off on, as its cards, if any."""
    table = [meld["cards"] for meld in obs.get("table") or []] if variant == "cardverse" else []
    fits = layoff_targets(variant, [card], table) if table else []
    return " ".join(table[fits[0].meld]) if fits else None


def _cardverse_layoff_reason(obs: Mapping[str, Any], card: str) -> str:
    """A lay-off is free when some best partition leaves the card out; it costs no meld when the
    rest of the hand keeps its deadwood (the fourth card of a group, the end of a longer run);
    else it breaks a meld."""
    hand = list(obs.get("hand", []))
    now = _analyze("cardverse", obs, hand).deadwood_points
    after = _analyze("cardverse", obs, [c for c in hand if c != card]).deadwood_points
    if after + _analyze("cardverse", obs, [card]).deadwood_points == now:
        return "it leaves your hand for free on a table meld"
    if after == now:
        return f"it goes onto a table meld and costs you no meld: your deadwood stays {now}"
    if after < now:     # its meld breaks, but the rest melds better (6D 7D 8D 6H 6S: 6D 6H 6S)
        return (f"it goes onto a table meld, and the rest of your hand melds better without it: "
                f"your deadwood goes from {now} to {after}")
    return (f"it goes onto a table meld but breaks one of yours: your deadwood goes from {now} "
            f"to {after}")


def _knock_discard_reason(variant: str, obs: Mapping[str, Any], card: str) -> str:
    """A gin knocker's discard: only the deadwood it leaves to show matters now."""
    after = _deadwood_after_discards(variant, obs, list(obs.get("hand", [])), [])
    best = min(after, key=after.__getitem__)
    if after[card] == 0:
        return "it leaves every other card in a meld, so you go gin"
    if after[card] <= after[best]:
        return f"it leaves {after[card]} deadwood to show, and no other discard leaves less"
    return f"it leaves {after[card]} deadwood to show, where discarding {best} would leave {after[best]}"


def _discard_reason(variant: str, obs: Mapping[str, Any], card: str) -> str:
    if variant == "gin" and obs.get("phase") == "knock":
        return _knock_discard_reason(variant, obs, card)
    hand = list(obs.get("hand", []))
    analysis = _analyze(variant, obs, hand)
    partners = _loose_partners(variant, obs, analysis, card)
    melds = _melds_in_a_best_partition(variant, obs, hand, card, analysis)
    after = _deadwood_after_discards(variant, obs, hand, _no_rediscard(variant, obs)) \
        if melds else {}
    now = analysis.deadwood_points
    if melds and after[card] + _analyze(variant, obs, [card]).deadwood_points == now:
        # a partition as good leaves the card out: melding it gains nothing
        first = f"it melds in {' '.join(melds[0])}, but your deadwood is as low without that meld"
    elif melds:
        best = min(after, key=after.__getitem__)
        least = after[card] <= after[best]
        if after[card] == now:  # the fourth card of a group, or the end of a longer run
            first = (f"it costs you no meld, and no other discard leaves less deadwood "
                     f"({after[card]})" if least else
                     f"it costs you no meld, but it leaves {after[card]} deadwood, where "
                     f"discarding {best} would leave {after[best]}")
        else:
            first = (f"it breaks a meld, but no other discard leaves less deadwood ({after[card]})"
                     if least else
                     f"it breaks a meld and leaves {after[card]} deadwood, where discarding "
                     f"{best} would leave {after[best]}")
    elif three := _meld_of_three(variant, [c for c in hand if c != card], card):
        # a meld no best partition uses: the cards it needs do better in other melds
        first = (f"it melds only in {' '.join(three)}, which leaves more deadwood than the "
                 f"melds you keep")
    elif partners:
        first = f"it only makes a partial meld, with {' '.join(partners)}"
    else:
        first = "it fits none of your melds"
    who = _opponent_word(obs)
    takers = [c for c in _opponents_cards(variant, obs) if _related(variant, card, c)]
    wanted: list[str] = []
    held: list[tuple[str, list[str]]] = []     # melds that wait on a card the seat holds
    for taken in takers:
        cards = _completers_left(variant, obs, card, taken)
        if cards is None or any(c not in hand for c in cards):
            wanted.append(taken)
        elif cards:
            held.append((taken, cards))
    # a card the seat took back from the pile is named last, and as the one it took
    thrown = sorted((c for c in _opponents_discards(variant, obs)
                     if c != card and _related(variant, card, c)), key=lambda c: c in hand)
    table_meld = _table_meld_for(variant, obs, card)
    if wanted:
        reason = f"{first}, but {who} took {wanted[0]}, which goes with it"
    elif table_meld:    # anyone may lay it off: what the opponent showed is beside the point
        return f"{first}. You could also lay it off on {table_meld}, as {who} could if it took it"
    elif held:
        taken, cards = held[0]
        reason = (f"{first}, and the {taken} {who} took needs your {' or '.join(cards)} to meld "
                  f"with it")
    elif takers:
        reason = f"{first}, and the {takers[0]} {who} took can no longer meld with it"
    elif thrown:
        named = f"the {thrown[0]} you took" if thrown[0] in hand else thrown[0]
        reason = f"{first}, and {who} threw away {named}, so it is unlikely to want it"
    else:
        nobody = "your opponent has not" if who == "your opponent" else "no opponent has"
        reason = f"{first}, and {nobody} shown interest in {RANK_NAMES[_rank(card)]}"
    return f"{reason}. You could also lay it off on {table_meld}" if table_meld else reason


def _no_rediscard(variant: str, obs: Mapping[str, Any]) -> list[str]:
    """The card the seat may not discard this turn: CardVerse's card just taken from the
    discard pile, unless the option allows it back (RULES.md §4.10, Decision 6)."""
    taken = obs.get("taken_this_turn") if variant == "cardverse" else None
    allowed_back = not _cardverse_option(obs, "no_immediate_rediscard")
    return [] if taken is None or allowed_back else [taken]


def _extends(variant: str, meld: Sequence[str], card: str) -> bool:
    """Whether ``meld`` less ``card`` is a meld already (a group's fourth card, a run's end)."""
    rest = [c for c in meld if c != card]
    return any(set(m.cards) == set(rest) for m in melds_in(variant, rest))


def _joined_meld(variant: str, obs: Mapping[str, Any], cards: Sequence[str], card: str,
                 analysis: HandAnalysis) -> tuple[str, ...] | None:
    """The meld to name for ``card`` joining the other ``cards`` (``analysis``: of ``cards``):
    one of a best partition that the card extends, else the first with the card of
    ``_melds_in_a_best_partition``. So 3C 4C 5C 6C 7C + 8C extends the run, where 3C 4C 5C with
    6C 7C 8C is as good a partition."""
    melds = _melds_in_a_best_partition(variant, obs, cards, card, analysis)
    if not melds:
        return None
    if _extends(variant, melds[0], card):
        return melds[0]
    longer = [m.cards for m in melds_in(variant, cards)
              if card in m.cards and _extends(variant, m.cards, card)]
    left = _deadwood_without(variant, obs, cards, longer) if longer else []
    return next((m for m, points in zip(longer, left) if points == analysis.deadwood_points),
                melds[0])


def _joins(variant: str, meld: Sequence[str], card: str, would: bool = False) -> str:
    """What ``card`` does to ``meld``, which holds it: completes it, or extends the meld the
    other cards already make."""
    if _extends(variant, meld, card):
        verb = "would extend" if would else "extends"
        return f"{verb} {' '.join(c for c in meld if c != card)}"
    return f"{'would complete' if would else 'completes'} {' '.join(meld)}"


def _take_reason(variant: str, obs: Mapping[str, Any], top: str, prefers: str) -> str:
    hand = list(obs.get("hand", []))
    analysis = _analyze(variant, obs, hand + [top])
    meld = _joined_meld(variant, obs, hand + [top], top, analysis)
    if meld:
        return f"it {_joins(variant, meld, top)}"
    table_meld = _table_meld_for(variant, obs, top)
    if table_meld:
        return f"you can lay it off on {table_meld}"
    partners = _loose_partners(variant, obs, analysis, top)
    if partners:
        return f"it builds on {' '.join(partners)}"
    now, discard, after = _deadwood_after_taking(variant, obs, hand, top)
    if after < now:
        return f"with {discard} discarded, your deadwood drops from {now} to {after}"
    return f"it does not lower your deadwood of {now}, but {prefers}"


def _deadwood_after_discards(variant: str, obs: Mapping[str, Any], cards: Sequence[str],
                             kept: Sequence[str]) -> dict[str, int]:
    """The deadwood left by each discard from ``cards`` but those ``kept``, in one batch: a
    hint is explained after its search, inside the caller's budget."""
    choices = [c for c in cards if c not in kept]
    return dict(zip(choices, _deadwood_without(variant, obs, cards, [[c] for c in choices])))


def _deadwood_without(variant: str, obs: Mapping[str, Any], cards: Sequence[str],
                      removals: Sequence[Sequence[str]]) -> list[int]:
    """The deadwood of ``cards`` without each of ``removals``, in one batch."""
    def mask(hand: Sequence[str]) -> int:
        return sum(1 << c for c in parse_cards(variant, hand))     # 52-card ids are their bits
    whole = mask(cards)
    masks = np.array([whole & ~mask(removed) for removed in removals], np.uint64)
    return analyze_batch(variant, masks, options=_analysis_options(variant, obs)
                         ).deadwood_points.tolist()


def _deadwood_after_taking(variant: str, obs: Mapping[str, Any], hand: list[str],
                           top: str) -> tuple[int, str, int]:
    """(deadwood now, the best discard after taking ``top``, deadwood after that discard)."""
    now = _analyze(variant, obs, hand).deadwood_points
    # the card taken stays: gin gains nothing by throwing it back, CardVerse forbids it
    after = _deadwood_after_discards(variant, obs, hand + [top], [top])
    discard = min(after, key=after.__getitem__)
    return now, discard, after[discard]


# Who prefers a draw choice (the level, the search, or neither by much), per choice. A pass of
# gin's first upcard draws no card: the non-dealer draws from the stock only if the dealer
# passes too, and the dealer's pass gives the non-dealer that stock card (RULES.md §5).
_PREFERENCES = {
    "pass": ("this level prefers to pass", "passing does about as well",
             "the search prefers to pass"),
    "draw stock": ("this level prefers an unseen card", "an unseen card does about as well",
                   "the search prefers an unseen card"),
    "take": ("this level prefers it to an unseen card", "an unseen card would do about as well",
             "the search prefers it to an unseen card"),
}


def _preference(variant: str, obs: Mapping[str, Any], value: float | None,
                alternatives: Sequence[Any], move: Move) -> str:
    """Who prefers ``move``, a draw choice, to the other: the level, the search, or neither by
    much (a move the search ranks level with or below another: master's bluff, or expert's
    credit to its heuristic), as the value sentence shows the values. A take from CardVerse's
    discard pile when its stock is empty is preferred for what a draw would do: end the hand."""
    choice = move.text if move.text in _PREFERENCES else "take"
    if choice == "take" and variant == "cardverse" and obs.get("stock_size") == 0:
        return "the stock is empty, and drawing from it would end the hand"
    by_level, close, by_search = _PREFERENCES[choice]
    if value is None:
        return by_level
    others = [a for a in alternatives if a.move.id != move.id]
    if others and _shown_gap(variant, obs, value, others[0]) <= 0:
        return close
    return by_search


def _decline_reason(variant: str, obs: Mapping[str, Any], prefers: str) -> str:
    top = _top_of_discard(variant, obs)
    if top is None:
        return "the discard pile is empty"
    hand = list(obs.get("hand", []))
    meld = _joined_meld(variant, obs, hand + [top], top, _analyze(variant, obs, hand + [top]))
    if meld:
        completes = f"{top} {_joins(variant, meld, top, would=True)}"
    else:
        three = _meld_of_three(variant, hand, top)
        if three is None:
            table_meld = _table_meld_for(variant, obs, top)
            if table_meld:
                return f"{top} could be laid off on {table_meld}, but {prefers}"
            return f"{top} fits none of your melds"
        completes = f"{top} would make {' '.join(three)}"
    now, _, after = _deadwood_after_taking(variant, obs, hand, top)
    if after >= now:
        return f"{completes}, but taking it would not lower your deadwood of {now}"
    return f"{completes}, but {prefers}"


def _took_first_upcard(obs: Mapping[str, Any]) -> bool:
    """Whether a gin seat took the deal's first upcard: the first move after the passes of the
    first-upcard phase. OpenSpiel's limit of 50 upcards counts only the later ones."""
    first = next((entry.get("move") for entry in obs.get("history") or []
                  if entry.get("move") != "pass"), None)
    return first == "draw upcard"


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, ..., 21st, ..., 50th, 51st."""
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _empty_stock_reason(obs: Mapping[str, Any]) -> str:
    """CardVerse's draw from an empty stock ends the hand (RULES.md §4.6)."""
    return (f"the stock is empty, so this ends the hand, and the lowest hand value wins it; "
            f"yours is {_cardverse_value(obs, obs.get('hand', []))}")


def _gin_pass_reason(obs: Mapping[str, Any], prefers: str, array: np.ndarray | None) -> str:
    """What ``pass`` does in each gin phase (RULES.md §5): it declines the first upcard, ends
    the knocker's melds, ends the defender's lay-offs, then the hand, and at the wall draws."""
    phase = obs.get("phase", "first_upcard")
    hand = list(obs.get("hand", []))
    # every card not laid counts, melded or not
    points = int(GIN_KERNEL.hand_value(sum(1 << c for c in parse_cards("gin", hand))))
    if phase == "knock":
        if not hand:
            return "every card is in your melds, so you go gin and your opponent cannot lay off"
        return f"you stop laying melds; your deadwood of {points} ({' '.join(hand)}) is shown"
    if phase == "layoff" and not obs.get("finished_layoffs"):
        before, chain, _after = _gin_layoffs(obs, None, array)
        if not chain:
            return (f"no lay-off, alone or in a chain, lowers your deadwood of {before}, so you "
                    f"go on to lay your own melds")
        return "you stop laying off on your opponent's melds and go on to lay your own"
    if phase == "layoff":
        knocker = obs["deadwood"][obs["knocker"]]
        return (f"you show your hand: the cards you did not lay count {points} against the "
                f"knocker's {knocker}, so {_showdown(points, knocker)}")
    if phase == "wall":
        return ("only two cards are left in the stock, so passing ends the hand as a draw: "
                "no one scores")
    return _decline_reason("gin", obs, prefers)


def _gin_layoffs(obs: Mapping[str, Any], first: str | None,
                 array: np.ndarray | None) -> tuple[int, list[str], int]:
    """The gin defender's deadwood now, the lay-offs it would play from here (``first``, if
    given, then the ones easy and normal choose: a chain to the least deadwood), and the
    deadwood they leave. ``array`` is ``obs`` as the kernels read it, if the caller has it:
    building it again replays and checks the whole history."""
    K = GIN_KERNEL
    arr = observation_array(obs) if array is None else array.copy()
    hand = int(arr[K.O_HAND])
    before = int(K.exact_deadwood(hand))
    chain: list[str] = []
    card = parse_cards("gin", [first])[0] if first else \
        int(GIN_AI.layoff_choice(np.int64(hand), arr, K.O_PUBLIC))
    while card >= 0:
        chain.append(format_card("gin", card))
        hand ^= 1 << card
        arr[K.O_LAYOFFS + arr[K.O_LAYOFF_COUNT]] = card
        arr[K.O_LAYOFF_COUNT] += 1
        card = int(GIN_AI.layoff_choice(np.int64(hand), arr, K.O_PUBLIC))
    return before, chain, int(K.exact_deadwood(hand))


def _gin_layoff_reason(obs: Mapping[str, Any], card: str, array: np.ndarray | None) -> str:
    """Why the gin defender lays off ``card``: the deadwood it takes out, alone or with the
    lay-offs it opens (a card laid off on a run lets the next one beyond it fit)."""
    before, chain, after = _gin_layoffs(obs, card, array)
    if after == before and len(chain) == 1:
        return f"it leaves your hand for free on a table meld; your deadwood stays {before}"
    # a lay-off that alone raises the deadwood may need its chain to take it back to as it was
    change = (f"stays {before}" if after == before else
              f"{'falls' if after < before else 'rises'} from {before} to {after}")
    if len(chain) == 1:
        return f"your deadwood {change}"
    return f"then {' and '.join(chain[1:])} can go too, and your deadwood {change}"


def _showdown(defender: int, knocker: int) -> str:
    """Who scores what when the defender shows ``defender`` points against the knocker's
    ``knocker`` (OpenSpiel's scoring, with its gin and undercut bonuses)."""
    score = int(GIN_KERNEL.showdown_score(knocker, defender, GIN_PARAMETERS["gin_bonus"],
                                          GIN_PARAMETERS["undercut_bonus"]))
    if score > 0:
        return f"the knocker scores {score}"
    if score < 0:
        return f"you undercut the knocker and score {-score}"
    return "no one scores"


def _points_per_unit(variant: str, obs: Mapping[str, Any]) -> float:
    """Points of one unit of the search's value: gin's values are hand points, CardVerse's are
    shares of the target score."""
    if variant == "cardverse":
        return float(_cardverse_option(obs, "target_score"))
    return 1.0


def _hand_may_end_game(obs: Mapping[str, Any]) -> bool:
    """Whether this CardVerse hand can take a seat to the target score: the search then scores
    a playout that ends the game with the game's return (+1 won, -1/(N-1) lost), not in points.
    A winner collects the others' hands, which hold at most as many cards as now, each worth at
    most 10; with ``ace_high`` the four aces are worth 11."""
    sizes, target = obs["hand_sizes"], _points_per_unit("cardverse", obs)
    aces_high = _cardverse_option(obs, "ace_high")

    def most(cards: int) -> int:
        return 10 * cards + (min(cards, 4) if aces_high else 0)

    return any(score + most(sum(sizes) - sizes[seat]) >= target
               for seat, score in enumerate(obs["scores"]))


def _value_units(variant: str, obs: Mapping[str, Any]) -> tuple[float, int]:
    """What a unit of the search's values is shown as, and with how many decimals: points in
    gin and in a CardVerse hand that cannot end the game; else game results, as they are."""
    if variant == "cardverse" and _hand_may_end_game(obs):
        return 1.0, 2
    return _points_per_unit(variant, obs), 1


def _shown_gap(variant: str, obs: Mapping[str, Any], value: float, other: Any) -> float:
    """How far ``value`` leads ``other``'s value, in the units shown; 0 when it rounds to 0."""
    scale, digits = _value_units(variant, obs)
    gap = (value - other.value) * scale
    return 0.0 if abs(gap) < 0.5 * 10 ** -digits else gap


def _value_sentence(variant: str, obs: Mapping[str, Any], value: float | None,
                    alternatives: Sequence[Any], move: Move) -> str:
    if value is None:
        return ""
    others = [a for a in alternatives if a.move.id != move.id]
    scale, digits = _value_units(variant, obs)
    if variant == "cardverse" and _hand_may_end_game(obs):
        if value >= 1:      # every playout won the game
            expects = " The search expects you to win the game with it"
            if not others:
                return expects + "."
            surely = "as" if others[0].value >= 1 else "more surely than"
            return f"{expects}, {surely} with {others[0].move.text}."
        lost = -1 / (len(obs["hand_sizes"]) - 1)
        expects = (f" The search scores it {signed(value, 2)} (a game won counts +1, a game lost "
                   f"{lost:+.2g})")
    else:
        expects = f" The search expects {signed(value * scale, digits)} points for you"
        if variant == "cardverse" and len(obs["hand_sizes"]) > 2:   # a loser's return is shared
            expects += " against the average opponent"
    if not others:
        return expects + "."
    gap = _shown_gap(variant, obs, value, others[0])
    if gap == 0:
        return f"{expects}, as much as {others[0].move.text}."
    if gap > 0:
        return f"{expects}, {gap:.{digits}f} more than {others[0].move.text}."
    if move.text == "knock":    # gin's search levels knock unless it clearly loses (ai_gin.pick)
        return (f"{expects}, {-gap:.{digits}f} less than {others[0].move.text}, but the first "
                f"knock wins most hands.")
    # the search credits its heuristic's move against its own noise, more below expert's
    # determinizations (ai_*.pick), and master may bluff
    runs = others[0].visits
    few = f" on {runs} determinizations" if runs < ai_module(variant).EXPERT_ITERATIONS else ""
    return f"{expects}, {-gap:.{digits}f} less than {others[0].move.text}: too close to call{few}."


def explain(variant: str, obs: Mapping[str, Any], move: Move, value: float | None,
            alternatives: Sequence[Any], array: np.ndarray | None = None) -> str:
    """One or two sentences a player understands about ``move``. ``array``, if given, is
    ``obs`` as the kernels read it (``suggest`` has it), which gin's lay-offs are planned on."""
    text = move.text
    words = text.split()
    if words[0] == "discard":
        reason = _hand_end(variant, obs, words[1:], discards=True) or \
            _discard_reason(variant, obs, words[1])
        head = f"Discard {words[1]}"
    elif text in ("draw upcard", "take discard"):
        top = _top_of_discard(variant, obs)
        assert top is not None, "a take is legal only from a non-empty discard pile"
        head = f"Take the {top}"
        limit = GIN_KERNEL.MAX_DRAW_UPCARD
        if variant == "gin" and obs.get("phase") == "draw" and obs.get("upcard_draws") == limit - 1:
            reason = (f"it is the {_ordinal(limit + _took_first_upcard(obs))} upcard taken, "
                      f"which ends the hand as a draw: no one scores")
        else:
            reason = _take_reason(variant, obs, top, _preference(
                variant, obs, value, alternatives, move))
    elif text == "draw stock":
        head = "Draw from the stock"
        if variant == "cardverse" and obs.get("stock_size") == 0:
            reason = _empty_stock_reason(obs)
        elif variant == "gin" and obs.get("phase") == "first_upcard" and \
                obs.get("passed_first_upcard") == [True, True]:
            reason = "both players passed the first upcard, so you draw from the stock"
        else:
            reason = _decline_reason(variant, obs, _preference(
                variant, obs, value, alternatives, move))
    elif text == "pass":
        head, reason = "Pass", _gin_pass_reason(obs, _preference(
            variant, obs, value, alternatives, move), array)
    elif text == "knock":
        hand = list(obs.get("hand", []))
        if obs.get("phase") == "wall":     # knocking at the wall takes the upcard (RULES.md §5)
            hand.append(obs["upcard"])
        best = min(_deadwood_after_discards(variant, obs, hand, []).values()) \
            if len(hand) == 11 else _analyze(variant, obs, hand).deadwood_points
        head, reason = "Knock", f"your deadwood after the discard is {best}"
    elif words[:2] == ["lay", "meld"]:
        head = f"Lay {' '.join(words[2:])}"
        reason = _hand_end(variant, obs, words[2:]) or _goes_out_next(variant, obs, words[2:]) \
            or "it takes those points out of your hand now"
    elif words[:2] == ["lay", "off"]:
        head = f"Lay off {words[2]}"
        reason = _hand_end(variant, obs, words[2:3]) or (
            _gin_layoff_reason(obs, words[2], array) if variant == "gin"
            else _goes_out_next(variant, obs, words[2:3])
            or _cardverse_layoff_reason(obs, words[2]))
    else:
        head, reason = text[0].upper() + text[1:], "it is the best move the search found"
    return f"{head}: {reason}.{_value_sentence(variant, obs, value, alternatives, move)}"
