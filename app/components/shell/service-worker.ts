import { useEffect } from "react";
import { sendPendingPositions } from "~/components/reader/save-progress";

/**
 * The site's service worker (public/sw.js, decision 244), registered from every page of the
 * shell, and told whose page this is: the signed-in reader's offline key, or null for a
 * visitor. Any other person's kept chapters and unsent positions are deleted from the device
 * then, so a phone passed on after 退出登录 (or signed into as someone else) shows none of them.
 */
export function useServiceWorker(offlineKey: string | null) {
  useEffect(() => {
    sendPendingPositions(offlineKey);
    const online = () => sendPendingPositions(offlineKey);
    window.addEventListener("online", online);
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker
        .register("/sw.js", { scope: "/" })
        .then(() => tellOwner(offlineKey))
        .catch(() => {
          // No worker (a private window, a refusing browser): the site works as before, without 离线阅读.
        });
    }
    return () => window.removeEventListener("online", online);
  }, [offlineKey]);
}

/**
 * Tells the active worker whose device this is; resolves once it has cleared the rest.
 * Rejects when no worker is running within 10 s (registration refused or failed).
 */
export async function tellOwner(key: string | null): Promise<void> {
  const registration = await Promise.race([
    navigator.serviceWorker.ready,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
  ]);
  const worker = registration?.active;
  if (!worker) throw new Error("no service worker");
  await new Promise<void>((done) => {
    const channel = new MessageChannel();
    const timer = setTimeout(done, 5000);
    channel.port1.onmessage = () => {
      clearTimeout(timer);
      done();
    };
    worker.postMessage({ type: "owner", key }, [channel.port2]);
  });
}
