"""How an exception is written into a trace record (TraceError)."""

from __future__ import annotations

import traceback as _stdlib_traceback
from typing import Any

from .redaction import DEFAULT_REDACTOR, Redactor
from .truncation import cut_text, truncation_marker

MAX_MESSAGE_CHARS = 8_000
MAX_STACK_CHARS = 16_000


def error_record(exc: BaseException, redactor: Redactor = DEFAULT_REDACTOR) -> dict[str, Any]:
    try:
        message = str(exc)
    except Exception:  # noqa: BLE001 - a broken __str__ must not hide the failure
        message = f"<unprintable {type(exc).__name__}>"
    # A replayed failure keeps the type name it was recorded with.
    recorded_type = getattr(exc, "error_type", None) if getattr(exc, "replayed", False) is True else None
    record: dict[str, Any] = {
        "type": recorded_type if isinstance(recorded_type, str) else type(exc).__name__,
        "message": cut_text(redactor.text(message), MAX_MESSAGE_CHARS),
    }
    try:
        stack = "".join(_stdlib_traceback.format_exception(type(exc), exc, exc.__traceback__))
        # Keep the end of the stack: the frames nearest the failure matter most.
        if len(stack) > MAX_STACK_CHARS:
            cut = len(stack) - MAX_STACK_CHARS
            stack = truncation_marker(cut, "chars") + stack[cut:]
        record["stack"] = redactor.text(stack)
    except Exception:  # noqa: BLE001
        pass
    status = http_status_of(exc)
    if status is not None:
        record["status"] = status
    return record


def http_status_of(exc: BaseException) -> int | None:
    """Provider SDKs expose the HTTP status as ``status_code`` (anthropic, openai, httpx) or ``status``."""
    candidates = [getattr(exc, name, None) for name in ("status_code", "status", "http_status")]
    candidates.append(getattr(getattr(exc, "response", None), "status_code", None))
    for value in candidates:
        if isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= 599:
            return value
    return None
