import { describe, expect, it } from "vitest";
import { restorePlan, UnrestorableCycleError, type ForeignKey } from "~/server/admin/exports/restore-plan.server";

/** A key child.column -> parent; nullable unless said otherwise. */
const key = (child: string, column: string, parent: string, options: { nullable?: boolean; deferrable?: boolean } = {}): ForeignKey => ({
  name: `${child}_${column}_fk`,
  child,
  parent,
  columns: [{ name: column, nullable: options.nullable ?? true }],
  deferrable: options.deferrable ?? false,
});

/** Every key the plan does not defer points at a table inserted earlier. */
function expectOrdered(plan: ReturnType<typeof restorePlan>, keys: ForeignKey[]) {
  for (const k of keys) {
    if (plan.deferred.includes(k) || k.deferrable) continue;
    expect(plan.order.indexOf(k.parent), `${k.name}: ${k.parent} before ${k.child}`).toBeLessThan(plan.order.indexOf(k.child));
  }
}

describe("restorePlan (the database export's table order)", () => {
  it("orders parents first and defers nothing without a cycle", () => {
    const keys = [key("works", "user_id", "users", { nullable: false }), key("chapters", "work_id", "works", { nullable: false })];
    const plan = restorePlan(["chapters", "users", "works"], keys);
    expect(plan).toEqual({ order: ["users", "works", "chapters"], deferred: [] });
  });

  it("breaks the free-writing cycle at writing_plots.current_version_id, the one nullable key on it", () => {
    const keys = [
      key("writing_plots", "project_id", "writing_projects", { nullable: false }),
      key("writing_plots", "current_version_id", "plot_versions"),
      key("plot_versions", "plot_id", "writing_plots", { nullable: false }),
      // Points at both but lies on no cycle: not deferred.
      key("text_operations", "plot_id", "writing_plots", { nullable: false }),
      key("text_operations", "version_id", "plot_versions"),
    ];
    const plan = restorePlan(["plot_versions", "text_operations", "writing_plots", "writing_projects"], keys);
    expect(plan.deferred.map((k) => k.name)).toEqual(["writing_plots_current_version_id_fk"]);
    expect(plan.order).toEqual(["writing_projects", "writing_plots", "plot_versions", "text_operations"]);
    expectOrdered(plan, keys);
  });

  it("defers a nullable self-reference (a reply may be read before the comment it answers)", () => {
    const keys = [key("comments", "parent_id", "comments")];
    expect(restorePlan(["comments"], keys).deferred).toEqual(keys);
  });

  it("leaves DEFERRABLE keys to COMMIT, and breaks a longer cycle", () => {
    const keys = [
      key("a", "b_id", "b", { nullable: false }),
      key("b", "c_id", "c", { nullable: false }),
      key("c", "a_id", "a"),
      key("d", "a_id", "a", { nullable: false, deferrable: true }),
      key("a", "d_id", "d", { nullable: false, deferrable: true }),
    ];
    const plan = restorePlan(["a", "b", "c", "d"], keys);
    expect(plan.deferred.map((k) => k.name)).toEqual(["c_a_id_fk"]);
    expectOrdered(plan, keys);
  });

  it("refuses a cycle of NOT NULL keys, naming its tables", () => {
    const keys = [key("a", "b_id", "b", { nullable: false }), key("b", "a_id", "a", { nullable: false }), key("c", "a_id", "a", { nullable: false })];
    expect(() => restorePlan(["a", "b", "c", "z"], keys)).toThrow(UnrestorableCycleError);
    expect(() => restorePlan(["a", "b", "c", "z"], keys)).toThrow(/foreign keys of a, b form a cycle/);
  });
});
