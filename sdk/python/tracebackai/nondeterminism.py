"""Clock, random numbers and ids that a pipeline asks the SDK for.

Each value is recorded in the scope that asked (a step's
``metadata.nondeterminism``, or the run-end record for the pipeline body), and
a forked run gets the recorded values back while it replays the prefix, so the
prefix's inputs fingerprint exactly as they did. Port of
sdk/typescript/src/nondeterminism.ts.
"""

from __future__ import annotations

import random as _random
import time
import uuid
from typing import Any, Callable

from .runtime import current_context

# A step that loops on random() must not grow its record without bound.
_MAX_LOGGED = 1000


def _draw(kind: str, live: Callable[[], Any], expected: type | tuple[type, ...]) -> Any:
    ctx = current_context()
    if ctx is None or ctx.run.ended:
        return live()
    scope = ctx.step.replay_key if ctx.step is not None else ""
    replayed = ctx.run.replay.take(scope, kind) if ctx.run.replay is not None else None
    valid = isinstance(replayed, expected) and not isinstance(replayed, bool)
    value = replayed if valid else live()
    if ctx.step is not None:
        if ctx.step.log is None:
            ctx.step.log = {}
        log = ctx.step.log
    else:
        log = ctx.run.root_log
    values = log.setdefault(kind, [])
    if len(values) < _MAX_LOGGED:
        values.append(value)
    return value


def now() -> float:
    """``time.time()`` (seconds since the epoch), recorded and replayed in a forked run's prefix."""
    return _draw("now", time.time, (int, float))


def random() -> float:
    """``random.random()``, recorded and replayed in a forked run's prefix."""
    return _draw("random", _random.random, (int, float))


def new_id() -> str:
    """A random UUID string, recorded and replayed in a forked run's prefix."""
    return _draw("id", lambda: str(uuid.uuid4()), str)
