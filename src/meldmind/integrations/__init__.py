"""Adapters that let other game frameworks play with meldmind's levels."""
