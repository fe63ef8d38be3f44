import { periodicJob } from "~/server/platform/job-runner.server";
import { payAttendanceBonuses } from "~/server/economy/attendance.server";

/**
 * 全勤奖 (decision 236): every process asks at start and hourly whether the month just ended
 * (China time) has bonuses to pay; each author's month is paid once whoever asks
 * (payAttendanceBonuses in app/server/economy/attendance.server.ts).
 */
const ATTENDANCE_POLL_MS = 60 * 60_000;

export const attendanceJob = periodicJob({
  name: "attendance",
  failure: "paying 全勤奖 failed",
  everyMs: () => Number(process.env.ATTENDANCE_POLL_INTERVAL_MS) || ATTENDANCE_POLL_MS,
  run: () => payAttendanceBonuses(),
  atStart: true,
  whenBusy: "skip",
});
