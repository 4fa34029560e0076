"""Errors the SDK itself raises into user code (only in replay mode).

Same names and messages as sdk/typescript/src/errors.ts.
"""

from __future__ import annotations

import builtins
from typing import Any, Mapping


class SideEffectRefusedError(RuntimeError):
    """A live step marked side_effect in a forked run, with no mock registered."""

    def __init__(self, step_name: str, replay_key: str) -> None:
        super().__init__(
            f'traceback: side-effect step "{step_name}" ({replay_key}) may not run live in a forked run; '
            f'register a mock with register_mock("{step_name}", fn)'
        )
        self.step_name = step_name
        self.replay_key = replay_key


class ModelChangeRefusedError(RuntimeError):
    """A live step in a forked run configured a model other than the recorded one."""

    def __init__(self, replay_key: str, recorded: str, configured: str) -> None:
        super().__init__(
            f'traceback: step {replay_key} was recorded with model "{recorded}" but is configured with '
            f'"{configured}"; the replay plan does not allow a model change'
        )
        self.replay_key = replay_key
        self.recorded = recorded
        self.configured = configured


class ReplayedError(Exception):
    """Raised in place of an error a step raised in the recording.

    ``error_type`` is the recorded type name. When that name is a Python builtin
    exception, the raised object is also an instance of it, so the pipeline's
    own ``except TimeoutError:`` still catches the replayed failure.
    """

    replayed = True

    def __init__(self, message: str, error_type: str = "Error", status: int | None = None, stack: str | None = None) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.status = status
        self.recorded_stack = stack


_replayed_classes: dict[str, type[ReplayedError]] = {}


def replayed_error(recorded: Mapping[str, Any] | None) -> ReplayedError:
    recorded = recorded or {"type": "Error", "message": "error recorded without details"}
    error_type = str(recorded.get("type") or "Error")
    message = str(recorded.get("message") or "")
    status = recorded.get("status") if isinstance(recorded.get("status"), int) else None
    stack = recorded.get("stack") if isinstance(recorded.get("stack"), str) else None
    cls = _replayed_class(error_type)
    try:
        return cls(message, error_type, status, stack)
    except Exception:  # noqa: BLE001 - an odd builtin constructor: fall back to the plain class
        return ReplayedError(message, error_type, status, stack)


def _replayed_class(error_type: str) -> type[ReplayedError]:
    if error_type in _replayed_classes:
        return _replayed_classes[error_type]
    builtin = getattr(builtins, error_type, None)
    cls: type[ReplayedError] = ReplayedError
    if isinstance(builtin, type) and issubclass(builtin, Exception) and builtin is not Exception:
        try:
            cls = type(f"Replayed{error_type}", (ReplayedError, builtin), {"__init__": ReplayedError.__init__})
        except TypeError:  # layout conflict with a C-level exception type
            cls = ReplayedError
    _replayed_classes[error_type] = cls
    return cls
