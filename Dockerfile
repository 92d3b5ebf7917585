# The naruto App's server (`npm start`), as an image: docs/app.md, "Run it in a container".
#
#   docker build -t naruto-app .
#   docker run --env-file .env -p 3000:3000 naruto-app
#
# Built from the lock file (npm ci), the sources bundled into build/ by scripts/build.ts, then
# only the production dependencies kept. It runs as the unprivileged `node` user; the health
# check asks the server's GET /healthz.

FROM node:24-bookworm-slim AS build
WORKDIR /naruto
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here; the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/ ./scripts/
COPY src/ ./src/
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /naruto
COPY --from=build /naruto/package.json ./
COPY --from=build /naruto/node_modules/ ./node_modules/
COPY --from=build /naruto/build/ ./build/
COPY bin/ ./bin/
COPY app.yml ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# What `npm start` runs, without npm in between: SIGTERM reaches the server, which takes no new
# delivery and lets those it took finish (up to 25 s; give `docker stop -t 30`).
CMD ["node", "build/app.js"]
