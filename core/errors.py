"""Errors every graphsweep layer raises for bad input.

The CLI turns any ``GraphsweepError`` into one line on stderr and exit code 2; nothing else
should reach a user as a traceback.
"""


class GraphsweepError(Exception):
    """Base of every error caused by the user's input (files, parameters, specs)."""

    exit_code = 2


class DatasetError(GraphsweepError):
    """A dataset on disk is missing, malformed or inconsistent. The message names the file."""


class ListStructureError(DatasetError):
    """A ``list`` dataset is not one linked list from a single head to a single tail."""


class ParameterError(GraphsweepError):
    """An unknown parameter or a value outside its allowed range."""


class VerificationError(GraphsweepError):
    """A kernel's output failed its independent verifier."""
