/** An operator action as recorded: who (the console session's label, or `cli`), when, what, on what, how it ended. */
export interface OperatorActionRecord {
  readonly at: string;
  readonly who: string;
  readonly action: string;
  readonly target: string;
  readonly detail: string | undefined;
  readonly result: string;
}

/** An open console session: the label of whoever opened it, and when it ends. */
export interface ConsoleSession {
  readonly label: string;
  readonly expiresAt: string;
}

/**
 * The console's own records (issue 38), in the database so every instance honours them: one-time login links and
 * sessions, each by the SHA-256 of its secret (a copy of the database opens nothing), and the operators' actions.
 */
export interface ConsoleRepository {
  /** Stores a one-time link by its hash. */
  createLink(link: { readonly tokenHash: string; readonly label: string; readonly expiresAt: Date }): Promise<void>;
  /** Uses a link: its label if it exists, was never used and has not expired at `now`; marked used in the same write. */
  useLink(tokenHash: string, now: Date): Promise<string | undefined>;
  /** Stores a new session by the hash of its id. */
  openSession(session: { readonly idHash: string; readonly label: string; readonly expiresAt: Date }): Promise<void>;
  /** The session with that id hash, if it has not expired at `now`. */
  findSession(idHash: string, now: Date): Promise<ConsoleSession | undefined>;
  /** Ends a session (logout). */
  closeSession(idHash: string): Promise<void>;
  /** Ends every session and unused link (a leak answered); returns how many sessions were open. */
  closeAllSessions(now: Date): Promise<number>;
  /** Records an operator action. */
  recordAction(entry: OperatorActionRecord): Promise<void>;
  /** The newest actions first; of one action only if `action` is given. */
  recentActions(limit: number, action?: string): Promise<OperatorActionRecord[]>;
}
