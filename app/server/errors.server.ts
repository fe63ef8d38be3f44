import { data } from "react-router";

/**
 * A failure the user should read, with the HTTP status it deserves: the one family every
 * error a user can cause (or an upstream service's refusal the user must be told about)
 * extends (docs/architecture.md#forms-and-errors). Anything else is unexpected and goes
 * to entry.server's handleError.
 */
export class DomainError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 413 | 422 | 429 | 502 | 503 | 504 = 400,
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

/** A loader's work, with a DomainError it throws rendered as its 4xx page (asRouteError). */
export async function orRouteError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    asRouteError(error);
  }
}

/**
 * The one place an action turns a DomainError into its answer: what `work` returns, or,
 * for a DomainError it throws, `reply(error)` with the error's status (a form reply the
 * page shows by its fields). Anything else propagates to entry.server's handleError: a
 * route does not catch what it cannot explain.
 */
export async function replyOnDomainError<T, R>(work: () => Promise<T>, reply: (error: DomainError) => R | Promise<R>) {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DomainError) return data(await reply(error), { status: error.status });
    throw error;
  }
}

/** A DomainError as a Conform reply's errors: on its field when it names one, else the form's. */
export function formErrorsOf(error: DomainError): { formErrors?: string[]; fieldErrors?: Record<string, string[]> } {
  return error.field ? { fieldErrors: { [error.field]: [error.message] } } : { formErrors: [error.message] };
}
