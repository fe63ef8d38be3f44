/**
 * The order in which database.sql (database.server.ts) inserts the tables, from the
 * catalog's foreign keys, and the keys whose cycles no order satisfies
 * (docs/decisions/147). No database access: the export passes the catalog in.
 */

/** One foreign key of the catalog: the child table's columns that point at the parent. */
export interface ForeignKey {
  name: string;
  child: string;
  parent: string;
  /** The child's columns, each with whether it may be NULL. */
  columns: { name: string; nullable: boolean }[];
  /** DEFERRABLE: checked at COMMIT once the script says SET CONSTRAINTS ALL DEFERRED. */
  deferrable: boolean;
}

/** A foreign-key cycle that no nullable or deferrable key breaks: its rows cannot be restored. */
export class UnrestorableCycleError extends Error {
  constructor(
    readonly tables: string[],
    why = "every key is NOT NULL and not DEFERRABLE",
  ) {
    super(
      `database export: the foreign keys of ${tables.join(", ")} form a cycle and ${why}, so no order of ` +
        "INSERTs can restore them; make one of those keys nullable (on a table with a primary key) or " +
        "DEFERRABLE (docs/decisions/147)",
    );
  }
}

export interface RestorePlan {
  /** Every table after the tables its non-deferred keys reference. */
  order: string[];
  /**
   * Keys that close a cycle (a self-reference included): their columns are inserted as NULL
   * and set by UPDATEs once every table's rows are in (docs/decisions/147).
   */
  deferred: ForeignKey[];
}

/** Strongly connected components (Tarjan) of the graph child -> parent. */
function stronglyConnected(names: string[], edges: ForeignKey[]): Map<string, number> {
  const out = new Map<string, string[]>(names.map((n) => [n, []]));
  for (const e of edges) out.get(e.child)?.push(e.parent);
  const component = new Map<string, number>();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;
  let components = 0;
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      for (;;) {
        const w = stack.pop()!;
        onStack.delete(w);
        component.set(w, components);
        if (w === v) break;
      }
      components++;
    }
  };
  for (const n of names) if (!index.has(n)) visit(n);
  return component;
}

/**
 * The order in which the restore inserts the tables, and the keys it fills in afterwards.
 * A DEFERRABLE key never constrains the order (the script defers it to COMMIT). A key whose
 * two tables lie on one cycle (a self-reference too: a reply may come in an earlier batch
 * than the comment it answers) is deferred when its columns may be NULL; if a cycle is left
 * that only NOT NULL keys form, the export refuses with UnrestorableCycleError, which the
 * export test meets as soon as a migration adds such a cycle.
 */
export function restorePlan(names: string[], foreignKeys: ForeignKey[]): RestorePlan {
  const known = new Set(names);
  const keys = foreignKeys.filter((k) => known.has(k.child) && known.has(k.parent) && !k.deferrable);
  const component = stronglyConnected(names, keys);
  const deferred = keys
    .filter((k) => component.get(k.child) === component.get(k.parent) && k.columns.every((c) => c.nullable))
    .sort((a, b) => a.child.localeCompare(b.child) || a.name.localeCompare(b.name));
  const ordering = keys.filter((k) => !deferred.includes(k));

  const pending = new Map<string, Set<string>>(names.map((n) => [n, new Set()]));
  for (const k of ordering) pending.get(k.child)!.add(k.parent);
  const order: string[] = [];
  const done = new Set<string>();
  while (order.length < names.length) {
    const ready = [...pending.keys()].filter((n) => !done.has(n) && [...pending.get(n)!].every((p) => done.has(p))).sort();
    if (ready.length === 0) {
      // The tables on such a cycle, not those that merely wait for it.
      const onCycle = ordering.filter((k) => component.get(k.child) === component.get(k.parent)).flatMap((k) => [k.child, k.parent]);
      throw new UnrestorableCycleError([...new Set(onCycle)].sort());
    }
    for (const name of ready) {
      done.add(name);
      order.push(name);
    }
  }
  return { order, deferred };
}
