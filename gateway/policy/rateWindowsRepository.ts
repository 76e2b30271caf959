/** Per-app request counters in fixed windows, kept in the database so every process counts the same (design §6). */
export interface RateWindowsRepository {
  /**
   * Counts one request of `appId` in the window that starts at `windowStart` and returns the window's count with
   * this one; the app's earlier windows are dropped on the way.
   */
  hit(appId: string, windowStart: Date): Promise<number>;
}
