"""Writes the held-out corpus files and labels.json. Run: python3 bench/blame/heldout/generate/generate.py"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lib import emit_genai, emit_lc, emit_oi, write  # noqa: E402
from names import NEUTRAL  # noqa: E402

OUT = os.path.dirname(HERE)


def main():
    scenarios = []
    for mod in ("scen_genai", "scen_oi", "scen_lc"):
        try:
            m = __import__(mod)
        except ModuleNotFoundError as e:
            if e.name == mod:
                continue
            raise
        scenarios += m.S
    labels = {}
    for s in scenarios:
        f = NEUTRAL[s["file"]]  # scenario ids name the class; published file names must not
        assert f not in labels, f
        if s["fmt"] == "genai":
            doc = emit_genai(s["root"], f, s["base"], s["service"], s["app_scope"], lang=s.get("lang", "python"))
        elif s["fmt"] == "oi":
            doc = emit_oi(s["root"], f, s["base"], s["service"], lang=s.get("lang", "python"), session=s.get("session"))
        else:
            doc = emit_lc(s["root"], f, s["base"])
        write(os.path.join(OUT, f), doc)
        lab = dict(s["label"])
        lab.setdefault("alternates", [])
        labels[f] = {k: lab[k] for k in ("class", "culprit", "culprit_occurrence", "alternates", "expected", "note") if k in lab}
    with open(os.path.join(OUT, "labels.json"), "w", encoding="utf-8") as fh:
        json.dump(dict(sorted(labels.items())), fh, ensure_ascii=False, indent=2)
        fh.write("\n")
    print(len(labels), "files")


if __name__ == "__main__":
    main()
