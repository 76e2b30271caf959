/** The revert data of a call expected to fail; throws if it did not revert. */
export async function revertData(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return (error as { data: string }).data;
  }
  throw new Error("call did not revert");
}
