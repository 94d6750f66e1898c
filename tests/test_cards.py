"""Card notation (RULES.md §7), the card-id bit layout, and input errors.

Layout (meldmind.cards docstring, RULES.md E6 suit/element order):
* 52-card decks: id = suit * 13 + rank - 1, suits C D H S, ranks A=1 .. K=13; JK1/JK2 = 52/53.
* KIROLO: element id = copy * 60 + element * 12 + value - 1 (copy a = 0, b = 1, elements
  FI WA EA WO ME); action cards follow: 16 jokers from 120, 10 Exchange from 136, 6 Search from 146.
"""
import numpy as np
import pytest

import meldmind
from meldmind import (CardError, MeldmindError, OptionError, analyze_batch, analyze_hand,
                      encode_hands, format_card, layoff_targets, parse_cards)

SUITS = "CDHS"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
ELEMENTS = ["FI", "WA", "EA", "WO", "ME"]

DECK_IDS = {
    "gin": list(range(52)),
    "cardverse": list(range(52)),
    "rami": list(range(54)),
    "kirolo": list(range(120 + 16 + 10 + 6)),
}


def _expected_52(card_id):
    suit, rank = divmod(card_id, 13)
    return RANKS[rank] + SUITS[suit]


def _expected_kirolo(card_id):
    if card_id < 120:
        copy, rest = divmod(card_id, 60)
        element, value = divmod(rest, 12)
        return f"{ELEMENTS[element]}{value + 1:02d}{'ab'[copy]}"
    if card_id < 136:
        return "JOKER"
    return "EXCHANGE" if card_id < 146 else "SEARCH"


# ---------------------------------------------------------------------------------------------
# canonical form and round trip for every card of every deck
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", sorted(DECK_IDS))
def test_format_every_card(variant):
    for card_id in DECK_IDS[variant]:
        if variant == "kirolo":
            expected = _expected_kirolo(card_id)
        elif card_id >= 52:
            expected = f"JK{card_id - 51}"
        else:
            expected = _expected_52(card_id)
        assert format_card(variant, card_id) == expected


@pytest.mark.parametrize("variant", sorted(DECK_IDS))
def test_round_trip_every_card(variant):
    for card_id in DECK_IDS[variant]:
        text = format_card(variant, card_id)
        (parsed,) = parse_cards(variant, text)
        assert format_card(variant, parsed) == text
        if variant != "kirolo" or card_id < 120:
            # named cards are exact; a KIROLO action card names no copy (first free one is taken)
            assert parsed == card_id


@pytest.mark.parametrize("variant", sorted(DECK_IDS))
def test_whole_deck_parses_back_to_every_id(variant):
    texts = [format_card(variant, c) for c in DECK_IDS[variant]]
    assert parse_cards(variant, texts) == DECK_IDS[variant]
    assert parse_cards(variant, " ".join(texts)) == DECK_IDS[variant]
    assert len(set(parse_cards(variant, texts))) == len(texts)


@pytest.mark.parametrize("variant, card_id", [
    ("gin", -1), ("gin", 52), ("gin", 53), ("cardverse", 52), ("rami", 54), ("kirolo", 152),
    ("kirolo", -1),
])
def test_format_rejects_ids_outside_the_deck(variant, card_id):
    with pytest.raises(CardError, match=str(card_id)):
        format_card(variant, card_id)


# ---------------------------------------------------------------------------------------------
# bit layout
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, card_id", [
    ("AC", 0), ("2C", 1), ("10C", 9), ("KC", 12),
    ("AD", 13), ("KD", 25),
    ("AH", 26), ("QH", 2 * 13 + 11), ("KH", 38),
    ("AS", 39), ("10S", 3 * 13 + 9), ("KS", 51),
])
def test_52_card_ids(text, card_id):
    for variant in ("gin", "cardverse", "rami"):
        assert parse_cards(variant, [text]) == [card_id]


def test_rami_joker_ids():
    assert parse_cards("rami", "JK1 JK2") == [52, 53]


@pytest.mark.parametrize("text, card_id", [
    ("FI01a", 0), ("FI12a", 11), ("WA01a", 12), ("EA07a", 2 * 12 + 6), ("WO01a", 36),
    ("ME12a", 59), ("FI01b", 60), ("EA07b", 60 + 2 * 12 + 6), ("ME12b", 119),
])
def test_kirolo_element_ids(text, card_id):
    assert parse_cards("kirolo", [text]) == [card_id]


def test_kirolo_action_ids():
    assert parse_cards("kirolo", "JOKER EXCHANGE SEARCH") == [120, 136, 146]


def test_encode_hands_uses_the_same_bits():
    # 52-card decks: one uint64 mask per hand
    enc = encode_hands("gin", ["AC", "KS", "AC 2C 3C", ""])
    assert enc.dtype == np.uint64
    assert enc.tolist() == [1, 1 << 51, 0b111, 0]
    assert encode_hands("rami", ["JK1 QH", "JK2"]).tolist() == [(1 << 52) | (1 << 37), 1 << 53]
    # KIROLO: rows (held at least once, held twice, jokers); action cards other than jokers dropped
    enc = encode_hands("kirolo", ["FI01a FI01b WA01a JOKER JOKER EXCHANGE SEARCH", "ME12b"])
    assert enc.dtype == np.uint64 and enc.shape == (2, 3)
    assert enc.tolist() == [[1 | (1 << 12), 1, 2], [1 << 59, 0, 0]]


# ---------------------------------------------------------------------------------------------
# case-insensitivity and aliases
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("variant, text, canonical", [
    ("gin", "as", "AS"), ("gin", "As", "AS"), ("gin", "qd", "QD"), ("gin", "10h", "10H"),
    ("gin", "TH", "10H"), ("gin", "th", "10H"), ("gin", "Tc", "10C"),
    ("gin", "♥Q", "QH"), ("gin", "Q♥", "QH"), ("gin", "♠10", "10S"), ("gin", "10♠", "10S"),
    ("gin", "A♣", "AC"), ("gin", "♣a", "AC"), ("gin", "♦K", "KD"), ("gin", "k♦", "KD"),
    ("gin", "T♦", "10D"), ("gin", "♥T", "10H"),
    ("cardverse", "jh", "JH"), ("rami", "jk1", "JK1"), ("rami", "Jk2", "JK2"),
    ("kirolo", "fi07a", "FI07a"), ("kirolo", "FI07A", "FI07a"), ("kirolo", "me12B", "ME12b"),
    ("kirolo", "FI7", "FI07a"), ("kirolo", "fi7", "FI07a"), ("kirolo", "FI07", "FI07a"),
    ("kirolo", "wa1b", "WA01b"),
    ("kirolo", "joker", "JOKER"), ("kirolo", "JK", "JOKER"), ("kirolo", "jk", "JOKER"),
    ("kirolo", "exchange", "EXCHANGE"), ("kirolo", "ECHANGE", "EXCHANGE"), ("kirolo", "echange", "EXCHANGE"),
    ("kirolo", "Search", "SEARCH"), ("kirolo", "FOUILLE", "SEARCH"), ("kirolo", "fouille", "SEARCH"),
])
def test_aliases_and_case(variant, text, canonical):
    (card,) = parse_cards(variant, [text])
    assert format_card(variant, card) == canonical


def test_whitespace_around_tokens_in_a_list():
    assert parse_cards("gin", [" AS ", "\tKD\n"]) == [39, 25]


def test_jk_picks_a_free_rami_joker():
    assert parse_cards("rami", "JK") == [52]
    assert parse_cards("rami", "JK JK") == [52, 53]
    assert parse_cards("rami", "JK1 JK") == [52, 53]
    assert parse_cards("rami", "JK2 JK") == [53, 52]


def test_regression_jk_before_an_explicit_joker_takes_the_other_id():
    # BUG (package): a bare JK must take a *free* joker id (RULES.md §7; cards.parse_cards says
    # tokens without a copy take a free id "once every explicit copy is known"). "JK JK1" is a
    # legal hand (both jokers) but JK grabs JK1 first and the explicit JK1 is then refused as a
    # duplicate. KIROLO gets this right (FI7 FI07a -> FI07b, FI07a).
    assert parse_cards("rami", "JK JK1") == [53, 52]
    assert parse_cards("rami", ["jk", "JK2"]) == [52, 53]


def test_kirolo_copy_is_picked_after_every_explicit_copy():
    assert parse_cards("kirolo", "FI7 FI07") == [6, 66]
    assert parse_cards("kirolo", "FI07a FI7") == [6, 66]
    assert parse_cards("kirolo", "FI7 FI07a") == [66, 6]
    assert parse_cards("kirolo", "FI07 FI07b") == [6, 66]
    assert parse_cards("kirolo", "JK JOKER joker") == [120, 121, 122]


def test_kirolo_deck_copies_are_all_usable():
    assert len(parse_cards("kirolo", ["JOKER"] * 16)) == 16
    assert len(parse_cards("kirolo", ["EXCHANGE"] * 10)) == 10
    assert len(parse_cards("kirolo", ["FOUILLE"] * 6)) == 6


# ---------------------------------------------------------------------------------------------
# bad tokens: CardError naming the token
# ---------------------------------------------------------------------------------------------

def _rejects(variant, cards, token):
    with pytest.raises(CardError) as info:
        parse_cards(variant, cards)
    message = str(info.value)
    assert (repr(token) if token == "" or token.isspace() else token) in message, message
    return message


@pytest.mark.parametrize("options", ["ace_high", [1], 5])
def test_options_that_are_not_a_mapping_are_rejected(options):
    with pytest.raises(OptionError, match="mapping"):
        analyze_hand("cardverse", "AS 2S 3S", options=options)
    with pytest.raises(OptionError, match="mapping"):
        analyze_batch("cardverse", encode_hands("cardverse", ["AS 2S 3S"]), options=options)


@pytest.mark.parametrize("cards", [None, 5, b"AS 2S", {"AS": 1}])
def test_a_hand_that_is_not_cards_is_rejected(cards):
    with pytest.raises(CardError, match="string or a list of strings"):
        parse_cards("gin", cards)
    with pytest.raises(CardError, match="string or a list of strings"):
        analyze_hand("gin", cards)


@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
@pytest.mark.parametrize("token", [
    "1H",      # no rank 1
    "11H",     # no rank 11
    "0S",
    "ZH",      # unknown rank
    "AX",      # unknown suit
    "A",       # rank only
    "H",       # suit only
    "10",      # rank only
    "♥",       # symbol only
    "AHH",
    "Q♥♥",
    "♥Q♥",
    "1O H",    # letter O
    "AS,",
    "FI07",    # a KIROLO card
    "JOKER",   # the KIROLO spelling
    "JK3",
    "Aſ",      # long s: upper-cased it would be S
    "Qß",      # upper-cased it would be SS
])
def test_malformed_52_card_tokens(variant, token):
    _rejects(variant, [token], token)
    _rejects(variant, ["2C", token, "3C"], token)


@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami", "kirolo"])
@pytest.mark.parametrize("token", ["", "   "])
def test_empty_tokens(variant, token):
    _rejects(variant, [token], token)


@pytest.mark.parametrize("token", [
    "FI13",     # value above 12
    "FI00",     # value 0
    "FI0",
    "FI013",
    "FI007",
    "XX05",     # unknown element
    "FI",       # no value
    "FI07c",    # copy other than a/b
    "FI-1",
    "FIa",
    "AS",       # a 52-card card
    "JK1",      # the Rami spelling
    "BONUS",    # removed in Mode Rami (§1.1)
    "TRUMP",
    "fı07",     # dotless i: upper-cased it would be FI07
])
def test_malformed_kirolo_tokens(token):
    _rejects("kirolo", [token], token)
    _rejects("kirolo", ["WA02a", token], token)


def test_regression_non_ascii_digits_raise_card_error():
    # BUG (package): "FI²" passes str.isdigit() and then int() raises a bare ValueError instead
    # of CardError naming the token (RULES.md §7).
    _rejects("kirolo", ["FI²"], "FI²")


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
@pytest.mark.parametrize("token", ["JK", "JK1", "JK2", "jk"])
def test_jokers_do_not_belong_to_gin_or_cardverse(variant, token):
    message = _rejects(variant, [token], token)
    assert "joker" in message.lower()


@pytest.mark.parametrize("variant, cards, token", [
    ("gin", "AS AS", "AS"),
    ("gin", "AS as", "as"),
    ("gin", "10H TH", "TH"),
    ("gin", "QH ♥Q", "♥Q"),
    ("cardverse", "2C 3C 2C", "2C"),
    ("rami", "JK1 JK1", "JK1"),
    ("rami", "JK JK JK", "JK"),
    ("rami", "JK1 JK2 JK", "JK"),
    ("kirolo", "FI07a FI07a", "FI07a"),
    ("kirolo", "FI07 FI07 FI07", "FI07"),
    ("kirolo", "FI07a FI07b FI7", "FI7"),
    ("kirolo", "FI07a fi07A", "fi07A"),
])
def test_duplicates_beyond_the_deck(variant, cards, token):
    message = _rejects(variant, cards, token)
    assert "duplicate" in message


def test_a_duplicate_is_named_once_and_by_its_canonical_form_only_when_spelt_otherwise():
    assert _rejects("gin", "AS AS", "AS").endswith("duplicate card 'AS'")
    assert _rejects("gin", "10H TH", "TH").endswith("duplicate card 'TH' (10H)")


def test_a_malformed_rami_card_is_told_of_the_jokers_that_deck_holds():
    assert _rejects("rami", ["JK3"], "JK3").endswith(
        "expected a rank A 2..10 J Q K and a suit C D H S, or a joker JK1 JK2")
    assert "joker" not in _rejects("gin", ["JK3"], "JK3")


def test_action_card_copies_are_limited():
    _rejects("kirolo", ["JOKER"] * 17, "JOKER")
    _rejects("kirolo", ["EXCHANGE"] * 11, "EXCHANGE")
    _rejects("kirolo", ["SEARCH"] * 7, "SEARCH")


@pytest.mark.parametrize("variant", ["gin", "kirolo"])
@pytest.mark.parametrize("item", [1, None, b"AS", ("A", "S"), 3.5])
def test_non_string_items(variant, item):
    with pytest.raises(CardError) as info:
        parse_cards(variant, ["2C" if variant == "gin" else "FI02a", item])
    assert meldmind.errors.shown(item) in str(info.value)


def test_errors_reach_the_public_entry_points():
    with pytest.raises(CardError, match="11H"):
        analyze_hand("gin", "AS 11H")
    with pytest.raises(CardError, match="JK"):
        analyze_hand("cardverse", ["AS", "JK"])
    with pytest.raises(CardError, match="FI13"):
        layoff_targets("kirolo", "FI13", ["FI01a FI02a FI03a"])
    with pytest.raises(CardError, match="ZZ"):
        layoff_targets("gin", "AS", ["ZZ 2S 3S"])
    # errors are all MeldmindError, itself a ValueError
    assert issubclass(CardError, MeldmindError) and issubclass(OptionError, MeldmindError)
    assert issubclass(MeldmindError, ValueError)


# ---------------------------------------------------------------------------------------------
# options and variants
# ---------------------------------------------------------------------------------------------

def test_variants():
    assert set(meldmind.VARIANTS) == {"gin", "cardverse", "rami", "kirolo"}


@pytest.mark.parametrize("call", [
    lambda: analyze_hand("poker", "AS"),
    lambda: analyze_hand("Gin", "AS"),
    lambda: analyze_hand("", "AS"),
    lambda: parse_cards("rummy", "AS"),
    lambda: format_card("belote", 0),
    lambda: encode_hands("canasta", ["AS"]),
    lambda: analyze_batch("poker", np.zeros(1, dtype=np.uint64)),
    lambda: layoff_targets("poker", "AS", []),
])
def test_unknown_variant(call):
    with pytest.raises(OptionError, match="variant"):
        call()


@pytest.mark.parametrize("variant, options, name", [
    ("gin", {"ace_high": True}, "ace_high"),
    ("gin", {"num_players": 2}, "num_players"),
    ("cardverse", {"opening_threshold": 30}, "opening_threshold"),
    ("rami", {"ace_high": True}, "ace_high"),
    ("rami", {"threshold": 30}, "threshold"),
    ("kirolo", {"jokers_per_series": 2}, "jokers_per_series"),
    ("kirolo", {"num_players": 2}, "num_players"),
])
def test_unknown_options(variant, options, name):
    hand = "FI01a" if variant == "kirolo" else "AS"
    with pytest.raises(OptionError, match=name):
        analyze_hand(variant, hand, options=options)


@pytest.mark.parametrize("variant, options, name", [
    ("cardverse", {"ace_high": 1}, "ace_high"),
    ("cardverse", {"ace_high": "yes"}, "ace_high"),
    ("cardverse", {"ace_high": None}, "ace_high"),
    ("rami", {"num_players": 1}, "num_players"),
    ("rami", {"num_players": 5}, "num_players"),
    ("rami", {"num_players": True}, "num_players"),
    ("rami", {"num_players": "3"}, "num_players"),
    ("rami", {"num_players": 3.0}, "num_players"),
    ("rami", {"opening_threshold": 0}, "opening_threshold"),
    ("rami", {"opening_threshold": -5}, "opening_threshold"),
    ("rami", {"opening_threshold": 501}, "opening_threshold"),
    ("rami", {"opening_threshold": 30.5}, "opening_threshold"),
    ("kirolo", {"max_jokers_per_series": 0}, "max_jokers_per_series"),
    ("kirolo", {"max_jokers_per_series": 3}, "max_jokers_per_series"),
    ("kirolo", {"max_jokers_per_series": True}, "max_jokers_per_series"),
])
def test_bad_option_values(variant, options, name):
    hand = "FI01a" if variant == "kirolo" else "AS"
    with pytest.raises(OptionError, match=name):
        analyze_hand(variant, hand, options=options)
    encoded = encode_hands(variant, [hand])
    with pytest.raises(OptionError, match=name):
        analyze_batch(variant, encoded, options=options)
    with pytest.raises(OptionError, match=name):
        layoff_targets(variant, hand, [], options=options)


@pytest.mark.parametrize("variant, options", [
    ("cardverse", {"ace_high": False}), ("cardverse", {"ace_high": True}),
    ("rami", {"num_players": 2}), ("rami", {"num_players": 4}),
    ("rami", {"opening_threshold": 1}), ("rami", {"opening_threshold": 500}),
    ("kirolo", {"max_jokers_per_series": 1}), ("kirolo", {"max_jokers_per_series": 2}),
    ("gin", {}), ("gin", None),
])
def test_allowed_option_values(variant, options):
    hand = "FI01a" if variant == "kirolo" else "AS"
    analyze_hand(variant, hand, options=options)


# ---------------------------------------------------------------------------------------------
# encode_hands / analyze_batch input errors
# ---------------------------------------------------------------------------------------------

def test_encode_hands_names_the_bad_hand_and_token():
    with pytest.raises(CardError, match=r"hand 1.*'KX'"):
        encode_hands("gin", ["AS", "KS KX"])
    with pytest.raises(CardError, match=r"hand 0.*JK"):
        encode_hands("gin", ["AS JK"])
    with pytest.raises(CardError, match=r"hand 2.*duplicate"):
        encode_hands("kirolo", ["FI01a", "FI01a FI01b", "FI01 FI01 FI01"])


@pytest.mark.parametrize("variant", ["gin", "cardverse", "rami"])
def test_batch_52_needs_a_flat_array(variant):
    encoded = encode_hands(variant, ["AS 2S 3S", "KD"])
    with pytest.raises(MeldmindError, match="1-d"):
        analyze_batch(variant, encoded.reshape(2, 1))
    with pytest.raises(MeldmindError, match="1-d"):
        analyze_batch(variant, np.zeros((2, 3), dtype=np.uint64))


@pytest.mark.parametrize("shape", [(3,), (2, 2), (2, 4), (1, 3, 1)])
def test_batch_kirolo_needs_rows_of_three(shape):
    with pytest.raises(MeldmindError, match=r"\(n, 3\)"):
        analyze_batch("kirolo", np.zeros(shape, dtype=np.uint64))


@pytest.mark.parametrize("variant", ["gin", "cardverse"])
@pytest.mark.parametrize("bit", [52, 53, 63])
def test_batch_rejects_joker_bits_without_jokers(variant, bit):
    encoded = encode_hands(variant, ["AS 2S 3S", "KD"])
    encoded[1] |= np.uint64(1) << np.uint64(bit)
    with pytest.raises(CardError, match="joker"):
        analyze_batch(variant, encoded)


@pytest.mark.parametrize("call, message", [
    (lambda: encode_hands("gin", 5), "list of hands"),
    (lambda: encode_hands("gin", "AS 2S 3S"), "list of hands"),
    (lambda: analyze_batch("gin", ["AS 2S 3S"]), "integer masks"),
    (lambda: analyze_batch("gin", [3.5]), "integer masks"),
    (lambda: analyze_batch("gin", [-1]), "integer masks"),
    (lambda: analyze_batch("gin", [2 ** 70]), "integer masks"),
    (lambda: analyze_batch("kirolo", [[1, 2, 0], [3]]), "integer masks"),
    (lambda: layoff_targets("gin", "4S", 5), "list of melds"),
    (lambda: layoff_targets("gin", "4S", "AS 2S 3S"), "list of melds"),
    (lambda: layoff_targets("gin", "4S", [5]), "not 5"),
    (lambda: meldmind.new_game("gin", players=np.array([2, 2])), "players"),
    (lambda: meldmind.new_game("cardverse", players="3"), "players"),
])
def test_arguments_of_the_wrong_shape_get_a_meldmind_error(call, message):
    """Not a TypeError, ValueError or OverflowError from deep inside (a float silently
    truncated to a mask before)."""
    with pytest.raises(MeldmindError, match=message):
        call()


@pytest.mark.parametrize("bit", [54, 60, 63])
def test_regression_rami_batch_rejects_bits_above_the_jokers(bit):
    # BUG (package): Rami FR hands use bits 0-53 only, but analyze_batch accepts any higher bit
    # and counts it as one more joker: a hand of bit 60 alone comes back as 20 penalty points.
    encoded = np.array([1 << bit], dtype=np.uint64)
    with pytest.raises(MeldmindError):
        analyze_batch("rami", encoded)


def test_batch_accepts_empty_input():
    assert analyze_batch("gin", encode_hands("gin", [])).deadwood_points.tolist() == []
    assert analyze_batch("kirolo", encode_hands("kirolo", [])).deadwood_count.tolist() == []
