"""Moves given as text (RULES.md §7 card notation, cards in any order, a move of another phase
is illegal rather than unknown), the public events of a hand's and a game's end (E4), and the
arena's score difference."""
import random

import numpy as np
import pytest

import meldmind
from meldmind import CardError, Event, Game, IllegalMove, MeldmindError, new_game
from meldmind.tournament import ai_seed_of, deal_seed_of
from meldmind.cards import SUIT_SYMBOLS, format_card
from meldmind.games import cardverse as CV
from meldmind.kernels import ai_cardverse as AI
from meldmind.kernels import cardverse as K
from meldmind.kernels.levels import EASY, NORMAL


def _record(seed, moves):
    return {"format": "meldmind.game", "version": 1, "variant": "gin", "options": {}, "seed": seed,
            "moves": moves}


GIN_DISCARD = _record(7, [52])        # seat 0 to discard from 5C 8D AH 3H 5H 9H JH 2S 4S 8S 10S
GIN_KNOCK = _record(0, [52, 51, 53, 47, 53, 35, 52, 7, 52, 8, 53, 19, 52, 7, 53, 55, 15])
GIN_LAYOFF = _record(0, GIN_KNOCK["moves"] + [59, 191, 54])   # seat 0 holds 5D 2S 3S
SYMBOL = {letter: symbol for symbol, letter in SUIT_SYMBOLS.items()}


def _unchanged(game):
    return game.to_json(), len(game.history)


def _any_notation(variant, text, rng):
    """``text`` with its cards in another §7 notation (T for 10, suit symbols before or after
    the rank, any case), the cards shuffled and the other words in random case."""
    words = text.split()
    deck = {format_card(variant, c) for c in range(52)}
    cards = [i for i, w in enumerate(words) if w in deck]
    out = [w.upper() if rng.random() < 0.5 else w for w in words]
    shuffled = rng.sample([words[i] for i in cards], len(cards))
    for i, card in zip(cards, shuffled):
        rank, suit = card[:-1], card[-1]
        rank = "T" if rank == "10" and rng.random() < 0.5 else rank
        suit = SYMBOL[suit] if rng.random() < 0.5 else suit
        card = suit + rank if suit in SYMBOL.values() and rng.random() < 0.5 else rank + suit
        out[i] = card.lower() if rng.random() < 0.5 else card
    return " ".join(out)


# -- moves as text ---------------------------------------------------------------------------

def test_the_reviewers_text_moves():
    for record, text, played in ((GIN_DISCARD, "discard TS", "discard 10S"),
                                 (GIN_DISCARD, "discard 5♣", "discard 5C"),
                                 (GIN_DISCARD, "Discard ♣5", "discard 5C"),
                                 (GIN_KNOCK, "lay meld AH AD AC", "lay meld AC AD AH"),
                                 (GIN_KNOCK, "lay meld a♥ Ad ♣a", "lay meld AC AD AH")):
        assert Game.from_json(record).play(text).text == played
    game = new_game("cardverse", seed=3)
    game.play("draw stock")
    with pytest.raises(IllegalMove, match=r"^lay meld QS KS AS: not every card of that meld"):
        game.play("lay meld AS KS QS")     # read, then refused: this hand has no spade meld
    assert game.play("discard TS").text == "discard 10S"


@pytest.mark.parametrize("variant, seeds", [("gin", (2, 21, 24, 28)), ("cardverse", range(4))])
def test_every_move_read_from_any_notation_and_card_order(variant, seeds):
    """Whole games played from rewritten texts of random legal moves: melds, lay-offs (CardVerse:
    with their place), discards, draws (these gin deals end in a knock)."""
    kinds = set()
    for seed in seeds:
        game = new_game(variant, seed=seed)
        choose, rewrite = random.Random(seed), random.Random(~seed)   # the moves, their texts
        while not game.is_over and len(game.moves) < 400:
            move = choose.choice(game.legal_moves())
            assert game.play(_any_notation(variant, move.text, rewrite)) == move
            kinds.add(" ".join(move.text.split()[:2]))
    assert {"lay meld", "lay off"} <= kinds


def test_a_malformed_card_is_named_and_changes_nothing():
    game = Game.from_json(GIN_DISCARD)
    before = _unchanged(game)
    for text, token in (("discard 1S", "'1S'"), ("lay meld AH AD XC", "'XC'"),
                        ("discard 5C 5C", "duplicate card '5C'")):
        with pytest.raises(CardError, match=token):
            game.play(text)
    cardverse = new_game("cardverse", seed=3)
    with pytest.raises(CardError, match="'11H'"):
        cardverse.play("lay off 11H on meld 0 (high end)")
    assert _unchanged(game) == before


def test_words_past_a_moves_cards_make_an_unknown_move_not_a_malformed_card():
    """Gin's moves name no place: CardVerse's form of a lay-off is no gin move, and says so
    instead of calling 'on' a malformed card. Cards past the most a verb names are still read
    as cards (a meld too long is illegal by its rule; a repeated card is named)."""
    game = Game.from_json(GIN_LAYOFF)
    before = _unchanged(game)
    for text in ("lay off KH on meld 0 (high end)", "pass now"):
        with pytest.raises(MeldmindError, match="unknown move") as refused:
            game.play(text)
        assert not isinstance(refused.value, CardError)
    assert _unchanged(game) == before


def test_a_move_of_another_phase_is_illegal_with_the_reason():
    in_discard, in_layoff = Game.from_json(GIN_DISCARD), Game.from_json(GIN_LAYOFF)
    over = Game.from_json(GIN_LAYOFF)
    while not over.is_over:
        over.play(over.legal_moves()[-1])
    for game, text, message in (
            (in_discard, "lay off 5♣", "lay off 5C: not a move of the discard phase"),
            (in_layoff, "discard 5d", "discard 5D: not a move of the layoff phase"),
            (over, "lay off 5C", "lay off 5C: the game is over"),
            (over, "discard 5C", "discard 5C: the game is over")):
        before = _unchanged(game)
        with pytest.raises(IllegalMove) as caught:
            game.play(text)
        assert str(caught.value) == message
        assert _unchanged(game) == before
    with pytest.raises(MeldmindError, match="unknown move"):   # no phase has it
        in_discard.play("discard 5C 8D")


@pytest.mark.parametrize("variant, text, shown, rule", [
    ("cardverse", "lay meld ah 2h 3h", "AH 2H 3H", "a run 3+ consecutive cards of one suit in 2..A"),
    ("cardverse", "lay meld KD AD 2D", "AD 2D KD", "in 2..A"),      # no wrap after the ace (§4.5)
    ("cardverse", "lay meld 7C 7D", "7C 7D", "a group is 3-4 cards of one rank"),
    ("gin", "lay meld QS KS AS", "AS QS KS", "ace low"),            # §5.2
    ("gin", "lay meld 2C 3C 4C 5C 6C 7C", "2C 3C 4C 5C 6C 7C", "longer runs are laid in parts"),
])
def test_a_text_meld_that_breaks_the_meld_rule_is_illegal_with_the_rule(variant, text, shown,
                                                                        rule):
    game = new_game(variant, seed=3)
    before = _unchanged(game)
    with pytest.raises(IllegalMove) as caught:
        game.play(text)
    assert str(caught.value).startswith(f"lay meld {shown}: not a valid meld (")
    assert rule in str(caught.value)
    assert _unchanged(game) == before


# -- the event log ---------------------------------------------------------------------------

def test_cardverse_hand_and_game_ends_are_public_events():
    rng, game = random.Random(1), new_game("cardverse", seed=5)
    ends = 0
    while not game.is_over:
        hand, scores, logged = game.observation(0)["hand_number"], game.scores, len(game.history)
        game.play(rng.choice(game.legal_moves()))
        if game.is_over or game.observation(0)["hand_number"] != hand:
            last, now = game.observation(0)["last_hand"], game.scores
            winner = last["winner"]
            # the move's event, then the hand's end, then the next deal or the game's end
            assert game.history[logged + 1] == Event(
                "PUBLIC", None, f"hand {hand} ends ({last['end']}): seat {winner} wins, hand "
                f"values {last['hand_values']}, seat {winner} scores {now[winner] - scores[winner]}"
                f", scores {now}")
            assert game.history[logged + 2].text.startswith("seat 0 is dealt") != game.is_over
            ends += 1
    assert ends == game.observation(0)["hand_number"] > 1
    winner = game.observation(0)["game_winner"]
    assert game.history[-1] == Event("PUBLIC", None, f"game over: seat {winner} wins, "
                                                     f"returns {game.returns}")


def test_gin_game_over_is_a_public_event():
    game = Game.from_json(GIN_LAYOFF)
    while not game.is_over:
        game.play(game.legal_moves()[-1])
    assert game.history[-1] == Event("PUBLIC", None, "game over (knock): seat 1 wins, deadwood "
                                                     "[33, 10], returns [-23.0, 23.0]")
    drawn, rng = new_game("gin", seed=0), random.Random(0)
    while not drawn.is_over:
        drawn.play(rng.choice(drawn.legal_moves()))
    assert drawn.history[-1] == Event("PUBLIC", None,
                                      "game over (wall): a draw, returns [0.0, 0.0]")


# -- the arena -------------------------------------------------------------------------------

def test_cardverse_arena_score_diff_is_the_mean_final_score_difference():
    result = meldmind.arena("cardverse", "normal", "easy", deals=3, seed=2, processes=1,
                            progress=False)
    params = CV.make_params({})
    diffs = []
    for deal in range(3):
        deal_seed = deal_seed_of(2, deal)
        for a, seats in ((0, (NORMAL, EASY)), (1, (EASY, NORMAL))):
            ai_seed = ai_seed_of(2, deal, a)
            # the game replayed move by move, as the kernel's play_game decides it
            state, moves = K.new_state(params, np.int64(deal_seed)), 0
            while not K.is_terminal(state):
                seat = state[K.S_CURRENT]
                K.apply_action(state, AI.decide(state, seats[seat], 0,
                                                AI._seed_of(ai_seed, moves, 5)))
                moves += 1
            out = np.zeros(2)
            assert AI.play_game(params, np.int64(deal_seed), np.array(seats), np.zeros(2, np.int64),
                                np.int64(ai_seed), out) == moves
            scores = CV.scores(state)
            assert max(scores) >= 100 and out[scores.index(max(scores))] == 1.0
            diffs.append(scores[a] - scores[1 - a])
    assert result.mean_score_diff == pytest.approx(np.mean(diffs))
    assert (result.wins_a, result.wins_b) == (sum(d > 0 for d in diffs), sum(d < 0 for d in diffs))
