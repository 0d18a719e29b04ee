/** The outcome of checking one input value: its normalised form, or why it is refused. */
export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

export const accept = <T>(value: T): Checked<T> => ({ ok: true, value });
export const refuse = <T = never>(message: string): Checked<T> => ({ ok: false, message });
