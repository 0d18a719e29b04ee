import fs from 'node:fs';
import path from 'node:path';
import { SERVER_NODE_FLAGS } from '../../bench/lib/switchboard-process';

/**
 * The Node.js flags of a Switchboard server are written in several places (npm
 * scripts, the image, the compose file) and the benchmarks start it the same way:
 * they must agree, or a benchmark measures something nobody runs.
 */
const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const FLAGS = SERVER_NODE_FLAGS.join(' ');

describe('the server`s Node.js flags', () => {
  it('are the same in the npm scripts, the Dockerfile, the compose file and the benchmarks', () => {
    expect(FLAGS).toMatch(/--max-semi-space-size=\d+/);
    expect(FLAGS).toMatch(/--max-old-space-size=\d+/);
    const scripts = JSON.parse(read('package.json')).scripts;
    for (const command of ['start', 'serve', 'worker']) expect(scripts[command]).toBe(`exec node ${FLAGS} bin/switchboard.js ${command}`);
    const exec = (command: string) => JSON.stringify(['node', ...SERVER_NODE_FLAGS, 'bin/switchboard.js', command]).replace(/,/g, ', ');
    expect(read('Dockerfile')).toContain(`CMD ${exec('serve')}`);
    const compose = read('docker-compose.yml');
    expect(compose).toContain(`command: ${exec('serve')}`);
    expect(compose).toContain(`command: ${exec('worker')}`);
    // No other way to start a server without them.
    expect(compose.match(/bin\/switchboard\.js", "(serve|worker|start)"/g)).toHaveLength(2);
  });
});
