# One image for the api, the workers and the sandbox; the command picks the role:
#   node dist/api/main.js (default) | node dist/workers/main.js | node dist/sandbox/main.js

# --- build: full install (TypeScript is a devDependency), compile to dist/, prebuild the workflow bundle
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

# --- runtime: production dependencies only, compiled output, non-root
FROM node:20-bookworm-slim
# CA roots for TLS to Temporal Cloud / the real platform from the workers' native (Rust) client.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
# The image's built-in unprivileged user; nothing in /app is writable by it.
USER node
EXPOSE 3000 4010
CMD ["node", "dist/api/main.js"]
