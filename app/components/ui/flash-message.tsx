import { useEffect, useState } from "react";
import { useLocation } from "react-router";

export interface FlashNoticeData {
  kind: "success" | "error";
  text: string;
}

/**
 * The one-time notice a redirect brought (兑换成功..., 昵称已更新). The loader hands it over
 * once; it stays on screen while the page's data is reloaded in place (a live update
 * right after the change it reports) and goes when the user navigates on.
 */
export function FlashMessage({ notice }: { notice: FlashNoticeData | null }) {
  const location = useLocation();
  const [kept, setKept] = useState<{ key: string; notice: FlashNoticeData } | null>(null);
  useEffect(() => {
    if (notice) setKept({ key: location.key, notice });
  }, [notice, location.key]);
  const shown = notice ?? (kept && kept.key === location.key ? kept.notice : null);
  if (!shown) return null;
  return (
    <p className={`notice notice-${shown.kind}`} role={shown.kind === "error" ? "alert" : "status"}>
      {shown.text}
    </p>
  );
}
