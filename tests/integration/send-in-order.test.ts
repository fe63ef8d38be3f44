import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKind, db } from "~/db/client.server";
import { pgErrorCode, rowsOf, sendInOrder } from "~/server/platform/db-utils.server";

/**
 * sendInOrder (the tip's statements sent at once, bench:rewards): executed in the order
 * given, every answer back in that order, and a failure is the statement's own error with
 * the transaction rolled back, on PGlite and on PostgreSQL.
 */
const table = sql.raw(`send_in_order_${Math.random().toString(36).slice(2, 8)}`);

beforeAll(async () => {
  await db.execute(sql`create table ${table} (id serial primary key, n int not null)`);
});

afterAll(async () => {
  await db.execute(sql`drop table if exists ${table}`);
});

describe(`sendInOrder (${databaseKind})`, () => {
  it("executes the statements in the order given and answers each in that order", async () => {
    const answers = await db.transaction((tx) =>
      sendInOrder(tx, Array.from({ length: 30 }, (_, i) => sql`insert into ${table} (n) values (${i}) returning n`)),
    );
    expect(answers.map((rows) => Number((rows[0] as { n: number }).n))).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const stored = rowsOf<{ n: number }>(await db.execute(sql`select n from ${table} order by id`));
    expect(stored.map((r) => Number(r.n))).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("throws the failing statement's own error, and the transaction writes nothing", async () => {
    await db.execute(sql`delete from ${table}`);
    const failure = await db
      .transaction((tx) => sendInOrder(tx, [sql`insert into ${table} (n) values (1)`, sql`select 1 / 0`, sql`insert into ${table} (n) values (3)`]))
      .then(() => null, (error: unknown) => error);
    // division_by_zero, not the "current transaction is aborted" of the statement after it.
    expect(pgErrorCode(failure)).toBe("22012");
    expect(rowsOf(await db.execute(sql`select n from ${table}`))).toEqual([]);
  });
});
