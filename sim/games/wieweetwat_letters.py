"""Dutch word-initial letter shares and the default letter mix of Wie Weet Wat's 56 letter cards.

Written by tools/letter_frequencies.py (do not edit by hand): the share of word types starting with
each letter among the 50000 most frequent Dutch words of the `wordfreq` package (version 3.1.1),
49688 of them kept (accents removed; words with digits or a non-letter start left out). The card
mix is the largest-remainder apportionment of 56 cards to these shares.
"""

SOURCE = "wordfreq 3.1.1, top_n_list('nl', 50000), word types, 49688 words kept"

# letter: share of Dutch word types starting with it (sums to 1)
INITIAL_SHARE = {
    "a": 0.060518,
    "b": 0.082958,
    "c": 0.039909,
    "d": 0.046228,
    "e": 0.028377,
    "f": 0.024312,
    "g": 0.062832,
    "h": 0.043089,
    "i": 0.025882,
    "j": 0.013504,
    "k": 0.042847,
    "l": 0.036166,
    "m": 0.052789,
    "n": 0.023326,
    "o": 0.055265,
    "p": 0.048442,
    "q": 0.001288,
    "r": 0.040654,
    "s": 0.084125,
    "t": 0.045605,
    "u": 0.013726,
    "v": 0.070158,
    "w": 0.035019,
    "x": 0.000785,
    "y": 0.001932,
    "z": 0.020266,
}

# letter: cards in the default letter mix (sums to 56; letters left out have 0 cards)
DEFAULT_CARDS = {
    "a": 3,
    "b": 5,
    "c": 2,
    "d": 3,
    "e": 2,
    "f": 1,
    "g": 4,
    "h": 2,
    "i": 1,
    "j": 1,
    "k": 2,
    "l": 2,
    "m": 3,
    "n": 1,
    "o": 3,
    "p": 3,
    "r": 2,
    "s": 5,
    "t": 3,
    "u": 1,
    "v": 4,
    "w": 2,
    "z": 1,
}
