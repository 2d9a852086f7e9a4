"""Declared parameters of kernels and generators: a default, a type, and allowed values.

Values arrive from Python, YAML sweep specs and CLI strings; ``Param.coerce`` turns each into the
declared type or raises one ``ParameterError`` naming the parameter and what was wrong.  Integers
written as strings share one size syntax everywhere (``parse_int``: 1M, 2^20, 1e6, 1_000_000).
"""

from dataclasses import dataclass
from typing import Any

from .errors import ParameterError

_TYPES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
# Binary multiples, as for part sizes: 1K = 1024, 1M = 2^20.
SIZE_SUFFIXES = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
SIZE_SYNTAX = "e.g. 1048576, 1_048_576, 1M, 2^20, 1e6"


def _integral(number: float) -> int:
    if not number.is_integer():
        raise ValueError(number)
    return int(number)


def parse_int(text: str) -> int:
    """An integer in the one size syntax of every count and size: decimal or 0x-prefixed, with
    ``_`` separators (1_000_000), a binary suffix (64K, 1M, 1.5G), a power (2^20, 2**20) or an
    integral float (1e6).  ValueError otherwise."""
    text = text.strip().lower()
    base, caret, exponent = text.replace("**", "^").partition("^")
    if caret:
        power = int(exponent, 10)
        if not 0 <= power <= 256:  # a typo like 2^1000000 must not hang the parse
            raise ValueError(text)
        return int(base, 10) ** power
    if text[-1:] in SIZE_SUFFIXES:
        return _integral(float(text[:-1]) * SIZE_SUFFIXES[text[-1]])
    try:
        return int(text, 0)
    except ValueError:
        return _integral(float(text))


@dataclass(frozen=True)
class Param:
    """One tunable parameter: default (``None`` = chosen by the kernel, e.g. from the SM count)."""
    default: Any
    type: type = int
    choices: tuple = ()
    minimum: float | None = None
    help: str = ""
    maximum: float | None = None
    # Left out of an identity at its default (``identity``): a parameter added after datasets and
    # results were named by the others, which keep their names and hashes.
    omit_default: bool = False

    def coerce(self, name: str, value: Any) -> Any:
        """``value`` (from YAML, Python or a CLI string) as this parameter's type, or ParameterError."""
        if value is None:
            return None
        if isinstance(value, str) and self.type is not str:
            text = value.strip().lower()
            try:
                if self.type is bool:
                    if text not in ("true", "false", "1", "0", "yes", "no"):
                        raise ValueError
                    value = text in ("true", "1", "yes")
                elif self.type is int:
                    value = parse_int(text)
                else:
                    value = self.type(text)
            except (ValueError, OverflowError):
                example = f" ({SIZE_SYNTAX})" if self.type is int else ""
                raise ParameterError(f"parameter '{name}': {value!r} is not {_TYPES[self.type]}{example}") from None
        if self.type is int and isinstance(value, float) and value.is_integer():
            value = int(value)
        if self.type is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.type) or (self.type is int and isinstance(value, bool)):
            raise ParameterError(f"parameter '{name}': {value!r} is not {_TYPES[self.type]}")
        if self.choices and value not in self.choices:
            raise ParameterError(f"parameter '{name}': {value!r} is not one of {', '.join(map(str, self.choices))}")
        if self.minimum is not None and value < self.minimum:
            raise ParameterError(f"parameter '{name}': {value!r} is below the minimum {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise ParameterError(f"parameter '{name}': {value!r} is above the maximum {self.maximum}")
        return value


def resolve(owner: str, declared: dict, given: dict, fault=None) -> dict:
    """``given`` checked against ``declared``: defaults filled in, each value coerced — the one
    place a kernel's or generator's parameters are checked (the CLI, the Python API and a sweep's
    spec alike).

    An unknown name is a ParameterError naming ``owner`` and the allowed names.  ``fault(name,
    text)``, when given, makes the error instead (a sweep's names the spec's file and key).
    """
    unknown = sorted(set(given) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        if fault:
            raise fault(unknown[0], f"{owner} has no such parameter (allowed: {allowed})")
        raise ParameterError(f"{owner}: unknown parameter '{unknown[0]}' (allowed: {allowed})")
    out = {}
    for name, param in declared.items():
        try:
            out[name] = param.coerce(name, given.get(name, param.default))
        except ParameterError as exc:
            if fault is None:
                raise
            raise fault(name, str(exc).removeprefix(f"parameter '{name}': ")) from None
    return out


def identity(declared: dict, resolved: dict) -> dict:
    """``resolved`` as an identity holds it (a generated dataset's manifest and name, its tasks'
    hashes): without the parameters declared ``omit_default`` that are at their default."""
    return {name: value for name, value in resolved.items()
            if not (declared[name].omit_default and value == declared[name].default)}
