/** A command line the admin CLI refuses: exit 2, the message and the usage text on stderr. */
export class UsageError extends Error {}

/** A zod error's messages, one after another. */
export const issues = (error: { issues: ReadonlyArray<{ message: string }> }): string =>
  error.issues.map((issue) => issue.message).join("; ");
