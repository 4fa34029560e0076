"""Turn arbitrary Python values into the JSON a trace record may hold.

Rules the rest of the SDK relies on (the same as sdk/typescript/src/json-safe.ts):
- never raises: whatever a user passes, the record still gets written;
- deterministic: the same value gives the same JSON in every process (no
  memory addresses, sets sorted), because replay fingerprints inputs;
- redacted: credential-shaped strings and credential-named keys are removed;
- bounded: ``cap_field`` cuts a field whose JSON is larger than the limit,
  with the same visible marker text as the TypeScript SDK.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as _dt
import decimal
import enum
import json
import math
import pathlib
import re
import uuid
from dataclasses import dataclass
from typing import Any, Mapping

from .errors import http_status_of
from .redaction import DEFAULT_REDACTOR, REDACTED, Redactor
from .truncation import cut_text, truncation_marker

Json = Any  # None | bool | int | float | str | list[Json] | dict[str, Json]

DEFAULT_MAX_FIELD_BYTES = 1_000_000


@dataclass(frozen=True)
class Limits:
    max_string_chars: float
    max_items: float
    max_depth: int


# Every field: no per-string cap, only a guard against pathological nesting.
DEFAULT_LIMITS = Limits(max_string_chars=math.inf, max_items=math.inf, max_depth=64)
# Used to re-serialise a field that came out larger than the field cap.
TIGHT_LIMITS = Limits(max_string_chars=2_000, max_items=50, max_depth=8)

_ADDRESS = re.compile(r" at 0x[0-9A-Fa-f]+")
# Longer than any credential pattern's usual match (a PEM key block is cut at the
# kept text's end anyway, since its pattern also matches up to the end of text).
_REDACT_MARGIN = 512


def to_json(value: Any, redactor: Redactor = DEFAULT_REDACTOR, limits: Limits = DEFAULT_LIMITS) -> Json:
    """A JSON-compatible, redacted copy of ``value``."""
    try:
        return _convert(value, redactor, limits, 0, set())
    except Exception as exc:  # noqa: BLE001 - serialisation must never break the user's code
        return f"[unserialisable {type(value).__name__}: {type(exc).__name__}]"


def dumps(value: Json) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _utf8_len(text: str) -> int:
    return len(text.encode("utf-8", errors="surrogatepass"))


def cap_field(value_json: Json, original: Any, redactor: Redactor, max_bytes: int) -> Json:
    """The field as it should be written: unchanged when its JSON fits in
    ``max_bytes`` (UTF-8), otherwise re-serialised from the original value with
    tight limits (strings cut to 2,000 chars, lists to 50 items), and replaced
    by a marker string if even that is too large."""
    if value_json is None or isinstance(value_json, (bool, int, float)):
        return value_json
    if isinstance(value_json, str):
        if len(value_json) * 3 <= max_bytes or _utf8_len(value_json) <= max_bytes:
            return value_json
        return cut_text(value_json, max(0, max_bytes // 3 - 64))
    text = dumps(value_json)
    if len(text) * 3 <= max_bytes or _utf8_len(text) <= max_bytes:
        return value_json
    tight = to_json(original, redactor, TIGHT_LIMITS)
    if _utf8_len(dumps(tight)) <= max_bytes:
        return tight
    return truncation_marker(len(text), "chars of JSON")


def field_json(value: Any, redactor: Redactor = DEFAULT_REDACTOR, max_bytes: int = DEFAULT_MAX_FIELD_BYTES) -> Json:
    """``to_json`` then ``cap_field``: what every input/output/metadata field goes through."""
    return cap_field(to_json(value, redactor), value, redactor, max_bytes)


def _convert(value: Any, r: Redactor, limits: Limits, depth: int, active: set[int]) -> Json:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int) and not isinstance(value, enum.Enum):
        # Past 2^53 a JSON number loses digits in JavaScript readers; a string keeps them.
        return int(value) if abs(value) <= 2**53 else str(int(value))
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        # JSON has no NaN/Infinity; a string keeps the information visible.
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, str):
        if len(value) > limits.max_string_chars + _REDACT_MARGIN:
            # Redact only the part that is kept (plus a margin, so a secret straddling the
            # cut is still recognised): a 1 MB string costs no more than a 2 KB one.
            keep = int(limits.max_string_chars)
            head = r.text(value[: keep + _REDACT_MARGIN])[:keep]
            return head + truncation_marker(len(value) - keep, "chars")
        return cut_text(r.text(value), limits.max_string_chars)
    if depth >= limits.max_depth:
        return "[max depth]"

    if isinstance(value, enum.Enum):
        return _convert(value.value, r, limits, depth + 1, active)
    if isinstance(value, (_dt.datetime, _dt.date, _dt.time)):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (uuid.UUID, pathlib.PurePath)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _convert_bytes(bytes(value), r, limits)
    if isinstance(value, BaseException):
        out: dict[str, Json] = {"type": type(value).__name__, "message": _convert(str(value), r, limits, depth + 1, active)}
        status = http_status_of(value)
        if status is not None:
            out["status"] = status
        return out
    if callable(value) and (isinstance(value, type) or hasattr(value, "__code__") or hasattr(value, "__func__")):
        return f"[function {getattr(value, '__qualname__', None) or getattr(value, '__name__', 'anonymous')}]"

    marker = id(value)
    if marker in active:
        return "[circular]"
    active.add(marker)
    try:
        return _convert_container(value, r, limits, depth, active)
    finally:
        active.discard(marker)


def _convert_bytes(raw: bytes, r: Redactor, limits: Limits) -> Json:
    try:
        return cut_text(r.text(raw.decode("utf-8")), limits.max_string_chars)
    except UnicodeDecodeError:
        shown = raw if math.isinf(limits.max_string_chars) else raw[: int(limits.max_string_chars) // 2]
        text = "base64:" + base64.b64encode(shown).decode("ascii")
        if len(raw) > len(shown):
            text += truncation_marker(len(raw) - len(shown), "bytes")
        return text


def _convert_container(value: Any, r: Redactor, limits: Limits, depth: int, active: set[int]) -> Json:
    if isinstance(value, (dict, Mapping)):
        return _convert_mapping(list(value.items()), r, limits, depth, active)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # namedtuple
        return _convert_mapping(list(zip(value._fields, value)), r, limits, depth, active)
    if isinstance(value, (list, tuple)):
        return _convert_sequence(value, r, limits, depth, active)
    if isinstance(value, (set, frozenset)):
        # Sorted: string hashing is randomised per process, so set order is not stable.
        items = sorted(value, key=lambda item: (type(item).__name__, repr(item)))
        return _convert_sequence(items, r, limits, depth, active)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        pairs = [(f.name, getattr(value, f.name, None)) for f in dataclasses.fields(value)]
        return _convert_mapping(pairs, r, limits, depth, active)
    if inspect_awaitable(value):
        return "[awaitable]"
    if hasattr(value, "dtype") and callable(getattr(value, "tolist", None)):
        # numpy arrays and scalars: tolist() gives plain Python values.
        listed = _try_call(value, "tolist")
        if listed is not None and listed is not value:
            return _convert(listed, r, limits, depth + 1, active)

    # Pydantic v2, pydantic v1 / attrs-style, then common to_dict conventions.
    for method in ("model_dump", "to_dict", "dict", "_asdict"):
        dumped = _try_call(value, method)
        if isinstance(dumped, dict):
            return _convert(dumped, r, limits, depth + 1, active)

    if hasattr(value, "__iter__") and hasattr(value, "__len__") and not isinstance(value, type):
        try:
            return _convert_sequence(list(value), r, limits, depth, active)
        except Exception:  # noqa: BLE001
            pass

    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and attributes and not isinstance(value, type):
        public = [(k, v) for k, v in attributes.items() if not k.startswith("_")]
        return _convert_mapping(public, r, limits, depth, active)

    return cut_text(r.text(_stable_repr(value)), limits.max_string_chars)


def inspect_awaitable(value: Any) -> bool:
    return hasattr(value, "__await__")


def _try_call(value: Any, method: str) -> Any:
    fn = getattr(value, method, None)
    if not callable(fn) or isinstance(value, type):
        return None
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return None


def _stable_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<{type(value).__name__}>"
    return _ADDRESS.sub("", text)


def _key_text(key: Any, r: Redactor, limits: Limits, depth: int, active: set[int]) -> str:
    if isinstance(key, str):
        return key
    return dumps(_convert(key, r, limits, depth + 1, active))


def _convert_mapping(pairs: list[tuple[Any, Any]], r: Redactor, limits: Limits, depth: int, active: set[int]) -> Json:
    out: dict[str, Json] = {}
    for count, (key, item) in enumerate(pairs):
        if count >= limits.max_items:
            out["…"] = truncation_marker(len(pairs) - int(limits.max_items), "keys")
            break
        name = _key_text(key, r, limits, depth, active)
        if r.is_sensitive_key(name) and not _carries_no_secret(item):
            out[name] = REDACTED
        else:
            out[name] = _convert(item, r, limits, depth + 1, active)
    return out


def _carries_no_secret(item: Any) -> bool:
    # Numbers and booleans under a credential-looking name (e.g. "token": 3) hold no secret.
    return item is None or isinstance(item, (bool, int, float)) or (isinstance(item, str) and item == "")


def _convert_sequence(items: Any, r: Redactor, limits: Limits, depth: int, active: set[int]) -> Json:
    out: list[Json] = []
    size = len(items)
    for count, item in enumerate(items):
        if count >= limits.max_items:
            out.append(truncation_marker(size - int(limits.max_items), "items"))
            break
        out.append(_convert(item, r, limits, depth + 1, active))
    return out
