import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatDayLabel, formatShanghai, formatShanghaiSeconds, shanghaiDate, shanghaiPeriods } from "~/utils/shanghai-time";

/** Every `.ts`/`.tsx` file under a folder. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    return entry.isDirectory() ? sources(file) : /\.tsx?$/.test(entry.name) ? [file] : [];
  });
}

describe("the one clock (app/utils/shanghai-time.ts)", () => {
  it("shows an instant in Beijing time whatever the process's zone, with or without seconds", () => {
    // 16:30:07 UTC on new year's eve is half past midnight on new year's day in Beijing.
    const instant = "2026-12-31T16:30:07.000Z";
    expect(formatShanghai(instant)).toBe("2027-01-01 00:30");
    expect(formatShanghai(new Date(instant))).toBe("2027-01-01 00:30");
    expect(formatShanghaiSeconds(instant)).toBe("2027-01-01 00:30:07");
    expect(shanghaiDate(instant)).toBe("2027-01-01");
    expect(formatDayLabel(shanghaiDate(instant))).toBe("1月1日");
    expect(formatDayLabel("2026-12-31")).toBe("12月31日");
    // A database timestamp without a zone suffix from postgres.js arrives as a Date; a string with an offset is read as written.
    expect(formatShanghai("2026-06-01T08:00:00+08:00")).toBe("2026-06-01 08:00");
  });

  it("shows nothing for no time or an unreadable one, never 'Invalid Date' or 1970", () => {
    for (const value of [null, undefined, "", "不是时间"]) {
      expect(formatShanghai(value)).toBe("");
      expect(formatShanghaiSeconds(value)).toBe("");
      expect(shanghaiDate(value)).toBe("");
    }
  });

  it("is the only way the app formats a time for a person: no toLocale*String, Intl.DateTimeFormat or ISO slicing", () => {
    const root = path.resolve(import.meta.dirname, "../../app");
    const own = path.join(root, "utils", "shanghai-time.ts");
    const offenders: string[] = [];
    for (const file of sources(root)) {
      if (file === own) continue;
      fs.readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/toLocale(Date|Time)?String\(\s*"zh-CN"\s*,\s*\{[^}]*timeZone|toLocale(Date|Time)String\(|Intl\.DateTimeFormat|(createdAt|At|\.at)\.slice\(0, 1[06]\)/.test(line))
            offenders.push(`${path.relative(root, file)}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});

describe("shanghaiPeriods (the rankings' day, week and month, decision 222)", () => {
  it("starts weeks on Monday and months on the 1st, in China time", () => {
    // 23:30 on Sunday 29 November in China (15:30 UTC).
    expect(shanghaiPeriods(new Date("2026-11-29T15:30:00Z"))).toEqual({ day: "2026-11-29", week: "2026-11-23", month: "2026-11-01" });
    // 00:30 on Tuesday 1 December in China is still 30 November in UTC.
    expect(shanghaiPeriods(new Date("2026-11-30T16:30:00Z"))).toEqual({ day: "2026-12-01", week: "2026-11-30", month: "2026-12-01" });
    // A Monday is its own week's start.
    expect(shanghaiPeriods(new Date("2026-11-30T01:00:00Z")).week).toBe("2026-11-30");
  });
});
