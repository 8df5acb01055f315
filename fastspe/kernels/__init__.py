"""Numba kernels. They take and return contiguous NumPy arrays, never raise on user input, and
do no I/O; the domain modules validate everything before calling them."""
