"""Shared test helpers: an isolated TRACEBACK_HOME per test, and readers for
the files the SDK writes."""

from __future__ import annotations

import json
import os
import tempfile
import unittest
from pathlib import Path
from typing import Any

import tracebackai
from tracebackai import execute_step, inbox, pipelines

REPO_ROOT = Path(__file__).resolve().parents[3]


class TraceTestCase(unittest.TestCase):
    """Each test gets its own Traceback home and a clean SDK state."""

    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="tb-py-")
        self.home = Path(self._tmp.name)
        self._saved_env = {k: os.environ.get(k) for k in ("TRACEBACK_HOME", "TRACEBACK_REPLAY_PLAN")}
        os.environ["TRACEBACK_HOME"] = str(self.home)
        os.environ.pop("TRACEBACK_REPLAY_PLAN", None)
        tracebackai.reset_configuration()
        tracebackai.clear_mocks()
        inbox.reset_write_warning()
        pipelines.reset_env_plan()
        execute_step._warned_outside = False

    def tearDown(self) -> None:
        for key, value in self._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        tracebackai.reset_configuration()
        tracebackai.clear_mocks()
        pipelines.reset_env_plan()
        self._tmp.cleanup()

    @property
    def inbox(self) -> Path:
        return self.home / "inbox"

    def run_files(self) -> list[Path]:
        return sorted(self.inbox.glob("*.jsonl")) if self.inbox.exists() else []

    def records(self, run_id: str | None = None) -> list[dict[str, Any]]:
        """Every record of one run (the only run when run_id is None)."""
        files = self.run_files()
        if run_id is None:
            self.assertEqual(len(files), 1, f"expected exactly one run file, found {[f.name for f in files]}")
            path = files[0]
        else:
            path = self.inbox / f"{run_id}.jsonl"
        return read_records(path)

    def all_runs(self) -> dict[str, list[dict[str, Any]]]:
        return {path.stem: read_records(path) for path in self.run_files()}


def read_records(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n"), f"{path} does not end with a newline"
    return [json.loads(line) for line in text.splitlines()]


def of_type(records: list[dict[str, Any]], record_type: str) -> list[dict[str, Any]]:
    return [r for r in records if r["type"] == record_type]


def steps_by_name(records: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """step-start records merged with their step-end, grouped by name, in start order."""
    ends = {r["step_id"]: r for r in of_type(records, "step-end")}
    grouped: dict[str, list[dict[str, Any]]] = {}
    for start in of_type(records, "step-start"):
        merged = {**start, "end": ends.get(start["step_id"])}
        grouped.setdefault(start["name"], []).append(merged)
    return grouped

