"""Param.coerce and resolve: values from Python, YAML and CLI strings become the declared type."""

import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.core.params import Param, identity, resolve


@pytest.mark.parametrize("text, value", [("1024", 1024), ("0x400", 1024), ("1e6", 1_000_000), (" 7 ", 7)])
def test_int_from_strings(text, value):
    assert Param(0).coerce("n", text) == value


@pytest.mark.parametrize("bad", ["abc", "1.5", "", True])
def test_int_rejects(bad):
    with pytest.raises(ParameterError, match="parameter 'n'"):
        Param(0).coerce("n", bad)


def test_float_bool_str_and_integral_float():
    assert Param(0.5, float).coerce("d", "0.25") == 0.25
    assert Param(0.5, float).coerce("d", 1) == 1.0
    assert Param(False, bool).coerce("b", "yes") is True
    assert Param(False, bool).coerce("b", "0") is False
    assert Param(0).coerce("n", 4.0) == 4
    assert Param("a", str, choices=("a", "b")).coerce("s", "b") == "b"
    with pytest.raises(ParameterError, match="true or false"):
        Param(False, bool).coerce("b", "maybe")


def test_choices_and_minimum_name_the_value():
    with pytest.raises(ParameterError, match=r"'packing': 32 is not one of 48, 64"):
        Param(64, choices=(48, 64)).coerce("packing", "32")
    with pytest.raises(ParameterError, match="below the minimum 1"):
        Param(1, minimum=1).coerce("k", 0)
    with pytest.raises(ParameterError, match="parameter 'hot': 1.5 is above the maximum 1.0"):
        Param(0.5, float, minimum=0.0, maximum=1.0).coerce("hot", "1.5")
    assert Param(0.5, float, maximum=1.0).coerce("hot", 1) == 1.0


def test_resolve_fills_defaults_and_names_unknown():
    declared = {"n": Param(10, minimum=1), "p": Param(None)}
    assert resolve("gen", declared, {"n": "20"}) == {"n": 20, "p": None}
    with pytest.raises(ParameterError, match=r"gen: unknown parameter 'q' \(allowed: n, p\)"):
        resolve("gen", declared, {"q": 1})


def test_identity_leaves_out_only_omit_default_parameters_at_their_default():
    declared = {"n": Param(8), "mode": Param("a", str), "permute_ids": Param(False, bool, omit_default=True)}
    assert identity(declared, resolve("g", declared, {})) == {"n": 8, "mode": "a"}
    assert identity(declared, resolve("g", declared, {"permute_ids": "yes"})) == {"n": 8, "mode": "a",
                                                                                  "permute_ids": True}
