/**
 * Thresholds and constants of the scorers and the blame engine. The defaults
 * live in one file (resources/settings.default.json, documented in
 * docs/blame.md); a user file overrides any subset of them. Stored blame
 * results carry settingsHash(settings) so that they are recomputed when the
 * settings change.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import defaultsJson from '../../../resources/settings.default.json';
import { EngineError } from '../../../src-shared/result';

export type Settings = typeof defaultsJson;

export const DEFAULT_SETTINGS: Settings = defaultsJson;

type Plain = Record<string, unknown>;

function isPlain(v: unknown): v is Plain {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Overlays `user` on `base`. Only keys the defaults know are taken, and only
 * with the same JSON type, so a typo cannot silently switch a rule off; the
 * problems are returned so the caller can show them.
 */
function overlay(base: unknown, user: unknown, path: string, problems: string[]): unknown {
  if (isPlain(base)) {
    if (!isPlain(user)) {
      problems.push(`${path || 'settings'}: expected an object`);
      return base;
    }
    const out: Plain = {};
    for (const key of Object.keys(base)) {
      out[key] = Object.hasOwn(user, key) ? overlay(base[key], user[key], path ? `${path}.${key}` : key, problems) : base[key];
    }
    for (const key of Object.keys(user)) {
      if (!Object.hasOwn(base, key)) problems.push(`${path ? `${path}.` : ''}${key}: unknown setting, ignored`);
    }
    return out;
  }
  if (Array.isArray(base)) {
    if (!Array.isArray(user) || user.some((x) => typeof x !== 'string')) {
      problems.push(`${path}: expected a list of strings`);
      return base;
    }
    return user;
  }
  if (typeof base !== typeof user || (typeof user === 'number' && !Number.isFinite(user))) {
    problems.push(`${path}: expected a ${typeof base}`);
    return base;
  }
  return user;
}

function mergeSettings(user: unknown): { settings: Settings; problems: string[] } {
  const problems: string[] = [];
  const settings = overlay(DEFAULT_SETTINGS, user, '', problems) as Settings;
  // Every list of regular expressions: an invalid one is reported and dropped, the others kept.
  const lists: [string, { get(): string[]; set(v: string[]): void }][] = [
    ['scoring.llm.refusal_patterns', { get: () => settings.scoring.llm.refusal_patterns, set: (v) => (settings.scoring.llm.refusal_patterns = v) }],
    ['failure.give_up_patterns', { get: () => settings.failure.give_up_patterns, set: (v) => (settings.failure.give_up_patterns = v) }],
    ['failure.apology_patterns', { get: () => settings.failure.apology_patterns, set: (v) => (settings.failure.apology_patterns = v) }],
    ['failure.guardrail_name_patterns', { get: () => settings.failure.guardrail_name_patterns, set: (v) => (settings.failure.guardrail_name_patterns = v) }],
    ['blame.rejecting_words', { get: () => settings.blame.rejecting_words, set: (v) => (settings.blame.rejecting_words = v) }],
    ['explain.redact_patterns', { get: () => settings.explain.redact_patterns, set: (v) => (settings.explain.redact_patterns = v as never[]) }],
  ];
  for (const [name, list] of lists) {
    const valid = list.get().filter((pattern) => {
      try {
        new RegExp(pattern, 'iu');
        return true;
      } catch {
        problems.push(`${name}: not a valid regular expression: ${pattern}`);
        return false;
      }
    });
    if (valid.length !== list.get().length) list.set(valid);
  }
  return { settings, problems };
}

/**
 * Defaults merged with the user's file at `path` (the lead passes
 * $TRACEBACK_HOME/settings.json). A missing file means defaults; a file that
 * is not JSON is bad input and throws, naming the file.
 */
export function loadSettings(path?: string, onProblem?: (message: string) => void): Settings {
  if (!path || !existsSync(path)) return structuredClone(DEFAULT_SETTINGS);
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new EngineError('bad_request', `${path}: not valid JSON (${(err as Error).message})`);
  }
  const { settings, problems } = mergeSettings(parsed);
  for (const p of problems) onProblem?.(`${path}: ${p}`);
  return settings;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isPlain(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * Revision of the scoring and blame rules. Stored results are keyed by
 * settingsHash, which includes it, so that a release that changes the rules
 * (not only the settings) recomputes them. Bump it with every such change.
 * 2: faithful-executor / wrong-result rules, sentence quotes, lineage_edges.
 * 3: failure detection (signals), asserted failures, content suspicion,
 *    guardrail / gave-up / hidden-error / plan / wrong-tool rules.
 */
const RULES_REVISION = 3;

/** Stable across key order; changes whenever any value changes (or the rules revision). */
export function settingsHash(settings: Settings): string {
  // The root-cause agent's settings (its API key among them) decide nothing in blame: a key change
  // must not invalidate every stored blame result, and no derivative of the key belongs beside them.
  const { explain: _explain, ...blameSettings } = settings;
  return createHash('sha256').update(`rules ${RULES_REVISION}\n`).update(canonical(blameSettings)).digest('hex').slice(0, 16);
}
