"""The one path every step takes (port of sdk/typescript/src/execute-step.ts).

``begin_step`` creates the step (index and replay key taken at its start),
asks the replay plan what to do, and writes step-start. The caller then either
hands back the replayed outcome (``StepExecution.replayed_result``) or runs
the code live between ``enter``/``exit`` and reports ``succeed``/``fail``.

Rules it keeps:
- an error raised by the step is recorded and re-raised as the same object;
- a failure of the recording itself never changes what the user's code sees.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any, Callable, Mapping

from .errors import error_record
from .fingerprint import fingerprint_json
from .json_safe import Json, to_json
from .mocks import find_mock
from .replay_controller import LIVE, Decision
from .replay_errors import SideEffectRefusedError, replayed_error
from .runtime import (
    StepState,
    TraceContext,
    TracebackWarning,
    current_context,
    now_ms,
    recording_off,
    reset_context,
    set_context,
)

UNSET: Any = object()

_warned_outside = False
_warned_lock = threading.Lock()


def _warn_outside(name: str) -> None:
    global _warned_outside
    with _warned_lock:
        if _warned_outside:
            return
        _warned_outside = True
    warnings.warn(
        f'traceback: step "{name}" ran outside pipeline(); steps outside a pipeline are not recorded',
        TracebackWarning,
        stacklevel=4,
    )


class StepExecution:
    def __init__(self, step: StepState, decision: Decision, *, side_effect: bool, model: str | None) -> None:
        self.step = step
        self.decision = decision
        self._side_effect = side_effect
        self._model = model

    @property
    def replayed(self) -> bool:
        return self.decision.kind in ("replay", "override")

    # ---- replayed path
    def replayed_result(self, revive: Callable[[Json], Any] | None = None) -> Any:
        """Finish the step from the plan without running it: return or raise what was recorded."""
        step, decision = self.step, self.decision
        entry = decision.entry
        if entry is not None:
            if entry.get("model") is not None:
                step.model = str(entry["model"])
            if isinstance(entry.get("usage"), dict):
                step.set_usage(entry["usage"])
        if decision.kind == "replay" and entry is not None and entry.get("status") == "error":
            exc = replayed_error(entry.get("error"))
            end_step(step, error=exc, replayed=True)
            emit_replayed_descendants(step)
            raise exc
        recorded = decision.output if decision.kind == "override" else (entry or {}).get("output")
        end_step(step, output=recorded, replayed=True)
        if decision.kind == "replay":
            emit_replayed_descendants(step)
        if revive is None:
            return recorded
        try:
            return revive(recorded)
        except Exception:  # noqa: BLE001 - a broken revive gets the recorded JSON as is
            return recorded

    # ---- live path
    def live_target(self, fn: Callable[..., Any], *, allow_mock: bool = True) -> Callable[..., Any]:
        """The callable to run: ``fn``, or its registered mock. Raises (after
        recording the refusal) when the replay plan forbids running it.
        ``allow_mock=False`` for code that cannot be swapped (a with-block)."""
        step = self.step
        run = step.run
        replay = run.replay
        target = fn
        if replay is not None:
            recorded = replay.entry(step.replay_key)
            recorded_side_effect = bool(recorded and (recorded.get("metadata") or {}).get("side_effect") is True)
            side_effect = self._side_effect or recorded_side_effect
            if side_effect and replay.plan.get("side_effects") == "require-mock":
                mock = find_mock(step.name, step.replay_key) if allow_mock else None
                if mock is not None:
                    step.set_metadata({"mocked": True})
                    target = mock
                else:
                    replay.note(f"side-effect step {step.replay_key} was refused: no mock registered", True)
                    exc = SideEffectRefusedError(step.name, step.replay_key)
                    end_step(step, error=exc)
                    raise exc
            if self.decision.kind == "live" and self.decision.instructions is not None:
                step.instructions_override = self.decision.instructions
                step.set_metadata({"instructions_override": self.decision.instructions})
        step.live = True
        if self._model is not None:
            try:
                step.set_model(self._model)
            except BaseException as exc:
                end_step(step, error=exc)
                raise
        return target

    def enter(self) -> Any:
        return set_context(TraceContext(self.step.run, self.step))

    def exit(self, token: Any) -> None:
        reset_context(token)

    def succeed(self, output: Any = UNSET) -> None:
        end_step(self.step, output=output)

    def fail(self, exc: BaseException) -> None:
        end_step(self.step, error=exc)


def begin_step(
    name: str,
    step_type: str,
    *,
    input: Any = UNSET,
    metadata: Mapping[str, Any] | None = None,
    side_effect: bool = False,
    model: str | None = None,
) -> StepExecution | None:
    """Start a step in the current run; None when no run is recording (the
    caller then just runs the code)."""
    ctx = current_context()
    if ctx is None or not ctx.run.rec.enabled or ctx.run.ended:
        if ctx is None and not recording_off():
            _warn_outside(name)
        return None
    run = ctx.run
    step = StepState(run, ctx.step, name, step_type)
    input_json = UNSET if input is UNSET else to_json(input, run.rec.redactor)
    fingerprint = fingerprint_json(None if input_json is UNSET else input_json)

    start_metadata: dict[str, Json] | None = None
    if metadata:
        converted = to_json(dict(metadata), run.rec.redactor)
        if isinstance(converted, dict):
            start_metadata = converted
    if side_effect:
        start_metadata = {**(start_metadata or {}), "side_effect": True}

    decision = LIVE
    replay = run.replay
    if replay is not None:
        decision = replay.decide(step.replay_key, fingerprint)
        if decision.kind == "override":
            start_metadata = {**(start_metadata or {}), "fork_point": True, "fork_edit": "output"}
        elif decision.fork_point:
            start_metadata = {**(start_metadata or {}), "fork_point": True, "fork_edit": replay.plan["edit"]["kind"]}

    record: dict[str, Any] = {
        "type": "step-start",
        "run_id": run.run_id,
        "step_id": step.step_id,
        "parent_id": ctx.step.step_id if ctx.step is not None else None,
        "index": step.index,
        "name": name,
        "step_type": step_type,
        "replay_key": step.replay_key,
        "ts": now_ms(),
        "input_fingerprint": fingerprint,
    }
    if input_json is not UNSET:
        record["input"] = run.capped(input_json, input)
    if start_metadata:
        record["metadata"] = start_metadata
    run.emit(record)

    return StepExecution(
        step,
        decision,
        side_effect=bool(start_metadata and start_metadata.get("side_effect") is True),
        model=model,
    )


def end_step(step: StepState, *, output: Any = UNSET, error: BaseException | None = None, replayed: bool = False) -> None:
    """Write the step-end record once; never raises."""
    if step.ended:
        return
    step.ended = True
    run = step.run
    try:
        step.live = False
        if step.log:
            step.metadata = {**(step.metadata or {}), "nondeterminism": to_json(step.log)}
        record: dict[str, Any] = {
            "type": "step-end",
            "run_id": run.run_id,
            "step_id": step.step_id,
            "ts": now_ms(),
            "status": "error" if error is not None else "ok",
        }
        if error is None:
            # None is Python's "no value" (the TS SDK omits undefined the same way).
            if output is not UNSET and output is not None:
                record["output"] = run.field(output)
        else:
            record["error"] = error_record(error, run.rec.redactor)
        if step.model is not None:
            record["model"] = step.model
        if step.usage:
            record["usage"] = step.usage
        if step.metadata:
            record["metadata"] = step.metadata
        if replayed:
            record["replayed"] = True
        run.emit(record)
    except Exception:  # noqa: BLE001 - recording must not break the pipeline
        pass


def emit_replayed_descendants(parent: StepState) -> None:
    """A replayed step's recorded children did not run, but the forked run
    should still show them: they are written as replayed steps under the new parent."""
    replay = parent.run.replay
    if replay is None:
        return
    prefix = parent.replay_key + "/"
    children = sorted(
        ((key, entry) for key, entry in replay.plan["steps"].items() if key.startswith(prefix)),
        key=lambda pair: pair[1]["index"],
    )
    run = parent.run
    by_key: dict[str, StepState] = {parent.replay_key: parent}
    for key, entry in children:
        owner = by_key.get(key[: key.rindex("/")])
        if owner is None:
            continue
        child = StepState(run, owner, str(entry.get("name", "")), str(entry.get("step_type", "generic")))
        by_key[key] = child
        # The occurrence counter produces the recorded key unless names were escaped differently.
        if child.replay_key != key:
            continue
        record: dict[str, Any] = {
            "type": "step-start",
            "run_id": run.run_id,
            "step_id": child.step_id,
            "parent_id": owner.step_id,
            "index": child.index,
            "name": child.name,
            "step_type": child.type,
            "replay_key": key,
            "ts": now_ms(),
        }
        if entry.get("metadata"):
            record["metadata"] = entry["metadata"]
        run.emit(record)
        if entry.get("model") is not None:
            child.model = str(entry["model"])
        if isinstance(entry.get("usage"), dict):
            child.usage = dict(entry["usage"])
        if entry.get("status") == "error":
            end_step(child, error=replayed_error(entry.get("error")), replayed=True)
        else:
            end_step(child, output=entry.get("output", UNSET), replayed=True)
