import { z } from "zod";
import { asSent } from "./form-fields";
import { LINE_HEIGHTS, PAGE_WIDTHS, BACKGROUNDS, LAYOUTS, KEEP_AWAKE, OFFLINE_CHAPTERS, type ReaderSettings, DEFAULT_READER_SETTINGS, READER_SETTINGS_MESSAGES } from "./reader-settings-rules";

/**
 * One posted or stored settings object. The first four fields are required; 翻页方式 and
 * 屏幕常亮 (added later, decision 242) and 离线章数 (decision 244) fall back to their defaults when absent, so a page
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
  // 离线章数 (decision 244): added like the two above, without a migration.
  offlineChapters: z.coerce
    .number({ message: READER_SETTINGS_MESSAGES.offlineChapters })
    .refine((n) => (OFFLINE_CHAPTERS as readonly number[]).includes(n), { message: READER_SETTINGS_MESSAGES.offlineChapters })
    .transform((n) => n as ReaderSettings["offlineChapters"])
    .default(10),
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
  offlineChapters: asSent,
  back: asSent,
});
