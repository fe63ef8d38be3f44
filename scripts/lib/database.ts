// The database for a command-line script. With PGlite the script must be the only process
// on the data directory: when the server (or another script) holds it, the script says
// so in one message, without a stack trace, and exits 3 (docs/decisions/075).
type Client = typeof import("~/db/client.server");

export async function openDatabase(): Promise<Client> {
  try {
    return await import("~/db/client.server");
  } catch (error) {
    if ((error as { code?: string })?.code === "EDATADIRLOCKED") {
      console.error((error as Error).message);
      process.exit(3);
    }
    throw error;
  }
}
