import { WRITING_LIMITS } from "~/schemas/writing";
import { AiError } from "./ai-errors.server";
import { AI_MESSAGES } from "~/schemas/ai-messages";

export interface ParsedCharacter {
  name: string;
  personality: string;
  appearance: string;
  other: string;
}

export interface ParsedPlot {
  title: string;
  characterNames: string[];
  summary: string;
  environment: string;
}

function text(value: unknown, max: number): string {
  if (typeof value === "string") return value.trim().slice(0, max);
  if (typeof value === "number") return String(value);
  if (Array.isArray(value)) return value.map((v) => text(v, max)).filter(Boolean).join("、").slice(0, max);
  if (value && typeof value === "object") {
    return Object.entries(value)
      .map(([k, v]) => `${k}：${text(v, max)}`)
      .join("；")
      .slice(0, max);
  }
  return "";
}

function names(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === "string" ? value.split(/[、,，;；\s]+/) : [];
  return list.map((v) => text(v, WRITING_LIMITS.characterName)).filter(Boolean);
}

function pick(object: Record<string, unknown>, keys: string[]): unknown {
  for (const key of keys) if (key in object) return object[key];
  return undefined;
}

/** The JSON object in a reply: inside ``` fences if there are any, else from the first { to the last }. */
function jsonText(reply: string): string {
  const fenced = /```(?:json|JSON)?\s*([\s\S]*?)```/.exec(reply);
  const body = fenced ? fenced[1] : reply;
  const start = body.indexOf("{");
  const end = body.lastIndexOf("}");
  return start >= 0 && end > start ? body.slice(start, end + 1) : body.trim();
}

/**
 * Reads P02's answer (docs/product.md: Prompts): JSON with message "success", a 角色设定
 * list (姓名 性格 外貌 其他) and a 大纲 list (标题 出场角色 概要 环境). A reply wrapped in
 * ``` fences or with words around the JSON is accepted. Section 8's analysis messages:
 * AI返回内容为空, AI返回格式错误 (not JSON, or the lists are missing), AI分析失败 (a
 * message other than success, or nothing usable in the lists).
 */
export function parseAnalysis(reply: string): { characters: ParsedCharacter[]; plots: ParsedPlot[] } {
  if (!reply.trim()) throw new AiError(AI_MESSAGES.analysisEmpty, "empty");
  let json: unknown;
  try {
    json = JSON.parse(jsonText(reply));
  } catch {
    throw new AiError(AI_MESSAGES.analysisBadFormat, "unreadable", undefined, reply.slice(0, 200));
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) throw new AiError(AI_MESSAGES.analysisBadFormat, "unreadable");
  const object = json as Record<string, unknown>;
  if (typeof object.message === "string" && object.message.toLowerCase() !== "success") {
    throw new AiError(AI_MESSAGES.analysisFailed, "unreadable", undefined, object.message.slice(0, 200));
  }
  const rawCharacters = pick(object, ["角色设定", "角色", "characters"]);
  const rawPlots = pick(object, ["大纲", "情节大纲", "情节", "outline"]);
  if (!Array.isArray(rawCharacters) || !Array.isArray(rawPlots)) throw new AiError(AI_MESSAGES.analysisBadFormat, "unreadable");

  const characters: ParsedCharacter[] = [];
  for (const item of rawCharacters) {
    if (!item || typeof item !== "object") continue;
    const c = item as Record<string, unknown>;
    const name = text(pick(c, ["姓名", "名字", "name"]), WRITING_LIMITS.characterName);
    if (!name || characters.some((x) => x.name === name)) continue;
    characters.push({
      name,
      personality: text(pick(c, ["性格", "personality"]), WRITING_LIMITS.characterField),
      appearance: text(pick(c, ["外貌", "appearance"]), WRITING_LIMITS.characterField),
      other: text(pick(c, ["其他", "other"]), WRITING_LIMITS.characterField),
    });
  }
  const plots: ParsedPlot[] = [];
  for (const item of rawPlots) {
    if (!item || typeof item !== "object") continue;
    const p = item as Record<string, unknown>;
    const title = text(pick(p, ["标题", "title"]), WRITING_LIMITS.plotTitle);
    if (!title) continue;
    plots.push({
      title,
      characterNames: names(pick(p, ["出场角色", "角色", "characters"])),
      summary: text(pick(p, ["概要", "summary"]), WRITING_LIMITS.plotSummary),
      environment: text(pick(p, ["环境", "environment"]), WRITING_LIMITS.plotEnvironment),
    });
  }
  if (characters.length === 0 && plots.length === 0) throw new AiError(AI_MESSAGES.analysisFailed, "unreadable");
  return { characters, plots };
}
