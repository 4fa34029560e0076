"""Build a replay plan from a recorded run file, as src-shared/replay-plan.ts
``buildReplayPlan`` does from the imported run (same rules: steps up to and
including the fork step's index, no still-running steps, fingerprints from
step-start, side_effect kept, models of every step, nondeterminism logs)."""

from __future__ import annotations

from typing import Any


def fold_steps(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    steps: dict[str, dict[str, Any]] = {}
    for record in records:
        if record["type"] == "step-start":
            steps[record["step_id"]] = {
                "replay_key": record["replay_key"],
                "name": record["name"],
                "type": record["step_type"],
                "index": record["index"],
                "status": "running",
                "metadata": dict(record.get("metadata") or {}),
                "input_fingerprint": record.get("input_fingerprint"),
            }
        elif record["type"] == "step-end":
            step = steps[record["step_id"]]
            step["status"] = record["status"]
            for field in ("output", "error", "model", "usage"):
                if field in record:
                    step[field] = record[field]
            step["metadata"].update(record.get("metadata") or {})
    return sorted(steps.values(), key=lambda s: s["index"])


def build_plan(
    records: list[dict[str, Any]],
    fork_step_key: str,
    *,
    arm: str,
    edit: dict[str, Any],
    inbox: str,
    experiment_id: str = "exp-1",
    trial: int = 0,
    run_id: str | None = None,
    mode: str = "strict",
    side_effects: str = "require-mock",
    allow_model_change: bool = False,
    tags: dict[str, str] | None = None,
) -> dict[str, Any]:
    run_start = next(r for r in records if r["type"] == "run-start")
    run_end = next((r for r in records if r["type"] == "run-end"), {})
    steps = fold_steps(records)
    fork = next(s for s in steps if s["replay_key"] == fork_step_key)
    entries: dict[str, Any] = {}
    for step in steps:
        if step["index"] > fork["index"] or step["status"] == "running":
            continue
        entry: dict[str, Any] = {"name": step["name"], "step_type": step["type"], "index": step["index"], "status": step["status"]}
        if step.get("output") is not None:
            entry["output"] = step["output"]
        for field in ("error", "input_fingerprint", "model", "usage"):
            if step.get(field) is not None:
                entry[field] = step[field]
        if step["metadata"].get("side_effect") is True:
            entry["metadata"] = {"side_effect": True}
        entries[step["replay_key"]] = entry
    nondeterminism: dict[str, Any] = {}
    if run_end.get("nondeterminism"):
        nondeterminism[""] = run_end["nondeterminism"]
    for step in steps:
        log = step["metadata"].get("nondeterminism")
        if log and step["index"] <= fork["index"]:
            nondeterminism[step["replay_key"]] = log
    entry = run_start.get("entry") or {}
    target = {k: entry[k] for k in ("run_index", "input_fingerprint") if k in entry}
    plan: dict[str, Any] = {
        "v": 1,
        "source_run_id": run_start["run_id"],
        "experiment_id": experiment_id,
        "arm": arm,
        "trial": trial,
        "pipeline": run_start["pipeline"],
        "target": target or None,
        "fork_step_key": fork_step_key,
        "steps": entries,
        "edit": edit,
        "mode": mode,
        "side_effects": side_effects,
        "allow_model_change": allow_model_change,
        "recorded_models": {s["replay_key"]: s["model"] for s in steps if s.get("model")} or None,
        "inbox": inbox,
        "run_id": run_id,
        "nondeterminism": nondeterminism or None,
        "tags": tags,
    }
    # JSON.stringify drops undefined fields; the plan file never holds nulls for them.
    return {k: v for k, v in plan.items() if v is not None}
