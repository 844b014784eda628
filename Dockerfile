# One image for the Temporal worker (default command) and the simulator (docker-compose.yml gives it
# another command). Code runs from TypeScript source with Node 24 type stripping: no build step.
# Debian (glibc), not Alpine: the Temporal SDK's native core bridge ships glibc binaries.
# Pinned by tag: no registry is reachable from the machines this was written on, so no digest could be
# read (deploy/README.md "Images"); pin `node:24-bookworm-slim@sha256:…` from `docker buildx imagetools
# inspect` where you build.
FROM node:24-bookworm-slim

# pnpm comes from corepack (bundled with Node 24), pinned to the version in package.json
# ("packageManager"); no interactive download prompt during the build.
ENV COREPACK_ENABLE_DOWNLOAD_PROMPT=0
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate

WORKDIR /app

# Manifests first, so the dependency layer is rebuilt only when they change. Every workspace
# package's manifest is copied because the lockfile lists them all.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY packages/api-client/package.json packages/api-client/
COPY packages/simulator/package.json packages/simulator/
COPY packages/temporal-workflows/package.json packages/temporal-workflows/
COPY packages/n8n-nodes/package.json packages/n8n-nodes/
COPY packages/cli/package.json packages/cli/

# Production dependencies of the worker and the simulator (and their workspace dependencies) only,
# exactly as locked.
RUN pnpm install --frozen-lockfile --prod \
      --filter "@selling-kit/temporal-workflows..." --filter "@selling-kit/simulator..."

# Sources (.dockerignore is an allow-list: the runtime packages' src/ and the health check), then an
# unprivileged user. /var/lib/selling-kit is the worker's data
# folder (token store, generated key file): a named volume mounted there inherits node's ownership.
COPY . .
RUN mkdir -p /var/lib/selling-kit && chown node:node /var/lib/selling-kit
USER node
ENV NODE_ENV=production

# The worker: configured by environment variables (see packages/temporal-workflows/src/worker/worker-main.ts
# and deploy/README.md).
CMD ["node", "packages/temporal-workflows/src/worker/worker-main.ts"]
