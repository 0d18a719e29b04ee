/**
 * The Node.js flags a Switchboard server runs with, as `npm start` / `serve` / `worker`
 * and the Docker image start it (package.json, Dockerfile, docker-compose.yml; a test
 * keeps them the same): benchmarks measure the server as it is deployed.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=1536'];
