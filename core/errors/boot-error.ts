/** A problem that stops Switchboard from starting; its message names what to fix. */
export class BootError extends Error {
  override readonly name = 'BootError';
}
