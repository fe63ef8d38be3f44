import { createParser } from "eventsource-parser";
import { asc, eq } from "drizzle-orm";
import { db } from "~/db/client.server";
import { profiles, tokenTransactions } from "~/db/schema";
import { createUser, sessionCookieFor } from "../fixtures/accounts";

/** Shared by the generation and analysis tests: users with tokens, projects, the ledger. */

export async function setTokens(userId: string, tokens: number) {
  await db.update(profiles).set({ tokens }).where(eq(profiles.id, userId));
}

export async function tokensOf(userId: string): Promise<number> {
  const [row] = await db.select({ tokens: profiles.tokens }).from(profiles).where(eq(profiles.id, userId));
  return Number(row.tokens);
}

async function tokenRows(userId: string) {
  return db.select().from(tokenTransactions).where(eq(tokenTransactions.userId, userId)).orderBy(asc(tokenTransactions.id));
}

/** The generation and refund rows only (registration writes a grant row too). */
export async function aiRows(userId: string) {
  return (await tokenRows(userId)).filter((r) => r.type === "generation" || r.type === "refund");
}

export async function aiRowsSum(userId: string): Promise<number> {
  return (await aiRows(userId)).reduce((sum, r) => sum + Number(r.amount), 0);
}

export async function writer(tokens = 100_000) {
  const user = await createUser();
  await setTokens(user.id, tokens);
  return { id: user.id, cookie: await sessionCookieFor(user.id) };
}

/**
 * A free-writing project ready to generate: overall setting, one character, one plot
 * with that character. Returns the ids.
 */
export async function readyProject(userId: string, kind: "free" | "short" = "free") {
  const writing = await import("~/server/ai/writing-projects.server");
  const project = await writing.createProject(userId, kind, "测试项目");
  await writing.saveTheme(userId, project.id, "民国时期的江南小镇，一段错过的感情。");
  const character = await writing.saveCharacter(userId, project.id, {
    name: "林晚",
    personality: "倔强",
    appearance: "清瘦",
    other: "",
  });
  const plotId = await writing.savePlot(userId, project.id, {
    title: "雨夜来信",
    summary: "林晚收到一封没有署名的信。",
    environment: "梅雨季的夜晚",
    expectedWords: 1000,
    characterIds: [character.id],
    additionalNotes: "",
  });
  return { projectId: project.id, plotId, characterId: character.id };
}

export function generateRequest(
  cookie: string | null,
  fields: Record<string, string>,
  options: { origin?: string; signal?: AbortSignal } = {},
): Request {
  const headers: Record<string, string> = { Origin: options.origin ?? "http://localhost" };
  if (cookie) headers.Cookie = cookie;
  return new Request("http://localhost/api/generate", {
    method: "POST",
    headers,
    body: new URLSearchParams(fields),
    signal: options.signal,
  });
}

export interface SseEvent {
  event: string;
  data: unknown;
}

/** Reads a whole SSE response into its events (data parsed as JSON). */
export async function readEvents(response: Response, onEvent?: (e: SseEvent) => void): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => {
      const parsed = { event: e.event ?? "message", data: JSON.parse(e.data) as unknown };
      events.push(parsed);
      onEvent?.(parsed);
    },
  });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  } catch {
    // aborted by the test
  }
  return events;
}

export function textOf(events: SseEvent[]): string {
  return events
    .filter((e) => e.event === "text")
    .map((e) => e.data as string)
    .join("");
}
