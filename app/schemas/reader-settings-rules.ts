// The reader's settings, their labels, messages and the document attributes that apply
// them, without zod: every page's root ships this (docs/decisions/243); reader-settings.ts
// validates with them.

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
/** 离线章数: how many chapters 离线阅读 keeps on the device (decision 244). */
export const OFFLINE_CHAPTERS = [5, 10, 20] as const;

export type ReaderBackground = (typeof BACKGROUNDS)[number];

export interface ReaderSettings {
  fontSize: (typeof FONT_SIZES)[number];
  lineHeight: (typeof LINE_HEIGHTS)[number];
  width: (typeof PAGE_WIDTHS)[number];
  background: ReaderBackground;
  layout: (typeof LAYOUTS)[number];
  keepAwake: (typeof KEEP_AWAKE)[number];
  offlineChapters: (typeof OFFLINE_CHAPTERS)[number];
}

export const DEFAULT_READER_SETTINGS: ReaderSettings = { fontSize: 3, lineHeight: "normal", width: "normal", background: "white", layout: "scroll", keepAwake: "on", offlineChapters: 10 };

export const READER_SETTINGS_MESSAGES = {
  fontSize: "字号只能是 1 到 5 档",
  lineHeight: "行距只能是紧凑、适中或宽松",
  width: "页宽只能是窄、适中或宽",
  background: "背景只能是白、米黄、护眼绿或夜间",
  layout: "翻页方式只能是滚动或翻页",
  keepAwake: "屏幕常亮只能是开或关",
  offlineChapters: "离线章数只能是 5、10 或 20 章",
  saving: "正在保存…",
  saved: "阅读设置已保存",
};

export const FONT_SIZE_LABELS: Record<ReaderSettings["fontSize"], string> = { 1: "小", 2: "较小", 3: "标准", 4: "较大", 5: "大" };
export const LINE_HEIGHT_LABELS: Record<ReaderSettings["lineHeight"], string> = { compact: "紧凑", normal: "适中", loose: "宽松" };
export const PAGE_WIDTH_LABELS: Record<ReaderSettings["width"], string> = { narrow: "窄", normal: "适中", wide: "宽" };
export const BACKGROUND_LABELS: Record<ReaderBackground, string> = { white: "白", sepia: "米黄", green: "护眼绿", night: "夜间" };
export const LAYOUT_LABELS: Record<ReaderSettings["layout"], string> = { scroll: "滚动", paged: "翻页" };
export const KEEP_AWAKE_LABELS: Record<ReaderSettings["keepAwake"], string> = { on: "开", off: "关" };
export const OFFLINE_CHAPTERS_LABELS: Record<ReaderSettings["offlineChapters"], string> = { 5: "5 章", 10: "10 章", 20: "20 章" };

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
