import { describe, it, expect } from 'vitest';
import { currentConfigOf, storedConfig } from './stored-config';

const at = new Date('2026-11-24T08:00:00Z');

describe('stored config versions', () => {
  it('no stored version is the empty config', () => {
    expect(currentConfigOf(null)).toEqual({ version: null, config: { tasks: [] }, author: null, message: null, createdAt: null });
  });

  it('a stored version reads as its parsed config with its metadata', () => {
    const cur = currentConfigOf({ version: 3, config: { tasks: [{ name: 'mail' }] }, author: 'ana', message: 'm', createdAt: at });
    expect(cur.version).toBe(3);
    expect(cur.author).toBe('ana');
    expect(cur.createdAt).toBe(at);
    expect(cur.config.tasks.map((t) => t.name)).toEqual(['mail']);
  });

  it('a stored version that no longer validates is a validation error naming the version', () => {
    expect(() => storedConfig({ version: 7, config: { tasks: [{ name: 'Bad Name!' }] } })).toThrow(/stored config version 7 no longer validates/);
  });
});
