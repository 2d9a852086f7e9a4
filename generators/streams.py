"""Randomness that is a pure function of (seed, stream, row): Philox blocks and a keyed Feistel
permutation.  Every generator draws through these two, which is what makes a dataset
byte-identical whatever its part size, worker count or backend.

Philox blocks.  Rows are grouped in fixed blocks of ``BLOCK_ROWS`` (2^16).  Block ``b`` of a
stream draws from ``Generator(Philox(key=K(seed, stream), counter=b << 64))``: the counter's second
word is the block index, so blocks never share a Philox counter value (a block would need 2^66
draws to run into the next), and a part covering rows [a, b) draws just the blocks it overlaps and
keeps its rows.  What a block draws depends only on its index and the dataset's row count.

Feistel permutation.  A random bijection π of [0, n) that can be evaluated (and inverted) element
by element, so a part computes π(i) for its own rows without the whole permutation in memory.
π is an alternating (unbalanced) Feistel network over [0, 2^b) ⊇ [0, n), b = max(2, bits of
n-1): the value splits into halves of floor(b/2) and ceil(b/2) bits that swap widths each round;
``ROUNDS`` rounds, the round function a SplitMix64 finaliser of one half xor a round key, the
round keys drawn from Philox(seed).  It is restricted to [0, n) by cycle-walking: re-apply until
the value falls below n (2^b < 2n, so fewer than two applications per element on average).  The
arithmetic is written three times, held equal by the tests: as plain uint64 array code (``walk_xp``,
the readable reference), as the CPU's Numba twin (4x faster than NumPy) and as the GPU's kernel
(``feistel.cuh``, one thread an element; a walk of CuPy array operations took ~7 ms a million
elements and, on a machine whose kernel cache was empty, ~27 s compiling them the first time).
"""

from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np

BLOCK_ROWS = 1 << 16
ROUNDS = 6

# Stream ids: one independent Philox key per use of randomness within a dataset.
STREAM_PERMUTATION = 1
STREAM_EDGES = 2
STREAM_WEIGHTS = 3
STREAM_TREE = 4
STREAM_GRID = 5
STREAM_IDS = 6

_HERE = Path(__file__).parent
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB


def stream_key(seed: int, stream: int) -> np.ndarray:
    """The Philox key (2 x uint64) of ``stream`` under ``seed``."""
    return np.random.SeedSequence([seed, stream]).generate_state(2, np.uint64)


def block_rng(key: np.ndarray, block: int) -> np.random.Generator:
    """The generator of row block ``block``: Philox with the block index as counter word 1."""
    return np.random.Generator(np.random.Philox(key=key, counter=block << 64))


def blockwise(start: int, stop: int, total: int, draw_block, dtypes) -> tuple:
    """Rows [start, stop) of columns drawn block by block.

    ``draw_block(block, rows)`` returns one array per column for the ``rows`` (a uint64 array of
    row indices, all of block ``block``; fewer than ``BLOCK_ROWS`` only in the last block of
    ``total`` rows).  Returns one array of ``dtypes[i]`` per column.
    """
    out = tuple(np.empty(stop - start, dtype=d) for d in dtypes)
    for block in range(start // BLOCK_ROWS, -(-stop // BLOCK_ROWS)):
        first = block * BLOCK_ROWS
        rows = np.arange(first, min(first + BLOCK_ROWS, total), dtype=np.uint64)
        lo, hi = max(start, first), min(stop, first + BLOCK_ROWS)
        for column, values in zip(out, draw_block(block, rows)):
            column[lo - start:hi - start] = values[lo - first:hi - first]
    return out


def _mix(z, xp):
    """SplitMix64's finaliser: a bijective avalanche of uint64 values."""
    z = (z ^ (z >> xp.uint64(30))) * xp.uint64(_M1)
    z = (z ^ (z >> xp.uint64(27))) * xp.uint64(_M2)
    return z ^ (z >> xp.uint64(31))


_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_NB_M1, _NB_M2 = np.uint64(_M1), np.uint64(_M2)


@numba.njit(nogil=True, cache=True)
def _mix_nb(z):
    z = (z ^ (z >> _S30)) * _NB_M1
    z = (z ^ (z >> _S27)) * _NB_M2
    return z ^ (z >> _S31)


@numba.njit(nogil=True, cache=True)
def _walk_nb(x, n, widths, keys, inverse, out):
    """The CPU twin of ``Feistel._walk``: the same uint64 arithmetic, one element at a time."""
    bound = np.uint64(n)
    rounds = keys.shape[0]
    for i in range(x.shape[0]):
        v = x[i]
        while True:
            for j in range(rounds):
                r = rounds - 1 - j if inverse else j
                lw = np.uint64(widths[r])        # left width before round r
                rw = np.uint64(widths[r + 1])    # right width before round r (= left after)
                if inverse:
                    # after round r: left (rw bits) = old right, right (lw bits) = old left ^ F
                    left = v >> np.uint64(lw)
                    right = v & ((np.uint64(1) << lw) - np.uint64(1))
                    old_left = right ^ (_mix_nb(left ^ keys[r]) & ((np.uint64(1) << lw) - np.uint64(1)))
                    v = (old_left << rw) | left
                else:
                    left = v >> rw
                    right = v & ((np.uint64(1) << rw) - np.uint64(1))
                    new_right = left ^ (_mix_nb(right ^ keys[r]) & ((np.uint64(1) << lw) - np.uint64(1)))
                    v = (right << lw) | new_right
            if v < bound:
                break
        out[i] = v


@dataclass(frozen=True)
class Feistel:
    """A keyed random permutation of [0, n), evaluated element-wise (see the module docstring)."""
    n: int
    bits: int
    keys: tuple  # ROUNDS round keys (Python ints < 2^64)

    @classmethod
    def for_seed(cls, n: int, seed: int, stream: int = STREAM_PERMUTATION) -> "Feistel":
        bits = max(2, (n - 1).bit_length())
        keys = block_rng(stream_key(seed, stream), 0).integers(0, 2**64, ROUNDS, dtype=np.uint64)
        return cls(n, bits, tuple(int(k) for k in keys))

    @property
    def widths(self) -> tuple:
        """Left width before each round, then the final one: the halves swap widths every round."""
        small, large = self.bits // 2, self.bits - self.bits // 2
        return tuple(small if r % 2 == 0 else large for r in range(ROUNDS + 1))

    def _round(self, v, xp, r, inverse):
        w = self.widths
        lw, rw = xp.uint64(w[r]), xp.uint64(w[r + 1])
        lmask = xp.uint64((1 << w[r]) - 1)
        key = xp.uint64(self.keys[r])
        if inverse:
            left, right = v >> lw, v & lmask
            return ((right ^ (_mix(left ^ key, xp) & lmask)) << rw) | left
        left, right = v >> rw, v & xp.uint64((1 << w[r + 1]) - 1)
        return (right << lw) | (left ^ (_mix(right ^ key, xp) & lmask))

    def _permute(self, v, xp, inverse):
        order = range(ROUNDS - 1, -1, -1) if inverse else range(ROUNDS)
        for r in order:
            v = self._round(v, xp, r, inverse)
        return v

    def _walk(self, x, xp, inverse):
        out = xp.empty(x.shape, dtype=np.uint64)
        if xp is np:
            _walk_nb(x.ravel(), self.n, np.array(self.widths, dtype=np.int64),
                     np.array(self.keys, dtype=np.uint64), inverse, out.ravel())
        elif x.size:
            flat = xp.ascontiguousarray(x).ravel()
            cuda_kernel("feistel.cu", "graphsweep_feistel_walk")(
                (min(-(-flat.size // 256), 1 << 16),), (256,),
                (flat, out.ravel(), np.int64(flat.size), *self.device_args(xp), np.int32(inverse)))
        return out

    def device_args(self, xp) -> tuple:
        """(n, widths, keys) as feistel.cuh's functions take them: a kernel's last three arguments."""
        return np.uint64(self.n), xp.asarray(self.widths, dtype=np.int32), xp.asarray(self.keys, dtype=np.uint64)

    def walk_xp(self, x, xp, inverse=False):
        """The walk as array code: the reference the Numba twin and the GPU kernel are tested against."""
        bound = xp.uint64(self.n)
        y = self._permute(x, xp, inverse)
        # Cycle-walking: values that land outside [0, n) are stepped again until they return.
        idx = xp.nonzero(y >= bound)[0]
        while idx.size:
            y[idx] = self._permute(y[idx], xp, inverse)
            idx = idx[y[idx] >= bound]
        return y

    def forward(self, x, xp=np):
        """π(x) for a uint64 array ``x`` of values in [0, n)."""
        return self._walk(xp.asarray(x, dtype=xp.uint64), xp, False)

    def inverse(self, y, xp=np):
        """π⁻¹(y) for a uint64 array ``y`` of values in [0, n)."""
        return self._walk(xp.asarray(y, dtype=xp.uint64), xp, True)


def cuda_kernel(source: str, name: str, index=None):
    """Kernel ``name`` of a generator's ``source`` (beside this file, compiled with ``feistel.cuh`` on
    its include path and the rounds of ``Feistel``); ``index``: the dtype of the ids it writes, for a
    kernel templated on it (one compilation holds both)."""
    from graphsweep.kernels.cuda import c_type, module
    names = tuple(f"{name}<{c_type(t)}>" for t in (np.int32, np.int64)) if index is not None else ()
    mod = module(str(_HERE / source), (f"-I{_HERE}", f"-DFEISTEL_ROUNDS={ROUNDS}"), names)
    return mod.get_function(f"{name}<{c_type(index)}>" if index is not None else name)
