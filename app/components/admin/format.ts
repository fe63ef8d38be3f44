/** The site's clock: times are shown in China Standard Time wherever the server runs. */
export const SITE_TIME_ZONE = "Asia/Shanghai";

const dateTimeFormat = new Intl.DateTimeFormat("sv-SE", {
  timeZone: SITE_TIME_ZONE,
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  hour12: false,
});

/** "2024-05-01 08:30:00" in Asia/Shanghai; "" for no date. Same text on server and client. */
export function formatDateTime(value: Date | string | null | undefined): string {
  if (!value) return "";
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return dateTimeFormat.format(date);
}
