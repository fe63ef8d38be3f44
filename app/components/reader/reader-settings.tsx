import { useEffect, useRef, useState } from "react";
import { useRouteLoaderData } from "react-router";
import { BACKGROUND_LABELS, BACKGROUNDS, DEFAULT_READER_SETTINGS, FONT_SIZE_LABELS, FONT_SIZES, KEEP_AWAKE, KEEP_AWAKE_LABELS, LAYOUT_LABELS, OFFLINE_CHAPTERS, OFFLINE_CHAPTERS_LABELS, LAYOUTS, LINE_HEIGHT_LABELS, LINE_HEIGHTS, PAGE_WIDTH_LABELS, PAGE_WIDTHS, READER_SETTINGS_MESSAGES, readerSettingsAttributes, type ReaderSettings } from "~/schemas/reader-settings-rules";

/** The settings the page was rendered with (the shell's loader, decision 106). */
function useRenderedReaderSettings(): ReaderSettings {
  const shell = useRouteLoaderData("routes/shell/layout") as { reader?: ReaderSettings } | undefined;
  return shell?.reader ?? DEFAULT_READER_SETTINGS;
}

/** Puts settings on the document at once, as the server renders them (app/root.tsx). */
function applyToDocument(settings: ReaderSettings) {
  const root = document.documentElement;
  for (const [name, value] of Object.entries(readerSettingsAttributes(settings))) {
    if (value === undefined) root.removeAttribute(name);
    else root.setAttribute(name, value);
  }
}

type SaveState = { kind: "idle" } | { kind: "saving" } | { kind: "saved" } | { kind: "error"; message: string };

/**
 * The chapter's reading settings: a 夜间/日间 switch and a 阅读设置 panel. The panel is a plain
 * form posting to /reader-settings (it works without JavaScript, `<details>` opens it);
 * with JavaScript each change applies at once and is saved in the background, on the
 * profile for a signed-in reader and in a cookie for a visitor.
 */
export function ReaderSettingsControls({ back, children }: { back: string; children?: React.ReactNode }) {
  const rendered = useRenderedReaderSettings();
  const [settings, setSettings] = useState(rendered);
  const [enhanced, setEnhanced] = useState(false);
  // 屏幕常亮 needs the Wake Lock API (decision 242): known only in the browser.
  const [noWakeLock, setNoWakeLock] = useState(false);
  useEffect(() => setNoWakeLock(!("wakeLock" in navigator)), []);
  const [save, setSave] = useState<SaveState>({ kind: "idle" });
  useEffect(() => setEnhanced(true), []);

  // One save in flight at a time, then the newest choice: saves sent side by side could
  // reach the database out of order and leave an older choice saved.
  const latest = useRef(rendered);
  const unsaved = useRef<ReaderSettings | null>(null);
  const saving = useRef(false);
  const sendNext = () => {
    const next = unsaved.current;
    if (!next || saving.current) return;
    unsaved.current = null;
    saving.current = true;
    const body = new URLSearchParams({
      fontSize: String(next.fontSize),
      lineHeight: next.lineHeight,
      width: next.width,
      background: next.background,
      layout: next.layout,
      keepAwake: next.keepAwake,
      offlineChapters: String(next.offlineChapters),
    });
    fetch("/reader-settings", { method: "POST", body, headers: { Accept: "application/json" } })
      .then(async (response) => {
        if (!response.ok) {
          const answer = (await response.json().catch(() => null)) as { error?: string } | null;
          return setSave({ kind: "error", message: answer?.error ?? "保存失败，请重试" });
        }
        if (!unsaved.current) setSave({ kind: "saved" });
      })
      .catch(() => setSave({ kind: "error", message: "保存失败，请检查网络后重试" }))
      .finally(() => {
        saving.current = false;
        sendNext();
      });
  };
  const change = (patch: Partial<ReaderSettings>) => {
    const next = { ...latest.current, ...patch };
    latest.current = next;
    setSettings(next);
    applyToDocument(next);
    unsaved.current = next;
    // Until the newest choice is saved the status says so, never an earlier save's 已保存.
    setSave({ kind: "saving" });
    sendNext();
  };

  const night = settings.background === "night";
  const radios = <K extends keyof ReaderSettings>(
    key: K,
    legend: string,
    values: readonly ReaderSettings[K][],
    labels: Record<string, string>,
    note?: string,
  ) => (
    <fieldset className="reader-settings-group">
      <legend>
        {legend}
        {note ? <span className="reader-settings-note">{note}</span> : null}
      </legend>
      {values.map((value) => (
        <label key={String(value)} className="reader-settings-choice">
          <input
            type="radio"
            name={key}
            value={String(value)}
            checked={settings[key] === value}
            onChange={() => change({ [key]: value })}
          />
          <span>{labels[String(value)]}</span>
        </label>
      ))}
    </fieldset>
  );

  return (
    <div className="reader-settings-bar">
      {children}
      {enhanced ? (
        <button
          type="button"
          className="btn btn-small theme-toggle"
          aria-pressed={night}
          onClick={() => change({ background: night ? "white" : "night" })}
        >
          {night ? "☀ 日间模式" : "☾ 夜间模式"}
        </button>
      ) : null}
      <details className="reader-settings">
        <summary className="btn btn-small">阅读设置</summary>
        <form method="post" action="/reader-settings" className="reader-settings-panel" aria-label="阅读设置">
          <input type="hidden" name="back" value={back} />
          {radios("fontSize", "字号", FONT_SIZES, FONT_SIZE_LABELS)}
          {radios("lineHeight", "行距", LINE_HEIGHTS, LINE_HEIGHT_LABELS)}
          {radios("width", "页宽", PAGE_WIDTHS, PAGE_WIDTH_LABELS)}
          {radios("background", "背景", BACKGROUNDS, BACKGROUND_LABELS)}
          {radios("layout", "翻页方式", LAYOUTS, LAYOUT_LABELS)}
          {radios("keepAwake", "屏幕常亮", KEEP_AWAKE, KEEP_AWAKE_LABELS, noWakeLock ? "此浏览器不支持" : undefined)}
          {radios("offlineChapters", "离线阅读章数", OFFLINE_CHAPTERS, OFFLINE_CHAPTERS_LABELS)}
          {enhanced ? (
            save.kind === "error" ? (
              <p role="alert" className="field-error">
                {save.message}
              </p>
            ) : (
              <p role="status" className="hint">
                {save.kind === "saved" ? READER_SETTINGS_MESSAGES.saved : save.kind === "saving" ? READER_SETTINGS_MESSAGES.saving : ""}
              </p>
            )
          ) : (
            <button type="submit" className="btn btn-primary btn-small">
              保存
            </button>
          )}
        </form>
      </details>
    </div>
  );
}
