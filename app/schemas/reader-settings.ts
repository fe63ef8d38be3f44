import { z } from "zod";
import { asSent } from "./form-fields";

/**
 * The reader's settings (docs/product.md#reading-comfort, decision 106): five font sizes,
 * three line heights, three page widths and four backgrounds. The background is the
 * site's colour theme (`data-theme` on the document, tokens in app/styles/app.css).
 */
export const FONT_SIZES = [1, 2, 3, 4, 5] as const;
export const LINE_HEIGHTS = ["compact", "normal", "loose"] as const;
export const PAGE_WIDTHS = ["narrow", "normal", "wide"] as const;
export const BACKGROUNDS = ["white", "sepia", "green", "night"] as const;
/** 滚动 or 翻页 (decision 242): paginated needs JavaScript, without it the chapter scrolls. */
export const LAYOUTS = ["scroll", "paged"] as const;
/** 屏幕常亮 while a chapter is open (Wake Lock, decision 242). */
export const KEEP_AWAKE = ["on", "off"] as const;

export type ReaderBackground = (typeof BACKGROUNDS)[number];

export interface ReaderSettings {
  fontSize: (typeof FONT_SIZES)[number];
  lineHeight: (typeof LINE_HEIGHTS)[number];
  width: (typeof PAGE_WIDTHS)[number];
  background: ReaderBackground;
  layout: (typeof LAYOUTS)[number];
  keepAwake: (typeof KEEP_AWAKE)[number];
}

export const DEFAULT_READER_SETTINGS: ReaderSettings = { fontSize: 3, lineHeight: "normal", width: "normal", background: "white", layout: "scroll", keepAwake: "on" };

export const READER_SETTINGS_MESSAGES = {
  fontSize: "字号只能是 1 到 5 档",
  lineHeight: "行距只能是紧凑、适中或宽松",
  width: "页宽只能是窄、适中或宽",
  background: "背景只能是白、米黄、护眼绿或夜间",
  layout: "翻页方式只能是滚动或翻页",
  keepAwake: "屏幕常亮只能是开或关",
  saving: "正在保存…",
  saved: "阅读设置已保存",
};

export const FONT_SIZE_LABELS: Record<ReaderSettings["fontSize"], string> = { 1: "小", 2: "较小", 3: "标准", 4: "较大", 5: "大" };
export const LINE_HEIGHT_LABELS: Record<ReaderSettings["lineHeight"], string> = { compact: "紧凑", normal: "适中", loose: "宽松" };
export const PAGE_WIDTH_LABELS: Record<ReaderSettings["width"], string> = { narrow: "窄", normal: "适中", wide: "宽" };
export const BACKGROUND_LABELS: Record<ReaderBackground, string> = { white: "白", sepia: "米黄", green: "护眼绿", night: "夜间" };
export const LAYOUT_LABELS: Record<ReaderSettings["layout"], string> = { scroll: "滚动", paged: "翻页" };
export const KEEP_AWAKE_LABELS: Record<ReaderSettings["keepAwake"], string> = { on: "开", off: "关" };

/**
 * One posted or stored settings object. The first four fields are required; 翻页方式 and
 * 屏幕常亮 (added later, decision 242) fall back to their defaults when absent, so a page
 * rendered before them still saves, but a value sent must be one of theirs.
 */
export const readerSettingsSchema = z.object({
  fontSize: z.coerce
    .number({ message: READER_SETTINGS_MESSAGES.fontSize })
    .int({ message: READER_SETTINGS_MESSAGES.fontSize })
    .min(1, { message: READER_SETTINGS_MESSAGES.fontSize })
    .max(5, { message: READER_SETTINGS_MESSAGES.fontSize })
    .transform((n) => n as ReaderSettings["fontSize"]),
  lineHeight: z.enum(LINE_HEIGHTS, { message: READER_SETTINGS_MESSAGES.lineHeight }),
  width: z.enum(PAGE_WIDTHS, { message: READER_SETTINGS_MESSAGES.width }),
  background: z.enum(BACKGROUNDS, { message: READER_SETTINGS_MESSAGES.background }),
  layout: z.enum(LAYOUTS, { message: READER_SETTINGS_MESSAGES.layout }).default("scroll"),
  keepAwake: z.enum(KEEP_AWAKE, { message: READER_SETTINGS_MESSAGES.keepAwake }).default("on"),
});

/** Stored or cookie settings, each bad or missing field falling back to its default. */
export function readerSettingsOrDefault(value: unknown): ReaderSettings {
  const object = value && typeof value === "object" ? (value as Record<string, unknown>) : {};
  const settings = { ...DEFAULT_READER_SETTINGS };
  for (const key of Object.keys(settings) as (keyof ReaderSettings)[]) {
    const one = readerSettingsSchema.shape[key].safeParse(object[key]);
    if (one.success) (settings as Record<string, unknown>)[key] = one.data;
  }
  return settings;
}

/** The document's attributes that apply the settings before the first paint. */
export function readerSettingsAttributes(settings: ReaderSettings) {
  return {
    "data-theme": settings.background === "night" ? "dark" : settings.background === "white" ? undefined : settings.background,
    "data-reader-size": String(settings.fontSize),
    "data-reader-leading": settings.lineHeight,
    "data-reader-width": settings.width,
    // Read by the chapter's scripts (paginate.tsx, wake-lock.ts); CSS lays out pages only once a script has marked the text.
    "data-reader-layout": settings.layout,
    "data-reader-awake": settings.keepAwake,
  };
}

/**
 * The settings panel's form (POST /reader-settings, decision 173): the settings as
 * sent (saveReaderSettings checks them with readerSettingsSchema and its messages) and the
 * page to go back to.
 */
export const readerSettingsFormSchema = z.object({
  fontSize: asSent,
  lineHeight: asSent,
  width: asSent,
  background: asSent,
  layout: asSent,
  keepAwake: asSent,
  back: asSent,
});
