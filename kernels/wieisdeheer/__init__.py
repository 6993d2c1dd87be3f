"""Wie is de Heer?: pesten with a hidden mole, a points pot and accusations (docs/rules/wieisdeheer.md)."""
