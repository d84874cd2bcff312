# syntax=docker/dockerfile:1
# resize-operator image. Three stages: `build` compiles TypeScript with the full (dev) install, `deps`
# installs production dependencies only, and `runtime` holds the compiled output, those dependencies
# and package.json, and runs as a non-root numeric user. No sources, tests, compilers or package
# managers reach the runtime stage. test/integration/packaging/dockerfile.test.ts performs these steps
# in a temporary folder (no container engine is needed) and starts the result.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# Package managers are build tools: the operator only needs `node`.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production
WORKDIR /app
# package.json: `resize-operator version` reads it, and it marks dist/ as ES modules.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER 65532:65532
EXPOSE 8080 9090
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["run"]
