"""Traceback Python SDK: record LLM pipeline runs as native trace files
(src-shared/trace-format.ts) in ``$TRACEBACK_HOME/inbox``, and replay them
under a fork experiment's plan. Standard library only. See docs/python-sdk.md.

    from tracebackai import pipeline, trace

    @trace(type="retrieval")
    def retrieve(question): ...

    @pipeline("rag")
    def answer(question): ...
"""

from ._version import __version__
from .config import configure, default_home, reset_configuration
from .errors import error_record
from .fingerprint import canonical_json, fingerprint_json
from .handles import (
    RunHandle,
    StepHandle,
    current_run,
    current_step,
    instructions,
    score,
    score_run,
    set_metadata,
    set_model,
    set_usage,
    verdict,
)
from .inbox import TracebackWriteWarning
from .mocks import clear_mocks, register_mock, unregister_mock
from .nondeterminism import new_id, now, random
from .pipelines import SDK_INFO, TRACE_FORMAT_VERSION, default_entry, pipeline
from .providers import wrap_anthropic, wrap_openai, wrap_openai_compatible
from .redaction import REDACTED, RedactionOptions
from .replay_controller import REPLAY_PLAN_ENV, ReplayPlanError
from .replay_errors import ModelChangeRefusedError, ReplayedError, SideEffectRefusedError
from .runtime import STEP_TYPES, TracebackWarning
from .steps import run_step, step, trace
from .pitfalls import GuardBlocked, guard_check, load_motifs, pitfalls, set_guard_task, with_pitfalls

# tracebackai.id() mirrors the TS SDK's id(); not star-exported, it would shadow the builtin.
id = new_id  # noqa: A001

__all__ = [
    "GuardBlocked",
    "guard_check",
    "load_motifs",
    "pitfalls",
    "set_guard_task",
    "with_pitfalls",
    "__version__",
    "REDACTED",
    "REPLAY_PLAN_ENV",
    "SDK_INFO",
    "STEP_TYPES",
    "TRACE_FORMAT_VERSION",
    "ModelChangeRefusedError",
    "RedactionOptions",
    "ReplayPlanError",
    "ReplayedError",
    "RunHandle",
    "SideEffectRefusedError",
    "StepHandle",
    "TracebackWarning",
    "TracebackWriteWarning",
    "canonical_json",
    "clear_mocks",
    "configure",
    "current_run",
    "current_step",
    "default_entry",
    "default_home",
    "error_record",
    "fingerprint_json",
    "instructions",
    "new_id",
    "now",
    "pipeline",
    "random",
    "register_mock",
    "reset_configuration",
    "run_step",
    "score",
    "score_run",
    "set_metadata",
    "set_model",
    "set_usage",
    "step",
    "trace",
    "unregister_mock",
    "verdict",
    "wrap_anthropic",
    "wrap_openai",
    "wrap_openai_compatible",
]
