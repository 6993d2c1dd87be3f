"""The one jit wrapper every kernel uses: nopython, cached on disk, GIL released.

Kernels are branchy integer code over loops of a few cards: LLVM's loop vectoriser turns those
into AVX gathers whose set-up costs more than the loop, so it is off for everything compiled here.
"""
import numba

numba.config.LOOP_VECTORIZE = 0

njit = numba.njit(cache=True, nogil=True, error_model="numpy")
