"""Known pitfalls before the prompt and the guard before execution (docs/motifs.md sections 4-5):
the same rules as the TypeScript SDK's pitfalls.test.ts."""

from __future__ import annotations

import json

from tests.support import TraceTestCase

from tracebackai import GuardBlocked, guard_check, pipeline, pitfalls, trace, with_pitfalls

MOTIF = {
    "motif_id": "motif-planner-measure",
    "name": 'planner set measure to "metro_population" instead of "population"',
    "requirement": 'When the task says "population", planner\'s measure must be "population".',
    "violation": 'planner set measure to "metro_population".',
    "recommendation": 'Use "population" for measure when the task asks about "population".',
    "task_cue": "population",
    "violation_cue": "metro_population",
    "step_signature": "planner",
    "step_type": "llm",
    "origin": "blame",
}
TASK = "List the cities of Caldera whose population exceeds 1 million."


class PitfallsTest(TraceTestCase):
    def setUp(self) -> None:
        super().setUp()
        # Where `tb motifs export` writes by default: $TRACEBACK_HOME/motifs.json.
        (self.home / "motifs.json").write_text(json.dumps({"format": "traceback-motifs", "version": 1, "exported_at": 1, "motifs": [MOTIF]}))

    def test_a_task_of_the_family_gets_the_pitfall_quoted_from_its_own_text(self):
        found = pitfalls("We track growth. " + TASK, step="planner")
        self.assertEqual([p.task_quote for p in found], [TASK])
        prompt = with_pitfalls("Plan the lookup.", TASK, step="planner#0")
        self.assertTrue(prompt.startswith("KNOWN PITFALLS"))
        self.assertIn('Why it applies: the task says "%s"' % TASK, prompt)
        self.assertTrue(prompt.endswith("\n\nPlan the lookup."))

    def test_unrelated_near_miss_and_other_steps_stay_clean(self):
        self.assertEqual(with_pitfalls("Plan.", "Translate this email into French."), "Plan.")
        self.assertEqual(pitfalls("List the cities of Caldera whose metropolitan area exceeds 1 million people."), [])
        self.assertEqual(pitfalls("Which cities in Caldera have a metro population over 1 million?"), [])
        self.assertEqual(pitfalls(TASK, step="writer"), [])
        self.assertEqual(len(pitfalls("Which cities of Caldera are populous?")), 1)

    def test_a_damaged_motif_file_is_an_error_naming_it(self):
        (self.home / "motifs.json").write_text('{"motifs": 3}')
        with self.assertRaisesRegex(ValueError, "motifs.json: not a Traceback motif file"):
            pitfalls(TASK)

    def test_the_guard_needs_both_quotes(self):
        self.assertEqual(guard_check(TASK, {"measure": "metro_population"})[0].call_quote, "metro_population")
        self.assertEqual(guard_check(TASK, {"measure": "population"}), [])
        self.assertEqual(guard_check("List the cities of Caldera whose metropolitan area exceeds 1 million people.", {"measure": "metro_population"}), [])
        self.assertEqual(guard_check(TASK, {"measure": "metro_population_2020"}), [])

    def test_block_mode_records_a_guard_step_and_stops_the_tool(self):
        ran = []

        @trace(type="tool", name="query_table", guard="block", guard_task=TASK)
        def query_table(plan):
            ran.append(plan)
            return plan["measure"]

        @pipeline("city-desk")
        def run():
            try:
                query_table({"measure": "metro_population"})
                return "not blocked"
            except GuardBlocked as err:
                return str(err)

        out = run()
        self.assertEqual(ran, [])
        self.assertRegex(out, r'^traceback guard blocked step "query_table": planner set measure')
        starts = [r for r in self.records() if r["type"] == "step-start"]
        self.assertEqual([s["replay_key"] for s in starts], ["query_table#0", "query_table#0/guard#0"])

    def test_warn_mode_lets_the_call_run_with_the_task_from_with_pitfalls(self):
        @trace(type="tool", name="query_table", guard="warn")
        def query_table(plan):
            return plan["measure"]

        @pipeline("city-desk")
        def run():
            with_pitfalls("Plan.", TASK)
            return query_table({"measure": "metro_population"})

        self.assertEqual(run(), "metro_population")
        self.assertEqual([r["name"] for r in self.records() if r["type"] == "step-start"], ["query_table", "guard"])

    def test_a_correct_call_leaves_no_guard_step(self):
        @trace(type="tool", name="query_table", guard="block", guard_task=TASK)
        def query_table(plan):
            return plan["measure"]

        @pipeline("city-desk")
        def run():
            return query_table({"measure": "population"})

        run()
        self.assertEqual([r["name"] for r in self.records() if r["type"] == "step-start"], ["query_table"])


class SharedCasesTest(TraceTestCase):
    """The cases the TypeScript SDK is tested on too: both SDKs match alike."""

    def test_both_sdks_agree_on_the_shared_cases(self):
        from tests.support import REPO_ROOT

        shared = json.loads((REPO_ROOT / "test" / "fixtures" / "pitfalls" / "cases.json").read_text())
        for case in shared["cases"]:
            found = pitfalls(case["task"], motifs=[shared["motif"]])
            self.assertEqual([p.task_quote for p in found], [case["quote"]] if case["quote"] else [], case["task"])
            self.assertEqual(bool(guard_check(case["task"], case["call"], motifs=[shared["motif"]])), case["fires"], case["task"])
