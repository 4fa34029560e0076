"""wrap_anthropic / wrap_openai with duck-typed fake clients: no network, no provider SDK."""

from __future__ import annotations

import asyncio
import json
import os
import warnings
from types import SimpleNamespace as NS

import tracebackai as tb
from tests.plan_builder import build_plan
from tests.support import TraceTestCase, of_type, read_records, steps_by_name


def anthropic_message(text="", tool=None, model="claude-x-20250101", stop="end_turn"):
    content = [NS(type="text", text=text)] if text else []
    if tool:
        content.append(NS(type="tool_use", id="toolu_1", name=tool[0], input=tool[1]))
    usage = NS(input_tokens=50, output_tokens=7, cache_read_input_tokens=40, cache_creation_input_tokens=None)
    return NS(id="msg_1", type="message", role="assistant", model=model, content=content, stop_reason=stop, usage=usage)


def anthropic_events(text_parts, model="claude-x-20250101"):
    yield NS(type="message_start", message=NS(id="msg_s", model=model, usage=NS(input_tokens=12, output_tokens=1)))
    yield NS(type="content_block_start", index=0, content_block=NS(type="text", text=""))
    for part in text_parts:
        yield NS(type="content_block_delta", index=0, delta=NS(type="text_delta", text=part))
    yield NS(type="content_block_stop", index=0)
    yield NS(type="message_delta", delta=NS(stop_reason="max_tokens"), usage=NS(output_tokens=len(text_parts)))
    yield NS(type="message_stop")


class OverloadedError(Exception):
    status_code = 529


class FakeMessages:
    def __init__(self, replies):
        self.replies = list(replies)
        self.calls = []

    def create(self, **params):
        self.calls.append(params)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


class AsyncMessages(FakeMessages):
    """Like the real SDK: not an `async def`, but returns a coroutine."""

    def create(self, **params):
        async def respond():
            await asyncio.sleep(0)
            return FakeMessages.create(self, **params)

        return respond()


class FakeAnthropic:
    def __init__(self, replies, messages_class=FakeMessages):
        self.messages = messages_class(replies)
        self.base_url = "https://api.example"


class FakeCompletions(FakeMessages):
    pass


class AsyncCompletions(AsyncMessages):
    pass


class FakeOpenAI:
    def __init__(self, replies, completions_class=FakeCompletions):
        self.chat = NS(completions=completions_class(replies))


def chat_completion(*texts, tool_calls=None, model="gpt-x-0125"):
    choices = [
        NS(index=i, message=NS(role="assistant", content=t, tool_calls=tool_calls if i == 0 else None, refusal=None), finish_reason="stop")
        for i, t in enumerate(texts)
    ]
    return NS(id="chatcmpl-1", model=model, choices=choices, usage=NS(prompt_tokens=30, completion_tokens=4, total_tokens=34))


def llm_steps(records):
    by_name = steps_by_name(records)
    return by_name.get("anthropic.messages.create", []) + by_name.get("chat.completions.create", [])


class AnthropicTest(TraceTestCase):
    def test_each_call_becomes_an_llm_step_with_model_usage_and_stop_reason(self):
        fake = FakeAnthropic([anthropic_message("Refunds within 30 days.")])
        client = tb.wrap_anthropic(fake)
        with tb.pipeline("anthropic"):
            reply = client.messages.create(
                model="claude-x", max_tokens=100, system="Be brief.", messages=[{"role": "user", "content": "Refund window?"}]
            )
        self.assertEqual(reply.content[0].text, "Refunds within 30 days.")
        (step,) = llm_steps(self.records())
        self.assertEqual(step["step_type"], "llm")
        self.assertEqual(step["input"]["messages"], [{"role": "user", "content": "Refund window?"}])
        self.assertEqual(step["input"]["system"], "Be brief.")
        end = step["end"]
        self.assertEqual(end["output"], "Refunds within 30 days.")
        # The requested model, so a dated response model never looks like a model change in a fork.
        self.assertEqual(end["model"], "claude-x")
        self.assertEqual(end["usage"], {"input_tokens": 50, "output_tokens": 7, "total_tokens": 57})
        self.assertEqual(
            end["metadata"],
            {"finish_reason": "end_turn", "response_id": "msg_1", "response_model": "claude-x-20250101", "cache_read_input_tokens": 40},
        )

    def test_tool_calls_are_recorded_beside_the_text(self):
        fake = FakeAnthropic([anthropic_message("Let me check.", tool=("lookup_order", {"id": "A1"}), stop="tool_use")])
        with tb.pipeline("tools"):
            tb.wrap_anthropic(fake).messages.create(model="claude-x", max_tokens=10, messages=[])
        output = llm_steps(self.records())[0]["end"]["output"]
        self.assertEqual(output, {"text": "Let me check.", "tool_calls": [{"id": "toolu_1", "name": "lookup_order", "input": {"id": "A1"}}]})

    def test_an_api_error_is_recorded_with_its_status_and_reraised(self):
        error = OverloadedError("overloaded")
        fake = FakeAnthropic([error])
        with self.assertRaises(OverloadedError) as caught:
            with tb.pipeline("overloaded"):
                tb.wrap_anthropic(fake).messages.create(model="claude-x", max_tokens=10, messages=[])
        self.assertIs(caught.exception, error)
        end = llm_steps(self.records())[0]["end"]
        self.assertEqual((end["status"], end["error"]["type"], end["error"]["status"]), ("error", "OverloadedError", 529))

    def test_an_async_client_is_recorded_when_awaited(self):
        fake = FakeAnthropic([anthropic_message("async answer")], messages_class=AsyncMessages)

        @tb.pipeline("async-anthropic")
        async def run():
            return await tb.wrap_anthropic(fake).messages.create(model="claude-x", max_tokens=10, messages=[])

        reply = asyncio.run(run())
        self.assertEqual(reply.content[0].text, "async answer")
        self.assertEqual(llm_steps(self.records())[0]["end"]["output"], "async answer")

    def test_a_stream_is_recorded_as_the_caller_consumes_it(self):
        fake = FakeAnthropic([anthropic_events(["Thirty ", "days."])])
        with tb.pipeline("stream"):
            stream = tb.wrap_anthropic(fake).messages.create(model="claude-x", max_tokens=10, messages=[], stream=True)
            texts = [e.delta.text for e in stream if e.type == "content_block_delta"]
        self.assertEqual(texts, ["Thirty ", "days."])
        end = llm_steps(self.records())[0]["end"]
        self.assertEqual(end["output"], "Thirty days.")
        self.assertEqual(end["usage"], {"input_tokens": 12, "output_tokens": 2, "total_tokens": 14})
        self.assertEqual(end["metadata"]["finish_reason"], "max_tokens")
        self.assertTrue(end["metadata"]["stream"])

    def test_a_stream_abandoned_early_records_what_arrived(self):
        fake = FakeAnthropic([anthropic_events(["one ", "two ", "three"])])
        with tb.pipeline("stream-early"):
            stream = tb.wrap_anthropic(fake).messages.create(model="claude-x", max_tokens=10, messages=[], stream=True)
            for event in stream:
                if event.type == "content_block_delta":
                    break
            stream.close()
        end = llm_steps(self.records())[0]["end"]
        self.assertEqual(end["output"], "one ")
        self.assertTrue(end["metadata"]["stream_incomplete"])

    def test_the_client_is_not_modified_and_other_attributes_pass_through(self):
        fake = FakeAnthropic([anthropic_message("x")])
        original = fake.messages.create
        wrapped = tb.wrap_anthropic(fake)
        self.assertEqual(wrapped.base_url, "https://api.example")
        self.assertEqual(fake.messages.create, original)
        self.assertIs(wrapped.messages.calls, fake.messages.calls)

    def test_calls_outside_a_pipeline_go_straight_through(self):
        fake = FakeAnthropic([anthropic_message("plain")])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            reply = tb.wrap_anthropic(fake).messages.create(model="claude-x", max_tokens=10, messages=[])
        self.assertEqual([w.category for w in caught], [tb.TracebackWarning])
        self.assertEqual(reply.content[0].text, "plain")
        self.assertEqual(self.run_files(), [])


class OpenAITest(TraceTestCase):
    def test_a_chat_completion_becomes_an_llm_step_with_parsed_tool_calls(self):
        call = NS(id="call_9", type="function", function=NS(name="search", arguments='{"q": "refund"}'))
        fake = FakeOpenAI([chat_completion("", tool_calls=[call])])
        with tb.pipeline("openai"):
            tb.wrap_openai(fake).chat.completions.create(model="gpt-x", messages=[{"role": "user", "content": "hi"}])
        (step,) = llm_steps(self.records())
        end = step["end"]
        self.assertEqual(end["output"], {"text": "", "tool_calls": [{"id": "call_9", "name": "search", "input": {"q": "refund"}}]})
        self.assertEqual(end["usage"], {"input_tokens": 30, "output_tokens": 4, "total_tokens": 34})
        self.assertEqual(end["model"], "gpt-x")
        self.assertEqual(end["metadata"]["finish_reason"], "stop")

    def test_several_samples_are_kept_for_self_consistency(self):
        fake = FakeOpenAI([chat_completion("42", "41", "42")])
        with tb.pipeline("samples"):
            tb.wrap_openai(fake).chat.completions.create(model="gpt-x", messages=[], n=3)
        end = llm_steps(self.records())[0]["end"]
        self.assertEqual(end["output"], "42")
        self.assertEqual(end["metadata"]["samples"], ["42", "41", "42"])

    def test_an_async_stream_with_a_tool_call_is_reassembled(self):
        def chunk(delta, finish=None, usage=None):
            return NS(id="c1", model="gpt-x-0125", choices=[NS(index=0, delta=delta, finish_reason=finish)], usage=usage)

        async def chunks():
            yield chunk(NS(content="Checking", tool_calls=None))
            yield chunk(NS(content=None, tool_calls=[NS(index=0, id="call_1", function=NS(name="look", arguments='{"id":'))]))
            yield chunk(NS(content=None, tool_calls=[NS(index=0, id=None, function=NS(name=None, arguments=' "A1"}'))]))
            yield chunk(NS(content=None, tool_calls=None), finish="tool_calls", usage=NS(prompt_tokens=5, completion_tokens=6, total_tokens=11))

        fake = FakeOpenAI([chunks()], completions_class=AsyncCompletions)

        @tb.pipeline("openai-stream")
        async def run():
            stream = await tb.wrap_openai(fake).chat.completions.create(model="gpt-x", messages=[], stream=True)
            return [c async for c in stream]

        self.assertEqual(len(asyncio.run(run())), 4)
        end = llm_steps(self.records())[0]["end"]
        self.assertEqual(end["output"], {"text": "Checking", "tool_calls": [{"id": "call_1", "name": "look", "input": {"id": "A1"}}]})
        self.assertEqual(end["usage"], {"input_tokens": 5, "output_tokens": 6, "total_tokens": 11})
        self.assertEqual(end["metadata"]["finish_reason"], "tool_calls")


class ProviderReplayTest(TraceTestCase):
    """A wrapped call in a fork's replayed prefix returns a response rebuilt from the recording."""

    def run_twice(self, pipeline_fn, fork_key, edit=None):
        pipeline_fn()
        (recorded_path,) = self.run_files()
        records = read_records(recorded_path)
        recorded_path.unlink()
        plan = build_plan(records, fork_key, arm="treatment", edit=edit or {"kind": "output", "output": "edited"}, inbox=str(self.inbox), run_id="fork")
        plan_path = self.home / "plan.json"
        plan_path.write_text(json.dumps(plan))
        os.environ["TRACEBACK_REPLAY_PLAN"] = str(plan_path)
        result = pipeline_fn()
        return result, read_records(self.inbox / "fork.jsonl")

    def test_a_replayed_anthropic_call_returns_the_recorded_message_without_calling_the_api(self):
        fake = FakeAnthropic([anthropic_message("first"), anthropic_message("second")])
        client = tb.wrap_anthropic(fake)

        @tb.trace(type="tool")
        def finish(text):
            return text.upper()

        @tb.pipeline("replay-anthropic")
        def run():
            first = client.messages.create(model="claude-x", max_tokens=5, messages=[{"role": "user", "content": "1"}])
            return finish(first.content[0].text)

        result, forked = self.run_twice(run, "finish#0")
        self.assertEqual(len(fake.messages.calls), 1)  # only the recording called the API
        self.assertEqual(result, "edited")
        replayed = llm_steps(forked)[0]["end"]
        self.assertTrue(replayed["replayed"])
        self.assertEqual((replayed["output"], replayed["model"]), ("first", "claude-x"))

    def test_a_replayed_stream_yields_the_recorded_text_as_events(self):
        fake = FakeAnthropic([anthropic_events(["a", "b"])])
        client = tb.wrap_anthropic(fake)

        @tb.trace
        def after(text):
            return text

        @tb.pipeline("replay-stream")
        def run():
            stream = client.messages.create(model="claude-x", max_tokens=5, messages=[], stream=True)
            text = "".join(e.delta.text for e in stream if e.type == "content_block_delta" and e.delta.type == "text_delta")
            return after(text)

        result, _ = self.run_twice(run, "after#0")
        self.assertEqual(len(fake.messages.calls), 1)
        self.assertEqual(result, "edited")

    def test_a_replayed_openai_call_reads_like_a_chat_completion(self):
        fake = FakeOpenAI([chat_completion("recorded reply")])
        client = tb.wrap_openai(fake)
        seen = {}

        @tb.trace
        def after(text):
            seen["text"] = text
            return text

        @tb.pipeline("replay-openai")
        def run():
            reply = client.chat.completions.create(model="gpt-x", messages=[])
            return after(reply.choices[0].message.content)

        self.run_twice(run, "after#0", edit={"kind": "instructions", "instructions": "new"})
        self.assertEqual(seen["text"], "recorded reply")
        self.assertEqual(len(fake.chat.completions.calls), 1)

    def test_an_instructions_edit_on_a_wrapped_call_replaces_its_system_prompt(self):
        fake = FakeAnthropic([anthropic_message("old"), anthropic_message("new")])
        client = tb.wrap_anthropic(fake)

        @tb.pipeline("instructions")
        def run():
            return client.messages.create(model="claude-x", max_tokens=5, system="Old rules.", messages=[]).content[0].text

        result, forked = self.run_twice(run, "anthropic.messages.create#0", edit={"kind": "instructions", "instructions": "New rules."})
        self.assertEqual(result, "new")
        self.assertEqual([c["system"] for c in fake.messages.calls], ["Old rules.", "New rules."])
        step = llm_steps(forked)[0]
        self.assertEqual(step["end"]["metadata"]["instructions_override"], "New rules.")
        self.assertEqual(of_type(forked, "run-end")[0]["status"], "ok")
