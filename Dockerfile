# payreq-sandbox as a container: docker build -t payreq-sandbox . && docker run -p 8080:8080 payreq-sandbox
# The base is the official Node LTS slim image; BASE picks another of the same layout (node on PATH, npm, a user `node`).
ARG BASE=node:26-bookworm-slim

# Build: dependencies, then dist/, then only the production dependencies.
FROM ${BASE} AS build
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
COPY package.json package-lock.json ./
# A network that re-signs TLS needs its CA bundle for npm: given as a build secret (--secret id=npm-ca,src=<bundle>), it never lands in a layer.
RUN --mount=type=secret,id=npm-ca \
    if [ -s /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.browser.json ./
COPY src ./src
# The server imports bin/launchers.js (typed by its .d.ts) from dist/, so the build needs bin/ too.
COPY bin ./bin
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Run: what the published package holds, as the non-root user `node`, data on a volume.
FROM ${BASE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SANDBOX_DATA=/data/sandbox.json
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY data/rates.json ./data/rates.json
COPY scenarios ./scenarios
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
# /readyz is 503 while the store is not ready or the instance drains; node's fetch, as the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself; the server drains (SANDBOX_DRAIN_DELAY_MS, 5 s off loopback), finishes what is in flight and writes the store.
STOPSIGNAL SIGTERM
CMD ["node", "dist/cli.js", "serve"]
