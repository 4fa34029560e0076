"""Input fingerprints are the TS SDK's: canonical JSON spelled as JavaScript spells it."""

from __future__ import annotations

import json
import shutil
import subprocess
import unittest

from tests.support import REPO_ROOT
from tracebackai.fingerprint import canonical_json, fingerprint_json, js_number

# Values where a naive Python canonical form differs from JavaScript's.
TRICKY_JSON = r"""[
  {"b": 1, "a": [1.5, "x"], "A": null},
  [1.0, -0.0, 0.1, 1e21, 1e20, 1.5e-7, 0.000001, 123456789012345680000, 9007199254740993, -3.25, 5e-324],
  {"\ud83d\ude00": "astral key", "\uffff": "last BMP key", "é": 1, "z": 2},
  "control \u0001 tab \t newline \n quote \" backslash \\ line-separator \u2028 del \u007f",
  "lone \ud800 surrogate",
  {"nested": {"z": {}, "a": []}},
  true, false, null, ""
]"""


class CanonicalJsonTest(unittest.TestCase):
    def test_keys_are_sorted_and_whitespace_removed(self):
        self.assertEqual(canonical_json({"b": 1, "a": {"d": [1, 2], "c": None}}), '{"a":{"c":null,"d":[1,2]},"b":1}')

    def test_numbers_are_spelled_as_javascript_spells_them(self):
        cases = {1.0: "1", 1e21: "1e+21", 1e20: "100000000000000000000", 1.5e-7: "1.5e-7", 0.000001: "0.000001", -0.0: "0", 2**60: "1152921504606847000"}
        for number, text in cases.items():
            self.assertEqual(js_number(number), text, number)

    def test_an_absent_input_fingerprints_as_null(self):
        self.assertEqual(fingerprint_json(None), "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b")

    def test_the_same_value_gives_the_same_fingerprint_as_the_typescript_sdk(self):
        tsx = REPO_ROOT / "node_modules" / ".bin" / "tsx"
        if not tsx.exists() or shutil.which("node") is None:
            self.skipTest("node and tsx are needed to run the TS SDK")
        script = (
            'import { canonicalJson, fingerprintJson } from "./sdk/typescript/src/fingerprint";'
            'const values = JSON.parse(require("fs").readFileSync(0, "utf8"));'
            "console.log(JSON.stringify(values.map((v: never) => [canonicalJson(v), fingerprintJson(v)])));"
        )
        done = subprocess.run(
            [str(tsx), "-e", script], input=TRICKY_JSON, capture_output=True, text=True, cwd=REPO_ROOT, timeout=120
        )
        self.assertEqual(done.returncode, 0, done.stderr)
        expected = json.loads(done.stdout)
        values = json.loads(TRICKY_JSON)
        self.assertEqual(len(expected), len(values))
        for value, (ts_canonical, ts_fingerprint) in zip(values, expected):
            self.assertEqual(canonical_json(value), ts_canonical)
            self.assertEqual(fingerprint_json(value), ts_fingerprint)


if __name__ == "__main__":
    unittest.main()
