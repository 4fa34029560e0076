"""The pipeline root: one run per call (decorator) or per block (context manager).

It writes run-start, runs the user's code with the run as its context, and
writes run-end with the status and output. Under a replay plan
(TRACEBACK_REPLAY_PLAN) the first matching pipeline becomes a forked run.
Port of sdk/typescript/src/pipeline.ts.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import uuid
from pathlib import Path
from typing import Any, Callable, Mapping

from ._version import __version__
from .config import resolve_recording
from .errors import error_record
from .fingerprint import fingerprint_json
from .handles import RunHandle
from .inbox import InboxWriter
from .json_safe import to_json
from .redaction import REDACTED
from .replay_controller import REPLAY_PLAN_ENV, ReplayController, ReplayPlanError, parse_replay_plan
from .runtime import (
    RunState,
    TraceContext,
    now_ms,
    reset_context,
    reset_recording_off,
    set_context,
    set_recording_off,
)
from .signature_input import bound_arguments, default_name

TRACE_FORMAT_VERSION = "1.0"
SDK_INFO = {"name": "traceback-python", "version": __version__, "language": "python"}

_UNSET: Any = object()
_env_plan_lock = threading.Lock()
_env_plan_taken = False
# pipeline() calls per name in this process: a run's position, which a fork's plan targets.
_runs_started: dict[str, int] = {}

# Variables that decide which code an interpreter loads: a trial without them would import
# other modules (or none) than the recording did. Their values are paths, not secrets.
RUNTIME_ENV_NAMES = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "NODE_PATH", "NODE_OPTIONS")

_SUPPRESS: Any = object()


def reset_env_plan() -> None:
    """Let the next pipeline read $TRACEBACK_REPLAY_PLAN again (tests)."""
    global _env_plan_taken
    with _env_plan_lock:
        _env_plan_taken = False
        _runs_started.clear()


def _next_run_index(name: str) -> int:
    with _env_plan_lock:
        index = _runs_started.get(name, 0)
        _runs_started[name] = index + 1
        return index


def _read_plan(name: str, given: Any) -> tuple[dict[str, Any] | None, bool]:
    """The plan this pipeline might follow, and whether it came from the environment."""
    if given is None:
        return None, False
    if isinstance(given, Mapping):
        return dict(given), False
    from_env = given is _UNSET
    path = os.environ.get(REPLAY_PLAN_ENV) if from_env else os.fspath(given)
    if not path:
        return None, False
    try:
        plan = parse_replay_plan(Path(path).read_text(encoding="utf-8"))
    except (OSError, ReplayPlanError) as exc:
        # A fork trial without its plan would silently record a plain run: fail loudly instead.
        raise ReplayPlanError(f"traceback: cannot use replay plan {path}: {exc}") from None
    return plan, from_env


def _is_target(plan: Mapping[str, Any], name: str, run_index: int, input_fingerprint: str | None) -> bool:
    """Is this pipeline call the run the plan forks? Several runs in one process (an evaluation
    loop) are told apart by their input, else by their recorded position: the first run whose input
    matches the recording's, or the run at the recorded position (whose changed input the replay
    then reports as a divergence). A plan without a target (an older Traceback) takes the first
    run with the plan's pipeline name."""
    if plan.get("pipeline") and plan["pipeline"] != name:
        return False
    target = plan.get("target") or {}
    if not target:
        return True
    if input_fingerprint is not None and target.get("input_fingerprint") == input_fingerprint:
        return True
    return target.get("run_index") == run_index


def _claim_plan(plan: dict[str, Any] | None, from_env: bool, name: str, run_index: int, input_fingerprint: str | None) -> Any:
    """The plan when this call is the forked run; _SUPPRESS for any other run of a trial process
    (it runs, unrecorded, so a fork trial records nothing but the forked run); None otherwise."""
    global _env_plan_taken
    if plan is None:
        return None
    if not from_env:
        return plan if not plan.get("pipeline") or plan["pipeline"] == name else None
    with _env_plan_lock:
        if _env_plan_taken or not _is_target(plan, name, run_index, input_fingerprint):
            return _SUPPRESS
        _env_plan_taken = True
        return plan


def default_entry(needs_env: Any = ()) -> dict[str, Any]:
    """This process's command line, cwd and the environment a re-run needs: how a fork
    experiment re-runs it. ``sys.orig_argv`` keeps ``-m package`` and interpreter flags that
    ``sys.argv`` loses. The interpreter's path variables are recorded with their values;
    ``needs_env`` names (API keys, …) are recorded by name only and a trial takes them from
    the environment of whoever runs the fork."""
    argv = list(getattr(sys, "orig_argv", None) or [])
    args = argv[1:] if argv else list(sys.argv)
    entry: dict[str, Any] = {"command": [sys.executable or "python3", *args]}
    try:
        entry["cwd"] = os.getcwd()
    except OSError:
        pass
    env: dict[str, str] = {}
    for key in RUNTIME_ENV_NAMES:
        value = os.environ.get(key)
        if value:
            env[key] = value
    for key in needs_env or ():
        env[str(key)] = REDACTED
    if env:
        entry["env"] = env
    return entry


def _redact_entry(entry: Mapping[str, Any], run: RunState) -> dict[str, Any]:
    r = run.rec.redactor
    out: dict[str, Any] = {"command": [r.text(str(a)) for a in entry.get("command", [])]}
    if entry.get("cwd"):
        out["cwd"] = str(entry["cwd"])
    env = entry.get("env")
    if isinstance(env, Mapping):
        out["env"] = {str(k): REDACTED if r.is_sensitive_key(str(k)) else r.text(str(v)) for k, v in env.items()}
    return out


def start_run(
    name: str,
    *,
    input: Any = _UNSET,
    tags: Mapping[str, Any] | None = None,
    entry: Mapping[str, Any] | None = _UNSET,
    needs_env: Any = (),
    run_id: str | None = None,
    replay_plan: Any = _UNSET,
    home: str | os.PathLike[str] | None = None,
    inbox: str | os.PathLike[str] | None = None,
    max_field_bytes: int | None = None,
    redact: Any = None,
    enabled: bool | None = None,
) -> RunState | None:
    """Write run-start and return the run's state; None when recording is disabled."""
    run_index = _next_run_index(name)
    candidate, from_env = _read_plan(name, replay_plan)
    rec = resolve_recording(
        home=home,
        inbox=candidate["inbox"] if candidate is not None else inbox,
        max_field_bytes=max_field_bytes,
        redact=redact,
        enabled=enabled,
    )
    if not rec.enabled:
        return None
    input_fingerprint = fingerprint_json(to_json(input, rec.redactor)) if input is not _UNSET else None
    plan = _claim_plan(candidate, from_env, name, run_index, input_fingerprint)
    if plan is _SUPPRESS:
        return None
    if plan is None and candidate is not None:
        # The plan named another pipeline: this run records where it would without one.
        rec = resolve_recording(home=home, inbox=inbox, max_field_bytes=max_field_bytes, redact=redact, enabled=enabled)
    rid = run_id or (plan or {}).get("run_id") or str(uuid.uuid4())
    replay = ReplayController(plan) if plan is not None else None
    run = RunState(rid, name, rec, InboxWriter(rec.inbox, rid), replay)

    record: dict[str, Any] = {
        "type": "run-start",
        "v": TRACE_FORMAT_VERSION,
        "run_id": rid,
        "pipeline": name,
        "ts": now_ms(),
        "sdk": dict(SDK_INFO),
    }
    if input is not _UNSET:
        record["input"] = run.field(input)
    chosen_entry = default_entry(needs_env) if entry is _UNSET else entry
    if chosen_entry:
        record["entry"] = _redact_entry(chosen_entry, run)
        record["entry"]["run_index"] = run_index
        if input_fingerprint is not None:
            record["entry"]["input_fingerprint"] = input_fingerprint
    all_tags = {str(k): str(v) for k, v in {**(tags or {}), **((plan or {}).get("tags") or {})}.items()}
    if plan is not None:
        all_tags.update(experiment=str(plan["experiment_id"]), arm=str(plan["arm"]), trial=_trial_text(plan["trial"]))
    if all_tags:
        record["tags"] = all_tags
    if replay is not None:
        record["provenance"] = replay.provenance()
    run.emit(record)
    return run


def _trial_text(trial: Any) -> str:
    # String(3) in the TS SDK is "3", not "3.0".
    return str(int(trial)) if isinstance(trial, float) and trial.is_integer() else str(trial)


def end_run(run: RunState, *, error: BaseException | None = None) -> None:
    if run.ended:
        return
    try:
        if run.replay is not None:
            run.replay.finish()
        record: dict[str, Any] = {
            "type": "run-end",
            "run_id": run.run_id,
            "ts": now_ms(),
            "status": "error" if error is not None else "ok",
        }
        if error is None:
            if run.has_output and run.output is not None:
                record["output"] = run.field(run.output)
        else:
            record["error"] = error_record(error, run.rec.redactor)
        if run.root_log:
            record["nondeterminism"] = to_json(run.root_log)
        # The run-start carried the provenance as it was known then; divergence is only known now.
        if run.replay is not None:
            record["provenance"] = run.replay.provenance(final=True)
        run.emit(record)
    except Exception:  # noqa: BLE001 - recording must not break the pipeline
        pass
    finally:
        run.ended = True
        run.sink.close()


def _ends_ok(exc: BaseException | None) -> bool:
    # sys.exit(0) inside a pipeline is a normal way for a script to finish.
    return exc is None or (isinstance(exc, SystemExit) and exc.code in (None, 0))


class _PipelineScope:
    def __init__(self, name: str | None, options: dict[str, Any]) -> None:
        self._name = name
        self._options = options
        self._active: list[tuple[RunState | None, tuple[Any, ...]]] = []

    # ---- context manager: one run per block
    def __enter__(self) -> RunHandle:
        run = start_run(self._name or "pipeline", **self._options)
        # A pipeline inside a step starts a separate run, not a child of that step.
        if run is not None:
            tokens: tuple[Any, ...] = (set_context(TraceContext(run, None)),)
        else:
            tokens = (set_context(None), set_recording_off())
        self._active.append((run, tokens))
        return RunHandle(run)

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        run, tokens = self._active.pop()
        if run is None:
            reset_recording_off(tokens[1])
            reset_context(tokens[0])
            return False
        reset_context(tokens[0])
        end_run(run, error=None if _ends_ok(exc) else exc)
        return False

    async def __aenter__(self) -> RunHandle:
        return self.__enter__()

    async def __aexit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> bool:
        return self.__exit__(exc_type, exc, tb)

    # ---- decorator: one run per call; input = the call's arguments, output = its result
    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        name = self._name or default_name(func, "pipeline")
        options = self._options

        def scope_for(args: tuple[Any, ...], kwargs: dict[str, Any]) -> _PipelineScope:
            if "input" in options:
                return _PipelineScope(name, options)
            return _PipelineScope(name, {**options, "input": bound_arguments(func, args, kwargs)})

        def keep_output(run: RunHandle, result: Any) -> None:
            state = run._state
            if state is not None and not state.has_output:
                run.set_output(result)

        if inspect.iscoroutinefunction(func):

            @functools.wraps(func)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                async with scope_for(args, kwargs) as run:
                    result = await func(*args, **kwargs)
                    keep_output(run, result)
                    return result

            return async_wrapper

        @functools.wraps(func)
        def sync_wrapper(*args: Any, **kwargs: Any) -> Any:
            with scope_for(args, kwargs) as run:
                result = func(*args, **kwargs)
                keep_output(run, result)
                return result

        return sync_wrapper


def pipeline(
    name: str | Callable[..., Any] | None = None,
    *,
    input: Any = _UNSET,
    tags: Mapping[str, Any] | None = None,
    entry: Mapping[str, Any] | None = _UNSET,
    needs_env: Any = (),
    run_id: str | None = None,
    replay_plan: Any = _UNSET,
    home: str | os.PathLike[str] | None = None,
    inbox: str | os.PathLike[str] | None = None,
    max_field_bytes: int | None = None,
    redact: Any = None,
    enabled: bool | None = None,
) -> Any:
    """The root of a recorded run.

    Decorator (``@pipeline`` or ``@pipeline("rag", tags={...})``): each call is
    one run; its input is the call's arguments, its output the return value.
    Context manager (``with pipeline("rag", input=q) as run:``, also
    ``async with``): the block is one run; call ``run.set_output(...)``.
    Either way ``run.verdict(...)`` / ``run.score(...)`` judge it, and an error
    is recorded on run-end and re-raised unchanged.

    entry: how to re-run this pipeline for fork experiments
        (``{"command": [...], "cwd": ...}``); default: this process's command
        line, cwd and interpreter path variables (PYTHONPATH, VIRTUAL_ENV, …);
        None: not re-runnable.
    needs_env: names of environment variables a re-run needs (e.g.
        ``["OPENAI_API_KEY"]``): recorded by name only, never the value; a fork
        trial takes them from the environment of whoever runs the fork.
    replay_plan: a plan (dict or path) to run this pipeline as a fork; default:
        the file named by $TRACEBACK_REPLAY_PLAN, for the run the plan targets
        (its pipeline name, position among this process's runs and input);
        every other run in a trial process runs unrecorded. None: ignore the
        environment.
    home / inbox / max_field_bytes / redact / enabled: per-run recording
        settings (see ``configure``).
    """
    options: dict[str, Any] = {
        "tags": tags,
        "entry": entry,
        "needs_env": needs_env,
        "run_id": run_id,
        "replay_plan": replay_plan,
        "home": home,
        "inbox": inbox,
        "max_field_bytes": max_field_bytes,
        "redact": redact,
        "enabled": enabled,
    }
    if input is not _UNSET:
        options["input"] = input
    if callable(name):
        return _PipelineScope(None, options)(name)
    return _PipelineScope(name, options)
