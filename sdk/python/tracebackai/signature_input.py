"""What a decorated function's call is recorded as: its bound arguments by name."""

from __future__ import annotations

import inspect
from typing import Any, Callable


def bound_arguments(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """{"param": value, ...}; ``self``/``cls`` are dropped (they are not the step's input).

    Falls back to {"args": [...], "kwargs": {...}} when the call does not bind
    (the function will raise TypeError itself, and that error gets recorded).
    """
    try:
        signature = inspect.signature(fn)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return {"args": list(args), "kwargs": dict(kwargs)}
    out: dict[str, Any] = {}
    parameters = list(signature.parameters.values())
    for position, (name, value) in enumerate(bound.arguments.items()):
        if position == 0 and name in ("self", "cls") and parameters and parameters[0].name == name:
            continue
        kind = signature.parameters[name].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        else:
            out[name] = value
    return out


def default_name(fn: Callable[..., Any], fallback: str) -> str:
    """``Class.method`` or ``function``; the ``outer.<locals>.`` prefix of a nested
    function is dropped, since it is noise in step names and replay keys."""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or fallback
    return name.rsplit("<locals>.", 1)[-1]
