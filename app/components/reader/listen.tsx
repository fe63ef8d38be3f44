import { useCallback, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router";
import { chineseVoices, chunkForSpeech, parseRate, pickVoice, SLEEP_TIMERS, SPEECH_RATES, type SleepTimer } from "./listen-speech";
import { saveReadingPosition } from "./save-progress";

/** The chapter's text as the reader has loaded it so far. */
export interface ListenText {
  /** The index of paragraphs[0] in the chapter. */
  start: number;
  paragraphs: string[];
  /** More of the chapter is still to load after these. */
  more: boolean;
  /** The last batch asked for did not arrive (the reader shows 重试). */
  loadFailed: boolean;
  loadMore: () => void;
}

type Status = "stopped" | "playing" | "paused";

const VOICE_KEY = "inkstone:listen-voice";
const RATE_KEY = "inkstone:listen-rate";
/** One chapter hands 听书 on to the next through this (read once, within 30 s). */
const CONTINUE_KEY = "inkstone:listen-continue";
const CURRENT = "listen-current";

function supported(): boolean {
  return typeof window !== "undefined" && "speechSynthesis" in window && typeof window.SpeechSynthesisUtterance === "function";
}

function stored(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function store(key: string, value: string) {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // private mode: the choice lasts this page
  }
}

interface Handoff {
  workId: number;
  order: number;
  at: number;
  timer: SleepTimer;
  /** When a minutes timer ends (epoch ms). */
  until: number | null;
}

/** What the previous chapter's 听书 handed to this one, if anything (and forgets it). */
function takeContinue(workId: number, order: number): Handoff | null {
  try {
    const raw = window.sessionStorage.getItem(CONTINUE_KEY);
    window.sessionStorage.removeItem(CONTINUE_KEY);
    const asked = raw ? (JSON.parse(raw) as Partial<Handoff>) : null;
    if (!asked || asked.workId !== workId || asked.order !== order || Date.now() - (asked.at ?? 0) > 30_000) return null;
    return asked as Handoff;
  } catch {
    return null;
  }
}

/**
 * 听书 (docs/decisions/238): the browser's speech synthesis reads the chapter paragraph by
 * paragraph from the one in view, the paragraph being read marked and kept in view, its
 * position saved as it goes; at the chapter's end the next chapter opens and goes on when
 * the reader may read it. Shown only after hydration in a browser that can speak.
 */
export function Listen({
  workId,
  chapter,
  next,
  saveProgress,
  text,
  firstInView,
  onListening,
}: {
  workId: number;
  chapter: { id: number; order: number };
  next: number | null;
  saveProgress: boolean;
  text: ListenText;
  /** The paragraph at the top of the window (where reading starts). */
  firstInView: () => number | null;
  /** Told when reading aloud starts and stops (the scroll position is not saved meanwhile). */
  onListening: (on: boolean) => void;
}) {
  const [available, setAvailable] = useState(false);
  const [open, setOpen] = useState(false);
  const [status, setStatus] = useState<Status>("stopped");
  const [message, setMessage] = useState("");
  const [rate, setRate] = useState(1);
  const [voices, setVoices] = useState<SpeechSynthesisVoice[]>([]);
  const [voiceURI, setVoiceURI] = useState<string | null>(null);
  const [timer, setTimer] = useState<SleepTimer>("off");
  const navigate = useNavigate();

  // What the speaking callbacks read: always the latest, never a stale closure.
  const live = useRef({ text, rate, voice: null as SpeechSynthesisVoice | null, timer, next, saveProgress });
  live.current = { text, rate, voice: pickVoice(voices, voiceURI), timer, next, saveProgress };
  /** Where reading is: the paragraph and the piece of it. */
  const at = useRef({ index: 0, chunk: 0 });
  /** Bumped by every stop, pause and restart: callbacks of an older run do nothing. */
  const run = useRef(0);
  /** Waiting for the next batch of paragraphs to load before going on. */
  const waiting = useRef(false);
  const sleepTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const sleepUntil = useRef<number | null>(null);

  const mark = useCallback((index: number | null) => {
    document.querySelectorAll(`.${CURRENT}`).forEach((p) => p.classList.remove(CURRENT));
    if (index === null) return;
    const p = document.getElementById(`p-${index}`);
    if (!p) return;
    p.classList.add(CURRENT);
    const box = p.getBoundingClientRect();
    const bar = document.querySelector(".listen-bar")?.getBoundingClientRect().height ?? 0;
    if (box.top < 0 || box.bottom > window.innerHeight - bar) p.scrollIntoView({ block: "center" });
  }, []);

  const halt = useCallback(
    (status: Status, note = "") => {
      run.current += 1;
      waiting.current = false;
      window.speechSynthesis.cancel();
      setStatus(status);
      setMessage(note);
      if (status === "stopped") {
        mark(null);
        if (sleepTimer.current) clearTimeout(sleepTimer.current);
        sleepTimer.current = null;
        sleepUntil.current = null;
        setTimer("off");
      }
      onListening(false);
    },
    [mark, onListening],
  );

  const chapterEnd = useCallback(async () => {
    const { next, timer } = live.current;
    if (timer === "chapter") return halt("stopped", "本章已读完，定时关闭");
    if (next === null) return halt("stopped", "已是最后一章");
    const mine = run.current;
    // The same gate as the page: a chapter the reader may not read answers with a refusal.
    // null: it may be read; else why not (a locked chapter's refusal speaks of 购买).
    const refusal = await fetch(`/works/${workId}/paragraphs?chapter=${next}&from=0`, { headers: { Accept: "application/json" } })
      .then(async (response) => {
        if (response.ok) return null;
        const error = ((await response.json().catch(() => null)) as { error?: unknown } | null)?.error;
        return typeof error === "string" && !error.includes("购买") ? error : "下一章需要购买";
      })
      .catch(() => "下一章加载失败，请检查网络");
    if (mine !== run.current) return;
    if (refusal !== null) return halt("stopped", refusal);
    try {
      const handoff: Handoff = { workId, order: next, at: Date.now(), timer, until: sleepUntil.current };
      window.sessionStorage.setItem(CONTINUE_KEY, JSON.stringify(handoff));
    } catch {
      return halt("stopped");
    }
    run.current += 1;
    navigate(`/works/${workId}?chapter=${next}`);
  }, [halt, navigate, workId]);

  /** Says the piece of text `at` points to, then the next; loads more text as needed. */
  const speak = useCallback(() => {
    const mine = run.current;
    const { text } = live.current;
    const { index, chunk } = at.current;
    const local = index - text.start;
    if (local >= text.paragraphs.length) {
      if (text.more) {
        waiting.current = true;
        text.loadMore();
      } else {
        void chapterEnd();
      }
      return;
    }
    const pieces = chunkForSpeech(text.paragraphs[local] ?? "");
    if (chunk >= pieces.length) {
      at.current = { index: index + 1, chunk: 0 };
      return speak();
    }
    if (chunk === 0) {
      mark(index);
      if (live.current.saveProgress) saveReadingPosition(workId, chapter, index);
    }
    const utterance = new SpeechSynthesisUtterance(pieces[chunk]);
    const { rate, voice } = live.current;
    utterance.lang = voice?.lang ?? "zh-CN";
    if (voice) utterance.voice = voice;
    utterance.rate = rate;
    utterance.onend = () => {
      if (mine !== run.current) return;
      at.current = { index, chunk: chunk + 1 };
      speak();
    };
    utterance.onerror = (event) => {
      if (mine !== run.current || event.error === "interrupted" || event.error === "canceled") return;
      halt("stopped", "朗读出错，已停止");
    };
    window.speechSynthesis.speak(utterance);
  }, [chapter, chapterEnd, halt, mark, workId]);

  // A batch loaded while waiting for it: go on; it failed: stop where it is.
  useEffect(() => {
    if (!waiting.current) return;
    if (text.loadFailed) return halt("stopped", "后文加载失败，请重试");
    if (text.start + text.paragraphs.length <= at.current.index) return;
    waiting.current = false;
    speak();
  }, [text.start, text.paragraphs.length, text.loadFailed, speak, halt]);

  const play = useCallback(
    (from: number) => {
      run.current += 1;
      window.speechSynthesis.cancel();
      at.current = { index: from, chunk: 0 };
      setStatus("playing");
      setMessage("");
      onListening(true);
      speak();
    },
    [onListening, speak],
  );

  /** A new speed or voice is heard at once: the current piece again. */
  const restart = useCallback(() => {
    if (status !== "playing") return;
    run.current += 1;
    window.speechSynthesis.cancel();
    speak();
  }, [speak, status]);
  const restartAfterRender = useRef(false);
  useEffect(() => {
    if (!restartAfterRender.current) return;
    restartAfterRender.current = false;
    restart();
  }, [rate, voiceURI, restart]);

  useEffect(() => {
    if (!supported()) return;
    setAvailable(true);
    const synth = window.speechSynthesis;
    const load = () => setVoices(chineseVoices(synth.getVoices()));
    const [rate, voiceURI, voices] = [parseRate(stored(RATE_KEY)), stored(VOICE_KEY), chineseVoices(synth.getVoices())];
    setRate(rate);
    setVoiceURI(voiceURI);
    setVoices(voices);
    // Before the render these bring: reading may start right below.
    live.current.rate = rate;
    live.current.voice = pickVoice(voices, voiceURI);
    synth.addEventListener?.("voiceschanged", load);
    // Opened by the previous chapter's 听书: go on from the top.
    const handoff = takeContinue(workId, chapter.order);
    if (handoff) {
      setOpen(true);
      if (handoff.timer !== "off") startTimer(handoff.timer, handoff.until);
      play(live.current.text.start);
    }
    return () => {
      synth.removeEventListener?.("voiceschanged", load);
      run.current += 1;
      synth.cancel();
      if (sleepTimer.current) clearTimeout(sleepTimer.current);
    };
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  /** 定时关闭: minutes from now (or until a deadline carried from the previous chapter), or at the chapter's end. */
  function startTimer(value: SleepTimer, until: number | null = null) {
    setTimer(value);
    live.current.timer = value;
    if (sleepTimer.current) clearTimeout(sleepTimer.current);
    sleepTimer.current = null;
    sleepUntil.current = null;
    if (value === "off" || value === "chapter") return;
    sleepUntil.current = until ?? Date.now() + Number(value) * 60_000;
    sleepTimer.current = setTimeout(() => halt("stopped", "定时已到，已停止朗读"), Math.max(0, sleepUntil.current - Date.now()));
  }

  if (!available) return null;

  const onPlay = () => {
    if (status === "playing") return halt("paused", "已暂停");
    if (status === "paused") return play(at.current.index);
    const { text } = live.current;
    play(Math.max(text.start, firstInView() ?? text.start));
  };

  const current = pickVoice(voices, voiceURI);

  return (
    <>
      <button type="button" className="btn btn-small" aria-expanded={open} aria-controls="listen-bar" onClick={() => setOpen(!open)}>
        听书
      </button>
      {open ? (
        <section id="listen-bar" className="listen-bar" aria-label="听书">
          <div className="listen-row">
            <button type="button" className="btn btn-primary" onClick={onPlay}>
              {status === "playing" ? "暂停" : status === "paused" ? "继续" : "播放"}
            </button>
            <button type="button" className="btn" disabled={status === "stopped"} onClick={() => halt("stopped")}>
              停止
            </button>
            <button
              type="button"
              className="btn"
              onClick={() => {
                halt("stopped");
                setOpen(false);
              }}
            >
              收起
            </button>
          </div>
          <div className="listen-row">
            <label className="listen-field">
              语速
              <select
                value={String(rate)}
                onChange={(event) => {
                  const value = parseRate(event.target.value);
                  store(RATE_KEY, String(value));
                  restartAfterRender.current = true;
                  setRate(value);
                }}
              >
                {SPEECH_RATES.map((r) => (
                  <option key={r} value={String(r)}>
                    {r}×
                  </option>
                ))}
              </select>
            </label>
            <label className="listen-field">
              定时关闭
              <select value={timer} onChange={(event) => startTimer(event.target.value as SleepTimer)}>
                {SLEEP_TIMERS.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </select>
            </label>
            {voices.length > 0 ? (
              <label className="listen-field">
                声音
                <select
                  value={current?.voiceURI ?? ""}
                  onChange={(event) => {
                    store(VOICE_KEY, event.target.value);
                    restartAfterRender.current = true;
                    setVoiceURI(event.target.value);
                  }}
                >
                  {voices.map((v) => (
                    <option key={v.voiceURI} value={v.voiceURI}>
                      {v.name}
                    </option>
                  ))}
                </select>
              </label>
            ) : (
              <span className="hint">未找到中文语音</span>
            )}
          </div>
          <p className="listen-status hint" role="status">
            {message}
          </p>
        </section>
      ) : null}
    </>
  );
}
