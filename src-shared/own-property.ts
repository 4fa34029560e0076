import { setOwn } from '../sdk/typescript/src/own-property.js';

/** setOwn is the SDK's (it writes values a user hands it, and must not import from outside its folder). */
export { setOwn };

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
