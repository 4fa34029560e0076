import { describe, expect, it } from 'vitest';
import { describeFault, type PlantedFaultResult } from './selfcheck';

const base: PlantedFaultResult = {
  pipeline: 'stub-research',
  planted_at: 'plan#0',
  blame_candidates: ['write#0', 'plan#0'],
  blame_top: 'write#0',
  blame_top_found: false,
  root_cause: 'plan#0',
  found: true,
  confirmation: null,
  error: null,
};

describe('tb selfcheck reports blame and confirmation apart', () => {
  it('a fault the experiments confirmed while blame named another step first does not read as a blame hit', () => {
    const line = describeFault(base);
    expect(line).toContain('blame named write#0 first');
    expect(line).toContain('candidate 2');
    expect(line).toContain('confirmation FOUND it');
    expect(line).not.toMatch(/blame named it first/);
  });

  it('a fault blame named first and the experiments confirmed says both', () => {
    const line = describeFault({ ...base, blame_top: 'plan#0', blame_top_found: true, blame_candidates: ['plan#0'] });
    expect(line).toContain('blame named it first');
    expect(line).toContain('confirmation FOUND it');
  });
});
