"""The one jit wrapper every kernel uses: nopython, cached on disk, GIL released."""
import numba

njit = numba.njit(cache=True, nogil=True, error_model="numpy")
