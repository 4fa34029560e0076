"""Known pitfalls and the guard's matcher (docs/motifs.md sections 4-5).

The failure motifs Traceback learned, read from the exported motif file,
matched against a task before the prompt is sent (``pitfalls``,
``with_pitfalls``) and against a proposed call before it runs
(``guard_check``). The same rules as the TypeScript SDK's pitfalls.ts:

* a motif applies only when one sentence of the task, quoted verbatim, holds
  at least ``threshold`` of the motif's task cue words (by a light stem, so
  "population" and "populous" meet) - no quote, no warning;
* a sentence that also names the value the motif warns against (it asks for
  the "metro population") is not the motif's case;
* the guard fires only with both quotes: the task's, and the violating value
  found verbatim in the proposed call as a whole value.

Standard library only; offline; no key.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Sequence

PITFALL_THRESHOLD = 0.7
GUARD_THRESHOLD = 0.8

_STOPWORDS = set(
    "a an and are as at be been by do does for from has have in is it its of on or that the their them there these "
    "they this those to was were what when which who will with whose".split()
)
_SUFFIXES = ("ations", "ation", "ments", "ment", "ness", "ous", "ings", "ing", "ed", "s", "ly")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_SENTENCE = re.compile(r"[^.!?;\n]+[.!?;]?")
_WORD_CHAR = re.compile(r"[^\W]", re.UNICODE)


@dataclass
class Pitfall:
    motif_id: str
    name: str
    #: The sentence of the task that makes the motif apply, verbatim.
    task_quote: str
    coverage: float
    requirement: str
    watch: str
    recommendation: str

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class GuardFinding(Pitfall):
    #: The violating value, verbatim from the proposed call.
    call_quote: str = ""


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _terms(text: str) -> List[str]:
    out: List[str] = []
    for w in _WORD.findall(text.lower()):
        if w in _STOPWORDS:
            continue
        s = _stem(w)
        if s not in out:
            out.append(s)
    return out


def _sentences(task: str) -> List[str]:
    return [s.strip() for s in _SENTENCE.findall(task) if s.strip()]


_cache: Dict[str, Any] = {}


def _motif_file(file: Optional[str]) -> str:
    if file:
        return file
    if os.environ.get("TRACEBACK_MOTIFS"):
        return os.environ["TRACEBACK_MOTIFS"]
    home = os.environ.get("TRACEBACK_HOME") or os.path.join(os.path.expanduser("~"), ".traceback")
    return os.path.join(home, "motifs.json")


def _read_motif_file(file: Optional[str]) -> tuple:
    """(motifs, thresholds or None) of the file; none when it does not exist."""
    path = _motif_file(file)
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return [], None
    hit = _cache.get(path)
    if hit and hit[0] == mtime:
        return hit[1]
    try:
        with open(path, encoding="utf-8") as fh:
            parsed = json.load(fh)
    except ValueError as err:
        raise ValueError("%s: not valid JSON (%s)" % (path, err)) from None
    if not isinstance(parsed, dict) or parsed.get("format") != "traceback-motifs" or not isinstance(parsed.get("motifs"), list):
        raise ValueError("%s: not a Traceback motif file (tb motifs export writes one)" % path)
    motifs = [m for m in parsed["motifs"] if isinstance(m, dict) and isinstance(m.get("task_cue"), str) and isinstance(m.get("motif_id"), str)]
    t = parsed.get("thresholds")
    thresholds = t if isinstance(t, dict) and isinstance(t.get("pitfall"), (int, float)) and isinstance(t.get("guard"), (int, float)) else None
    _cache[path] = (mtime, (motifs, thresholds))
    return motifs, thresholds


def load_motifs(file: Optional[str] = None) -> List[Dict[str, Any]]:
    """The motifs of the file (none when it does not exist); a file that is not a motif file is an error naming it."""
    return _read_motif_file(file)[0]


def _support(task: str, motif: Dict[str, Any], threshold: float) -> Optional[tuple]:
    cue = _terms(motif.get("task_cue", ""))
    if not cue:
        return None
    against = _terms(motif.get("violation_cue", ""))
    best = None
    for sentence in _sentences(task):
        have = set(_terms(sentence))
        coverage = sum(1 for t in cue if t in have) / len(cue)
        # The task itself asks for the value the motif warns against: not this motif's case.
        if against and all(t in have for t in against):
            continue
        if coverage >= threshold and (best is None or coverage > best[1]):
            best = (sentence, coverage)
    return best


def _candidates(step: Optional[str], motifs: Optional[Sequence[Dict[str, Any]]], file: Optional[str], threshold: Optional[float], kind: str) -> tuple:
    """The motifs to match (by step) and the threshold: the argument, else the app's (from the file), else the default."""
    if motifs is not None:
        pool, thresholds = list(motifs), None
    else:
        pool, thresholds = _read_motif_file(file)
    if step:
        name = re.sub(r"#\d+$", "", step)
        pool = [m for m in pool if m.get("step_signature") == name]
    if threshold is None:
        threshold = thresholds[kind] if thresholds else (PITFALL_THRESHOLD if kind == "pitfall" else GUARD_THRESHOLD)
    return pool, threshold


def _pitfall(m: Dict[str, Any], quote: str, coverage: float) -> Dict[str, Any]:
    return dict(
        motif_id=m["motif_id"],
        name=m.get("name", ""),
        task_quote=quote,
        coverage=round(coverage, 3),
        requirement=m.get("requirement", ""),
        watch=m.get("violation", ""),
        recommendation=m.get("recommendation", ""),
    )


def pitfalls(task: str, step: Optional[str] = None, motifs: Optional[Sequence[Dict[str, Any]]] = None, file: Optional[str] = None, threshold: Optional[float] = None) -> List[Pitfall]:
    """The motifs that apply to a task, each with the verbatim sentence of the task that makes it apply."""
    set_guard_task(task)
    out: List[Pitfall] = []
    pool, limit = _candidates(step, motifs, file, threshold, "pitfall")
    for m in pool:
        s = _support(task, m, limit)
        if s:
            out.append(Pitfall(**_pitfall(m, s[0], s[1])))
    out.sort(key=lambda p: -p.coverage)
    return out


def with_pitfalls(prompt: str, task: str, step: Optional[str] = None, motifs: Optional[Sequence[Dict[str, Any]]] = None, file: Optional[str] = None, threshold: Optional[float] = None) -> str:
    """``prompt`` with a KNOWN PITFALLS block before it; unchanged when no motif applies to ``task``."""
    found = pitfalls(task, step=step, motifs=motifs, file=file, threshold=threshold)
    if not found:
        return prompt
    lines = ["KNOWN PITFALLS (failures seen before in this pipeline; each applies because of the quoted words of the task):"]
    for i, p in enumerate(found, 1):
        lines.append("%d. %s" % (i, p.name))
        lines.append('   Why it applies: the task says "%s".' % p.task_quote)
        lines.append("   What went wrong before: %s" % p.watch)
        lines.append("   Recommendation: %s" % p.recommendation)
    return "\n".join(lines) + "\n\n" + prompt


def _text_of(proposed: Any) -> str:
    if isinstance(proposed, str):
        return proposed
    try:
        # Compact like JSON.stringify, so both SDKs see the same text.
        return json.dumps(proposed, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(proposed)


def _find_whole(text: str, needle: str) -> Optional[str]:
    if not needle:
        return None
    lower, n = text.lower(), needle.lower()
    i = lower.find(n)
    while i != -1:
        before = text[i - 1] if i > 0 else ""
        after = text[i + len(n)] if i + len(n) < len(text) else ""
        if not (before and _WORD_CHAR.match(before)) and not (after and _WORD_CHAR.match(after)):
            return text[i : i + len(n)]
        i = lower.find(n, i + 1)
    return None


def guard_check(task: str, proposed: Any, step: Optional[str] = None, motifs: Optional[Sequence[Dict[str, Any]]] = None, file: Optional[str] = None, threshold: Optional[float] = None) -> List[GuardFinding]:
    """The motifs a proposed call (arguments or code) repeats, for a task they apply to: both quotes, or nothing."""
    text = _text_of(proposed)
    out: List[GuardFinding] = []
    pool, limit = _candidates(step, motifs, file, threshold, "guard")
    for m in pool:
        call_quote = _find_whole(text, m.get("violation_cue", ""))
        if not call_quote:
            continue
        s = _support(task, m, limit)
        if s:
            out.append(GuardFinding(call_quote=call_quote, **_pitfall(m, s[0], s[1])))
    return out


# The task each run last asked about (by run id): the guard's default task.
_tasks: Dict[str, str] = {}
_MAX_REMEMBERED = 1000


def set_guard_task(task: str) -> None:
    """Tells the guard which task this run works on (pitfalls and with_pitfalls do it too)."""
    from .handles import current_run

    run_id = current_run().run_id
    if run_id:
        if len(_tasks) >= _MAX_REMEMBERED:
            _tasks.clear()
        _tasks[run_id] = task


def _remembered_task() -> Optional[str]:
    from .handles import current_run

    run_id = current_run().run_id
    return _tasks.get(run_id) if run_id else None


class GuardBlocked(Exception):
    """Raised in block mode when the guard fires; the step's code did not run."""

    def __init__(self, step_name: str, findings: List[GuardFinding]) -> None:
        f = findings[0]
        super().__init__(
            'traceback guard blocked step "%s": %s (the task says "%s"; the call has "%s"). %s'
            % (step_name, f.name, f.task_quote, f.call_quote, f.recommendation)
        )
        self.step_name = step_name
        self.findings = findings


def guarded(func: Any, step_name: str, mode: str, guard_task: Any = None, motif_file: Optional[str] = None) -> Any:
    """``func`` with the guard run first (inside the step, so its record is a child of it)."""
    import functools
    import inspect
    import sys

    from .steps import run_step

    if mode not in ("warn", "block"):
        raise ValueError("guard must be 'warn' or 'block'; got %r" % (mode,))
    if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
        raise ValueError("guard= is not supported on generator functions (step %s)" % step_name)

    def check(args: tuple, kwargs: dict) -> None:
        task = guard_task() if callable(guard_task) else (guard_task or _remembered_task())
        if not task:
            return  # no task, no quote: the guard never fires
        proposed = args[0] if len(args) == 1 and not kwargs else {"args": list(args), "kwargs": kwargs}
        findings = guard_check(task, proposed, file=motif_file)
        if not findings:
            return
        record = {"mode": mode, "fired": True, "findings": [f.to_dict() for f in findings]}
        run_step("guard", lambda _s: record, type="generic", input={"step": step_name})
        if mode == "block":
            raise GuardBlocked(step_name, findings)
        sys.stderr.write('traceback guard (warn) on step "%s": %s\n' % (step_name, findings[0].name))

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_guarded(*args: Any, **kwargs: Any) -> Any:
            check(args, kwargs)
            return await func(*args, **kwargs)

        return async_guarded

    @functools.wraps(func)
    def sync_guarded(*args: Any, **kwargs: Any) -> Any:
        check(args, kwargs)
        return func(*args, **kwargs)

    return sync_guarded
