"""How the YAML readers that meet trainstack's files type a plain (unquoted) scalar.

A quoted scalar is a string to every reader. A plain one is typed by its reader, and the readers
trainstack's files meet do not agree:

| plain scalar | PyYAML (YAML 1.1) | go-yaml v3 (the Pulumi engine) | go-yaml v2 rules (kubectl, sigs.k8s.io/yaml) |
|---|---|---|---|
| ``yes``, ``on``, ``off`` | boolean | string | boolean |
| ``y``, ``n`` | string | string | boolean |
| ``010`` | 8 | 8 | 8 (YAML 1.2 reads 10) |
| ``0o17``, ``1e-4``, ``1_000`` | string | number | number |
| ``1:30`` | 90 | string | string |
| ``2026-01-01`` | a date | a timestamp (Pulumi passes ``2026-01-01 00:00:00 +0000 UTC``) | a string |

Sources: go-yaml v3.0.1 ``resolve.go`` (``resolve``, ``resolveMapList``, ``yamlStyleFloat``: Go's
``strconv.ParseInt(s, 0, 64)`` after every ``_`` is removed), go-yaml v2.4 ``resolve.go`` (the same numbers,
and the YAML 1.1 words ``y``/``yes``/``on``/``off``; sigs.k8s.io/yaml, which kubectl reads manifests with, is
its fork), PyYAML 6 ``resolver.py``, and Pulumi v3.259's ``sdk/go/common/encoding/marshal.go`` (stack files
are read with ``gopkg.in/yaml.v3``) and ``resource/config/object.go`` (``unmarshalObject``, ``MarshalString``:
what the engine hands the program).

So trainstack uses these rules two ways:

* **Writing** (:func:`needs_quotes`): a string any of the readers would type otherwise is quoted, so that each
  reads back the string written (boundary.dump_yaml).
* **Reading a Pulumi stack file** (:func:`pulumi_scalar`): a plain scalar is read as go-yaml v3 reads it, or
  refused where that reading would surprise its author (an octal ``010``, a timestamp, ``1_000``), with the
  fix. The offline plan then sees the value ``pulumi up`` hands the program (plan/project.py).
"""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

Scalar = str | int | float | bool | None

_V3_WORDS: dict[str, Scalar] = {
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
}
"""go-yaml v3's resolveMapList, but for ``.inf``/``.nan`` (refused: JSON cannot carry them) and ``<<`` (a merge)."""
_V2_WORDS = {*_V3_WORDS, "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
             "on", "On", "ON", "off", "Off", "OFF"}
"""go-yaml v2's resolve table: YAML 1.1's booleans, which kubectl's reader still types."""
_SPECIAL_FLOAT = re.compile(r"[-+]?\.(inf|Inf|INF|nan|NaN|NAN)")
_YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
"""go-yaml's ``yamlStyleFloat``, matched against the scalar with its ``_`` removed."""
_GO_INTEGER = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO][0-7]+|[0-9]+)")
"""What Go's ``strconv.ParseInt(s, 0, 64)`` (and ParseUint) read as an integer, range aside: a leading ``0`` alone
means octal, and ``08`` fails there but is then read as the float 8 by ``yamlStyleFloat``."""
_DECIMAL_INTEGER = re.compile(r"[-+]?(0|[1-9][0-9]*)")
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?")
"""go-yaml's ``parseTimestamp`` first needs four digits and a ``-``, then one of its layouts (2006-1-2 and the
date-times after it); this is a superset of those layouts."""
_INT64 = range(-(2**63), 2**63)


class ScalarRefused(ValueError):
    """A plain scalar a Pulumi stack file may not hold unquoted; the message says what to write."""


def needs_quotes(text: str) -> bool:
    """Whether ``text``, written plain, would be read as anything but this string by go-yaml v2 or v3 (kubectl,
    the Pulumi engine) or YAML 1.2. PyYAML's own emitter already quotes what YAML 1.1 would type."""
    if text in _V2_WORDS or _SPECIAL_FLOAT.fullmatch(text) or text in ("<<", "="):
        return True
    if not text[:1] or text[0] not in "0123456789+-.":
        return False
    plain = text.replace("_", "")
    return bool(_GO_INTEGER.fullmatch(plain) or _YAML_STYLE_FLOAT.fullmatch(plain) or _TIMESTAMP.fullmatch(text))


def pulumi_scalar(text: str) -> Scalar:
    """A plain scalar of a stack file as the Pulumi engine reads it (go-yaml v3), or ScalarRefused where the engine's
    reading would not be what the file seems to say, or differs from YAML 1.1's and 1.2's."""
    if text in _V3_WORDS:
        return _V3_WORDS[text]
    if _SPECIAL_FLOAT.fullmatch(text):
        raise ScalarRefused(f"{text} is not a number the Pulumi engine can pass to a program (JSON has no "
                            "infinity or NaN); give a finite number, or quote it for the text")
    if not text or text[0] not in "0123456789+-.":
        return text
    plain = text.replace("_", "")
    if _TIMESTAMP.fullmatch(text):
        raise ScalarRefused(f"{text} is read as a timestamp by the Pulumi engine, which hands the program "
                            "Go's spelling of it (2006-01-02 15:04:05 +0000 UTC); quote it: '" + text + "'")
    numeric = _GO_INTEGER.fullmatch(plain) or _YAML_STYLE_FLOAT.fullmatch(plain)
    if numeric and "_" in text:
        raise ScalarRefused(f"{text} is read as the number {plain} by the Pulumi engine and as text by YAML 1.2; "
                            f"write {plain}, or quote it: '{text}'")
    if _DECIMAL_INTEGER.fullmatch(plain):
        number = int(plain)
        if number not in _INT64:
            raise ScalarRefused(f"{text} is beyond a 64-bit integer, which the Pulumi engine reads as another "
                                "number; quote it for the text")
        return number
    if _GO_INTEGER.fullmatch(plain) or re.fullmatch(r"[-+]?0[0-9]+", plain):
        raise ScalarRefused(f"{text} is read as {_go_integer_reading(plain)} by the Pulumi engine (a leading 0 is "
                            f"octal there, and 0x, 0o, 0b are bases), and as {_yaml_12_reading(plain)} by YAML "
                            "1.2; write the number in decimal without leading zeros, or quote it for the text")
    if _YAML_STYLE_FLOAT.fullmatch(plain):
        real = float(plain)
        if math.isinf(real):
            raise ScalarRefused(f"{text} is beyond a 64-bit float, which the Pulumi engine reads as the text "
                                f"{text}; quote it: '{text}'")
        return real
    return text


def _go_integer_reading(plain: str) -> str:
    sign = -1 if plain.startswith("-") else 1
    digits = plain.lstrip("+-")
    try:
        return str(sign * int(digits, 0 if digits[1:2].isalpha() else 8))
    except ValueError:
        return f"the float {float(digits) * sign:g}"


def _yaml_12_reading(plain: str) -> str:
    digits = plain.lstrip("+-")
    if digits[:2] in ("0o", "0x"):
        return str(int(plain, 0))
    if digits[:2] in ("0b", "0B", "0O", "0X"):
        return "text"
    return str(int(plain, 10))


def engine_json(value: Any) -> str:
    """``value`` (read from a stack file with :func:`pulumi_scalar`'s rules) as the Pulumi engine hands it to the
    program: Go's ``encoding/json`` of the config object, whose maps are written with their keys sorted and whose
    floats are written as Go writes them (``1e3`` is ``1000``; config.object.MarshalJSON). Non-ASCII text is kept;
    Go's escapes of ``<``, ``>`` and ``&`` are left out, since they decode to the same text."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, float):
        return go_float(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key, ensure_ascii=False)}:{engine_json(value[key])}"
                              for key in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(engine_json(item) for item in value) + "]"
    raise TypeError(f"{type(value).__name__} is not a value a stack file holds")


def go_float(number: float) -> str:
    """``number`` as Go's encoding/json writes a float64 (floatEncoder): the shortest digits that read back, in
    ``f`` form unless it is below 1e-6 or from 1e21 up, where it takes ``e`` form with ``e-07`` written ``e-7``."""
    if math.isnan(number) or math.isinf(number):
        raise ValueError(f"{number} is not a JSON number")
    magnitude = abs(number)
    shortest = repr(number)
    if magnitude != 0 and (magnitude < 1e-6 or magnitude >= 1e21):
        mantissa, exponent = shortest.split("e")
        sign, digits = exponent[0], exponent[1:].lstrip("0")
        return f"{mantissa}e{sign}{digits.rjust(2, '0') if sign == '+' else digits}"
    text = format(Decimal(shortest), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text

