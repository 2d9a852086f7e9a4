"""The APSP verifier accepts SciPy's matrix and rejects each kind of fault."""

import numpy as np
import pytest

from graphsweep.core.errors import VerificationError
from graphsweep.kernels.apsp.verify import verify_apsp

XP = ["numpy", pytest.param("cupy", marks=pytest.mark.gpu)]


@pytest.fixture
def case(wg):
    g = wg.disconnected()                       # unreachable pairs, zero-free weights 1..10
    return g, wg.reference(g, np.arange(g[0]))


def check(case, xp_name, dist=None, directed=False, samples=16):
    (n, src, dst, w), d = case
    xp = np
    if xp_name == "cupy":
        import cupy as xp
    src, dst, w, d = (xp.asarray(a) for a in (src, dst, w, d if dist is None else dist))
    return verify_apsp(n, src, dst, w, directed, d, samples=samples)


@pytest.mark.parametrize("xp_name", XP)
def test_accepts_reference(case, xp_name):
    facts = check(case, xp_name)
    assert facts["rows_checked"] == 16 and facts["reachable_pairs"] == int((case[1] >= 0).sum())


@pytest.mark.parametrize("xp_name", XP)
def test_rejects_too_long_by_triangle(case, xp_name):
    d = case[1].copy()
    d[3, 7] += 1                                # not a sampled row necessarily: the triangle inequality sees it
    with pytest.raises(VerificationError, match=r"source 3: dist\[3, 7\]|dist\[3, 7\]"):
        check(case, xp_name, dist=d)


@pytest.mark.parametrize("xp_name", XP)
def test_rejects_too_short_in_a_sampled_row(case, xp_name):
    d = case[1].copy()
    s = 400
    v = int(np.argmax(d[s]))
    d[s, v] -= 1
    with pytest.raises(VerificationError, match=f"dist\\[{s}, {v}\\] is .* Dijkstra"):
        check(case, xp_name, dist=d, samples=case[0][0])     # every row sampled


@pytest.mark.parametrize("xp_name", XP)
def test_rejects_missing_path_and_bad_values(case, xp_name):
    d = case[1].copy()
    d[5, 6] = -1
    with pytest.raises(VerificationError, match="no path"):
        check(case, xp_name, dist=d)
    d = case[1].copy()
    d[9, 9] = 3
    with pytest.raises(VerificationError, match=r"dist\[9, 9\] is 3, expected 0"):
        check(case, xp_name, dist=d)
    d = case[1].copy()
    d[1, 1004] = -5
    with pytest.raises(VerificationError, match="-5"):
        check(case, xp_name, dist=d)
    with pytest.raises(VerificationError, match="shape"):
        check(case, xp_name, dist=case[1][:-1])


@pytest.mark.parametrize("xp_name", XP)
def test_directed(wg, xp_name):
    g = wg.rmat(scale=8, seed=3)
    d = wg.reference(g, np.arange(g[0]), directed=True)
    check((g, d), xp_name, directed=True)
    with pytest.raises(VerificationError):
        check((g, d), xp_name, directed=False)
