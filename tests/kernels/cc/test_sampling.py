"""cc.sampled-union-find's CPU twin draws the same CSR slots as the GPU's ``largest`` kernel."""

import numpy as np
import pytest

from graphsweep.kernels.cc import sampled_union_find as suf

# A probe kernel compiled with the .cu and its -D constants: sample t's slot, from the .cu's own function.
PROBE = r"""
#include "cc/sampled_union_find.cu"
extern "C" __global__ void probe(long long* out, unsigned seed, long long nnz)
{
    out[threadIdx.x] = gs_cc_sample(threadIdx.x, seed, GS_SUF_SAMPLES, nnz);
}
"""


def cpu_slots(seed: int, nnz: int) -> np.ndarray:
    return np.array([suf.sample_slot(t, seed, nnz) for t in range(suf.SAMPLES)])


@pytest.mark.parametrize("nnz", [1, 7, 1024, 2**31 + 11, 2**40 - 3])
def test_slots_lie_in_range_and_spread(nnz):
    slots = cpu_slots(1, nnz)
    assert slots.min() >= 0 and slots.max() < nnz
    if nnz >= 2**31:   # 1024 draws from a huge range: a good hash repeats none and covers both halves
        assert np.unique(slots).size == suf.SAMPLES
        assert (slots < nnz // 2).sum() in range(400, 625)


def test_seed_changes_the_sample():
    assert not np.array_equal(cpu_slots(1, 10**9), cpu_slots(2, 10**9))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1, 12345, 2**32 - 1])
@pytest.mark.parametrize("nnz", [1, 999, 2**33 + 5])
def test_gpu_and_cpu_draw_the_same_slots(seed, nnz):
    import cupy
    from graphsweep.kernels.cuda import KERNELS_DIR
    mod = cupy.RawModule(code=PROBE, options=("-std=c++17", f"-I{KERNELS_DIR}", *suf.DEFINES))
    out = cupy.empty(suf.SAMPLES, dtype=np.int64)
    mod.get_function("probe")((1,), (suf.SAMPLES,), (out, np.uint32(seed), np.int64(nnz)))
    np.testing.assert_array_equal(out.get(), cpu_slots(seed, nnz))
