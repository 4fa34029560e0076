"""The files the Python SDK writes are valid native trace files: checked against
resources/trace-format.schema.json and the field names of sdk/typescript/src/trace-format.ts."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import unittest

import tracebackai as tb
from tests import schema_check
from tests.support import REPO_ROOT, TraceTestCase

SCHEMA_PATH = REPO_ROOT / "resources" / "trace-format.schema.json"
CONTRACT_PATH = REPO_ROOT / "sdk" / "typescript" / "src" / "trace-format.ts"

# Fields the SDKs add beside the contract (unknown fields are kept on import):
# step-start input_fingerprint (replay checks), run-end nondeterminism (recorded
# clock/random/ids of the pipeline body) and run-end provenance (the divergence
# verdict, known only at the end).
EXTRA_FIELDS = {
    "step-start": {"input_fingerprint"},
    "run-end": {"nondeterminism", "provenance"},
}

INTERFACES = {
    "run-start": "RunStartRecord",
    "step-start": "StepStartRecord",
    "step-end": "StepEndRecord",
    "score": "ScoreRecord",
    "verdict": "VerdictRecord",
    "run-end": "RunEndRecord",
}


def contract_fields(source: str, interface: str) -> dict[str, bool]:
    """{field: required} of one `export interface` in trace-format.ts."""
    match = re.search(r"export interface %s \{(.*?)\n\}" % interface, source, re.S)
    if match is None:
        raise AssertionError(f"{interface} not found in trace-format.ts")
    body = re.sub(r"/\*.*?\*/", "", match.group(1), flags=re.S)
    fields = {}
    for name, optional in re.findall(r"^\s+(\w+)(\??):", body, re.M):
        fields[name] = optional != "?"
    return fields


@tb.trace(type="retrieval")
def search(query):
    return [{"id": "doc-7", "text": f"about {query}"}]


@tb.trace(type="llm")
def answer(query, passages):
    tb.set_model("model-x")
    tb.set_usage(input_tokens=3, output_tokens=2, cost_usd=0.0001)
    tb.set_metadata(samples=["a", "b"])
    tb.score("grounded", 0.5, "half")
    tb.now()
    return "answer"


@tb.trace(type="tool")
def fail():
    raise ConnectionError("down")


class TraceFormatTest(TraceTestCase):
    def write_rich_run(self) -> list[dict]:
        @tb.pipeline("format-check", tags={"k": "v"})
        def run(query):
            tb.random()
            answer(query, search(query))
            try:
                fail()
            except ConnectionError:
                pass
            tb.score_run("overall", 1)
            tb.verdict(True, detail="ok", expected={"x": 1})
            return "done"

        run("q")
        with self.assertRaises(ValueError):
            with tb.pipeline("format-error"):
                raise ValueError("bad")
        records = []
        for path in self.run_files():
            records += [json.loads(line) for line in path.read_text().splitlines()]
        self.assertEqual({r["type"] for r in records}, set(INTERFACES))
        return records

    def test_every_record_is_valid_against_the_json_schema(self):
        if not SCHEMA_PATH.exists():
            self.skipTest("resources/trace-format.schema.json is not in this checkout")
        schema = json.loads(SCHEMA_PATH.read_text())
        for record in self.write_rich_run():
            self.assertEqual(schema_check.errors(record, schema), [], record)

    def test_the_schema_check_rejects_a_broken_record(self):
        if not SCHEMA_PATH.exists():
            self.skipTest("resources/trace-format.schema.json is not in this checkout")
        schema = json.loads(SCHEMA_PATH.read_text())
        start = next(r for r in self.write_rich_run() if r["type"] == "step-start")
        self.assertNotEqual(schema_check.errors({k: v for k, v in start.items() if k != "replay_key"}, schema), [])
        self.assertNotEqual(schema_check.errors({**start, "step_type": "chain"}, schema), [])

    def test_record_fields_are_the_contracts_field_names(self):
        source = CONTRACT_PATH.read_text()
        for record in self.write_rich_run():
            fields = contract_fields(source, INTERFACES[record["type"]])
            missing = [f for f, required in fields.items() if required and f not in record]
            self.assertEqual(missing, [], f"{record['type']} lacks required fields")
            unknown = set(record) - set(fields) - EXTRA_FIELDS.get(record["type"], set())
            self.assertEqual(unknown, set(), f"{record['type']} has fields the contract does not name")

    def test_every_line_is_one_compact_json_object(self):
        self.write_rich_run()
        for path in self.run_files():
            raw = path.read_bytes()
            self.assertTrue(raw.endswith(b"\n"))
            for line in raw.decode("utf-8").split("\n")[:-1]:
                self.assertIsInstance(json.loads(line, parse_constant=_reject_constant), dict)


class EngineImportTest(TraceTestCase):
    def test_the_engines_importer_reads_a_python_run_without_errors(self):
        tsx = REPO_ROOT / "node_modules" / ".bin" / "tsx"
        parser = REPO_ROOT / "src-main" / "engine" / "importer" / "parse-lines.ts"
        folder = REPO_ROOT / "src-main" / "engine" / "importer" / "fold-records.ts"
        if not (tsx.exists() and parser.exists() and folder.exists()) or shutil.which("node") is None:
            self.skipTest("node, tsx and the engine's importer are needed")

        @tb.pipeline("engine-check")
        def run(question):
            tb.verdict(answer(question, search(question)) == "answer", detail="matches")
            return "done"

        run("q")
        script = (
            'import { parseTraceText } from "./src-main/engine/ingest/native/parse-lines";'
            'import { foldRecords } from "./src-main/engine/ingest/native/fold-records";'
            'const { records, errors } = parseTraceText(require("fs").readFileSync(0, "utf8"));'
            "const runs = foldRecords(records);"
            "console.log(JSON.stringify({ errors, runs: runs.map((d) => ({ run: d.run, steps: d.steps })) }));"
        )
        done = subprocess.run(
            [str(tsx), "-e", script], input=self.run_files()[0].read_text(), capture_output=True, text=True, cwd=REPO_ROOT, timeout=120
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        folded = json.loads(done.stdout)
        self.assertEqual(folded["errors"], [])
        (detail,) = folded["runs"]
        self.assertEqual((detail["run"]["status"], detail["run"]["verdict"]["pass"]), ("ok", True))
        steps = {s["replay_key"]: s for s in detail["steps"]}
        self.assertEqual(list(steps), ["search#0", "answer#0"])
        self.assertEqual(steps["answer#0"]["model"], "model-x")
        self.assertEqual(steps["answer#0"]["usage"], {"input_tokens": 3, "output_tokens": 2, "cost_usd": 0.0001})
        self.assertEqual(steps["search#0"]["extra"]["input_fingerprint"][:7], "sha256:")


def _reject_constant(name: str) -> None:
    raise AssertionError(f"{name} is not JSON")


if __name__ == "__main__":
    unittest.main()
