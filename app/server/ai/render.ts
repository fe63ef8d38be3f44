/**
 * Prompt templates mark their variable parts with {|name|} (docs/product.md: Prompts). The
 * names the product fills (docs/product.md: Prompts) are below; `theme` is the name the
 * admin document uses in its example, taken as the synopsis.
 */
const PLACEHOLDERS = [
  "synopsis",
  "character-setting",
  "outline",
  "key-moment",
  "expected-word-count",
  "key-character",
  "key-stage",
  "additional-information",
  // The editor's operations on a selection (decision 130).
  "selected-text",
  "preceding-text",
  "following-text",
  // P04 continuation and P10 chapter summary (docs/decisions/127, 128).
  "work-title",
  "chapter-number",
  "plan",
  "earlier-summaries",
  "recent-summaries",
  "story-bible",
  "open-threads",
  "previous-ending",
  "chapter-title",
  "chapter-text",
  "known-entities",
  // P10's state ledger proposals (decision 248).
  "realm-ladder",
  // P03 imitation: a bounded sample of the reference text (decision 155).
  "reference-sample",
  // P04's 文风 sample and 套话 to avoid (decision 257); P11's state ledger (decision 258).
  "voice-sample",
  "avoid-cliches",
  "ledger",
] as const;

type PlaceholderName = (typeof PLACEHOLDERS)[number];
export type PromptValues = Partial<Record<PlaceholderName | "theme", string>>;

const PLACEHOLDER = /\{\|([a-zA-Z0-9_-]+)\|\}/g;

/**
 * Substitutes every placeholder in one pass over the template: a value is inserted as
 * it is and never scanned again, so text a user typed ("{|outline|}" in a character's
 * notes) cannot pull in another value. A placeholder the product does not know is left
 * as written, so an administrator sees the mistake in the output.
 */
export function renderTemplate(template: string, values: PromptValues): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    const key = (name === "theme" ? "synopsis" : name) as PlaceholderName;
    const value = values[key] ?? (name === "theme" ? values.theme : undefined);
    return value ?? whole;
  });
}

export interface CharacterForPrompt {
  id: string;
  name: string;
  personality: string;
  appearance: string;
  other: string;
}

export interface PlotForPrompt {
  id: string;
  title: string;
  summary: string;
  environment: string;
  expectedWords: number;
  additionalNotes: string;
  characterIds: string[];
}

export function describeCharacter(c: CharacterForPrompt): string {
  const lines = [`姓名：${c.name}`, `性格：${c.personality}`, `外貌：${c.appearance}`];
  if (c.other.trim()) lines.push(`其他：${c.other}`);
  return lines.join("\n");
}

/**
 * The placeholder values of a generation (P01 free writing, P03 imitation): the overall
 * setting, every character, the outline of every plot in order, and the plot to write.
 */
export function generationValues(input: {
  theme: string;
  characters: CharacterForPrompt[];
  plots: PlotForPrompt[];
  plot: PlotForPrompt;
  /** 短篇仿写's sample of the reference text (referenceSample). */
  referenceSample?: string;
}): PromptValues {
  const { theme, characters, plots, plot } = input;
  const byId = new Map(characters.map((c) => [c.id, c]));
  const cast = plot.characterIds.map((id) => byId.get(id)).filter((c): c is CharacterForPrompt => Boolean(c));
  return {
    synopsis: theme.trim(),
    "character-setting": characters.map(describeCharacter).join("\n\n"),
    outline: plots.map((p, i) => `${i + 1}. ${p.title}：${p.summary}`).join("\n"),
    "key-moment": `${plot.title}：${plot.summary}`,
    "expected-word-count": String(plot.expectedWords),
    "key-character": cast.map(describeCharacter).join("\n\n"),
    "key-stage": plot.environment,
    "additional-information": plot.additionalNotes.trim() || "无",
    "reference-sample": input.referenceSample || "无",
  };
}

/** The most characters of the reference text a 短篇仿写 prompt carries (decision 155). */
export const REFERENCE_SAMPLE_CHARS = 1500;

/**
 * The sample of the reference text P03 sends: its start, up to REFERENCE_SAMPLE_CHARS
 * characters, ended at the last sentence end in the final 200 characters when there is one
 * (then ……, to show it goes on). Empty when there is no text.
 */
export function referenceSample(text: string | null | undefined): string {
  const clean = (text ?? "").replace(/\r\n?/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
  const chars = Array.from(clean);
  if (chars.length <= REFERENCE_SAMPLE_CHARS) return clean;
  const cut = chars.slice(0, REFERENCE_SAMPLE_CHARS);
  for (let i = cut.length - 1; i >= cut.length - 200; i--) {
    if ("。！？…”」\n".includes(cut[i])) return `${cut.slice(0, i + 1).join("").trimEnd()}……`;
  }
  return `${cut.join("")}……`;
}
