/** A small, strict argv parser: unknown flags are usage errors, never silently ignored. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface FlagSpec {
  /** Flags taking a value (e.g. --port 8080 or --port=8080). */
  values?: string[];
  /** Boolean flags. */
  booleans?: string[];
  /** Value flags that may repeat (collected in order). */
  repeatable?: string[];
}

export interface ParsedArgs {
  positional: string[];
  values: Record<string, string>;
  lists: Record<string, string[]>;
  booleans: Set<string>;
}

export function parseArgs(argv: string[], spec: FlagSpec): ParsedArgs {
  const values = new Set(spec.values ?? []);
  const repeatable = new Set(spec.repeatable ?? []);
  const bools = new Set([...(spec.booleans ?? []), 'json', 'help']);
  const out: ParsedArgs = { positional: [], values: {}, lists: {}, booleans: new Set() };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      out.positional.push(...argv.slice(i + 1));
      break;
    }
    if (/^-[a-zA-Z]$/.test(arg)) {
      const short = arg.slice(1);
      if (short === 'h') out.booleans.add('help');
      else if (values.has(short)) {
        const value = argv[++i];
        if (value === undefined) throw new UsageError(`${arg} needs a value`);
        out.values[short] = value;
      } else throw new UsageError(`unknown option ${arg}`);
      continue;
    }
    if (!arg.startsWith('--')) {
      out.positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    if (bools.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      out.booleans.add(name);
    } else if (values.has(name) || repeatable.has(name)) {
      const value = eq !== -1 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      if (repeatable.has(name)) (out.lists[name] ??= []).push(value);
      else out.values[name] = value;
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return out;
}

export function numberFlag(args: ParsedArgs, name: string, opts: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
  const raw = args.values[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || (opts.integer && !Number.isInteger(n)) || (opts.min !== undefined && n < opts.min) || (opts.max !== undefined && n > opts.max)) {
    throw new UsageError(`--${name} must be ${opts.integer ? 'a whole number' : 'a number'}${opts.min !== undefined ? ` ≥ ${opts.min}` : ''}${opts.max !== undefined ? ` ≤ ${opts.max}` : ''} (got "${raw}")`);
  }
  return n;
}
