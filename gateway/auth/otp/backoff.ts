/**
 * Wait a phone must keep after its `failures`-th wrong code since its last success: `base · 2^(failures−1)`
 * seconds, at most `max`. The count is per phone and carried from code to code, so wrong guesses slow the phone
 * down instead of destroying its code: the real user, who has the code, gets in once the wait has passed.
 *
 * Why this bounds brute force (defaults base 1 s, max 60 s, codes living 300 s): the waits run 1, 2, 4, … 32, then
 * 60 s, so the first 7 tries cost 63 s and every later one a minute. One code's lifetime therefore admits at most
 * 7 + ⌈(300 − 63) / 60⌉ = 11 tries, a chance of 11 in 10^6 of hitting it; even a code living the longest
 * OTP_TTL_SECONDS (3600 s) admits 66. No number of addresses or fresh codes raises the rate above one try a
 * minute (1440 a day, 0.14 % of the 10^6 codes), so covering half of them takes about a year of the phone's
 * owner ignoring unrequested codes.
 */
export function backoffSeconds(failures: number, base: number, max: number): number {
  if (failures <= 0) return 0;
  // 2^30 already exceeds any allowed max (3600); avoids Infinity for long-running counts.
  return Math.min(base * 2 ** Math.min(failures - 1, 30), max);
}
