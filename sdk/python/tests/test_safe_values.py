"""What may reach the disk: write failures, huge fields, secrets, odd Python values."""

from __future__ import annotations

import collections
import dataclasses
import datetime as dt
import enum
import json
import math
import os
import warnings
from pathlib import Path
from unittest import mock

import tracebackai as tb
from tests.support import TraceTestCase, of_type
from tracebackai.json_safe import TIGHT_LIMITS, field_json, to_json
from tracebackai.redaction import RedactionOptions


@tb.trace(type="tool")
def echo(value):
    return value


class WriteFailureTest(TraceTestCase):
    def test_an_unwritable_home_warns_once_and_the_pipeline_still_runs(self):
        blocker = self.home / "not-a-dir"
        blocker.write_text("a file where the home folder should be")
        os.environ["TRACEBACK_HOME"] = str(blocker)

        @tb.pipeline("unwritable")
        def run(x):
            return echo(x) * 2

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(run(2), 4)
            self.assertEqual(run(3), 6)
        write_warnings = [w for w in caught if issubclass(w.category, tb.TracebackWriteWarning)]
        self.assertEqual(len(write_warnings), 1)
        self.assertIn("not-a-dir", str(write_warnings[0].message))

    def test_a_disk_that_fills_up_mid_run_warns_once_and_the_run_goes_on(self):
        real_write = os.write
        calls = {"n": 0}

        def failing_write(fd, data):
            calls["n"] += 1
            if calls["n"] >= 3:
                raise OSError(28, "No space left on device")
            return real_write(fd, data)

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with mock.patch("tracebackai.inbox.os.write", failing_write):
                with tb.pipeline("disk-full") as run:
                    results = [echo(i) for i in range(5)]
                    run.set_output(results)
        self.assertEqual(results, [0, 1, 2, 3, 4])
        self.assertEqual(len([w for w in caught if issubclass(w.category, tb.TracebackWriteWarning)]), 1)
        # The two records written before the failure are whole lines.
        self.assertEqual([r["type"] for r in self.records()], ["run-start", "step-start"])


class TruncationTest(TraceTestCase):
    def test_a_huge_output_is_cut_with_a_visible_marker(self):
        tb.configure(max_field_bytes=10_000)
        with tb.pipeline("huge"):
            echo("x" * 50_000)
        end = of_type(self.records(), "step-end")[0]
        self.assertLess(len(end["output"]), 10_000)
        self.assertTrue(end["output"].startswith("xxxx"))
        self.assertRegex(end["output"], r"…\[truncated \d+ chars\]$")

    def test_a_huge_structure_keeps_its_shape_with_tight_limits(self):
        passages = [{"id": i, "text": "y" * 5_000} for i in range(200)]
        capped = field_json(passages, max_bytes=300_000)
        self.assertEqual(len(capped), TIGHT_LIMITS.max_items + 1)
        self.assertEqual(capped[-1], "…[truncated 150 items]")
        self.assertTrue(capped[0]["text"].endswith("…[truncated 3000 chars]"))
        self.assertLessEqual(len(json.dumps(capped)), 300_000)

    def test_a_key_cut_in_half_by_truncation_does_not_leak_its_first_half(self):
        key = "sk-ant-api03-" + "Q7" * 20
        long_text = "x" * 1_990 + key + "y" * 5_000
        cut = to_json(long_text, limits=TIGHT_LIMITS)
        self.assertNotIn("sk-ant-api03-Q7", cut)
        self.assertTrue(cut.endswith("…[truncated %d chars]" % (len(long_text) - 2_000)))

    def test_a_field_too_large_even_when_tightened_becomes_a_marker(self):
        nested = {"k%d" % i: {"v": "z" * 2_000} for i in range(40)}
        capped = field_json(nested, max_bytes=5_000)
        self.assertIsInstance(capped, str)
        self.assertRegex(capped, r"^…\[truncated \d+ chars of JSON\]$")


class RedactionTest(TraceTestCase):
    def test_api_keys_never_reach_the_trace_file(self):
        anthropic_key = "sk-ant-api03-" + "A1b2C3d4" * 6
        openai_key = "sk-proj-" + "Z9y8X7w6" * 5

        @tb.trace(type="llm")
        def call(prompt, api_key, headers):
            raise RuntimeError(f"401 for key {openai_key}")

        with tb.pipeline("secrets", input={"config": {"password": "hunter2", "max_tokens": 10}}):
            try:
                call(f"use {anthropic_key} please", api_key="plain-secret-value", headers={"Authorization": "Bearer abcdefghijklmnopqrstuvwxyz"})
            except RuntimeError:
                pass
            echo("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345")

        text = self.run_files()[0].read_text()
        for secret in (anthropic_key, openai_key, "hunter2", "plain-secret-value", "abcdefghijklmnopqrstuvwxyz"):
            self.assertNotIn(secret, text)
        records = self.records()
        self.assertEqual(records[0]["input"]["config"], {"password": "[REDACTED]", "max_tokens": 10})
        step_input = of_type(records, "step-start")[0]["input"]
        self.assertEqual(step_input["prompt"], "use [REDACTED] please")
        self.assertEqual(step_input["api_key"], "[REDACTED]")
        self.assertEqual(of_type(records, "step-end")[1]["output"], "Authorization: Bearer [REDACTED]")

    def test_words_that_merely_look_like_keys_are_kept(self):
        value = {"max_tokens": 5, "input_tokens": 7, "token": 3, "text": "scikit-learn uses sk-learn"}
        self.assertEqual(to_json(value), value)

    def test_extra_patterns_and_key_names_can_be_added(self):
        tb.configure(redact=RedactionOptions(extra_patterns=(r"ACME-\d{6}",), extra_keys=("customer_ssn",)))
        with tb.pipeline("custom"):
            echo({"note": "ticket ACME-123456", "customer_ssn": "123-45-6789"})
        output = of_type(self.records(), "step-end")[0]["output"]
        self.assertEqual(output, {"note": "ticket [REDACTED]", "customer_ssn": "[REDACTED]"})


class OddValuesTest(TraceTestCase):
    def test_values_json_cannot_hold_are_written_safely_and_deterministically(self):
        class Colour(enum.Enum):
            RED = "red"

        @dataclasses.dataclass
        class Passage:
            id: int
            text: str

        class Opaque:
            __slots__ = ()

        loop: dict = {"name": "loop"}
        loop["self"] = loop
        value = {
            "set": {"b", "a", "c"},
            "bytes": b"hello",
            "binary": b"\xff\x00",
            "when": dt.datetime(2025, 1, 2, 3, 4, 5),
            "nan": math.nan,
            "inf": -math.inf,
            "enum": Colour.RED,
            "passage": Passage(1, "text"),
            "path": Path("/tmp/x"),
            "opaque": Opaque(),
            "loop": loop,
            "tuple": (1, 2),
            "big": 2**64,
            "mapping": collections.UserDict(a=1),
            1: "int key",
        }
        converted = to_json(value)
        json.dumps(converted, allow_nan=False)  # valid strict JSON
        self.assertEqual(converted["set"], ["a", "b", "c"])
        self.assertEqual(converted["bytes"], "hello")
        self.assertEqual(converted["binary"], "base64:/wA=")
        self.assertEqual(converted["when"], "2025-01-02T03:04:05")
        self.assertEqual((converted["nan"], converted["inf"]), ("NaN", "-Infinity"))
        self.assertEqual(converted["enum"], "red")
        self.assertEqual(converted["passage"], {"id": 1, "text": "text"})
        self.assertEqual(converted["path"], "/tmp/x")
        self.assertNotIn("0x", converted["opaque"])
        self.assertEqual(converted["loop"], {"name": "loop", "self": "[circular]"})
        self.assertEqual(converted["tuple"], [1, 2])
        self.assertEqual(converted["big"], str(2**64))
        self.assertEqual(converted["mapping"], {"a": 1})
        self.assertEqual(converted["1"], "int key")

    def test_a_value_whose_conversion_explodes_still_gives_a_record(self):
        class Hostile:
            def __iter__(self):
                raise RuntimeError("no")

            def __len__(self):
                raise RuntimeError("no")

            def __repr__(self):
                raise RuntimeError("no")

        with tb.pipeline("hostile"):
            result = echo(Hostile())
        self.assertIsInstance(result, Hostile)
        self.assertIsInstance(of_type(self.records(), "step-end")[0]["output"], str)
