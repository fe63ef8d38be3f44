import { useEffect, useRef, useState } from "react";
import { FRAME_DATA, FRAME_ERROR, FRAME_PROGRESS } from "~/utils/export-frames";
import { saveBlob } from "./download-link";
import { Notice } from "./ui";

interface Progress {
  label: string;
  detail: string;
  percent: number;
}

/**
 * Reads the framed export response (see databaseExportFrames on the server): progress
 * frames move the bar, data frames are the zip's bytes, an error frame ends it.
 */
async function readFrames(
  body: ReadableStream<Uint8Array>,
  onProgress: (p: Progress) => void,
): Promise<{ parts: Uint8Array[]; error: string | null }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts: Uint8Array[] = [];
  let buffer = new Uint8Array(0);
  let error: string | null = null;
  const append = (chunk: Uint8Array) => {
    const next = new Uint8Array(buffer.byteLength + chunk.byteLength);
    next.set(buffer, 0);
    next.set(chunk, buffer.byteLength);
    buffer = next;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (value) append(value);
    let offset = 0;
    while (buffer.byteLength - offset >= 5) {
      const type = buffer[offset];
      const length = new DataView(buffer.buffer, buffer.byteOffset + offset + 1, 4).getUint32(0);
      if (buffer.byteLength - offset - 5 < length) break;
      const payload = buffer.slice(offset + 5, offset + 5 + length);
      offset += 5 + length;
      if (type === FRAME_DATA) parts.push(payload);
      else if (type === FRAME_PROGRESS) onProgress(JSON.parse(decoder.decode(payload)) as Progress);
      else if (type === FRAME_ERROR) error = (JSON.parse(decoder.decode(payload)) as { message?: string }).message ?? "导出失败，请重试";
    }
    buffer = buffer.slice(offset);
    if (done) break;
  }
  if (!error && buffer.byteLength > 0) error = "导出失败，请重试";
  return { parts, error };
}

/**
 * docs/product.md: Back office: one export button, a progress bar with stage, detail and percentage, and
 * an error box. Without JavaScript the button is a plain link to /exports/database.zip.
 */
export function DatabaseExport() {
  const [progress, setProgress] = useState<Progress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const clearTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => {
    clearTimeout(clearTimer.current);
    abort.current?.abort();
  }, []);

  async function run() {
    clearTimeout(clearTimer.current);
    setError(null);
    setRunning(true);
    setProgress({ label: "准备导出", detail: "正在连接服务器", percent: 0 });
    abort.current = new AbortController();
    try {
      const response = await fetch("/exports/database/progress", { credentials: "same-origin", signal: abort.current.signal });
      if (!response.ok || !response.body) {
        const text = (await response.text()).trim();
        throw new Error(text && text.length < 200 ? text : "导出失败，请重试");
      }
      const { parts, error: failure } = await readFrames(response.body, setProgress);
      if (failure) throw new Error(failure);
      saveBlob(new Blob(parts as BlobPart[], { type: "application/zip" }), "database.zip");
      setProgress({ label: "导出完成", detail: "database.zip 已开始下载", percent: 100 });
      // docs/product.md: States and actions: the progress is cleared 2 seconds after the end.
      clearTimer.current = setTimeout(() => setProgress(null), 2000);
    } catch (e) {
      setProgress(null);
      setError(e instanceof Error && e.message ? e.message : "导出失败，请重试");
    } finally {
      setRunning(false);
    }
  }

  return (
    <div className="admin-card">
      <Notice kind="error">
        导出过程中请勿关闭或刷新此页面。导出文件包含全部数据（含用户邮箱、密码哈希与配置密钥），请妥善保管。
      </Notice>
      {error ? (
        <Notice kind="error" testId="export-error">
          {error}
        </Notice>
      ) : null}
      <a
        className="btn btn-primary"
        href="/exports/database.zip"
        aria-disabled={running}
        onClick={(event) => {
          event.preventDefault();
          if (!running) void run();
        }}
      >
        {running ? "导出中..." : "导出数据库"}
      </a>
      {progress ? (
        <div className="admin-progress" data-testid="export-progress">
          <div className="admin-progress-head">
            <span>{progress.label}</span>
            <span>{progress.percent}%</span>
          </div>
          {/* No style prop: the policy refuses style attributes (docs/decisions/156). */}
          <progress className="admin-progress-track" max={100} value={progress.percent} aria-label={progress.label} />
          <div className="hint">{progress.detail}</div>
        </div>
      ) : null}
    </div>
  );
}
