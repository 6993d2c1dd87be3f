"""Wippen kernels (docs/rules/wippen.md): enums, the table (cards, deck, pot), moves, rules,
policies and the one-signature driver play_nb.play_games_nb."""
