"""Units: how each is written ("milligrams", "µg") and what it measures, in a base unit.

`same_amount` compares two measures after conversion.
"""

from __future__ import annotations

import math

__all__ = ["TIME_UNIT_WORDS", "UNIT_OF", "in_base", "same_amount"]

_ALIASES = {
    "%": ["%", "percent", "per cent", "percentage points", "percentage point", "pct"],
    "bp": ["bp", "bps", "basis points", "basis point"],
    "mg": ["mg", "milligram", "milligrams", "milligramme", "milligrammes"],
    "g": ["g", "gram", "grams", "gramme", "grammes"], "ng": ["ng", "nanogram", "nanograms"],
    "kg": ["kg", "kilogram", "kilograms", "kilo", "kilos"],
    "mcg": ["mcg", "µg", "μg", "microgram", "micrograms", "microgramme", "microgrammes"],
    "lb": ["lb", "lbs"], "tonne": ["tonne", "tonnes", "ton", "tons"],
    "ml": ["ml", "millilitre", "millilitres", "milliliter", "milliliters"],
    "l": ["l", "litre", "litres", "liter", "liters"],
    "dl": ["dl", "decilitre", "decilitres", "deciliter", "deciliters"],
    "mmol": ["mmol", "millimole", "millimoles"], "mol": ["mol", "mole", "moles"],
    "km": ["km", "kilometre", "kilometres", "kilometer", "kilometers"],
    "m": ["m", "metre", "metres", "meter", "meters"],
    "cm": ["cm", "centimetre", "centimetres", "centimeter", "centimeters"],
    "mm": ["mm", "millimetre", "millimetres", "millimeter", "millimeters"],
    "mi": ["mi", "mile", "miles"], "ft": ["ft", "foot", "feet"],
    "km/h": ["km/h", "kph", "kmh"], "w": ["w", "watt", "watts"],
    "kw": ["kw", "kilowatt", "kilowatts"], "mw": ["mw", "megawatt", "megawatts"],
    "gw": ["gw", "gigawatt", "gigawatts"], "v": ["v", "volt", "volts"], "hz": ["hz", "hertz"],
    "°c": ["°c", "ºc", "℃", "degrees celsius", "degree celsius", "degrees c", "celsius"],
    "°f": ["°f", "ºf", "℉", "degrees fahrenheit", "degree fahrenheit", "degrees f", "fahrenheit"],
    "h": ["h", "hr", "hrs", "hour", "hours"], "min": ["min", "mins", "minute", "minutes"],
    "s": ["sec", "secs", "second", "seconds"], "day": ["day", "days"],
    "week": ["week", "weeks", "wk", "wks"], "month": ["month", "months"],
    "year": ["year", "years", "yr", "yrs"], "ha": ["ha", "hectare", "hectares"],
    "acre": ["acre", "acres"], "kcal": ["kcal", "calorie", "calories"],
} | {unit: [unit] for unit in "mph kwh mmhg iu kb mb gb tb bpm".split()}  # fmt: skip  # noqa: SIM905
"""Each canonical unit and the ways it is written (lower-cased)."""
UNIT_OF = {alias: unit for unit, aliases in _ALIASES.items() for alias in aliases}
"""How a unit is written (lower-cased, one space) -> its canonical unit."""

_YEAR = 365.25 * 86400
# unit -> (dimension, factor to the dimension's base unit); temperature is read apart
_DIMENSIONS = {
    "ng": ("mass", 1e-9), "mcg": ("mass", 1e-6), "mg": ("mass", 1e-3), "g": ("mass", 1.0),
    "kg": ("mass", 1e3), "lb": ("mass", 453.59237), "tonne": ("mass", 1e6),
    "ml": ("volume", 1e-3), "dl": ("volume", 0.1), "l": ("volume", 1.0),
    "mmol": ("amount", 1e-3), "mol": ("amount", 1.0),
    "mm": ("length", 1e-3), "cm": ("length", 1e-2), "m": ("length", 1.0),
    "km": ("length", 1e3), "mi": ("length", 1609.344), "ft": ("length", 0.3048),
    "km/h": ("speed", 1.0), "mph": ("speed", 1.609344),
    "w": ("power", 1.0), "kw": ("power", 1e3), "mw": ("power", 1e6), "gw": ("power", 1e9),
    "s": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0), "day": ("time", 86400.0),
    "week": ("time", 7 * 86400.0), "month": ("time", _YEAR / 12), "year": ("time", _YEAR),
    "ha": ("area", 1e4), "acre": ("area", 4046.8564224),
    "kb": ("data", 1e3), "mb": ("data", 1e6), "gb": ("data", 1e9), "tb": ("data", 1e12),
    "%": ("percent", 1.0), "bp": ("percent", 0.01),
}  # fmt: skip
TIME_UNIT_WORDS = frozenset(
    alias
    for unit, (dimension, _) in _DIMENSIONS.items()
    if dimension == "time"
    for alias in _ALIASES.get(unit, [unit])
    if alias.isalpha() and len(alias) > 2
)
"""The words of units of time ("minutes", "week"), not their one-letter abbreviations."""


def in_base(unit: str | None, value: float) -> tuple[str, float]:
    """(dimension, value in the dimension's base unit) of `value` `unit`.

    >>> in_base("mg", 500.0) == in_base("g", 0.5)
    True
    >>> in_base("°f", 212.0)
    ('temperature', 100.0)
    """
    if unit == "°c":
        return "temperature", value
    if unit == "°f":
        return "temperature", (value - 32.0) * 5.0 / 9.0
    dimension, factor = _DIMENSIONS.get(unit or "", (unit or "", 1.0))
    return dimension, value * factor


def same_amount(a_unit: str | None, a: float, b_unit: str | None, b: float) -> bool | None:
    """Whether two measures are the same amount; `None` when they measure other things."""
    (da, va), (db, vb) = in_base(a_unit, a), in_base(b_unit, b)
    return math.isclose(va, vb, rel_tol=1e-6, abs_tol=1e-12) if da == db else None
