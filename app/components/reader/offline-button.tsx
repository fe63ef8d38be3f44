import { useEffect, useState } from "react";
import { keepForOffline, keptChapters, offlineSupported, type KeepResult } from "./offline-reading";

type State = { kind: "unknown" } | { kind: "unsupported" } | { kind: "ready"; kept: number[] } | { kind: "saving" } | { kind: "done"; result: KeepResult };

function keptText(kept: number[]): string {
  if (kept.length === 0) return "";
  return kept.length === 1 ? `本机已保存第 ${kept[0]} 章` : `本机已保存第 ${kept[0]}–${kept.at(-1)} 章中的 ${kept.length} 章`;
}

/**
 * 离线阅读 (decision 244): keeps the next chapters the reader may read on this device (their
 * 离线阅读章数 setting), from `from` or, on the work page, from where they are. Needs
 * JavaScript and a service worker: without them the button says so and does nothing.
 */
export function OfflineButton({ workId, from }: { workId: number; from: number | null }) {
  const [state, setState] = useState<State>({ kind: "unknown" });
  useEffect(() => {
    if (!offlineSupported()) {
      setState({ kind: "unsupported" });
      return;
    }
    let live = true;
    keptChapters(workId).then(
      (kept) => live && setState({ kind: "ready", kept }),
      () => live && setState({ kind: "ready", kept: [] }),
    );
    return () => {
      live = false;
    };
  }, [workId]);

  const keep = async () => {
    setState({ kind: "saving" });
    setState({ kind: "done", result: await keepForOffline(workId, from) });
  };

  // Rendered by the server and before hydration: the feature needs the page's script.
  if (state.kind === "unknown") {
    return (
      <span className="offline-reading">
        <button type="button" className="btn" disabled aria-describedby={`offline-note-${workId}`}>
          离线阅读
        </button>
        <span id={`offline-note-${workId}`} className="hint">
          需要启用 JavaScript
        </span>
      </span>
    );
  }
  if (state.kind === "unsupported") {
    return (
      <span className="offline-reading">
        <button type="button" className="btn" disabled>
          离线阅读
        </button>
        <span className="hint">此浏览器不支持离线阅读</span>
      </span>
    );
  }
  const result = state.kind === "done" ? state.result : null;
  return (
    <span className="offline-reading">
      <button type="button" className="btn" onClick={() => void keep()} disabled={state.kind === "saving"}>
        {state.kind === "saving" ? "正在保存…" : "离线阅读"}
      </button>
      <span role="status" className={result && !result.ok ? "field-error" : "hint"}>
        {state.kind === "ready"
          ? keptText(state.kept)
          : result?.ok
            ? `已保存 ${result.kept} 章到本机，断网也能读${result.locked > 0 ? `（${result.locked} 章未购买，未保存）` : ""}`
            : result
              ? result.error
              : ""}
      </span>
    </span>
  );
}
