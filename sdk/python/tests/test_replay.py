"""Replay mode (DESIGN.md §4): a forked run replays the recorded prefix without
executing it, applies the edit at the fork step, runs live after it, and says
when the live run departed from the recording."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import tracebackai as tb
from tracebackai import pipelines
from tests.plan_builder import build_plan
from tests.support import TraceTestCase, of_type, read_records, steps_by_name

calls: Counter = Counter()
world = {"order_suffix": "", "extra_step": False, "model": "model-a"}


@tb.trace(type="retrieval")
def retrieve(query):
    calls["retrieve"] += 1
    return [f"passage about {query}"]


@tb.trace(type="tool")
def lookup_order(order_id):
    calls["lookup_order"] += 1
    if order_id == "missing":
        raise TimeoutError("order service timed out")
    return {"order": order_id, "status": "shipped"}


@tb.trace(type="llm")
def draft(question, passages):
    calls["draft"] += 1
    tb.set_model(world["model"])
    system = tb.instructions("Answer briefly.")
    return f"[{system}] {question} -> {passages[0]}"


@tb.trace(type="tool", side_effect=True)
def send_email(to, body):
    calls["send_email"] += 1
    return {"sent": to}


@tb.trace(type="agent")
def research(question):
    found = retrieve(question)
    found += retrieve(question + " policy")
    return found


@tb.pipeline("support")
def support(question, order_id="A1"):
    request_id = tb.new_id()
    passages = research(f"{question} #{request_id[:4]}")
    try:
        order = lookup_order(order_id + world["order_suffix"])
    except TimeoutError:
        order = None
    if world["extra_step"]:
        retrieve("surprise")
    answer = draft(question, passages)
    send_email("customer@example.com", answer)
    return {"answer": answer, "order": order}


class ReplayTest(TraceTestCase):
    def setUp(self) -> None:
        super().setUp()
        calls.clear()
        world.update(order_suffix="", extra_step=False, model="model-a")

    def record(self, order_id: str = "A1") -> list[dict]:
        support("refund?", order_id=order_id)
        (path,) = self.run_files()
        records = read_records(path)
        path.rename(self.home / "recorded.jsonl")
        calls.clear()
        return records

    def fork(
        self,
        records: list[dict],
        fork_key: str,
        *,
        arm: str = "treatment",
        edit: dict | None = None,
        via_env: bool = True,
        order_id: str = "A1",
        **plan_options,
    ) -> list[dict]:
        """Run the pipeline as the experiment runner would, under a plan; returns the forked run."""
        self.result = self.error = None
        plan = build_plan(
            records,
            fork_key,
            arm=arm,
            edit=edit or {"kind": "output", "output": "EDITED"},
            inbox=str(self.home / "forks"),
            run_id="fork-1",
            **plan_options,
        )
        plan_path = self.home / "plan.json"
        plan_path.write_text(json.dumps(plan))
        if via_env:
            os.environ["TRACEBACK_REPLAY_PLAN"] = str(plan_path)
            pipelines.reset_env_plan()  # a trial is a new process: it counts its runs from 0
            run = support
        else:
            run = tb.pipeline("support", replay_plan=str(plan_path))(support.__wrapped__)
        try:
            self.result = run("refund?", order_id=order_id)
        except Exception as exc:  # noqa: BLE001 - tests inspect what the forked run did
            self.error = exc
        return read_records(self.home / "forks" / "fork-1.jsonl")

    def test_the_prefix_is_replayed_without_running_a_single_step(self):
        tb.register_mock("send_email", lambda to, body: {"sent": "nobody (mock)"})
        records = self.record()
        forked = self.fork(records, "draft#0")

        self.assertEqual(calls["retrieve"], 0)
        self.assertEqual(calls["lookup_order"], 0)
        self.assertEqual(calls["draft"], 0)
        self.assertEqual(calls["send_email"], 0)
        self.assertEqual(self.result["answer"], "EDITED")
        self.assertEqual(self.result["order"], {"order": "A1", "status": "shipped"})

        steps = steps_by_name(forked)
        self.assertTrue(steps["lookup_order"][0]["end"]["replayed"])
        self.assertEqual(steps["draft"][0]["metadata"], {"fork_point": True, "fork_edit": "output"})
        self.assertEqual(steps["draft"][0]["end"]["output"], "EDITED")
        self.assertEqual(steps["send_email"][0]["end"]["output"], {"sent": "nobody (mock)"})
        self.assertEqual(steps["send_email"][0]["end"]["metadata"], {"mocked": True})

        start, end = forked[0], forked[-1]
        self.assertEqual(start["provenance"]["source_run_id"], records[0]["run_id"])
        self.assertEqual(start["provenance"]["arm"], "treatment")
        self.assertEqual(start["tags"], {"experiment": "exp-1", "arm": "treatment", "trial": "0"})
        self.assertNotIn("diverged", end["provenance"])

    def test_a_replayed_agent_step_still_shows_its_recorded_children(self):
        tb.register_mock("send_email", lambda to, body: None)
        forked = self.fork(self.record(), "draft#0")
        keys = [s["replay_key"] for s in of_type(forked, "step-start")]
        self.assertEqual(keys[:3], ["research#0", "research#0/retrieve#0", "research#0/retrieve#1"])
        ends = {r["step_id"]: r for r in of_type(forked, "step-end")}
        children = [s for s in of_type(forked, "step-start") if s["parent_id"] == "s0"]
        self.assertEqual([ends[c["step_id"]]["replayed"] for c in children], [True, True])

    def test_the_control_arm_gets_the_recorded_output_at_the_fork(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record()
        recorded_answer = steps_by_name(records)["draft"][0]["end"]["output"]
        self.fork(records, "draft#0", arm="control")
        self.assertEqual(self.result["answer"], recorded_answer)
        self.assertEqual(calls["draft"], 0)

    def test_an_instructions_edit_runs_the_fork_step_live_with_the_new_instructions(self):
        tb.register_mock("send_email", lambda to, body: None)
        forked = self.fork(self.record(), "draft#0", edit={"kind": "instructions", "instructions": "Cite the policy."})
        self.assertEqual(calls["draft"], 1)
        self.assertTrue(self.result["answer"].startswith("[Cite the policy.]"))
        draft_step = steps_by_name(forked)["draft"][0]
        self.assertEqual(draft_step["metadata"], {"fork_point": True, "fork_edit": "instructions"})
        self.assertEqual(draft_step["end"]["metadata"]["instructions_override"], "Cite the policy.")

    def test_steps_after_the_fork_run_live(self):
        tb.register_mock("send_email", lambda to, body: None)
        self.fork(self.record(), "lookup_order#0")
        self.assertEqual(calls["retrieve"], 0)
        self.assertEqual(calls["lookup_order"], 0)
        self.assertEqual(calls["draft"], 1)

    def test_a_changed_input_before_the_fork_marks_the_trial_diverged(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record()
        world["order_suffix"] = "-v2"
        forked = self.fork(records, "draft#0")
        provenance = forked[-1]["provenance"]
        self.assertTrue(provenance["diverged"])
        self.assertEqual(provenance["divergence"], "the input of step lookup_order#0 differs from the recording")
        # strict mode: from the divergence on, everything runs live.
        self.assertEqual((calls["retrieve"], calls["lookup_order"]), (0, 1))

    def test_a_step_the_recording_never_had_before_the_fork_marks_the_trial_diverged(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record()
        world["extra_step"] = True
        forked = self.fork(records, "draft#0")
        self.assertTrue(forked[-1]["provenance"]["diverged"])
        self.assertIn("retrieve#0 ran before the fork point but is not in the recording", forked[-1]["provenance"]["divergence"])

    def test_a_side_effect_tool_without_a_mock_is_refused_in_a_fork(self):
        forked = self.fork(self.record(), "draft#0")
        self.assertIsInstance(self.error, tb.SideEffectRefusedError)
        self.assertEqual(calls["send_email"], 0)
        end = steps_by_name(forked)["send_email"][0]["end"]
        self.assertEqual(end["error"]["type"], "SideEffectRefusedError")
        self.assertEqual(forked[-1]["status"], "error")
        self.assertTrue(forked[-1]["provenance"]["diverged"])

    def test_a_recorded_failure_is_raised_again_and_caught_by_the_same_except(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record(order_id="missing")
        self.fork(records, "draft#0", order_id="missing")
        self.assertEqual(calls["lookup_order"], 0)
        self.assertIsNone(self.result["order"])
        end = steps_by_name(read_records(self.home / "forks" / "fork-1.jsonl"))["lookup_order"][0]["end"]
        self.assertEqual((end["status"], end["error"]["type"], end["replayed"]), ("error", "TimeoutError", True))

    def test_clock_random_and_ids_replay_so_the_prefix_fingerprints_match(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record()
        recorded_id = records[-1]["nondeterminism"]["id"][0]
        forked = self.fork(records, "draft#0")
        self.assertNotIn("diverged", forked[-1]["provenance"])
        self.assertEqual(forked[-1]["nondeterminism"]["id"], [recorded_id])

    def test_a_live_step_asking_for_another_model_is_refused_unless_allowed(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record()
        world["model"] = "model-b"
        self.fork(records, "lookup_order#0")
        self.assertIsInstance(self.error, tb.ModelChangeRefusedError)

        self.error = None
        calls.clear()
        forked = self.fork(records, "lookup_order#0", allow_model_change=True, via_env=False)
        self.assertIsNone(self.error)
        self.assertEqual(steps_by_name(forked)["draft"][0]["end"]["model"], "model-b")

    def test_only_the_first_pipeline_with_the_plans_name_follows_it(self):
        tb.register_mock("send_email", lambda to, body: None)
        self.fork(self.record(), "draft#0")
        calls.clear()
        support("refund?")
        self.assertEqual(calls["retrieve"], 2)  # the second run is an ordinary live run

    def test_an_unreadable_plan_fails_loudly_instead_of_recording_a_plain_run(self):
        bad = self.home / "bad-plan.json"
        bad.write_text('{"v": 1, "arm": "sideways"}')
        os.environ["TRACEBACK_REPLAY_PLAN"] = str(bad)
        with self.assertRaises(tb.ReplayPlanError) as caught:
            support("refund?")
        self.assertIn("bad-plan.json", str(caught.exception))
        self.assertEqual(calls["retrieve"], 0)

    def test_a_fork_step_never_reached_is_reported(self):
        tb.register_mock("send_email", lambda to, body: None)
        records = self.record()
        plan = build_plan(records, "draft#0", arm="treatment", edit={"kind": "output", "output": "x"}, inbox=str(self.home / "forks"), run_id="fork-1")
        plan["fork_step_key"] = "draft#7"
        Path(self.home / "plan.json").write_text(json.dumps(plan))
        with tb.pipeline("support", replay_plan=str(self.home / "plan.json")):
            pass
        end = read_records(self.home / "forks" / "fork-1.jsonl")[-1]
        self.assertIn("the fork step draft#7 was never reached", end["provenance"]["divergence"])


class InlineStepReplayTest(TraceTestCase):
    def test_run_step_and_with_blocks_can_be_replayed_too(self):
        work = Counter()

        def expensive(handle):
            work["run_step"] += 1
            return {"rows": 3}

        def pipeline_body():
            with tb.pipeline("inline-replay") as run:
                rows = tb.run_step("query", expensive, type="tool", input="select 1")
                with tb.step("summarise", input=rows) as block:
                    if block.replayed:
                        summary = block.recorded_output
                    else:
                        work["with"] += 1
                        summary = f"{rows['rows']} rows"
                        block.set_output(summary)
                run.set_output(tb.run_step("final", lambda h: summary.upper()))

        pipeline_body()
        (path,) = self.run_files()
        records = read_records(path)
        plan = build_plan(records, "final#0", arm="control", edit={"kind": "output", "output": "X"}, inbox=str(self.home / "forks"), run_id="f")
        (self.home / "plan.json").write_text(json.dumps(plan))
        os.environ["TRACEBACK_REPLAY_PLAN"] = str(self.home / "plan.json")
        pipelines.reset_env_plan()  # a trial is a new process: it counts its runs from 0
        work.clear()
        pipeline_body()
        self.assertEqual(work, Counter())
        forked = read_records(self.home / "forks" / "f.jsonl")
        self.assertEqual(forked[-1]["output"], "3 ROWS")
        self.assertEqual([r.get("replayed") for r in of_type(forked, "step-end")], [True, True, True])


class InstructionsTest(TraceTestCase):
    def test_new_instructions_for_an_agent_reach_the_model_calls_inside_it(self):
        prompts = []

        @tb.trace(type="llm")
        def call_model(question):
            prompts.append(tb.instructions("You are terse."))
            return "ok"

        @tb.trace(type="agent")
        def agent(question):
            return call_model(question)

        @tb.pipeline("agent-instructions")
        def run():
            return agent("q")

        run()
        (path,) = self.run_files()
        plan = build_plan(read_records(path), "agent#0", arm="treatment", edit={"kind": "instructions", "instructions": "Cite sources."}, inbox=str(self.home / "forks"), run_id="f")
        tb.pipeline("agent-instructions", replay_plan=plan)(run.__wrapped__)()
        self.assertEqual(prompts, ["You are terse.", "Cite sources."])
