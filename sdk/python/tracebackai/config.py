"""Process-wide SDK settings (the same knobs as the TS SDK's ``configure``).

Settings are resolved when a run starts and travel with that run, so a later
``configure`` call or a change of TRACEBACK_HOME never affects a run already
recording.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .json_safe import DEFAULT_MAX_FIELD_BYTES
from .redaction import RedactionOptions, Redactor, make_redactor

_UNSET: Any = object()
_lock = threading.Lock()
_settings: dict[str, Any] = {}


@dataclass(frozen=True)
class Recording:
    inbox: Path
    max_field_bytes: int
    redactor: Redactor
    enabled: bool


def configure(
    *,
    home: str | os.PathLike[str] | None = _UNSET,
    inbox: str | os.PathLike[str] | None = _UNSET,
    max_field_bytes: int | None = _UNSET,
    redact: bool | RedactionOptions | None = _UNSET,
    enabled: bool | None = _UNSET,
) -> None:
    """Defaults for every later run in this process (merged with earlier calls;
    pass None to go back to the default for one setting).

    home: Traceback home; the inbox is ``<home>/inbox``. Default: $TRACEBACK_HOME, else ~/.traceback.
    inbox: write run files here instead of ``<home>/inbox``.
    max_field_bytes: cap on one serialised input/output/metadata field, in UTF-8 bytes (default 1 MB).
    redact: False turns redaction off; RedactionOptions adds patterns and key names.
    enabled: False runs pipelines and steps without recording anything.
    """
    updates = {
        "home": home,
        "inbox": inbox,
        "max_field_bytes": max_field_bytes,
        "redact": redact,
        "enabled": enabled,
    }
    with _lock:
        for key, value in updates.items():
            if value is _UNSET:
                continue
            if value is None:
                _settings.pop(key, None)
            else:
                _settings[key] = value


def reset_configuration() -> None:
    with _lock:
        _settings.clear()


def default_home() -> Path:
    configured = os.environ.get("TRACEBACK_HOME", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".traceback"


def resolve_recording(
    *,
    home: str | os.PathLike[str] | None = None,
    inbox: str | os.PathLike[str] | None = None,
    max_field_bytes: int | None = None,
    redact: bool | RedactionOptions | None = None,
    enabled: bool | None = None,
) -> Recording:
    """The settings for one run: per-run overrides, then ``configure`` defaults, then the environment."""
    with _lock:
        settings = dict(_settings)
    overrides = {"home": home, "inbox": inbox, "max_field_bytes": max_field_bytes, "redact": redact, "enabled": enabled}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    if "inbox" in settings:
        inbox_path = Path(settings["inbox"]).expanduser()
    else:
        # TRACEBACK_HOME is read for every run, so a test or a child process may change it at any time.
        home_path = Path(settings["home"]).expanduser() if "home" in settings else default_home()
        inbox_path = home_path / "inbox"
    return Recording(
        inbox=inbox_path,
        max_field_bytes=int(settings.get("max_field_bytes", DEFAULT_MAX_FIELD_BYTES)),
        redactor=make_redactor(settings.get("redact", True)),
        enabled=bool(settings.get("enabled", True)),
    )
