import { useEffect, useRef } from "react";
import { useBlocker } from "react-router";

const LEAVE_WARNING = "你有尚未保存的内容，确定要离开吗？";

/**
 * Asks before leaving a form with text typed: the browser's own dialog for a reload, a
 * closed tab or another site (beforeunload), and a confirm for a link to another page of
 * the site (React Router's useBlocker). Spread the handler on the <Form>: typing marks it
 * changed. The form's own submission posts to its page's URL and its redirect is not a
 * new navigation, so neither is ever blocked; after a refused submission the text is
 * still unsaved, and the warning stays.
 */
export function useLeaveWarning(
  /**
   * For an editor that saves by itself (the studio's chapter editor, decision 095):
   * whether text is still unsaved now. Without it, any typing counts until the page goes.
   */
  unsaved?: () => boolean,
) {
  const changed = useRef(false);
  const isUnsaved = useRef(unsaved);
  isUnsaved.current = unsaved;
  const pending = () => (isUnsaved.current ? isUnsaved.current() : changed.current);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      pending() && (currentLocation.pathname !== nextLocation.pathname || currentLocation.search !== nextLocation.search),
  );

  useEffect(() => {
    if (blocker.state !== "blocked") return;
    if (window.confirm(LEAVE_WARNING)) {
      changed.current = false;
      isUnsaved.current = () => false;
      blocker.proceed();
    } else {
      blocker.reset();
    }
  }, [blocker]);

  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!pending()) return;
      event.preventDefault();
      event.returnValue = "";
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    return () => window.removeEventListener("beforeunload", onBeforeUnload);
  }, []);

  return {
    onInputCapture: () => {
      changed.current = true;
    },
  };
}
