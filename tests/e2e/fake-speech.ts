import type { Page } from "@playwright/test";

/**
 * 听书 (docs/decisions/238). Headless Chromium has speechSynthesis but no voices and says
 * nothing, so each page gets a FAKE of the browser's speech engine before any script runs:
 * `speechSynthesis` and `SpeechSynthesisUtterance` replaced by a scripted engine that
 * records every utterance (text, rate, voice) and ends the one it is saying when the test
 * calls `__speech.finish()` (a short delay later, as a real engine fires `end`). It offers
 * one Chinese and one English voice. Everything else (the page, its saves, the navigation
 * to the next chapter) is the real site.
 */
export function fakeSpeechEngine() {
  type Utterance = { text: string; rate: number; lang: string; voice: { name: string } | null; onend: (() => void) | null; onerror: ((e: { error: string }) => void) | null };
  const spoken: { text: string; rate: number; voice: string | null }[] = [];
  const queue: Utterance[] = [];
  let current: Utterance | null = null;
  const voices = [
    { voiceURI: "fake-zh", name: "测试普通话", lang: "zh-CN", localService: true, default: false },
    { voiceURI: "fake-en", name: "Test English", lang: "en-US", localService: true, default: true },
  ];
  const next = () => {
    current = queue.shift() ?? null;
    if (current) spoken.push({ text: current.text, rate: current.rate, voice: current.voice?.name ?? null });
  };
  const engine = {
    get speaking() {
      return current !== null;
    },
    pending: false,
    paused: false,
    getVoices: () => voices,
    speak(u: Utterance) {
      queue.push(u);
      if (!current) next();
    },
    cancel() {
      queue.length = 0;
      const was = current;
      current = null;
      was?.onerror?.({ error: "interrupted" });
    },
    pause() {},
    resume() {},
    addEventListener() {},
    removeEventListener() {},
  };
  class FakeUtterance {
    text: string;
    rate = 1;
    lang = "";
    voice: { name: string } | null = null;
    onend: (() => void) | null = null;
    onerror: ((e: { error: string }) => void) | null = null;
    constructor(text: string) {
      this.text = text;
    }
  }
  Object.defineProperty(window, "speechSynthesis", { value: engine, configurable: true });
  Object.defineProperty(window, "SpeechSynthesisUtterance", { value: FakeUtterance, configurable: true });
  Object.defineProperty(window, "__speech", {
    value: {
      spoken,
      /** Ends the utterance being said, as the engine would a moment later. */
      finish() {
        const done = current;
        if (!done) return false;
        setTimeout(() => {
          if (current !== done) return;
          next();
          done.onend?.();
        }, 20);
        return true;
      },
    },
  });
}

/** Ends the utterance being said (false: nothing was being said). */
export const finishUtterance = (page: Page) => page.evaluate(() => (window as unknown as { __speech: { finish(): boolean } }).__speech.finish());
