/**
 * The frames of the database export with progress (/exports/database/progress): a type
 * byte, a 4-byte big-endian length, the payload. Written by databaseExportFrames on the
 * server and read by the admin page's DatabaseExport.
 */
export const FRAME_PROGRESS = 0x50; // "P": progress JSON (stage, label, detail, percent)
export const FRAME_DATA = 0x44; // "D": the zip's next bytes
export const FRAME_ERROR = 0x45; // "E": error JSON ({ message }); the last frame
