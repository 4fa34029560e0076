/** Calls the engine through the contract (validation included) and turns an error Result into a CLI failure. */
import type { CallName, CallResult } from '../../src-shared/api';
import type { Engine } from '../engine/create-engine';

export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export async function callEngine<K extends CallName>(engine: Engine, name: K, args: unknown): Promise<CallResult<K>> {
  const r = await engine.call(name, args);
  if (r.ok) return r.value;
  // Engine errors about what the user asked for (bad id, bad args) are bad input; anything else is a failure too.
  throw new CliFailure(r.error.message, 2);
}
