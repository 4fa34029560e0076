"""Mocks for side-effect tools, used only when a fork experiment runs them live."""

from __future__ import annotations

import threading
from typing import Any, Callable

_mocks: dict[str, Callable[..., Any]] = {}
_lock = threading.Lock()


def register_mock(name: str, fn: Callable[..., Any]) -> None:
    """Run ``fn`` (same arguments) instead of the side-effect step named ``name``
    — or whose replay key is ``name`` — whenever a replay plan would run it live.
    Outside replay mode mocks are never used."""
    if not callable(fn):
        raise TypeError("register_mock needs a callable")
    with _lock:
        _mocks[str(name)] = fn


def unregister_mock(name: str) -> None:
    with _lock:
        _mocks.pop(str(name), None)


def clear_mocks() -> None:
    with _lock:
        _mocks.clear()


def find_mock(name: str, replay_key: str) -> Callable[..., Any] | None:
    with _lock:
        return _mocks.get(replay_key) or _mocks.get(name)
