/**
 * Sets `key` on `target` as an own, enumerable data property. Plain assignment
 * is wrong for a key read from a trace: `target['__proto__'] = v` replaces the
 * object's prototype instead, so the key vanished from what was stored, and an
 * object value's keys were then read through the prototype as if they were the
 * target's own (an OTLP attribute named `__proto__` could set
 * `openinference.span.kind` and retype its span). JSON.parse makes such keys
 * own properties; every copy of untrusted keys goes through here to keep them so. The app
 * imports it from here too (src-shared/own-property.ts): the SDK must not import from outside its folder.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
