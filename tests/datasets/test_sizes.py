"""One size syntax for every count: 1048576, 1_048_576, 1M, 2^20, 1e6 (issue 10)."""

import pytest

from graphsweep.core.errors import ParameterError
from graphsweep.core.params import Param, parse_int
from graphsweep.pipeline.cli_data import parse_rows


@pytest.mark.parametrize("text, value", [
    ("1048576", 1 << 20), ("1_048_576", 1 << 20), ("1M", 1 << 20), ("1m", 1 << 20), ("2^20", 1 << 20),
    ("2**20", 1 << 20), ("1e6", 10**6), ("64K", 64 << 10), ("1.5G", 3 << 29), ("1T", 1 << 40), ("0x400", 1024),
    (" 7 ", 7), ("-3", -3)])
def test_every_spelling_of_a_size(text, value):
    assert parse_int(text) == value
    assert Param(0).coerce("n", text) == value


@pytest.mark.parametrize("text", ["ten", "1.5", "1.1K", "M", "", "2^x", "2^1000000", "1e400", "nan"])
def test_what_is_not_a_size_names_the_parameter_and_the_syntax(text):
    syntax = r"\(e\.g\. 1048576, 1_048_576, 1M, 2\^20, 1e6\)"
    with pytest.raises(ParameterError, match=r"parameter 'n': .* is not an integer " + syntax):
        Param(0).coerce("n", text)


def test_counts_and_part_sizes_share_it():
    assert parse_rows("part_rows", "3M") == 3 << 20 and parse_rows("part_rows", "2^18") == 1 << 18
    with pytest.raises(ParameterError, match="parameter 'part_rows': 0 is below the minimum 1"):
        parse_rows("part_rows", "0")
