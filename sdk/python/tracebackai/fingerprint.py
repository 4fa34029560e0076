"""Input fingerprints for replay: "sha256:" + hex digest of canonical JSON.

Canonical JSON is what sdk/typescript/src/fingerprint.ts produces: object keys
sorted at every level (by UTF-16 code unit, as JavaScript's sort does), no
whitespace, strings and numbers spelled as ``JSON.stringify`` spells them. So
a fingerprint is the same whether Python, the TS SDK or the engine computes
it from the same JSON value.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def canonical_json(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted((str(k) for k in value), key=_utf16_order)
        lookup = {str(k): v for k, v in value.items()}
        return "{" + ",".join(js_string(k) + ":" + canonical_json(lookup[k]) for k in keys) + "}"
    raise TypeError(f"canonical_json takes JSON values only, got {type(value).__name__}")


def fingerprint_json(value: Any) -> str:
    """The fingerprint of a JSON value (an absent input hashes as null)."""
    text = canonical_json(value)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _utf16_order(key: str) -> bytes:
    # Big-endian UTF-16 bytes compare in the same order as UTF-16 code units.
    return key.encode("utf-16-be", errors="surrogatepass")


def js_string(text: str) -> str:
    """``JSON.stringify`` of a string: the same escapes as Python's json module,
    except that JavaScript escapes lone surrogates where Python leaves them raw."""
    encoded = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: "\\u%04x" % ord(m.group()), encoded)


def js_number(number: int | float) -> str:
    """``String(number)`` per ECMAScript Number::toString (ints past 2^53 as the
    double a JavaScript reader would see)."""
    if isinstance(number, int) and abs(number) < 2**53:
        return str(number)
    value = float(number)
    if not math.isfinite(value):
        return "null"  # JSON.stringify(NaN) — never produced by to_json, kept for completeness
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    digits, exponent = _shortest_digits(abs(value))
    k = len(digits)
    n = exponent + k  # value = 0.digits × 10^n
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{sign}{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"


def _shortest_digits(value: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits (no trailing zeros) and the power of ten
    of the last digit: value == int(digits) × 10^exponent."""
    text = repr(value)  # Python's repr is the shortest round-trip form, as is JavaScript's
    mantissa, _, exp_text = text.partition("e")
    exponent = int(exp_text) if exp_text else 0
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    exponent -= len(frac)
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    return stripped or "0", exponent
