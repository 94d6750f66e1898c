"""One module per game: names, move texts and JSON over the game's numba kernel."""
