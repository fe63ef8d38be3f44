import { useEffect } from "react";
import { useRootSetting } from "./root-setting";

/**
 * 屏幕常亮 (decision 242): while a chapter is open and the page is visible, the screen is kept
 * awake with the Wake Lock API, unless the reader turned it off in 阅读设置. The browser
 * drops the lock when the page is hidden; it is released here too, and asked for again when
 * the page is shown. A browser without the API, or one that refuses (battery saver, no user
 * activation yet), reads as before: nothing is shown and nothing fails.
 */
export function useWakeLock() {
  const setting = useRootSetting("data-reader-awake");
  const wanted = setting !== null && setting !== "off";
  useEffect(() => {
    if (!wanted || !("wakeLock" in navigator) || !navigator.wakeLock) return;
    const wakeLock = navigator.wakeLock;
    let lock: WakeLockSentinel | null = null;
    let asking = false;
    let done = false;
    const release = () => {
      const held = lock;
      lock = null;
      held?.release().catch(() => {
        // already released by the browser
      });
    };
    const acquire = async () => {
      if (done || lock || asking || document.visibilityState !== "visible") return;
      asking = true;
      try {
        const got = await wakeLock.request("screen");
        if (done || document.visibilityState !== "visible") {
          void got.release().catch(() => {});
          return;
        }
        lock = got;
        got.addEventListener("release", () => {
          if (lock === got) lock = null;
        });
      } catch {
        // refused: the screen dims as usual
      } finally {
        asking = false;
      }
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") void acquire();
      else release();
    };
    void acquire();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      done = true;
      document.removeEventListener("visibilitychange", onVisibility);
      release();
    };
  }, [wanted]);
}
