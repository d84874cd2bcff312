# syntax=docker/dockerfile:1
# Multi-stage build: compile TypeScript in a build stage; the runtime stage has production dependencies
# and the compiled output only, and runs as a non-root numeric user.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER 65532:65532
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["run"]
