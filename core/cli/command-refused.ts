/** A command that cannot run as asked (a taken id, an existing folder): one line on stderr and exit code 2, as a usage error. */
export class CommandRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandRefused';
  }
}
