"""Wizard kernels: enums, rules, policies and the game driver (Numba, nopython)."""
