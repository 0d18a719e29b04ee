/** Lets the relay sleep until it is woken (a NOTIFY, a new due time) or a timeout passes. */
export class WakeSignal {
  private wake?: () => void;
  private pending = false;

  notify(): void {
    if (this.wake) this.wake();
    else this.pending = true;
  }

  async wait(timeoutMs: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
    this.wake = undefined;
    this.pending = false;
  }
}
