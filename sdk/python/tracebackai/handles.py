"""Handles on the current run and step, and the helpers that annotate them.

Outside a pipeline (or a step) every helper is a harmless no-op, so library
code can annotate unconditionally.
"""

from __future__ import annotations

from typing import Any, Mapping

from .runtime import RunState, StepState, current_context, emit_score, emit_verdict

_UNSET: Any = object()


class StepHandle:
    """What a step's code can do to its own record (see ``current_step()``)."""

    def __init__(self, state: StepState | None) -> None:
        self._state = state

    @property
    def step_id(self) -> str | None:
        return self._state.step_id if self._state else None

    @property
    def name(self) -> str:
        return self._state.name if self._state else ""

    @property
    def replay_key(self) -> str | None:
        return self._state.replay_key if self._state else None

    def set_usage(
        self,
        input_tokens: float | None = None,
        output_tokens: float | None = None,
        total_tokens: float | None = None,
        cost_usd: float | None = None,
    ) -> "StepHandle":
        """Merge token usage into this step's record (None leaves a field as it was)."""
        if self._state is not None:
            given = {
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "total_tokens": total_tokens,
                "cost_usd": cost_usd,
            }
            self._state.set_usage({k: v for k, v in given.items() if v is not None})
        return self

    def set_model(self, model: str) -> "StepHandle":
        """The model this step calls; in a forked run a model other than the
        recorded one raises ModelChangeRefusedError (unless the plan allows it)."""
        if self._state is not None:
            self._state.set_model(model)
        return self

    def set_metadata(self, metadata: Mapping[str, Any] | None = None, **values: Any) -> "StepHandle":
        """Merge metadata, e.g. ``set_metadata(samples=5, expected_type="number")``."""
        if self._state is not None:
            self._state.set_metadata({**(metadata or {}), **values})
        return self

    def score(self, name: str, value: float, explanation: str | None = None) -> "StepHandle":
        """A user score for this step, 0 (bad) to 1 (good) by convention."""
        if self._state is not None:
            emit_score(self._state.run, self._state.step_id, name, value, explanation)
        return self

    def instructions(self, default: str) -> str:
        """The instructions this step should use: ``default``, unless a fork
        experiment is testing new instructions for this step (or for an
        enclosing step, e.g. the agent whose model call this is)."""
        return self._state.instructions(default) if self._state is not None else default


class RunHandle:
    """What the pipeline's code can do to its run (see ``current_run()``)."""

    def __init__(self, state: RunState | None) -> None:
        self._state = state

    @property
    def run_id(self) -> str | None:
        return self._state.run_id if self._state else None

    @property
    def path(self) -> str | None:
        """The trace file this run is appended to."""
        return str(self._state.sink.path) if self._state else None

    @property
    def fork(self) -> dict[str, Any] | None:
        """The fork experiment's id, arm and trial when this run is a forked run."""
        replay = self._state.replay if self._state else None
        if replay is None:
            return None
        plan = replay.plan
        return {"experiment_id": plan["experiment_id"], "arm": plan["arm"], "trial": plan["trial"]}

    def set_output(self, value: Any) -> "RunHandle":
        """The run's output (context-manager form; the decorator records the return value)."""
        if self._state is not None:
            self._state.output = value
            self._state.has_output = True
        return self

    def score(self, name: str, value: float, explanation: str | None = None) -> "RunHandle":
        """A score on the whole run."""
        if self._state is not None:
            emit_score(self._state, None, name, value, explanation)
        return self

    def verdict(self, passed: bool, detail: str | None = None, expected: Any = _UNSET) -> "RunHandle":
        """Pass/fail from your oracle (the check that decides if the answer was right)."""
        if self._state is not None:
            emit_verdict(self._state, passed, detail, None if expected is _UNSET else expected, expected is not _UNSET)
        return self


def current_step() -> StepHandle:
    ctx = current_context()
    return StepHandle(ctx.step if ctx is not None else None)


def current_run() -> RunHandle:
    ctx = current_context()
    return RunHandle(ctx.run if ctx is not None else None)


def set_model(model: str) -> None:
    current_step().set_model(model)


def set_usage(
    input_tokens: float | None = None,
    output_tokens: float | None = None,
    total_tokens: float | None = None,
    cost_usd: float | None = None,
) -> None:
    current_step().set_usage(input_tokens, output_tokens, total_tokens, cost_usd)


def set_metadata(metadata: Mapping[str, Any] | None = None, **values: Any) -> None:
    current_step().set_metadata(metadata, **values)


def score(name: str, value: float, explanation: str | None = None) -> None:
    """A user score on the current step, or on the run when called outside any step."""
    ctx = current_context()
    if ctx is None:
        return
    emit_score(ctx.run, ctx.step.step_id if ctx.step is not None else None, name, value, explanation)


def score_run(name: str, value: float, explanation: str | None = None) -> None:
    """A user score on the current run as a whole, even from inside a step."""
    current_run().score(name, value, explanation)


def verdict(passed: bool, detail: str | None = None, expected: Any = _UNSET) -> None:
    """The run's pass/fail verdict (from anywhere inside the pipeline)."""
    current_run().verdict(passed, detail, expected)


def instructions(default: str) -> str:
    """The current step's instructions: ``default`` unless a fork experiment
    edits them. Call it inside the step whose prompt an experiment may change::

        @trace(type="llm")
        def answer(question):
            system = instructions("Answer from the passages only.")
    """
    return current_step().instructions(default)
