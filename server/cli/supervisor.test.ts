// A child that cannot be spawned is reported and stops `sluice start` in order, instead
// of an unhandled 'error' event crashing it with a stack trace.
import { describe, it, expect, vi } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Supervisor } from './supervisor';

describe('Supervisor', () => {
  it('a child whose binary cannot be executed reports 127 through onExit and resolves exited', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const sup = new Supervisor();
      const onExit = vi.fn();
      // This test file exists but is not executable: spawn fails with EACCES.
      const s = sup.start('next', fileURLToPath(import.meta.url), [], { onExit });
      expect(await s.exited).toBe(127);
      expect(onExit).toHaveBeenCalledWith(127);
      expect(errors).toHaveBeenCalledWith(expect.stringMatching(/^\[sluice\] cannot start next \(.*supervisor\.test\.ts\): EACCES$/));
      await sup.stopAll(100); // nothing live: returns at once
    } finally {
      errors.mockRestore();
    }
  });

  it('a running child still reports its own exit code', async () => {
    const sup = new Supervisor();
    const onExit = vi.fn();
    const s = sup.start('node', process.execPath, ['-e', 'process.exit(3)'], { onExit, stdio: 'ignore' });
    expect(await s.exited).toBe(3);
    expect(onExit).toHaveBeenCalledWith(3);
  });
});
