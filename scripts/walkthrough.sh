# The README walkthrough's helpers ("Five minutes with it"), sourced by its subshell at the project's root (bash, zsh).
# Each failure says which step failed, what the service answered and what to do, and fails (the walkthrough's
# `set -e` then stops it); nothing here exits the shell that sources it.

if [ -z "${CLIENT_ID:-}" ] || [ -z "${CLIENT_SECRET:-}" ]; then
  echo "set CLIENT_ID and CLIENT_SECRET to what npm start printed" >&2
  return 1
fi
API=${API:-http://127.0.0.1:3000} RPC=${RPC:-http://127.0.0.1:8545} DATA_DIR=${DATA_DIR:-data} STEP=0
OUTBOX=$DATA_DIR/sms-outbox.jsonl
NO_OUTBOX="step 2 needs the SMS outbox $OUTBOX, which is missing: set DATA_DIR to npm start's (its banner says)"
# Before any request: a wrong DATA_DIR would otherwise cost a login code, and the next run a resend cooldown.
if [ ! -d "$DATA_DIR" ]; then
  echo "$NO_OUTBOX" >&2
  return 1
fi

# call METHOD PATH [curl options]: the answer's body; on an error answer, its problem (code, detail and, with a
# Retry-After, how long to wait) on stderr, and a failure.
call() {
  local answer code
  answer=$(curl -sS -w '\n%{http_code}' -X "$1" "$API$2" "${@:3}") || {
    echo "step $STEP failed: no answer from $API: is npm start running?" >&2
    return 1
  }
  code=${answer##*$'\n'} answer=${answer%$'\n'*}
  if [ "$code" -lt 400 ]; then
    printf '%s\n' "$answer"
    return 0
  fi
  PROBLEM=$answer node -e '
    let problem = {};
    try { problem = JSON.parse(process.env.PROBLEM); } catch {}
    const { code = "", detail = problem.title ?? process.env.PROBLEM, retryAfter } = problem;
    console.error(`${process.argv[1]} ${code}: ${detail}`);
    if (retryAfter) console.error(`Wait ${retryAfter} s (its Retry-After), then run the walkthrough again.`);' \
    "step $STEP failed: $1 $2 answered $code" >&2
  return 1
}

# json .field: the field of the JSON text on its input; no input fails quietly (whoever failed before said why).
json() {
  node -e "const text = require('fs').readFileSync(0, 'utf8'); if (!text.trim()) process.exit(1);
    console.log(JSON.parse(text)$1)"
}

# The login code of the outbox's newest message (the local stack's SMS provider appends one JSON line per message).
sms_code() {
  if [ ! -f "$OUTBOX" ]; then
    echo "$NO_OUTBOX" >&2
    return 1
  fi
  tail -1 "$OUTBOX" | json '.text.match(/\d{6}/)[0]'
}

# Passes a transaction record through, failing unless it was included.
included() {
  local record
  record=$(cat)
  printf '%s\n' "$record"
  if [ "$(printf '%s' "$record" | json .status)" != included ]; then
    echo "step $STEP failed: the batch was not included (its record above says why)" >&2
    return 1
  fi
}
