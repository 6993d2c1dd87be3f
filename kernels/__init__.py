"""Numba kernels: arrays in, arrays out. Importing this package compiles nothing."""
