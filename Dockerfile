# Horizon's controller image: `docker build -t horizon .` (see docs/controller.md).
# Node 22 is a maintained LTS line; Horizon is developed and tested on Node 20+.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
# npm ci's prepare (and npm run build) also bundle tune's worker thread and the dashboard
# (dist/dashboard) with these scripts; test/deploy/dockerfile.test.ts checks the list.
COPY scripts/bundle-tune-worker.mjs scripts/build-web.mjs ./scripts/
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The image's unprivileged "node" user would do too; a fixed numeric uid suits runAsNonRoot.
USER 65532:65532
# An absolute path, so `docker run -w DIR` (a scenario mounted there) still finds the CLI.
ENTRYPOINT ["node", "--max-semi-space-size=32", "/app/dist/cli/main.js"]
CMD ["controller"]
