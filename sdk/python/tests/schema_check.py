"""A small JSON Schema checker (the subset resources/trace-format.schema.json
uses), so tests can validate SDK output against the real schema without a
third-party package."""

from __future__ import annotations

import re
from typing import Any

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}

_SUPPORTED = {
    "$schema", "$id", "title", "description", "$defs", "type", "required", "properties", "oneOf",
    "$ref", "const", "enum", "pattern", "minLength", "minimum", "items", "additionalProperties", "not",
}


def errors(value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, path: str = "$") -> list[str]:
    """Every violation of ``schema`` by ``value`` (empty when valid)."""
    root = root or schema
    unknown = set(schema) - _SUPPORTED
    if unknown:
        raise ValueError(f"schema uses keywords this checker does not know: {sorted(unknown)}")
    found: list[str] = []
    if "$ref" in schema:
        found += errors(value, _resolve(root, schema["$ref"]), root, path)
    if "type" in schema:
        allowed = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(_TYPES[t](value) for t in allowed):
            return found + [f"{path}: expected {allowed}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        found.append(f"{path}: expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        found.append(f"{path}: {value!r} not in {schema['enum']}")
    if isinstance(value, str):
        if "pattern" in schema and not re.search(schema["pattern"], value):
            found.append(f"{path}: {value!r} does not match {schema['pattern']}")
        if len(value) < schema.get("minLength", 0):
            found.append(f"{path}: shorter than {schema['minLength']}")
    if isinstance(value, (int, float)) and "minimum" in schema and value < schema["minimum"]:
        found.append(f"{path}: below {schema['minimum']}")
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            found += errors(item, schema["items"], root, f"{path}[{i}]")
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                found.append(f"{path}: missing {key}")
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                found += errors(item, properties[key], root, f"{path}.{key}")
            elif isinstance(schema.get("additionalProperties"), dict):
                found += errors(item, schema["additionalProperties"], root, f"{path}.{key}")
            elif schema.get("additionalProperties") is False:
                found.append(f"{path}: unexpected {key}")
    if "not" in schema and not errors(value, schema["not"], root, path):
        found.append(f"{path}: matches a schema it must not")
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not errors(value, s, root, path)]
        if len(matching) != 1:
            found.append(f"{path}: matches {len(matching)} of oneOf, expected exactly 1")
    return found


def _resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported: {ref}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node
