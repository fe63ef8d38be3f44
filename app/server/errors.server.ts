import { data } from "react-router";

/** A failure the user should read, with the HTTP status it deserves. */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 = 400,
    readonly field?: string,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

/** For loaders: turn a DomainError into a thrown response the error boundary renders. */
export function asRouteError(error: unknown): never {
  if (error instanceof DomainError) throw data(error.message, { status: error.status });
  throw error;
}
