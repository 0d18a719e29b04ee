# Switchboard: the API (`serve`, the default command) or a worker (`worker`).
# TypeScript runs as it is: bin/register-ts.js compiles it on load with swc, a
# runtime dependency, so production dependencies are all the image needs.
FROM node:24-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY . .
# Written by the node user: DATA_DIR (./data, only used by the embedded PostgreSQL, when
# DATABASE_URL is empty) and the compiled-TypeScript cache of bin/register-ts.js.
RUN mkdir -p /app/data /app/node_modules/.cache/switchboard-ts && chown node:node /app/data /app/node_modules/.cache/switchboard-ts

USER node
EXPOSE 8080
CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=1536", "bin/switchboard.js", "serve"]
