/**
 * The import rules of app/ (docs/architecture.md#domains, decision 185), checked by
 * `npm run check:deps` in `npm test`. A violation prints the rule's name, the importing
 * file and the imported one; the rule's comment says what it guards and where it is
 * explained. Fix a violation by moving the code to where it belongs, not by an exception.
 */

/** The domains of app/server, lowest first: each may import the ones before it, never one after it. */
const ORDER = ["screening", "identity", "catalog", "community", "economy", "ai", "studio", "reading"];
/** On top of every domain: may import any of them; none imports these. */
const TOP = ["admin", "jobs"];
const DEFAULTS = "^app/server/platform/defaults\\.server\\.ts$";
const WHERE = "See docs/architecture.md#domains and docs/decisions/185-dependency-rules.md.";

const domainOrder = ORDER.slice(0, -1).map((domain, index) => ({
  name: `domain-order-${domain}`,
  severity: "error",
  comment:
    `app/server/${domain}/ imports a domain declared after it (${ORDER.slice(index + 1).join(", ")}). ` +
    `The domains stand in one order: platform → ${ORDER.join(" → ")}; a domain imports only those before it. ` +
    `Move the shared code down to the lower domain (or to platform/ or app/utils/). ${WHERE}`,
  from: { path: `^app/server/${domain}/` },
  to: { path: `^app/server/(${ORDER.slice(index + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment:
        "This module is part of an import circle (the path is printed after the rule's name). " +
        `A circle means a responsibility in the wrong place: move the shared part down so the imports run one way. ${WHERE}`,
      from: { path: "^app/" },
      to: { circular: true },
    },
    {
      name: "platform-imports-no-domain",
      severity: "error",
      comment:
        "app/server/platform/ imports a domain. Platform is what every domain uses and knows no domain: " +
        `move the domain-specific part into the domain, or pass it in as a parameter. ${WHERE}`,
      from: { path: "^app/server/platform/" },
      to: { path: `^app/server/(?!platform/)` },
    },
    ...domainOrder,
    {
      name: "no-domain-imports-admin-or-jobs",
      severity: "error",
      comment:
        `A module outside ${TOP.join(" and ")} imports app/server/admin/ or app/server/jobs/. Those sit on top of every ` +
        `domain (back-office actions, background work); only routes, app/entry.server.tsx and each other import them. ` +
        `Move the shared code down into the domain it belongs to. ${WHERE}`,
      from: { path: "^app/(server|db|middleware|components|utils|schemas|types)/", pathNot: `^app/server/(${TOP.join("|")})/` },
      to: { path: `^app/server/(${TOP.join("|")})/` },
    },
    {
      name: "react-router-only-in-routes-and-platform",
      severity: "error",
      comment:
        "A module outside the routes (app/routes/, app/root.tsx, app/entry.*), app/middleware/, app/server/platform/ " +
        "and the components imports react-router. Domain code takes plain values and returns plain values or throws " +
        "a DomainError: reading forms, building redirects and cookies belong to the route, its middleware or platform/. " +
        WHERE,
      from: { path: "^app/", pathNot: "^app/(routes/|routes\\.ts$|root\\.tsx$|entry\\.|middleware/|components/|server/platform/)" },
      to: { path: "(^|/)node_modules/(react-router|@react-router/[^/]+)/" },
    },
    {
      name: "components-import-no-server-module",
      severity: "error",
      comment:
        "A component imports a server module (*.server.ts, app/server/, app/db/) or a route module. Components are " +
        "rendered in the browser too: they take view shapes as props. Put the shape in app/types/ (or beside the " +
        `component) and import it from there. ${WHERE}`,
      from: { path: "^app/(components|utils)/" },
      to: { path: ["\\.server\\.tsx?$", "^app/server/", "^app/db/", "^app/routes/", "^app/(root|entry\\.server)\\.tsx$"] },
    },
    {
      name: "server-imports-no-ui",
      severity: "error",
      comment:
        "A server module (app/server/, app/middleware/) imports a component or a route module. The server layers " +
        "sit below the pages: a shared label or shape goes to app/utils/ or app/types/, which both sides import. " +
        WHERE,
      from: { path: "^app/(server|middleware)/" },
      to: { path: "^app/(components|routes)/|^app/(root|entry\\.server)\\.tsx$" },
    },
    {
      name: "db-imports-nothing-above",
      severity: "error",
      comment:
        "app/db/ imports a module above it (app/server/, app/middleware/, routes, components). The database layer " +
        `is the bottom: it takes its settings as values and knows no domain. ${WHERE}`,
      from: { path: "^app/db/" },
      // The one exception (decision 185): the client seeds the site's defaults when it opens
      // the database (next rule).
      to: { path: "^app/(server|middleware|routes|components|root\\.tsx|entry\\.server\\.tsx)", pathNot: DEFAULTS },
    },
    {
      name: "db-seeds-defaults-only-at-start-up",
      severity: "error",
      comment:
        "app/db/ imports the seeded defaults (app/server/platform/defaults.server.ts) other than by the client's " +
        "dynamic import when it opens the database. That one import is the db layer's single exception (seeding " +
        `at start-up, so every process, script and test opens a database with its defaults); no other. ${WHERE}`,
      from: { path: "^app/db/", pathNot: "^app/db/client\\.server\\.ts$" },
      to: { path: DEFAULTS },
    },
    {
      name: "db-seeds-defaults-by-dynamic-import",
      severity: "error",
      comment:
        "app/db/client.server.ts imports the seeded defaults statically. It may load them only with `await import()` " +
        `when the database opens (decision 185), so that the db layer's modules never load platform's at import time. ${WHERE}`,
      from: { path: "^app/db/client\\.server\\.ts$" },
      to: { path: DEFAULTS, dependencyTypesNot: ["dynamic-import"] },
    },
  ],
  options: {
    tsConfig: { fileName: "tsconfig.json" },
    // Type-only imports count: a view shape imported from a route ties the component to it.
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
    // React Router's generated route types (`./+types/<route>`) live in .react-router/types;
    // they say nothing about app/'s layers.
    exclude: { path: "^\\.react-router/" },
    enhancedResolveOptions: {
      extensions: [".ts", ".tsx", ".js", ".d.ts"],
      conditionNames: ["import", "require", "node", "default", "types"],
    },
  },
};
