/**
 * Sets `key` on `target` as an own, enumerable data property. Plain assignment
 * is wrong for a key read from a trace: `target['__proto__'] = v` replaces the
 * object's prototype instead, so the key vanished from what was stored, and an
 * object value's keys were then read through the prototype as if they were the
 * target's own (an OTLP attribute named `__proto__` could set
 * `openinference.span.kind` and retype its span). JSON.parse makes such keys
 * own properties; every copy of untrusted keys goes through here to keep them so.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Object.assign for untrusted keys: copies `source`'s own enumerable keys onto `target` with setOwn. */
export function assignOwn<T>(target: Record<string, T>, ...sources: (Record<string, T> | null | undefined)[]): Record<string, T> {
  for (const source of sources) if (source) for (const key of Object.keys(source)) setOwn(target, key, source[key]);
  return target;
}

/**
 * `table[key]` when `key` is one of the table's own keys, else undefined. A plain lookup by a key read from a
 * trace answers "constructor", "toString" or "__proto__" with what every object inherits: a span whose
 * `gen_ai.operation.name` was "constructor" got a function as its step type, and its step could not be stored.
 */
export function ownValue<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
