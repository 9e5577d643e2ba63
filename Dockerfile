# legacy-gateway image: Node 26 (the current LTS), built in one stage, run as a non-root user from a slim second stage.
FROM node:26-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm ci --no-audit --no-fund && npm run build && npm prune --omit=dev

FROM node:26-bookworm-slim
# MALLOC_ARENA_MAX=2: glibc's malloc keeps two arenas instead of one per thread (Node runs several), 10 to 20 MB
# less resident under load on Node 24, at no measured CPU cost (docs/operations.md: memory); `npm start` sets it too.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY mappings ./mappings
COPY replay-rules ./replay-rules
USER node
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The same heap flags as `npm start` (docs/operations.md: memory): a small heap under load, without a full collection
# every few dozen milliseconds. --no-incremental-marking-task: Node 26's V8 stops collecting the young generation while
# a full collection marks, and lets it grow until marking ends; marking driven by tasks waits behind the requests on
# Node's event loop, marking driven by allocation ends as soon as its work is done.
ENTRYPOINT ["node", "--max-old-space-size=512", "--max-semi-space-size=4", "--initial-old-space-size=48", "--no-incremental-marking-task", "dist/cli.js"]
CMD ["serve"]
