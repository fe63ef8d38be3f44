import { and, asc, count, desc, eq, inArray, max, sql } from "drizzle-orm";
import { db, type Executor } from "~/db/client.server";
import {
  plotVersions,
  profiles,
  sessions,
  writingCharacters,
  writingPlotCharacters,
  writingPlots,
  writingProjects,
} from "~/db/schema";
import { WRITING_LIMITS, WRITING_MESSAGES, type CharacterInput, type PlotInput } from "~/schemas/writing";
import { DEFAULT_API_CONFIG_JSON } from "./config.server";
import { REFERENCE_SAMPLE_CHARS } from "./render";
import { jsonColumn, rowsOf } from "~/server/platform/db-utils.server";
import { DomainError } from "~/server/platform/errors.server";
import { generationAllowance } from "~/server/economy/ledger.server";
import { liveSession } from "~/server/identity/session.server";

/**
 * Writing projects of the AI tools (docs/product.md D7): each user's projects of each kind
 * (free writing, short-piece imitation), with their overall setting, characters, plots
 * in order, each plot's current text and versions, and the draft. Every function takes
 * the user's id and refuses anything of another user as if it did not exist.
 */
export type WritingKind = "free" | "short";
export type Project = typeof writingProjects.$inferSelect;
export type Character = typeof writingCharacters.$inferSelect;
export type Plot = typeof writingPlots.$inferSelect & { characterIds: string[] };
export type PlotVersion = typeof plotVersions.$inferSelect;

export const DEFAULT_PROJECT_NAMES: Record<WritingKind, string> = { free: "未命名作品", short: "未命名仿写" };

const isUuid = (v: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
const notFound = (message: string = WRITING_MESSAGES.projectMissing) => new DomainError(message, 404);

export async function listProjects(userId: string, kind: WritingKind) {
  return db
    .select({ id: writingProjects.id, name: writingProjects.name, updatedAt: writingProjects.updatedAt })
    .from(writingProjects)
    .where(and(eq(writingProjects.userId, userId), eq(writingProjects.kind, kind)))
    .orderBy(desc(writingProjects.updatedAt), desc(writingProjects.id));
}

export async function createProject(userId: string, kind: WritingKind, name: string): Promise<Project> {
  return db.transaction(async (tx) => {
    // Serialises a user's project creation, so the limit holds under concurrent posts.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`writing-projects:${userId}`}))`);
    const [{ n }] = await tx
      .select({ n: count() })
      .from(writingProjects)
      .where(and(eq(writingProjects.userId, userId), eq(writingProjects.kind, kind)));
    if (n >= WRITING_LIMITS.projectsPerKind) throw new DomainError(WRITING_MESSAGES.tooManyProjects, 409);
    const [project] = await tx.insert(writingProjects).values({ userId, kind, name }).returning();
    return project;
  });
}

/** The user's project (of `kind`, when given); 写作项目不存在 for anything else. */
export async function getProject(userId: string, projectId: string, kind?: WritingKind, tx: Executor = db): Promise<Project> {
  if (!isUuid(projectId)) throw notFound();
  const [project] = await tx
    .select()
    .from(writingProjects)
    .where(and(eq(writingProjects.id, projectId), eq(writingProjects.userId, userId)));
  if (!project || (kind && project.kind !== kind)) throw notFound();
  return project;
}

async function touch(tx: Executor, projectId: string) {
  await tx.update(writingProjects).set({ updatedAt: new Date() }).where(eq(writingProjects.id, projectId));
}

async function updateProject(userId: string, projectId: string, set: Partial<typeof writingProjects.$inferInsert>) {
  const rows = await db
    .update(writingProjects)
    .set({ ...set, updatedAt: new Date() })
    .where(and(eq(writingProjects.id, projectId), eq(writingProjects.userId, userId)))
    .returning({ id: writingProjects.id });
  if (rows.length === 0) throw notFound();
}

export function renameProject(userId: string, projectId: string, name: string) {
  if (!isUuid(projectId)) throw notFound();
  return updateProject(userId, projectId, { name });
}

export function saveTheme(userId: string, projectId: string, theme: string) {
  if (!isUuid(projectId)) throw notFound();
  return updateProject(userId, projectId, { theme });
}

export function saveDraft(userId: string, projectId: string, draft: string) {
  if (!isUuid(projectId)) throw notFound();
  return updateProject(userId, projectId, { draft });
}

export async function deleteProject(userId: string, projectId: string): Promise<void> {
  if (!isUuid(projectId)) throw notFound();
  const rows = await db
    .delete(writingProjects)
    .where(and(eq(writingProjects.id, projectId), eq(writingProjects.userId, userId)))
    .returning({ id: writingProjects.id });
  if (rows.length === 0) throw notFound();
}

/** @internal */
export async function listCharacters(projectId: string, tx: Executor = db): Promise<Character[]> {
  return tx
    .select()
    .from(writingCharacters)
    .where(eq(writingCharacters.projectId, projectId))
    .orderBy(asc(writingCharacters.position), asc(writingCharacters.createdAt));
}

/** @internal */
export async function listPlots(projectId: string, tx: Executor = db): Promise<Plot[]> {
  // The plot's characters in the character list's order, in the same query.
  const characterIds = sql<string[]>`coalesce((
    select array_agg(pc.character_id::text order by c.position, c.created_at)
    from ${writingPlotCharacters} pc join ${writingCharacters} c on c.id = pc.character_id
    where pc.plot_id = "writing_plots"."id"), '{}'::text[])`;
  const rows = await tx
    .select({ plot: writingPlots, characterIds })
    .from(writingPlots)
    .where(eq(writingPlots.projectId, projectId))
    .orderBy(asc(writingPlots.position), asc(writingPlots.createdAt));
  return rows.map((r) => ({ ...r.plot, characterIds: r.characterIds ?? [] }));
}

/** Everything the writing panel shows of one project. */
export async function loadWorkspace(userId: string, projectId: string, kind?: WritingKind) {
  if (!isUuid(projectId)) throw notFound();
  // All at once; the characters and plots are used only if the project is the user's.
  const [project, characters, plots] = await Promise.all([
    getProject(userId, projectId, kind),
    listCharacters(projectId),
    listPlots(projectId),
  ]);
  return { project, characters, plots };
}

async function nextPosition(tx: Executor, table: typeof writingCharacters | typeof writingPlots, projectId: string) {
  const [row] = await tx.select({ m: max(table.position) }).from(table).where(eq(table.projectId, projectId));
  return (row?.m ?? 0) + 1;
}

/** Adds a character (no id) or edits one of the project's characters. */
export async function saveCharacter(userId: string, projectId: string, input: CharacterInput): Promise<Character> {
  return db.transaction(async (tx) => {
    await getProject(userId, projectId, undefined, tx);
    await tx.execute(sql`select id from writing_projects where id = ${projectId} for update`);
    const values = { name: input.name, personality: input.personality, appearance: input.appearance, other: input.other };
    let character: Character | undefined;
    if (input.id) {
      [character] = await tx
        .update(writingCharacters)
        .set(values)
        .where(and(eq(writingCharacters.id, input.id), eq(writingCharacters.projectId, projectId)))
        .returning();
      if (!character) throw notFound(WRITING_MESSAGES.characterMissing);
    } else {
      const [{ n }] = await tx.select({ n: count() }).from(writingCharacters).where(eq(writingCharacters.projectId, projectId));
      if (n >= WRITING_LIMITS.charactersPerProject) throw new DomainError(WRITING_MESSAGES.tooManyCharacters, 409);
      [character] = await tx
        .insert(writingCharacters)
        .values({ ...values, projectId, position: await nextPosition(tx, writingCharacters, projectId) })
        .returning();
    }
    await touch(tx, projectId);
    return character;
  });
}

/** Deletes a character; the plot links go with it (docs/product.md, Rules: removed from every plot). */
export async function deleteCharacter(userId: string, projectId: string, characterId: string): Promise<void> {
  if (!isUuid(characterId)) throw notFound(WRITING_MESSAGES.characterMissing);
  await db.transaction(async (tx) => {
    await getProject(userId, projectId, undefined, tx);
    const rows = await tx
      .delete(writingCharacters)
      .where(and(eq(writingCharacters.id, characterId), eq(writingCharacters.projectId, projectId)))
      .returning({ id: writingCharacters.id });
    if (rows.length === 0) throw notFound(WRITING_MESSAGES.characterMissing);
    await touch(tx, projectId);
  });
}

async function setPlotCharacters(tx: Executor, projectId: string, plotId: string, characterIds: string[]) {
  await tx.delete(writingPlotCharacters).where(eq(writingPlotCharacters.plotId, plotId));
  if (characterIds.length === 0) return;
  const known = await tx
    .select({ id: writingCharacters.id })
    .from(writingCharacters)
    .where(and(eq(writingCharacters.projectId, projectId), inArray(writingCharacters.id, characterIds)));
  if (known.length !== characterIds.length) throw new DomainError(WRITING_MESSAGES.plotCharacterUnknown, 400, "characterIds");
  await tx.insert(writingPlotCharacters).values(characterIds.map((characterId) => ({ plotId, characterId })));
}

/** Adds a plot at the end (no id) or edits one of the project's plots. */
export async function savePlot(userId: string, projectId: string, input: PlotInput): Promise<string> {
  return db.transaction(async (tx) => {
    await getProject(userId, projectId, undefined, tx);
    await tx.execute(sql`select id from writing_projects where id = ${projectId} for update`);
    const values = {
      title: input.title,
      summary: input.summary,
      environment: input.environment,
      expectedWords: input.expectedWords,
      additionalNotes: input.additionalNotes,
      updatedAt: new Date(),
    };
    let plotId: string;
    if (input.id) {
      const rows = await tx
        .update(writingPlots)
        .set(values)
        .where(and(eq(writingPlots.id, input.id), eq(writingPlots.projectId, projectId)))
        .returning({ id: writingPlots.id });
      if (rows.length === 0) throw notFound(WRITING_MESSAGES.plotMissing);
      plotId = rows[0].id;
    } else {
      const [{ n }] = await tx.select({ n: count() }).from(writingPlots).where(eq(writingPlots.projectId, projectId));
      if (n >= WRITING_LIMITS.plotsPerProject) throw new DomainError(WRITING_MESSAGES.tooManyPlots, 409);
      const [row] = await tx
        .insert(writingPlots)
        .values({ ...values, projectId, position: await nextPosition(tx, writingPlots, projectId) })
        .returning({ id: writingPlots.id });
      plotId = row.id;
    }
    await setPlotCharacters(tx, projectId, plotId, input.characterIds);
    await touch(tx, projectId);
    return plotId;
  });
}

export async function deletePlot(userId: string, projectId: string, plotId: string): Promise<void> {
  if (!isUuid(plotId)) throw notFound(WRITING_MESSAGES.plotMissing);
  await db.transaction(async (tx) => {
    await getProject(userId, projectId, undefined, tx);
    const rows = await tx
      .delete(writingPlots)
      .where(and(eq(writingPlots.id, plotId), eq(writingPlots.projectId, projectId)))
      .returning({ id: writingPlots.id });
    if (rows.length === 0) throw notFound(WRITING_MESSAGES.plotMissing);
    await touch(tx, projectId);
  });
}

/** Puts the project's plots in the given order; ids not given keep their relative order after. */
export async function reorderPlots(userId: string, projectId: string, orderedIds: string[]): Promise<void> {
  await db.transaction(async (tx) => {
    await getProject(userId, projectId, undefined, tx);
    await tx.execute(sql`select id from writing_projects where id = ${projectId} for update`);
    const plots = await tx
      .select({ id: writingPlots.id })
      .from(writingPlots)
      .where(eq(writingPlots.projectId, projectId))
      .orderBy(asc(writingPlots.position), asc(writingPlots.createdAt));
    const known = new Set(plots.map((p) => p.id));
    const first = [...new Set(orderedIds.filter((id) => known.has(id)))];
    const order = [...first, ...plots.map((p) => p.id).filter((id) => !first.includes(id))];
    for (let i = 0; i < order.length; i++) {
      await tx.update(writingPlots).set({ position: i + 1 }).where(eq(writingPlots.id, order[i]));
    }
    await touch(tx, projectId);
  });
}

/** Moves a plot one place up or down (the form without JavaScript). */
export async function movePlot(userId: string, projectId: string, plotId: string, direction: "up" | "down"): Promise<void> {
  const plots = await listPlots((await getProject(userId, projectId)).id);
  const ids = plots.map((p) => p.id);
  const i = ids.indexOf(plotId);
  if (i < 0) throw notFound(WRITING_MESSAGES.plotMissing);
  const j = direction === "up" ? i - 1 : i + 1;
  if (j < 0 || j >= ids.length) return;
  [ids[i], ids[j]] = [ids[j], ids[i]];
  await reorderPlots(userId, projectId, ids);
}

/** One plot of the user's project, or 情节不存在. */
export async function getPlot(userId: string, projectId: string, plotId: string, tx: Executor = db) {
  if (!isUuid(plotId)) throw notFound(WRITING_MESSAGES.plotMissing);
  await getProject(userId, projectId, undefined, tx);
  const [plot] = await tx
    .select()
    .from(writingPlots)
    .where(and(eq(writingPlots.id, plotId), eq(writingPlots.projectId, projectId)));
  if (!plot) throw notFound(WRITING_MESSAGES.plotMissing);
  return plot;
}

/**
 * Saves what the author typed as the plot's text. A change is kept as a version too
 * (kind manual, no charge), so making another version current never loses it.
 */
export async function savePlotContent(userId: string, projectId: string, plotId: string, content: string): Promise<void> {
  await db.transaction(async (tx) => {
    const plot = await getPlot(userId, projectId, plotId, tx);
    if (plot.content === content) return;
    const [version] = await tx
      .insert(plotVersions)
      .values({ plotId, kind: "manual", content })
      .returning({ id: plotVersions.id });
    await tx
      .update(writingPlots)
      .set({ content, currentVersionId: version.id, updatedAt: new Date() })
      .where(eq(writingPlots.id, plotId));
    await touch(tx, projectId);
  });
}

export interface GeneratedVersion {
  content: string;
  model: string;
  tokensCharged: number;
  promptChars: number;
  outputChars: number;
  endReason: string;
  transactionId: number;
}

/**
 * Keeps a generation as a version and makes it the plot's text, inside the charge's
 * transaction. Null when the plot was deleted while it streamed.
 */
export async function saveGeneratedVersion(tx: Executor, plotId: string, version: GeneratedVersion): Promise<string | null> {
  const [exists] = await tx.select({ id: writingPlots.id }).from(writingPlots).where(eq(writingPlots.id, plotId)).for("update");
  if (!exists) return null;
  const [row] = await tx
    .insert(plotVersions)
    .values({ plotId, kind: "generation", ...version })
    .returning({ id: plotVersions.id });
  const [plot] = await tx
    .update(writingPlots)
    .set({ content: version.content, currentVersionId: row.id, updatedAt: new Date() })
    .where(eq(writingPlots.id, plotId))
    .returning({ projectId: writingPlots.projectId });
  await touch(tx, plot.projectId);
  return row.id;
}

export async function listVersions(userId: string, projectId: string, plotId: string) {
  await getPlot(userId, projectId, plotId);
  return db
    .select({
      id: plotVersions.id,
      kind: plotVersions.kind,
      model: plotVersions.model,
      tokensCharged: plotVersions.tokensCharged,
      outputChars: plotVersions.outputChars,
      endReason: plotVersions.endReason,
      operation: plotVersions.operation,
      createdAt: plotVersions.createdAt,
      length: sql<number>`char_length(${plotVersions.content})`.mapWith(Number),
    })
    .from(plotVersions)
    .where(eq(plotVersions.plotId, plotId))
    .orderBy(desc(plotVersions.createdAt), desc(plotVersions.id));
}

export async function getVersion(userId: string, projectId: string, versionId: string): Promise<PlotVersion> {
  if (!isUuid(versionId)) throw notFound(WRITING_MESSAGES.versionMissing);
  const [row] = await db
    .select({ version: plotVersions })
    .from(plotVersions)
    .innerJoin(writingPlots, eq(writingPlots.id, plotVersions.plotId))
    .innerJoin(writingProjects, eq(writingProjects.id, writingPlots.projectId))
    .where(and(eq(plotVersions.id, versionId), eq(writingProjects.id, projectId), eq(writingProjects.userId, userId)));
  if (!row) throw notFound(WRITING_MESSAGES.versionMissing);
  return row.version;
}

/** Makes a version the plot's current text. */
export async function useVersion(userId: string, projectId: string, versionId: string): Promise<string> {
  const version = await getVersion(userId, projectId, versionId);
  await db.transaction(async (tx) => {
    await tx
      .update(writingPlots)
      .set({ content: version.content, currentVersionId: version.id, updatedAt: new Date() })
      .where(eq(writingPlots.id, version.plotId));
    await touch(tx, projectId);
  });
  return version.plotId;
}

export interface AnalysedCharacter {
  name: string;
  personality: string;
  appearance: string;
  other: string;
}

export interface AnalysedPlot {
  title: string;
  characterNames: string[];
  summary: string;
  environment: string;
}

/**
 * Replaces the project's characters and plots with an analysis (short-piece imitation),
 * and records its source, inside the transaction that charges for it. Plot characters
 * are matched by name.
 */
export async function replaceWithAnalysis(
  tx: Executor,
  userId: string,
  projectId: string,
  source: { workId: number | null; title: string; text: string },
  analysis: { characters: AnalysedCharacter[]; plots: AnalysedPlot[] },
): Promise<void> {
  await getProject(userId, projectId, "short", tx);
  await tx.delete(writingPlots).where(eq(writingPlots.projectId, projectId));
  await tx.delete(writingCharacters).where(eq(writingCharacters.projectId, projectId));
  const characters = analysis.characters.slice(0, WRITING_LIMITS.charactersPerProject);
  const inserted = characters.length
    ? await tx
        .insert(writingCharacters)
        .values(characters.map((c, i) => ({ ...c, projectId, position: i + 1 })))
        .returning({ id: writingCharacters.id, name: writingCharacters.name })
    : [];
  const idByName = new Map(inserted.map((c) => [c.name, c.id]));
  const plots = analysis.plots.slice(0, WRITING_LIMITS.plotsPerProject);
  for (let i = 0; i < plots.length; i++) {
    const p = plots[i];
    const [row] = await tx
      .insert(writingPlots)
      .values({
        projectId,
        title: p.title,
        summary: p.summary,
        environment: p.environment,
        expectedWords: WRITING_LIMITS.expectedWordsDefault,
        position: i + 1,
      })
      .returning({ id: writingPlots.id });
    const ids = [...new Set(p.characterNames.map((n) => idByName.get(n)).filter((id): id is string => Boolean(id)))];
    if (ids.length) await tx.insert(writingPlotCharacters).values(ids.map((characterId) => ({ plotId: row.id, characterId })));
  }
  await tx
    .update(writingProjects)
    .set({
      sourceWorkId: source.workId,
      sourceTitle: source.title,
      sourceText: source.workId ? null : source.text,
      analyzedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(eq(writingProjects.id, projectId));
}

/**
 * What the page had on screen when 生成 was pressed: the overall setting and the plot's
 * text are saved first (only if changed), so the generation uses them and the old text
 * is kept as a version.
 */
export async function applyEditsBeforeGeneration(
  userId: string,
  projectId: string,
  plotId: string | undefined,
  edits: { theme?: string; content?: string },
): Promise<void> {
  if (edits.theme === undefined && edits.content === undefined) return;
  if (!isUuid(projectId)) throw notFound();
  const plot = plotId && isUuid(plotId) ? plotId : null;
  // One read of what is saved; a write only for what changed.
  const [row] = await db
    .select({
      theme: writingProjects.theme,
      content: plot
        ? sql<string | null>`(select pl.content from writing_plots pl where pl.id = ${plot} and pl.project_id = "writing_projects"."id")`
        : sql<string | null>`null`,
    })
    .from(writingProjects)
    .where(and(eq(writingProjects.id, projectId), eq(writingProjects.userId, userId)));
  if (!row) throw notFound();
  if (edits.theme !== undefined && edits.theme !== row.theme) await saveTheme(userId, projectId, edits.theme);
  if (edits.content !== undefined && plot && row.content !== null && edits.content !== row.content) {
    await savePlotContent(userId, projectId, plot, edits.content);
  }
}

export interface GenerationContext {
  /** The project's owner: the caller must check it when the query did not (see below). */
  ownerId: string;
  kind: WritingKind;
  theme: string;
  characters: { id: string; name: string; personality: string; appearance: string; other: string }[];
  plots: {
    id: string;
    title: string;
    summary: string;
    environment: string;
    expectedWords: number;
    additionalNotes: string;
    characterIds: string[];
  }[];
  /**
   * 短篇仿写: the start of the reference text (pasted, or the analysed work's chapter while
   * it is not taken down), at most REFERENCE_SAMPLE_CHARS + 200 characters; the prompt sends
   * a bounded sample of it (decision 155). Null for free writing or without a source.
   */
  referenceText: string | null;
  /**
   * Whether the text the page showed (`readGenerationContext`'s `content`) differs from the
   * plot's saved text; null when the project has no such plot or no text was given.
   */
  contentChanged: boolean | null;
  prompts: Record<string, { system: string; user: string }>;
  /**
   * The site's default API configuration (site_configs default_api_provider) and the
   * api_configs row it names; null when the setting does not exist.
   */
  apiConfig: { id: string; config: { provider: string; endpoint: string; apiKey: string; model: string } | null } | null;
}

/** What the session lookup gives a generation: who, and as a hint what it may take (balance, daily cap). */
export interface SessionTokens {
  id: string;
  tokens: number;
}

/**
 * Everything a generation's prompt and provider are made of, in one query (it runs
 * before the first byte of every generation): the project's setting, its characters
 * and plots in order with each plot's characters, whether `content` differs from the
 * saved text of `plotId` (compared in the database: the text does not travel back), the
 * P01/P03 templates and the default API configuration.
 *
 * With `userId` the project must be that user's (写作项目不存在 otherwise).
 */
async function readGenerationContext(
  projectId: string,
  options: { plotId?: string; content?: string; userId?: string } = {},
): Promise<GenerationContext> {
  const { context } = await readContextRow(projectId, options);
  if (!context) throw notFound();
  return context;
}

/**
 * The same, with the session (/api/generate): one statement looks the session up
 * (`sessionUser`, null for no live session) and reads the project by its id alone. The
 * caller must refuse without a session first (请先登录 comes before every other message),
 * then compare `ownerId` with the session's user before using anything
 * (`loadGenerationContext` below does that). `context` is null when there is no such
 * project.
 */
export async function readSessionGenerationContext(
  sessionId: string,
  projectId: string,
  options: { plotId?: string; content?: string } = {},
): Promise<{ sessionUser: SessionTokens | null; context: GenerationContext | null }> {
  return readContextRow(projectId, { ...options, sessionId });
}

async function readContextRow(
  projectId: string,
  options: { plotId?: string; content?: string; userId?: string; sessionId?: string },
): Promise<{ sessionUser: SessionTokens | null; context: GenerationContext | null }> {
  const { plotId, content, userId, sessionId } = options;
  const plot = plotId && isUuid(plotId) ? plotId : null;
  // Not a project id: no project, but the session is still looked up.
  const project = isUuid(projectId) ? projectId : null;
  if (!project && sessionId === undefined) return { sessionUser: null, context: null };
  const contextQuery = sql`
      select p.user_id as owner_id, p.kind, p.theme,
        coalesce((
          select json_agg(json_build_object('id', c.id, 'name', c.name, 'personality', c.personality,
                   'appearance', c.appearance, 'other', c.other) order by c.position, c.created_at)
          from writing_characters c where c.project_id = p.id), '[]'::json) as characters,
        coalesce((
          select json_agg(json_build_object('id', pl.id, 'title', pl.title, 'summary', pl.summary,
                   'environment', pl.environment, 'expectedWords', pl.expected_words,
                   'additionalNotes', pl.additional_notes,
                   'characterIds', coalesce((
                     select json_agg(pc.character_id order by c2.position, c2.created_at)
                     from writing_plot_characters pc join writing_characters c2 on c2.id = pc.character_id
                     where pc.plot_id = pl.id), '[]'::json))
                 order by pl.position, pl.created_at)
          from writing_plots pl where pl.project_id = p.id), '[]'::json) as plots,
        ${
          plot && content !== undefined
            ? sql`(select pl.content is distinct from ${content} from writing_plots pl where pl.id = ${plot} and pl.project_id = p.id)`
            : sql`null::boolean`
        } as content_changed,
        coalesce((
          select json_object_agg(pr.code, json_build_object('system', pr.system_content, 'user', pr.user_content))
          from prompts pr where pr.code in ('P01', 'P03')), '{}'::json) as prompts,
        case when p.kind = 'short' then left(coalesce(p.source_text, (
          select c.content from chapters c join works sw on sw.id = c.work_id
          where sw.id = p.source_work_id and sw.taken_down_at is null and c.state = 'published' and c.kind = 'chapter'
          order by c.position, c.id limit 1)), ${REFERENCE_SAMPLE_CHARS + 200}) end as reference_text,
        ${DEFAULT_API_CONFIG_JSON} as api_config
      from writing_projects p
      where p.id = ${project}${userId ? sql` and p.user_id = ${userId}` : sql``}`;
  type Row = {
    session_user?: unknown;
    owner_id: string | null;
    kind: WritingKind;
    theme: string;
    characters: unknown;
    plots: unknown;
    content_changed: boolean | null;
    prompts: unknown;
    reference_text: string | null;
    api_config: unknown;
  };
  const rows = rowsOf<Row>(
    await db.execute(
      sessionId === undefined
        ? contextQuery
        : // One row whether or not the project exists, so the session always comes back.
          sql`
      select (select json_build_object('id', ${profiles.id}, 'tokens', ${generationAllowance})
              from ${sessions} join ${profiles} on ${profiles.id} = ${sessions.userId}
              where ${liveSession(sessionId)}) as session_user, ctx.*
      from (select 1) as one left join lateral (${contextQuery}) as ctx on true`,
    ),
  );
  const row = rows[0];
  const sessionUser = row?.session_user ? jsonColumn<{ id: string; tokens: number | string }>(row.session_user) : null;
  return {
    sessionUser: sessionUser ? { id: sessionUser.id, tokens: Number(sessionUser.tokens) } : null,
    context:
      row && row.owner_id
        ? {
            ownerId: row.owner_id,
            kind: row.kind,
            theme: row.theme,
            characters: jsonColumn(row.characters),
            plots: jsonColumn(row.plots),
            contentChanged: row.content_changed,
            prompts: jsonColumn(row.prompts),
            referenceText: row.reference_text ?? null,
            apiConfig: jsonColumn(row.api_config),
          }
        : null,
  };
}

/**
 * The generation context of the user's own project (写作项目不存在 for anything else, or
 * for a project of another kind than `kind`). `read` is what `readSessionGenerationContext`
 * read before the user was known (null: no such project); it is checked the same.
 */
export async function loadGenerationContext(
  userId: string,
  projectId: string,
  options: { kind?: WritingKind; plotId?: string; content?: string; read?: GenerationContext | null } = {},
): Promise<GenerationContext> {
  const { read, plotId, content } = options;
  const context = read === undefined ? await readGenerationContext(projectId, { plotId, content, userId }) : read;
  if (!context || context.ownerId !== userId || (options.kind && context.kind !== options.kind)) throw notFound();
  return context;
}

/**
 * `applyEditsBeforeGeneration` on a context already read with the same `content` (no
 * read of its own): saves what changed and returns the context as the generation must
 * see it.
 */
export async function applyEditsToContext(
  userId: string,
  projectId: string,
  plotId: string | undefined,
  context: GenerationContext,
  edits: { theme?: string; content?: string },
): Promise<GenerationContext> {
  let result = context;
  if (edits.theme !== undefined && edits.theme !== context.theme) {
    await saveTheme(userId, projectId, edits.theme);
    result = { ...result, theme: edits.theme };
  }
  const plot = plotId && isUuid(plotId) ? plotId : null;
  if (edits.content !== undefined && plot && context.contentChanged) {
    await savePlotContent(userId, projectId, plot, edits.content);
    result = { ...result, contentChanged: false };
  }
  return result;
}
