"""Forking one run of a process that records several (an evaluation loop), an
edit the pipeline never consumed, and the environment a re-run needs."""

from __future__ import annotations

import json
import os
from collections import Counter

import tracebackai as tb
from tracebackai import pipelines
from tests.plan_builder import build_plan
from tests.support import TraceTestCase, of_type, read_records

seen: Counter = Counter()


@tb.trace(type="llm")
def answer(question):
    seen[question] += 1
    return f"answer to {question}"


@tb.trace(type="llm")
def answer_with_persona(question):
    persona = tb.instructions("You are terse.")
    return f"[{persona}] {question}"


@tb.pipeline("eval-item")
def eval_item(question):
    return answer(question)


@tb.pipeline("persona")
def persona_pipeline(question):
    return answer_with_persona(question)


def evaluation_loop():
    for q in ("alpha", "beta", "gamma"):
        eval_item(q)


class ForkTargetTest(TraceTestCase):
    def record_loop(self) -> dict[str, list[dict]]:
        evaluation_loop()
        runs = self.all_runs()
        for path in self.run_files():
            path.unlink()
        seen.clear()
        return runs

    def run_trial(self, records: list[dict], fork_key: str, edit: dict, body) -> list[list[dict]]:
        plan = build_plan(records, fork_key, arm="treatment", edit=edit, inbox=str(self.home / "forks"), run_id="fork-1")
        plan_path = self.home / "plan.json"
        plan_path.write_text(json.dumps(plan))
        os.environ["TRACEBACK_REPLAY_PLAN"] = str(plan_path)
        pipelines.reset_env_plan()  # a trial is a new process: it counts its runs from 0
        body()
        forks = sorted((self.home / "forks").glob("*.jsonl"))
        return [read_records(p) for p in forks] + [read_records(p) for p in self.run_files()]

    def test_a_fork_of_the_second_run_of_an_evaluation_loop_forks_that_run_and_records_no_other(self):
        runs = self.record_loop()
        second = next(r for r in runs.values() if r[0]["input"] == {"question": "beta"})
        self.assertEqual(second[0]["entry"]["run_index"], 1)
        self.assertTrue(second[0]["entry"]["input_fingerprint"].startswith("sha256:"))

        written = self.run_trial(second, "answer#0", {"kind": "output", "output": "EDITED"}, evaluation_loop)

        self.assertEqual(len(written), 1, "the trial process wrote runs besides the forked one")
        forked = written[0]
        self.assertEqual(forked[0]["run_id"], "fork-1")
        self.assertEqual(forked[0]["input"], {"question": "beta"})
        end = of_type(forked, "run-end")[0]
        self.assertNotIn("diverged", end["provenance"])
        self.assertEqual(end["output"], "EDITED")
        self.assertTrue(end["provenance"]["edit_applied"])

    def test_an_instructions_edit_at_a_step_that_never_reads_its_instructions_is_reported_not_applied(self):
        eval_item("alpha")
        (path,) = self.run_files()
        records = read_records(path)
        path.unlink()

        (forked,) = self.run_trial(records, "answer#0", {"kind": "instructions", "instructions": "Be verbose."}, lambda: eval_item("alpha"))

        self.assertIs(of_type(forked, "run-end")[0]["provenance"]["edit_applied"], False)

    def test_an_instructions_edit_at_a_step_that_reads_its_instructions_is_applied(self):
        persona_pipeline("alpha")
        (path,) = self.run_files()
        records = read_records(path)
        path.unlink()

        (forked,) = self.run_trial(records, "answer_with_persona#0", {"kind": "instructions", "instructions": "Be verbose."}, lambda: persona_pipeline("alpha"))

        end = of_type(forked, "run-end")[0]
        self.assertIs(end["provenance"]["edit_applied"], True)
        self.assertEqual(end["output"], "[Be verbose.] alpha")

    def test_the_entry_keeps_the_interpreter_path_and_names_but_never_values_of_needed_secrets(self):
        os.environ["PYTHONPATH"] = "/opt/my-pipeline/lib"
        os.environ["MY_PROVIDER_KEY"] = "sk-live-do-not-record"
        try:
            with tb.pipeline("needs-key", needs_env=["MY_PROVIDER_KEY"]):
                pass
        finally:
            os.environ.pop("PYTHONPATH", None)
            os.environ.pop("MY_PROVIDER_KEY", None)
        (path,) = self.run_files()
        text = path.read_text(encoding="utf-8")
        entry = read_records(path)[0]["entry"]
        self.assertEqual(entry["env"]["PYTHONPATH"], "/opt/my-pipeline/lib")
        self.assertEqual(entry["env"]["MY_PROVIDER_KEY"], "[REDACTED]")
        self.assertNotIn("sk-live-do-not-record", text)
