# Switchboard in a container, built from this repository:
#   docker build -t switchboard .
#   docker run -d --env-file switchboard.env -v switchboard-data:/data \
#     -v "$PWD/switchboard.yaml:/etc/switchboard/switchboard.yaml:ro" switchboard
# Stage 1 builds and packs the packages exactly as they are published; stage 2 installs those
# tarballs with plain npm, as any user would; the last stage carries only that installation, runs
# as an unprivileged user and keeps everything it writes in the /data volume.

ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# The pnpm version of package.json's packageManager (test/deploy-files.test.ts keeps them equal).
RUN npm install --global --no-audit --no-fund pnpm@10.34.9
COPY . .
RUN pnpm install --frozen-lockfile
# Every workspace package the CLI needs, read from packages/cli/package.json and followed through
# the workspace (deploy/pack-packages.ts), never a list typed here. test/installed-packages.e2e.test.ts
# replays this step and the install stage's outside a container.
RUN pnpm build \
 && node deploy/pack-packages.ts /packs

FROM ${NODE_IMAGE} AS install
WORKDIR /opt/switchboard
COPY --from=build /packs /packs
# Install scripts stay off: the only one downloads Matrix's native E2EE binary from outside the npm
# registry; the Matrix adapter runs without it (end-to-end encryption reported unavailable).
RUN npm init --yes >/dev/null \
 && npm install --omit=dev --ignore-scripts --no-audit --no-fund /packs/*.tgz

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
COPY --from=install /opt/switchboard /opt/switchboard
COPY deploy/switchboard.container.yaml /etc/switchboard/switchboard.yaml
# The image's `node` user (uid 1000) owns the data folder; nothing runs as root.
RUN mkdir /data && chown node:node /data
VOLUME ["/data"]
WORKDIR /data
USER node
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8787/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/opt/switchboard/node_modules/.bin/switchboard"]
CMD ["start", "--config", "/etc/switchboard/switchboard.yaml"]
