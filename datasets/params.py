"""Declared parameters of kernels and generators: a default, a type, and allowed values.

Values arrive from Python, YAML sweep specs and CLI strings; ``Param.coerce`` turns each into the
declared type or raises one ``ParameterError`` naming the parameter and what was wrong.
"""

from dataclasses import dataclass
from typing import Any

from .errors import ParameterError

_TYPES = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}


def _parse_int(text: str) -> int:
    """Decimal or 0x-prefixed integers, and integral floats written compactly (1e6)."""
    try:
        return int(text, 0)
    except ValueError:
        number = float(text)
        if not number.is_integer():
            raise
        return int(number)


@dataclass(frozen=True)
class Param:
    """One tunable parameter: default (``None`` = chosen by the kernel, e.g. from the SM count)."""
    default: Any
    type: type = int
    choices: tuple = ()
    minimum: float | None = None
    help: str = ""

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
                    value = _parse_int(text)
                else:
                    value = self.type(text)
            except ValueError:
                raise ParameterError(f"parameter '{name}': {value!r} is not {_TYPES[self.type]}") from None
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
        return value


def resolve(owner: str, declared: dict, given: dict) -> dict:
    """``given`` checked against ``declared``: defaults filled in, each value coerced.

    An unknown name is a ParameterError naming ``owner`` and the allowed names.
    """
    unknown = sorted(set(given) - set(declared))
    if unknown:
        allowed = ", ".join(sorted(declared)) or "none"
        raise ParameterError(f"{owner}: unknown parameter '{unknown[0]}' (allowed: {allowed})")
    return {k: p.coerce(k, given.get(k, p.default)) for k, p in declared.items()}
