"""Decides, step by step, what a run under a replay plan does (DESIGN.md §4):
replay the recorded outcome, return the fork edit, or run live. It also keeps
the divergence verdict that ends up in the run's provenance.

A line-by-line port of sdk/typescript/src/replay-controller.ts; the plan's
schema is src-shared/replay-plan.ts. Keep the two in step.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping

REPLAY_PLAN_ENV = "TRACEBACK_REPLAY_PLAN"
REPLAY_PLAN_VERSION = 1


class ReplayPlanError(ValueError):
    """The replay plan file is missing, not JSON, or has a bad field."""


@dataclass(frozen=True)
class Decision:
    # "live": run the step (with ``instructions`` for a treatment's instruction edit);
    # "replay": return or raise the recorded outcome in ``entry`` without running it;
    # "override": return ``output`` (the treatment's edited output) without running it.
    kind: str
    entry: Mapping[str, Any] | None = None
    output: Any = None
    instructions: str | None = None
    fork_point: bool = False


LIVE = Decision("live")


class ReplayController:
    def __init__(self, plan: Mapping[str, Any]) -> None:
        self.plan = plan
        self.fork_reached = False
        self.diverged = False
        # Did the pipeline consume the edit's slot: the fork step ran (an output edit), or the
        # fork step (or a step inside it) read its instructions (an instructions edit)?
        self.edit_applied = False
        self._notes: list[str] = []
        self._seen: set[str] = set()
        # Keys of steps replayed whole: their recorded descendants were not expected to run.
        self._replayed_keys: list[str] = []
        self._cursors: dict[tuple[str, str], int] = {}
        fork_entry = self.entry(plan["fork_step_key"])
        self._fork_index = fork_entry["index"] if fork_entry is not None else math.inf

    @property
    def replaying(self) -> bool:
        """Once the fork is reached, or after a strict-mode divergence, everything runs live."""
        return not self.fork_reached and not (self.plan["mode"] == "strict" and self.diverged)

    @property
    def messages(self) -> tuple[str, ...]:
        return tuple(self._notes)

    def note(self, message: str, diverges: bool) -> None:
        """Record a problem; ``diverges`` marks the trial as not having tested the edit."""
        if len(self._notes) < 20:
            self._notes.append(message)
        if diverges and self.plan["mode"] == "strict":
            self.diverged = True

    def entry(self, key: str) -> Mapping[str, Any] | None:
        steps = self.plan["steps"]
        return steps[key] if key in steps else None

    def recorded_model(self, key: str) -> str | None:
        entry = self.entry(key)
        if entry is not None and entry.get("model") is not None:
            return entry["model"]
        return (self.plan.get("recorded_models") or {}).get(key)

    def decide(self, key: str, fingerprint: str) -> Decision:
        self._seen.add(key)
        plan = self.plan
        fork_key = plan["fork_step_key"]
        if key == fork_key and not self.fork_reached:
            entry = self.entry(key)
            self._check_fingerprint(key, entry, fingerprint)
            self._check_skipped()
            self.fork_reached = True
            edit = plan["edit"]
            if edit["kind"] == "output":
                self.edit_applied = True
                if plan["arm"] == "treatment":
                    return Decision("override", entry=entry, output=edit.get("output"))
                if entry is not None:
                    return Decision("replay", entry=entry, fork_point=True)
                self.note(f"the fork step {key} has no recorded outcome for the control arm; it ran live", True)
                return Decision("live", fork_point=True)
            if plan["arm"] == "treatment":
                return Decision("live", instructions=edit["instructions"], fork_point=True)
            return Decision("live", fork_point=True)
        if not self.replaying:
            return LIVE
        if self._is_covered_by_replay(key):
            return LIVE
        entry = self.entry(key)
        if fork_key.startswith(key + "/"):
            # An ancestor of the fork step must run live, or the fork step would never be reached.
            if entry is None:
                self.note(f"step {key} (an ancestor of the fork step) is not in the recording", True)
            else:
                self._check_fingerprint(key, entry, fingerprint)
            return LIVE
        if entry is None or entry["index"] > self._fork_index:
            self.note(f"step {key} ran before the fork point but is not in the recording's prefix", True)
            return LIVE
        if not self._check_fingerprint(key, entry, fingerprint) and plan["mode"] == "strict":
            return LIVE
        self._replayed_keys.append(key)
        return Decision("replay", entry=entry)

    def take(self, scope: str, kind: str) -> Any:
        """The next recorded clock / random / id value for a scope, or None to use a live one."""
        if not self.replaying:
            return None
        values = ((self.plan.get("nondeterminism") or {}).get(scope) or {}).get(kind)
        if not isinstance(values, list):
            return None
        cursor = (kind, scope)
        i = self._cursors.get(cursor, 0)
        if i >= len(values):
            return None
        self._cursors[cursor] = i + 1
        return values[i]

    def instructions_read(self, replay_key: str) -> None:
        """A step asked for its instructions: an instructions edit at it (or around it) reached the code."""
        fork_key = self.plan["fork_step_key"]
        if replay_key == fork_key or replay_key.startswith(fork_key + "/"):
            self.edit_applied = True

    def finish(self) -> None:
        """Called at run end: a fork that was never reached tested nothing."""
        if not self.fork_reached:
            self.note(f"the fork step {self.plan['fork_step_key']} was never reached", True)

    def provenance(self, *, final: bool = False) -> dict[str, Any]:
        """``final``: at run end, when whether the edit was applied is known."""
        plan = self.plan
        p: dict[str, Any] = {
            "source_run_id": plan["source_run_id"],
            "experiment_id": plan["experiment_id"],
            "arm": plan["arm"],
            "fork_step_key": plan["fork_step_key"],
            "trial": plan["trial"],
        }
        if self.diverged:
            p["diverged"] = True
        if self._notes:
            p["divergence"] = "; ".join(self._notes)
        if final:
            p["edit_applied"] = self.edit_applied
        return p

    def _check_fingerprint(self, key: str, entry: Mapping[str, Any] | None, fingerprint: str) -> bool:
        recorded = entry.get("input_fingerprint") if entry is not None else None
        if not recorded or recorded == fingerprint:
            return True
        self.note(f"the input of step {key} differs from the recording", True)
        return False

    def _is_covered_by_replay(self, key: str) -> bool:
        return any(key.startswith(k + "/") for k in self._replayed_keys)

    def _check_skipped(self) -> None:
        """Recorded prefix steps that the live run never arrived at: the path changed."""
        fork_key = self.plan["fork_step_key"]
        for key, entry in self.plan["steps"].items():
            if entry["index"] >= self._fork_index or key in self._seen or self._is_covered_by_replay(key):
                continue
            if fork_key.startswith(key + "/"):
                continue
            self.note(f"recorded step {key} did not run before the fork point", True)
            return


def parse_replay_plan(text: str) -> dict[str, Any]:
    """Parse and check a plan file's text; raises ReplayPlanError naming the first bad field."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ReplayPlanError(f"replay plan is not JSON: {exc}") from None

    def bad(field: str, want: str) -> None:
        raise ReplayPlanError(f'replay plan: "{field}" must be {want}')

    if not isinstance(raw, dict):
        bad("(root)", "an object")
    if raw.get("v") != REPLAY_PLAN_VERSION or isinstance(raw.get("v"), bool):
        bad("v", f"{REPLAY_PLAN_VERSION} (this SDK knows only that version)")
    for field in ("source_run_id", "experiment_id", "fork_step_key", "inbox"):
        if not isinstance(raw.get(field), str) or not raw[field]:
            bad(field, "a non-empty string")
    if raw.get("arm") not in ("treatment", "control"):
        bad("arm", '"treatment" or "control"')
    if not _is_number(raw.get("trial")):
        bad("trial", "a number")
    if raw.get("mode") not in ("strict", "warn"):
        bad("mode", '"strict" or "warn"')
    if raw.get("side_effects") not in ("require-mock", "allow-live"):
        bad("side_effects", '"require-mock" or "allow-live"')
    steps = raw.get("steps")
    if not isinstance(steps, dict):
        bad("steps", "an object keyed by replay key")
    for key, entry in steps.items():
        if not isinstance(entry, dict):
            bad(f"steps.{key}", "an object")
        if not _is_number(entry.get("index")):
            bad(f"steps.{key}.index", "a number")
        if entry.get("status") not in ("ok", "error"):
            bad(f"steps.{key}.status", '"ok" or "error"')
    target = raw.get("target")
    if target is not None:
        if not isinstance(target, dict):
            bad("target", "an object")
        if "run_index" in target and not _is_number(target["run_index"]):
            bad("target.run_index", "a number")
        if "input_fingerprint" in target and not isinstance(target["input_fingerprint"], str):
            bad("target.input_fingerprint", "a string")
    edit = raw.get("edit")
    if not isinstance(edit, dict):
        bad("edit", "an object")
    elif edit.get("kind") == "instructions":
        if not isinstance(edit.get("instructions"), str):
            bad("edit.instructions", "a string")
    elif edit.get("kind") == "output":
        if "output" not in edit:
            bad("edit.output", "present (any JSON value)")
    else:
        bad("edit.kind", '"output" or "instructions"')
    return raw


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
