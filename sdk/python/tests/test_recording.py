"""Recording a pipeline: nesting, order, replay keys, errors, annotations, concurrency."""

from __future__ import annotations

import asyncio
import contextvars
import os
import sys
import threading
import traceback
import warnings

import tracebackai as tb
from tests.support import TraceTestCase, of_type, read_records, steps_by_name


@tb.trace(type="retrieval")
def retrieve(query, k=2):
    return [f"passage {i} about {query}" for i in range(k)]


@tb.trace(type="llm", name="answer")
def generate(question, passages):
    tb.set_model("model-a")
    tb.set_usage(input_tokens=120, output_tokens=8)
    tb.set_metadata(finish_reason="stop")
    return f"{question}: {len(passages)} passages"


@tb.trace(type="agent")
def research(question):
    found = []
    for word in question.split():
        found.extend(retrieve(word, k=1))
    return generate(question, found)


class RecordingTest(TraceTestCase):
    def test_a_pipeline_writes_its_steps_nested_in_start_order(self):
        @tb.pipeline("rag")
        def rag(question):
            return research(question)

        self.assertEqual(rag("refund window"), "refund window: 2 passages")

        records = self.records()
        run_id = records[0]["run_id"]
        self.assertTrue(all(r["run_id"] == run_id for r in records))
        self.assertEqual(records[0]["type"], "run-start")
        self.assertEqual(records[-1]["type"], "run-end")
        starts = of_type(records, "step-start")
        self.assertEqual([s["name"] for s in starts], ["research", "retrieve", "retrieve", "answer"])
        self.assertEqual([s["index"] for s in starts], [0, 1, 2, 3])
        self.assertEqual([s["step_id"] for s in starts], ["s0", "s1", "s2", "s3"])
        self.assertIsNone(starts[0]["parent_id"])
        self.assertEqual({s["parent_id"] for s in starts[1:]}, {"s0"})
        # The parent's step-end comes after its children's, but its index is smaller.
        order = [(r["type"], r["step_id"]) for r in records if r["type"].startswith("step-")]
        self.assertLess(order.index(("step-end", "s3")), order.index(("step-end", "s0")))

    def test_a_loop_gets_one_replay_key_per_iteration_under_its_parent(self):
        @tb.pipeline("loop")
        def run():
            research("a b c")
            research("d")

        run()
        keys = [s["replay_key"] for s in of_type(self.records(), "step-start")]
        self.assertEqual(
            keys,
            [
                "research#0",
                "research#0/retrieve#0",
                "research#0/retrieve#1",
                "research#0/retrieve#2",
                "research#0/answer#0",
                "research#1",
                "research#1/retrieve#0",
                "research#1/answer#0",
            ],
        )

    def test_a_step_name_with_slash_or_hash_cannot_fake_a_deeper_key(self):
        @tb.trace(name="a/b#1")
        def odd():
            return 1

        with tb.pipeline("names"):
            odd()
        self.assertEqual(of_type(self.records(), "step-start")[0]["replay_key"], "a%2Fb%231#0")

    def test_run_start_names_the_sdk_and_how_to_rerun_the_pipeline(self):
        with tb.pipeline("entry", input={"q": 1}, tags={"team": "search", "n": 3}) as run:
            pass
        start = self.records()[0]
        self.assertEqual(start["v"], "1.0")
        self.assertEqual(start["pipeline"], "entry")
        self.assertEqual(start["input"], {"q": 1})
        self.assertEqual(start["sdk"], {"name": "traceback-python", "version": tb.__version__, "language": "python"})
        self.assertEqual(start["entry"]["command"][0], sys.executable)
        self.assertEqual(start["entry"]["cwd"], os.getcwd())
        self.assertEqual(start["tags"], {"team": "search", "n": "3"})
        self.assertEqual(start["run_id"], run.run_id)
        self.assertTrue(str(run.path).endswith(f"{run.run_id}.jsonl"))

    def test_each_record_is_on_disk_before_the_next_step_runs(self):
        seen = {}

        @tb.trace
        def look_at_the_file():
            seen["types"] = [r["type"] for r in read_records(self.run_files()[0])]

        with tb.pipeline("tail"):
            retrieve("x")
            look_at_the_file()

        self.assertEqual(seen["types"], ["run-start", "step-start", "step-end", "step-start"])

    def test_an_error_is_recorded_and_reraised_unchanged(self):
        class QuotaExceeded(Exception):
            status_code = 429

        error = QuotaExceeded("quota exceeded for project")

        @tb.trace(type="tool")
        def call_api():
            raise error

        @tb.pipeline("errors")
        def run():
            call_api()

        try:
            run()
        except QuotaExceeded as exc:
            caught = exc
        else:
            self.fail("the error was swallowed")
        self.assertIs(caught, error)
        # The traceback still ends at the line that raised, not inside the SDK.
        frames = traceback.extract_tb(caught.__traceback__)
        self.assertEqual(frames[-1].name, "call_api")

        records = self.records()
        end = of_type(records, "step-end")[0]
        self.assertEqual(end["status"], "error")
        self.assertEqual(end["error"]["type"], "QuotaExceeded")
        self.assertEqual(end["error"]["message"], "quota exceeded for project")
        self.assertEqual(end["error"]["status"], 429)
        self.assertIn("raise error", end["error"]["stack"])
        run_end = records[-1]
        self.assertEqual(run_end["status"], "error")
        self.assertEqual(run_end["error"]["type"], "QuotaExceeded")

    def test_an_error_caught_inside_the_pipeline_leaves_the_run_ok(self):
        @tb.trace(type="tool")
        def flaky():
            raise TimeoutError("slow")

        with tb.pipeline("recovered") as run:
            try:
                flaky()
            except TimeoutError:
                run.set_output("fallback")

        records = self.records()
        self.assertEqual(of_type(records, "step-end")[0]["status"], "error")
        self.assertEqual(records[-1]["status"], "ok")
        self.assertEqual(records[-1]["output"], "fallback")

    def test_model_usage_metadata_scores_and_verdict_are_recorded(self):
        @tb.pipeline("annotated")
        def run():
            with tb.step("judge", type="prompt", input="x") as block:
                tb.score("relevance", 0.25, "off topic")
                block.set_output("judged")
            answer = generate("q", ["p"])
            tb.score("overall", 1)
            tb.current_run().score("latency", 0.5)
            tb.verdict(False, detail="wrong number", expected=42)
            return answer

        run()
        records = self.records()
        steps = steps_by_name(records)
        llm_end = steps["answer"][0]["end"]
        self.assertEqual(llm_end["model"], "model-a")
        self.assertEqual(llm_end["usage"], {"input_tokens": 120, "output_tokens": 8})
        self.assertEqual(llm_end["metadata"], {"finish_reason": "stop"})
        self.assertEqual(steps["judge"][0]["end"]["output"], "judged")

        scores = {s["name"]: s for s in of_type(records, "score")}
        self.assertEqual(scores["relevance"]["step_id"], steps["judge"][0]["step_id"])
        self.assertEqual(scores["relevance"]["explanation"], "off topic")
        self.assertNotIn("step_id", scores["overall"])
        self.assertNotIn("step_id", scores["latency"])
        verdict = of_type(records, "verdict")[0]
        self.assertEqual((verdict["pass"], verdict["detail"], verdict["expected"]), (False, "wrong number", 42))

    def test_a_score_that_is_not_a_finite_number_is_ignored_with_a_warning(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with tb.pipeline("bad-score"):
                tb.score("nan", float("nan"))
                tb.score("text", "high")
        self.assertEqual(of_type(self.records(), "score"), [])
        self.assertEqual(len([w for w in caught if issubclass(w.category, tb.TracebackWarning)]), 2)

    def test_generators_record_what_they_yielded(self):
        @tb.trace(type="retrieval")
        def stream_passages(n):
            for i in range(n):
                yield f"p{i}"

        with tb.pipeline("gen"):
            self.assertEqual(list(stream_passages(3)), ["p0", "p1", "p2"])
        end = of_type(self.records(), "step-end")[0]
        self.assertEqual(end["output"], ["p0", "p1", "p2"])

    def test_steps_outside_a_pipeline_run_unrecorded_with_one_warning(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(retrieve("x", k=1), ["passage 0 about x"])
            retrieve("y")
        self.assertEqual(self.run_files(), [])
        self.assertEqual(len([w for w in caught if issubclass(w.category, tb.TracebackWarning)]), 1)

    def test_sys_exit_zero_inside_a_pipeline_is_a_normal_end(self):
        with self.assertRaises(SystemExit):
            with tb.pipeline("script"):
                sys.exit(0)
        self.assertEqual(self.records()[-1]["status"], "ok")

    def test_disabled_recording_runs_the_code_and_writes_nothing(self):
        tb.configure(enabled=False)

        @tb.pipeline("off")
        def run():
            return research("a")

        self.assertEqual(run(), "a: 1 passages")
        self.assertEqual(self.run_files(), [])


class ConcurrencyTest(TraceTestCase):
    def test_concurrent_asyncio_pipelines_never_mix_their_steps(self):
        @tb.trace(type="tool")
        async def lookup(term, delay):
            await asyncio.sleep(delay)
            return term.upper()

        @tb.trace(type="agent")
        async def plan(name, delays):
            return [await lookup(f"{name}-{i}", d) for i, d in enumerate(delays)]

        @tb.pipeline("async-agent")
        async def agent(name, delays):
            return await plan(name, delays)

        async def main():
            # Opposite delays interleave the two pipelines' steps on one event loop.
            return await asyncio.gather(agent("a", [0.02, 0.0, 0.01]), agent("b", [0.0, 0.02, 0.0]))

        results = asyncio.run(main())
        self.assertEqual(results, [["A-0", "A-1", "A-2"], ["B-0", "B-1", "B-2"]])

        runs = self.all_runs()
        self.assertEqual(len(runs), 2)
        for records in runs.values():
            name = records[0]["input"]["name"]
            starts = of_type(records, "step-start")
            self.assertEqual([s["index"] for s in starts], [0, 1, 2, 3])
            self.assertEqual(starts[0]["replay_key"], "plan#0")
            for child in starts[1:]:
                self.assertEqual(child["parent_id"], "s0")
                self.assertTrue(child["input"]["term"].startswith(name + "-"))
            self.assertEqual(records[-1]["output"], [f"{name.upper()}-{i}" for i in range(3)])

    def test_concurrent_children_of_one_step_each_get_their_own_key(self):
        @tb.trace(type="tool")
        async def fetch(i):
            await asyncio.sleep(0.001 * (3 - i))
            return i

        @tb.pipeline("fan-out")
        async def fan_out():
            return await asyncio.gather(*(fetch(i) for i in range(3)))

        asyncio.run(fan_out())
        starts = of_type(self.records(), "step-start")
        self.assertEqual(sorted(s["replay_key"] for s in starts), ["fetch#0", "fetch#1", "fetch#2"])
        self.assertEqual(sorted(s["index"] for s in starts), [0, 1, 2])

    def test_a_thread_that_copies_the_context_records_into_the_same_run(self):
        @tb.pipeline("threads")
        def run():
            ctx = contextvars.copy_context()
            worker = threading.Thread(target=ctx.run, args=(retrieve, "t"))
            worker.start()
            worker.join()

        run()
        starts = of_type(self.records(), "step-start")
        self.assertEqual([s["name"] for s in starts], ["retrieve"])


class OtherStepFormsTest(TraceTestCase):
    def test_run_step_records_a_block_passed_as_a_function(self):
        def add_up(handle):
            handle.set_usage(input_tokens=1)
            return 6

        with tb.pipeline("inline"):
            total = tb.run_step("sum", add_up, type="tool", input=[1, 2, 3])
        self.assertEqual(total, 6)
        step = steps_by_name(self.records())["sum"][0]
        self.assertEqual((step["step_type"], step["input"], step["end"]["output"]), ("tool", [1, 2, 3], 6))
        self.assertEqual(step["end"]["usage"], {"input_tokens": 1})

    def test_async_generators_record_what_they_yielded(self):
        @tb.trace(type="llm")
        async def tokens():
            for word in ("a", "b"):
                await asyncio.sleep(0)
                yield word

        @tb.pipeline("agen")
        async def run():
            return [t async for t in tokens()]

        self.assertEqual(asyncio.run(run()), ["a", "b"])
        self.assertEqual(of_type(self.records(), "step-end")[0]["output"], ["a", "b"])

    def test_a_pipeline_started_inside_a_step_is_a_separate_run(self):
        @tb.trace
        def outer():
            with tb.pipeline("inner"):
                retrieve("nested", k=1)
            return "outer done"

        with tb.pipeline("outer-run"):
            outer()
        runs = {records[0]["pipeline"]: records for records in self.all_runs().values()}
        self.assertEqual([s["name"] for s in of_type(runs["outer-run"], "step-start")], ["outer"])
        inner_steps = of_type(runs["inner"], "step-start")
        self.assertEqual([(s["name"], s["parent_id"]) for s in inner_steps], [("retrieve", None)])
