// A wake-up signal inside one process: the completer fires it after a batch commits
// (slots freed), the claim loop waits on it with a poll timeout. No NOTIFY per job.
export class LocalSignal {
  private waiters: (() => void)[] = [];
  private pending = false;

  fire(): void {
    this.pending = true;
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Resolves on the next fire (or at once if one is pending), or after timeoutMs. */
  wait(timeoutMs: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        resolve();
      }, timeoutMs);
      const done = () => {
        clearTimeout(t);
        this.pending = false;
        resolve();
      };
      this.waiters.push(done);
    });
  }
}
