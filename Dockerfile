# Multi-stage build. The production image migrates the database, then serves.
#   docker build -t inkstone .
#   docker run -p 3000:3000 -v inkstone-data:/data inkstone                 # embedded PGlite
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://... -e SESSION_SECRET=... inkstone

FROM node:20-bookworm-slim AS deps
WORKDIR /app
# patches/ before the install: its postinstall applies them (docs/decisions/273).
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm install --no-audit --no-fund

FROM deps AS build
COPY . .
RUN npx react-router build

FROM node:20-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY patches ./patches
RUN npm install --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=3000 DATA_DIR=/data
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/build ./build
# drizzle/ holds the migrations; app/, scripts/ and tsconfig.json serve the CLI
# (npm run admin:create, seed:demo) inside the container.
COPY package.json server.js tsconfig.json ./
COPY server ./server
COPY drizzle ./drizzle
COPY public ./public
COPY app ./app
COPY scripts ./scripts
VOLUME ["/data"]
EXPOSE 3000
CMD ["sh", "-c", "node server.js --migrate-only && exec node server.js"]
