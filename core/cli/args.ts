/**
 * `tenant create acme --name "Acme" --scopes=read` -> positionals and flags. A flag named in
 * `booleans` never takes the next word as its value (`plugin new --flow-app acme-crm`).
 */
export function parseArgs(argv: string[], booleans: readonly string[] = []): { positionals: string[]; flags: Record<string, string | true> } {
  const positionals: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (inline !== undefined) flags[name] = inline;
    else if (!booleans.includes(name) && i + 1 < argv.length && !argv[i + 1].startsWith('--')) flags[name] = argv[++i];
    else flags[name] = true;
  }
  return { positionals, flags };
}
