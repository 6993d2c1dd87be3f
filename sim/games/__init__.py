"""One module per game: its GAME metadata and the thin functions that drive its kernel."""

GAME_MODULES = ("knutten", "wizard")
