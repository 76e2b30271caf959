/** One step of a chain's worker: true if it did something (the loop steps again at once). */
export interface Stepper {
  tick(): Promise<boolean>;
  /** Releases what the stepper holds (connections, work started ahead), after its last step. */
  close?(): void | Promise<void>;
}
