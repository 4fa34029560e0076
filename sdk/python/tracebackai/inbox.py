"""Appending trace records to ``<inbox>/<run_id>.jsonl``.

Each record is one ``os.write`` of one complete line on a descriptor opened
with O_APPEND, so a reader tailing the file sees whole lines as they happen
and a crash loses at most the record being written. Tracing must never break
the pipeline it observes: any I/O failure is reported once per process as a
warning and that run carries on unrecorded.
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from pathlib import Path
from typing import Any


class TracebackWriteWarning(RuntimeWarning):
    """The SDK could not write a trace; the user's code kept running."""


_warned_lock = threading.Lock()
_warned = False


def _warn_once(message: str) -> None:
    global _warned
    with _warned_lock:
        if _warned:
            return
        _warned = True
    warnings.warn(
        f"traceback: {message}; this run is not being recorded (further write errors are silent)",
        TracebackWriteWarning,
        stacklevel=4,
    )


def reset_write_warning() -> None:
    """Let the next write failure warn again (tests, long-lived processes)."""
    global _warned
    with _warned_lock:
        _warned = False


def encode_record(record: dict[str, Any]) -> bytes:
    # allow_nan=False: records are made JSON-safe before they get here; anything
    # else is an SDK bug we would rather skip than write as invalid JSON.
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (text + "\n").encode("utf-8", errors="backslashreplace")


class InboxWriter:
    """One run's trace file. Thread-safe; no method raises."""

    def __init__(self, inbox: Path, run_id: str) -> None:
        self.path = Path(inbox) / f"{run_id}.jsonl"
        self._fd: int | None = None
        self._failed = False
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # 0o600: traces hold prompts and outputs that may be private.
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        except OSError as exc:
            self._failed = True
            _warn_once(f"cannot open {self.path}: {exc}")

    @property
    def failed(self) -> bool:
        return self._failed

    def write(self, record: dict[str, Any]) -> None:
        if self._failed:
            return
        try:
            line = encode_record(record)
        except (TypeError, ValueError) as exc:
            _warn_once(f"cannot serialise a {record.get('type')} record: {exc}")
            return
        with self._lock:
            if self._failed or self._fd is None:
                return
            try:
                view = memoryview(line)
                while view:
                    written = os.write(self._fd, view)
                    view = view[written:]
            except OSError as exc:
                self._failed = True
                self._close_locked()
                _warn_once(f"cannot write {self.path}: {exc}")

    def close(self) -> None:
        with self._lock:
            self._close_locked()

    def _close_locked(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = None
