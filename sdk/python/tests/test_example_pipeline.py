"""The example pipeline records a run, and re-running its recorded entry command
under a replay plan (what the experiment runner does) produces a forked run."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.plan_builder import build_plan
from tests.support import REPO_ROOT, TraceTestCase, of_type, read_records, steps_by_name

EXAMPLE = REPO_ROOT / "sdk" / "python" / "examples" / "rag_pipeline.py"
QUESTION = "How long do I have to return a laptop?"
ELECTRONICS = {"id": "policy-electronics", "text": "Electronics such as laptops and phones can be returned within 14 days of delivery."}


class ExamplePipelineTest(TraceTestCase):
    def run_command(self, command, cwd, extra_env=None):
        env = {**os.environ, "TRACEBACK_HOME": str(self.home), **(extra_env or {})}
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.strip()

    def test_the_example_records_a_failing_run_that_a_fork_at_rerank_fixes(self):
        answer = self.run_command([sys.executable, str(EXAMPLE), QUESTION], cwd=REPO_ROOT)
        self.assertEqual(answer, "You have 30 days.")
        records = self.records()
        start = records[0]
        self.assertEqual(start["pipeline"], "rag-support")
        self.assertEqual(start["entry"]["command"], [sys.executable, str(EXAMPLE), QUESTION])
        self.assertFalse(of_type(records, "verdict")[0]["pass"])

        plan = build_plan(
            records,
            "rerank#0",
            arm="treatment",
            edit={"kind": "output", "output": [ELECTRONICS]},
            inbox=str(self.home / "forks"),
            run_id="fork-rerank",
        )
        plan_path = self.home / "plan.json"
        plan_path.write_text(json.dumps(plan))
        forked_answer = self.run_command(
            start["entry"]["command"], cwd=start["entry"]["cwd"], extra_env={"TRACEBACK_REPLAY_PLAN": str(plan_path)}
        )
        self.assertEqual(forked_answer, "You have 14 days.")

        forked = read_records(self.home / "forks" / "fork-rerank.jsonl")
        steps = steps_by_name(forked)
        self.assertTrue(steps["retrieve"][0]["end"]["replayed"])
        self.assertEqual(steps["rerank"][0]["metadata"], {"fork_point": True, "fork_edit": "output"})
        self.assertNotIn("replayed", steps["answer"][0]["end"])
        self.assertEqual(steps["notify_customer"][0]["end"]["output"], {"queued_for": "customer@example.com", "mocked": True})
        self.assertTrue(of_type(forked, "verdict")[0]["pass"])
        self.assertEqual(forked[0]["provenance"]["source_run_id"], start["run_id"])
        self.assertNotIn("diverged", forked[-1]["provenance"])
