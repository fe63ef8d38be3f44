import { reactRouter } from "@react-router/dev/vite";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [reactRouter()],
  resolve: { tsconfigPaths: true },
  ssr: {
    // Loaded from node_modules at run time: PGlite reads its wasm from there.
    external: ["@electric-sql/pglite", "postgres", "drizzle-orm", "sharp"],
  },
});
