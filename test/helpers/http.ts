/** POSTs `body` as JSON (with a bearer token when given) and returns the status and the parsed answer. */
export async function postJson(url: string, body: unknown, bearer?: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
