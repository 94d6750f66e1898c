"""The per-variant meld catalogs: complete counts where they are easy to derive by hand, and
every entry valid by the independent oracle."""
import pytest

from meldmind import format_card, meld_catalog
from oracle import oracle_meld_ok

JOKER_TEXT = {"rami": "JK1", "kirolo": "JOKER"}


def _cards(variant, row):
    bits = [b for b in range(64) if int(row["mask"]) >> b & 1]
    return [format_card(variant, b) for b in bits] + [JOKER_TEXT.get(variant)] * int(row["jokers"])


def test_gin_and_cardverse_counts():
    # runs: 4 suits x (11 + 10 + ... + 1) lengths 3..13; groups: 13 ranks x (4 triples + 1 quad)
    for variant in ("gin", "cardverse"):
        catalog = meld_catalog(variant)
        assert (catalog["kind"] == 1).sum() == 4 * 66
        assert (catalog["kind"] == 0).sum() == 13 * 5
        assert len(set(catalog["mask"].tolist())) == len(catalog)


@pytest.mark.parametrize("variant,options", [("gin", {}), ("cardverse", {}), ("rami", {}),
                                             ("kirolo", {}), ("kirolo", {"max_jokers_per_series": 2})])
def test_every_catalog_meld_is_valid(variant, options):
    catalog = meld_catalog(variant, options=options)
    assert not catalog.flags.writeable
    for row in catalog:
        assert oracle_meld_ok(variant, _cards(variant, row), **options), _cards(variant, row)
