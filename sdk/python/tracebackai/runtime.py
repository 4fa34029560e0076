"""The live state of one recorded run and of each step in it.

The current run and step travel in a context variable, so each asyncio task
(and each ``contextvars.Context``) sees its own nesting: two pipelines running
concurrently on one event loop never write into each other's runs.

Record shapes, step ids and replay keys are the TypeScript SDK's
(sdk/typescript/src/run-state.ts); ``index`` is taken when a step *starts*, so
parents always precede their children.
"""

from __future__ import annotations

import contextvars
import math
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Any, Mapping

from .config import Recording
from .inbox import InboxWriter
from .json_safe import Json, cap_field, to_json
from .replay_controller import ReplayController
from .replay_errors import ModelChangeRefusedError

STEP_TYPES = ("retrieval", "prompt", "llm", "tool", "agent", "generic")
_USAGE_FIELDS = ("input_tokens", "output_tokens", "total_tokens", "cost_usd")


def now_ms() -> int:
    # Whole milliseconds, like Date.now() in the TS SDK.
    return time.time_ns() // 1_000_000


class TracebackWarning(UserWarning):
    """The SDK ignored something (a step outside a pipeline, a bad score)."""


def _key_segment(name: str) -> str:
    """Keys are "name#n"; a "/" or "#" inside a name would make them ambiguous,
    so those (and "%") are percent-escaped as encodeURIComponent does."""
    if not any(c in name for c in "%/#"):
        return name
    return name.replace("%", "%25").replace("/", "%2F").replace("#", "%23")


class _ChildCounts:
    """Occurrence numbers per child name; shared by concurrent children."""

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, name: str) -> int:
        with self._lock:
            occurrence = self._counts.get(name, 0)
            self._counts[name] = occurrence + 1
            return occurrence


class RunState:
    def __init__(
        self,
        run_id: str,
        pipeline: str,
        rec: Recording,
        sink: InboxWriter,
        replay: ReplayController | None,
    ) -> None:
        self.run_id = run_id
        self.pipeline = pipeline
        self.rec = rec
        self.sink = sink
        self.replay = replay
        self.root_counts = _ChildCounts()
        self.root_log: dict[str, list[Any]] = {}
        self.output: Any = None
        self.has_output = False
        self.ended = False
        self._next_index = 0
        self._lock = threading.Lock()

    def allocate_index(self) -> int:
        with self._lock:
            index = self._next_index
            self._next_index += 1
            return index

    def emit(self, record: dict[str, Any]) -> None:
        self.sink.write(record)

    def field(self, value: Any) -> Json:
        """Converted, redacted and capped, ready for a record."""
        return self.capped(to_json(value, self.rec.redactor), value)

    def capped(self, value_json: Json, original: Any) -> Json:
        """``value_json`` (already converted from ``original``) capped to the field limit."""
        return cap_field(value_json, original, self.rec.redactor, self.rec.max_field_bytes)


class StepState:
    def __init__(self, run: RunState, parent: "StepState | None", name: str, step_type: str) -> None:
        self.run = run
        self.parent = parent
        self.name = name
        self.type = step_type
        self.index = run.allocate_index()
        self.step_id = f"s{self.index}"
        counts = parent.child_counts if parent is not None else run.root_counts
        own = f"{_key_segment(name)}#{counts.take(name)}"
        self.replay_key = f"{parent.replay_key}/{own}" if parent is not None else own
        self.child_counts = _ChildCounts()
        self.usage: dict[str, Any] | None = None
        self.model: str | None = None
        self.metadata: dict[str, Json] | None = None
        self.instructions_override: str | None = None
        self.log: dict[str, list[Any]] | None = None
        # True while the step's own code executes (replayed steps never run code).
        self.live = False
        self.ended = False

    def set_usage(self, usage: Mapping[str, Any]) -> None:
        merged = dict(self.usage or {})
        for field in _USAGE_FIELDS:
            value = usage.get(field)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                merged[field] = value
        self.usage = merged

    def set_model(self, model: str) -> None:
        model = str(model)
        replay = self.run.replay
        if replay is not None and self.live and not replay.plan.get("allow_model_change"):
            recorded = replay.recorded_model(self.replay_key)
            if recorded is not None and recorded != model:
                replay.note(f"step {self.replay_key} asked for model {model} but was recorded with {recorded}", True)
                raise ModelChangeRefusedError(self.replay_key, recorded, model)
        self.model = model

    def set_metadata(self, metadata: Mapping[str, Any]) -> None:
        converted = to_json(dict(metadata), self.run.rec.redactor)
        if isinstance(converted, dict):
            self.metadata = {**(self.metadata or {}), **converted}

    def instructions(self, default: str) -> str:
        if self.run.replay is not None:
            self.run.replay.instructions_read(self.replay_key)
        # An agent step forked with new instructions passes them to the model calls inside it.
        step: StepState | None = self
        while step is not None:
            if step.instructions_override is not None:
                return step.instructions_override
            step = step.parent
        return default


def emit_score(run: RunState, step_id: str | None, name: str, value: Any, explanation: str | None = None) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        warnings.warn(f'traceback: score "{name}" ignored: value must be a finite number', TracebackWarning, stacklevel=3)
        return False
    record: dict[str, Any] = {"type": "score", "run_id": run.run_id}
    if step_id is not None:
        record["step_id"] = step_id
    record.update(name=str(name), value=value)
    if explanation is not None:
        record["explanation"] = run.rec.redactor.text(str(explanation))
    record["ts"] = now_ms()
    run.emit(record)
    return True


def emit_verdict(run: RunState, passed: bool, detail: str | None, expected: Any, has_expected: bool) -> None:
    record: dict[str, Any] = {"type": "verdict", "run_id": run.run_id, "pass": bool(passed), "ts": now_ms()}
    if detail is not None:
        record["detail"] = run.rec.redactor.text(str(detail))
    if has_expected:
        record["expected"] = run.field(expected)
    run.emit(record)


@dataclass(frozen=True)
class TraceContext:
    run: RunState
    step: StepState | None


_context: contextvars.ContextVar[TraceContext | None] = contextvars.ContextVar("traceback_context", default=None)


# True inside a pipeline whose recording is disabled: its steps run quietly.
_recording_off: contextvars.ContextVar[bool] = contextvars.ContextVar("traceback_recording_off", default=False)


def recording_off() -> bool:
    return _recording_off.get()


def set_recording_off() -> contextvars.Token[bool]:
    return _recording_off.set(True)


def reset_recording_off(token: contextvars.Token[bool]) -> None:
    try:
        _recording_off.reset(token)
    except ValueError:
        pass


def current_context() -> TraceContext | None:
    return _context.get()


def set_context(ctx: TraceContext | None) -> contextvars.Token[TraceContext | None]:
    return _context.set(ctx)


def reset_context(token: contextvars.Token[TraceContext | None]) -> None:
    try:
        _context.reset(token)
    except ValueError:
        # The token belongs to another Context (a generator resumed elsewhere):
        # that context's value is that context's business.
        pass
