"""Secrets are removed before a record leaves the process (DESIGN.md §8).

Two nets, the same as the TypeScript SDK's (sdk/typescript/src/redaction.ts):
values whose *shape* is a credential (provider key prefixes, bearer tokens,
JWTs, PEM private keys), and values stored under a *key name* that holds
credentials. The importer redacts again; this pass exists so that a secret
never reaches the disk in the first place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

REDACTED = "[REDACTED]"

# JavaScript's \b is ASCII-only; matching it keeps both SDKs redacting the same text.
_ASCII = re.ASCII

# Prefixes published by the providers; lengths are lower bounds so that short
# look-alikes in prose ("sk-learn") are left alone.
DEFAULT_SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"sk-ant-[A-Za-z0-9_\-]{20,}"),
    re.compile(r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", _ASCII),
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,}\b", _ASCII),
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}\b", _ASCII),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}", _ASCII),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b", _ASCII),
    re.compile(r"\bhf_[A-Za-z0-9]{30,}\b", _ASCII),
    re.compile(r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}", _ASCII),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
)

# A literal each default pattern cannot match without. Python's regex engine
# scans slowly for patterns that start with \b: one search for any of these
# literals first cut redacting a 1.2 MB output from ~160 ms to ~15 ms.
_HINTS: dict[str, tuple[str, ...]] = {
    DEFAULT_SECRET_PATTERNS[0].pattern: ("sk-ant-",),
    DEFAULT_SECRET_PATTERNS[1].pattern: ("sk-",),
    DEFAULT_SECRET_PATTERNS[2].pattern: ("AKIA", "ASIA"),
    DEFAULT_SECRET_PATTERNS[3].pattern: ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    DEFAULT_SECRET_PATTERNS[4].pattern: ("github_pat_",),
    DEFAULT_SECRET_PATTERNS[5].pattern: ("xox",),
    DEFAULT_SECRET_PATTERNS[6].pattern: ("AIza",),
    DEFAULT_SECRET_PATTERNS[7].pattern: ("hf_",),
    DEFAULT_SECRET_PATTERNS[8].pattern: ("eyJ",),
    DEFAULT_SECRET_PATTERNS[9].pattern: ("PRIVATE KEY-----",),
}

_ANY_HINT = re.compile("|".join(re.escape(hint) for hints in _HINTS.values() for hint in hints))

# "Bearer <token>" keeps the word so a reader still sees an auth header was there.
_BEARER = re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/\-]{16,}=*")

# Key names that hold credentials. "tokens" (plural) is deliberately absent:
# usage fields such as max_tokens / input_tokens are not secrets.
DEFAULT_SENSITIVE_KEY = re.compile(
    r"(?i)^(?:.*[_\-.])?(?:api[_\-]?key|apikey|secret|client[_\-]?secret|password|passwd|"
    r"authorization|proxy[_\-]authorization|token|access[_\-]?token|refresh[_\-]?token|"
    r"session[_\-]?token|auth[_\-]?token|id[_\-]?token|private[_\-]?key|cookie|set[_\-]cookie|"
    r"credentials?)$"
)


@dataclass(frozen=True)
class RedactionOptions:
    """Extra patterns and key names on top of the defaults (or instead of them)."""

    extra_patterns: tuple[str | re.Pattern[str], ...] = ()
    extra_keys: tuple[str, ...] = ()
    patterns: tuple[str | re.Pattern[str], ...] | None = None
    sensitive_key: str | re.Pattern[str] | None = None


@dataclass(frozen=True)
class Redactor:
    patterns: tuple[re.Pattern[str], ...] = DEFAULT_SECRET_PATTERNS
    sensitive_key: re.Pattern[str] | None = DEFAULT_SENSITIVE_KEY
    extra_keys: frozenset[str] = field(default_factory=frozenset)
    enabled: bool = True

    def text(self, value: str) -> str:
        # Every pattern needs at least 16 characters, so short strings skip the scan.
        if not self.enabled or len(value) < 16:
            return value
        out = value
        maybe_secret = _ANY_HINT.search(out) is not None
        for pattern in self.patterns:
            hints = _HINTS.get(pattern.pattern)
            if hints is None or (maybe_secret and any(hint in out for hint in hints)):
                out = pattern.sub(REDACTED, out)
        if "bearer" in out.lower():
            out = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", out)
        return out

    def is_sensitive_key(self, key: str) -> bool:
        if not self.enabled:
            return False
        if self.sensitive_key is not None and self.sensitive_key.match(key):
            return True
        return bool(self.extra_keys) and key.lower() in self.extra_keys


DEFAULT_REDACTOR = Redactor()
NO_REDACTION = Redactor(enabled=False)


def _compile(patterns: Iterable[str | re.Pattern[str]]) -> tuple[re.Pattern[str], ...]:
    return tuple(p if isinstance(p, re.Pattern) else re.compile(p) for p in patterns)


def make_redactor(options: bool | RedactionOptions | None = True) -> Redactor:
    if options is False:
        return NO_REDACTION
    if options is None or options is True:
        return DEFAULT_REDACTOR
    base = _compile(options.patterns) if options.patterns is not None else DEFAULT_SECRET_PATTERNS
    key = options.sensitive_key
    return Redactor(
        patterns=base + _compile(options.extra_patterns),
        sensitive_key=re.compile(key) if isinstance(key, str) else (key or DEFAULT_SENSITIVE_KEY),
        extra_keys=frozenset(k.lower() for k in options.extra_keys),
    )
