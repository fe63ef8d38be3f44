import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

// The reading side's shared modules: the shell, the reader's parts, comments, lists and the
// zod-free rules and utilities they use (never the form kit: tests/unit/client-bundle.test.ts).
const SHARED = /[\\/]app[\\/](utils[\\/]|schemas[\\/][^\\/]*-rules\.ts|components[\\/](ui|shell|reader|comments|reviews|discovery|library|booklists)[\\/]|components[\\/][^\\/]+\.tsx)/;

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [reactRouter()],
  resolve: { tsconfigPaths: true },
  ssr: {
    // Loaded from node_modules at run time: PGlite reads its wasm from there.
    external: ["@electric-sql/pglite", "postgres", "drizzle-orm", "sharp"],
  },
  // The browser's code in a few files instead of dozens (docs/decisions/243): the framework
  // (React, React Router) in one, the form kit (zod, Conform) in another that only pages
  // with a validating form load, the reading side's shared modules (SHARED) in a third; the
  // rest as Rolldown splits it, per route.
  build: isSsrBuild
    ? {}
    : {
        rollupOptions: {
          output: {
            codeSplitting: {
              groups: [
                { name: "framework", test: /node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser)[\\/]/, priority: 20 },
                { name: "form-kit", test: /node_modules[\\/](zod|@conform-to)[\\/]/, priority: 15 },
                { name: "shared", test: (id: string) => SHARED.test(id) && !/schema-form|auth-dialog/.test(id), minShareCount: 2, priority: 10 },
              ],
            },
          },
        },
      },
}));
