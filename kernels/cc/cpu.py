"""What the CPU twins share: atomic compare-and-swap and relaxed loads and stores for Numba, so a
twin's threads (``numba.prange``) hook and compress one forest concurrently as the GPU's do.

Numba has no CPU atomics, so these are LLVM intrinsics (``cmpxchg``, ``load atomic``, ``store
atomic``, all monotonic = C++ relaxed).  The loads matter as much as the CAS: a plain load in a
retry loop may be hoisted out of it by the optimiser and never see another thread's write.
"""

import numba
from numba.core import cgutils, types
from numba.extending import intrinsic


def _pointer(context, builder, array_type, array, index, index_type):
    ary = context.make_array(array_type)(context, builder, array)
    i = context.cast(builder, index, index_type, types.intp)
    return cgutils.get_item_pointer(context, builder, array_type, ary, [i])


@intrinsic
def cas(typingctx, array, index, expected, desired):
    """array[index] = desired if it holds expected; returns what it held (atomically)."""
    if not isinstance(array, types.Array):
        return None
    dtype = array.dtype
    sig = dtype(array, index, dtype, dtype)

    def codegen(context, builder, sig, args):
        ptr = _pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
        expected = context.cast(builder, args[2], sig.args[2], dtype)
        desired = context.cast(builder, args[3], sig.args[3], dtype)
        return builder.extract_value(builder.cmpxchg(ptr, expected, desired, "monotonic", "monotonic"), 0)

    return sig, codegen


@intrinsic
def load(typingctx, array, index):
    """array[index], read with a relaxed atomic load."""
    if not isinstance(array, types.Array):
        return None
    sig = array.dtype(array, index)

    def codegen(context, builder, sig, args):
        ptr = _pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
        return builder.load_atomic(ptr, "monotonic", align=sig.return_type.bitwidth // 8)

    return sig, codegen


@intrinsic
def store(typingctx, array, index, value):
    """array[index] = value, a relaxed atomic store."""
    if not isinstance(array, types.Array):
        return None
    sig = types.void(array, index, array.dtype)

    def codegen(context, builder, sig, args):
        ptr = _pointer(context, builder, sig.args[0], args[0], args[1], sig.args[1])
        value = context.cast(builder, args[2], sig.args[2], sig.args[0].dtype)
        builder.store_atomic(value, ptr, "monotonic", align=sig.args[0].dtype.bitwidth // 8)
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True, inline="always")
def find(parent, x):
    """The root of x's tree, halving the path (as common.cuh's gs_cc_find)."""
    p = load(parent, x)
    while p != x:
        g = load(parent, p)
        if g == p:
            return p
        store(parent, x, g)
        x = g
        p = load(parent, x)
    return x


@numba.njit(cache=True, inline="always")
def root_of(parent, x):
    """The root above x, climbed with relaxed loads and nothing written (a flatten pass stores it
    once per vertex afterwards)."""
    up = load(parent, x)
    while up != x:
        x = up
        up = load(parent, x)
    return x


@numba.njit(cache=True, inline="always")
def link(parent, a, b):
    """Union of the trees of a and b: both roots found (halving), the larger CASed under the
    smaller, climb and retry on failure (as common.cuh's gs_cc_link)."""
    ra, rb = find(parent, a), find(parent, b)
    while ra != rb:
        hi, lo = (ra, rb) if ra > rb else (rb, ra)
        old = cas(parent, hi, hi, lo)
        if old == hi:
            return
        ra, rb = find(parent, old), find(parent, lo)


@numba.njit(cache=True, inline="always")
def hook(parent, a, b):
    """Join the trees of a and b by Atomic-Hook, testing before the CAS (as common.cuh's gs_cc_hook)."""
    pa, pb = load(parent, a), load(parent, b)
    while pa != pb:
        hi, lo = (pa, pb) if pa > pb else (pb, pa)
        up = load(parent, hi)
        if up == hi:
            up = cas(parent, hi, hi, lo)
            if up == hi:
                return
        pa, pb = load(parent, up), load(parent, lo)
