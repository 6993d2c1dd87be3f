"""Knutten kernels. Import the submodules you need; this package imports nothing heavy."""
