"""Wie Weet Wat: Kaartspel kernels: the recall model of players racing to name words, the piles, the
seven action cards, the players' policies and the driver (play_nb.py)."""
