"""The visible marker left where a value was cut (same text as the TypeScript SDK)."""

from __future__ import annotations


def truncation_marker(removed: int, unit: str) -> str:
    return f"…[truncated {removed} {unit}]"


def cut_text(text: str, limit: float) -> str:
    if len(text) <= limit:
        return text
    keep = int(limit)
    return text[:keep] + truncation_marker(len(text) - keep, "chars")
