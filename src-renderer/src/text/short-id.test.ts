import { describe, expect, it } from 'vitest';
import { shortIdIn, shortestUniquePrefixes } from './short-id';

describe('run ids shown as their shortest unique prefix', () => {
  it('fork trials of one experiment, which share "exp-2ce0", each get a prefix no other trial shares', () => {
    const ids = ['exp-2ce0a1-t01-control', 'exp-2ce0a1-t02-control', 'exp-2ce0a1-t01-treatment', 'exp-9f10aa-t01-control'];
    const short = shortestUniquePrefixes(ids);
    const shown = ids.map((id) => short.get(id)!);
    expect(new Set(shown).size).toBe(ids.length);
    for (const id of ids) expect(id.startsWith(short.get(id)!)).toBe(true);
    expect(short.get('exp-2ce0a1-t01-control')).toBe('exp-2ce0a1-t01-c');
    // An id without rivals keeps the 8-character minimum.
    expect(short.get('exp-9f10aa-t01-control')).toBe('exp-9f10');
  });

  it('UUIDv7 ids minted in the same millisecond (same first 12 hex digits) are told apart', () => {
    const a = '01938f2e-7c1a-7d3e-9a01-4b5c6d7e8f90';
    const b = '01938f2e-7c1a-7f00-8b22-000000000001';
    const c = '01938f2f-0000-7000-8000-000000000000';
    const short = shortestUniquePrefixes([a, b, c]);
    expect(short.get(a)).toBe('01938f2e-7c1a-7d');
    expect(short.get(b)).toBe('01938f2e-7c1a-7f');
    expect(short.get(c)).toBe('01938f2f');
  });

  it('an id that is a prefix of another (a kept collision "ID~2") is shown whole, never cut to look like its twin', () => {
    const short = shortestUniquePrefixes(['langchain-run-aaaaaaaa', 'langchain-run-aaaaaaaa~2']);
    expect(short.get('langchain-run-aaaaaaaa')).toBe('langchain-run-aaaaaaaa');
    expect(short.get('langchain-run-aaaaaaaa~2')).toBe('langchain-run-aaaaaaaa~');
  });

  it('ids of 16 characters or fewer stay whole, and an id outside the known set falls back to 8 characters', () => {
    const short = shortestUniquePrefixes(['abc', 'half-written-1', '0123456789abcdefXYZ']);
    expect(short.get('abc')).toBe('abc');
    expect(short.get('half-written-1')).toBe('half-written-1');
    expect(short.get('0123456789abcdefXYZ')).toBe('01234567');
    expect(shortIdIn(short, 'fedcba9876543210fedc')).toBe('fedcba98');
    expect(shortIdIn(short, 'tiny')).toBe('tiny');
  });
});
